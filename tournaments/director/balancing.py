"""Breaking and balancing tables, and the final-table redraw (T-10).

`TableBalancer.plan` looks at every table and decides who moves where. It never takes a
player from a table whose hand is running (that table is listed in `waiting_for` and is
looked at again when its hand ends); a player may be seated in an empty seat of a table
in a hand, and is dealt in from that table's next hand. The actor applies a plan at hand
boundaries, and calls `plan` again whenever a table finishes a hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from tournaments.director.rng import Rng
from tournaments.director.seating import (
    TableSeats,
    allowed_seats,
    hands_until_big_blind,
    seat_player,
    unseat_player,
)


class MoveReason(StrEnum):
    """Why a player changes seat."""

    BALANCE = "balance"  # T-10: to even the tables, keeping the position to the blinds
    BREAK = "break"  # T-10: the table was broken; reseated at random
    FINAL_REDRAW = "final_redraw"  # new random seats at the final table
    STAFF = "staff"  # the floor moved the player (docs/ADMIN.md), keeping the position


@dataclass(frozen=True, slots=True)
class SeatMove:
    """Move `entry` from one seat to another; takes effect at the tables' hand boundaries."""

    entry: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: MoveReason


@dataclass(frozen=True, slots=True)
class BalancePlan:
    """The moves to apply, the tables broken, the final redraw, the tables waited for."""

    moves: tuple[SeatMove, ...] = ()
    broken_tables: tuple[int, ...] = ()
    final_table: int | None = None  # set when this plan redraws the final table
    final_button: int | None = None  # the redrawn table's first button seat
    waiting_for: tuple[int, ...] = ()  # tables in a hand that the plan could not touch yet


@dataclass(frozen=True, slots=True)
class BalanceSettings:
    """Balancing settings; `tolerance` is the largest difference allowed between tables."""

    tolerance: int = 1
    final_table_redraw: bool = True


class TableBalancer:
    """Decides breaks, balancing moves and the final redraw; the RNG is passed in (T-10)."""

    def __init__(self, rng: Rng, settings: BalanceSettings = BalanceSettings()) -> None:
        self.rng = rng
        self.settings = settings
        self._seats = 0  # the largest table size in the plan being made

    def plan(
        self,
        tables: Sequence[TableSeats],
        final_redrawn: bool = False,
        tables_in_play: int | None = None,
    ) -> BalancePlan:
        """Every move due now: break what can be broken, then balance (T-10).

        `final_redrawn` says the final table was already drawn (pass True for a tournament
        that started on a single table); otherwise, once one table is left, its seats are
        redrawn at its first hand boundary. An actor that passes only some of the tables
        (the one that finished a hand and the shortest) passes `tables_in_play`, the
        tournament's table count, so that no redraw is planned while others still play.
        """
        work: dict[int, TableSeats] = {}
        counts: dict[int, int] = {}
        broken: list[int] = []
        self._seats = 0
        for table in tables:  # one pass over every table; the rest looks at few of them
            self._seats = max(self._seats, table.max_seats)
            if table.seats or table.in_hand:
                work[table.table_id] = table
                counts[table.table_id] = len(table.seats)
            else:
                broken.append(table.table_id)
        subset = tables_in_play is not None and tables_in_play > len(tables)
        if self._settled(work, counts, final_redrawn or subset):
            return BalancePlan(broken_tables=tuple(broken))
        moves: list[SeatMove] = []
        waiting: set[int] = set()
        broken += self._break_tables(work, counts, moves, waiting)
        moves = compose_moves(moves)
        final_table = final_button = None
        if len(work) == 1 and not subset and self.settings.final_table_redraw and not final_redrawn:
            (table,) = work.values()
            if table.in_hand:
                waiting.add(table.table_id)
            else:
                final_table = table.table_id
                final_button, moves = self._redraw(table, moves)
        elif len(work) > 1:
            self._balance(work, counts, moves, waiting)
            moves = compose_moves(moves)
        return BalancePlan(
            tuple(moves), tuple(broken), final_table, final_button, tuple(sorted(waiting))
        )

    def _settled(
        self, work: dict[int, TableSeats], counts: dict[int, int], final_redrawn: bool
    ) -> bool:
        """Fast path: nothing to break, balance or redraw (the usual case after a hand)."""
        if len(work) == 1:
            return final_redrawn or not self.settings.final_table_redraw
        if not work:
            return True
        return (
            len(work) <= self._tables_needed(counts)
            and max(counts.values()) - min(counts.values()) <= self.settings.tolerance
            and not lone_table_can_play(counts, self._seats)
        )

    def _tables_needed(self, counts: dict[int, int]) -> int:
        """How many tables the players need (tables of one size; the largest if mixed)."""
        return -(-sum(counts.values()) // self._seats)

    def _break_tables(
        self,
        work: dict[int, TableSeats],
        counts: dict[int, int],
        moves: list[SeatMove],
        waiting: set[int],
    ) -> list[int]:
        """Break the smallest table while its players fit elsewhere, reseating at random."""
        broken: list[int] = []
        while len(work) > 1 and len(work) > self._tables_needed(counts):
            smallest = min(counts.values())
            ready = [work[t] for t, c in counts.items() if c == smallest and not work[t].in_hand]
            if not ready:
                waiting.update(t for t, c in counts.items() if c == smallest)
                break
            victim = max(ready, key=lambda table: table.table_id)  # keep the low table ids
            fair = {}
            for tid, count in counts.items():
                if count < work[tid].max_seats and tid != victim.table_id:
                    open_seats = allowed_seats(work[tid])
                    if open_seats:
                        fair[tid] = open_seats
            if sum(len(open_seats) for open_seats in fair.values()) < len(victim.seats):
                others = [c for tid, c in counts.items() if tid != victim.table_id]
                if len(victim.seats) >= 2 and any(count >= 2 for count in others):
                    # Some would land in a small blind: wait for the blinds to move (both
                    # tables deal meanwhile); looked at again when a table with blinds ends
                    # its hand.
                    waiting.update(t for t, c in counts.items() if t != victim.table_id and c >= 2)
                    break
                # A table of one can never deal: it is broken now, never left to wait (its
                # player would sit out every hand). Or no other table can deal a hand, so its
                # blinds never move: waiting would stop the tournament. T-10 "where
                # possible": any empty seat will do.
                fair = {
                    tid: work[tid].open_seats()
                    for tid, count in counts.items()
                    if count < work[tid].max_seats and tid != victim.table_id
                }
                if sum(len(open_seats) for open_seats in fair.values()) < len(victim.seats):
                    break  # tables of mixed sizes: the players do not fit after all
            moves.extend(self._scatter(victim, work, counts, fair))
            del work[victim.table_id]
            del counts[victim.table_id]
            broken.append(victim.table_id)
        return broken

    def _scatter(
        self,
        victim: TableSeats,
        work: dict[int, TableSeats],
        counts: dict[int, int],
        fair: dict[int, list[int]],
    ) -> list[SeatMove]:
        """Reseat a broken table's players at random on the shortest tables with a fair seat.

        Seating a player never turns another empty seat into a small-blind seat, so the
        fair seats counted beforehand stay fair while the table is scattered.
        """
        players = sorted(victim.seats.items())
        self.rng.shuffle(players)
        moves = []
        for seat, entry in players:
            fewest = min(counts[tid] for tid in fair)
            tid = self.rng.choice(sorted(t for t in fair if counts[t] == fewest))
            to_seat = self.rng.choice(fair[tid])
            work[tid] = seat_player(work[tid], to_seat, entry)
            counts[tid] += 1
            fair[tid].remove(to_seat)
            if not fair[tid]:
                del fair[tid]
            moves.append(SeatMove(entry, victim.table_id, seat, tid, to_seat, MoveReason.BREAK))
        return moves

    def _redraw(self, table: TableSeats, moves: list[SeatMove]) -> tuple[int, list[SeatMove]]:
        """New random seats for everyone at the final table; earlier moves end there too."""
        origin = {move.entry: (move.from_table, move.from_seat) for move in moves}
        entries = sorted(table.seats.values())
        self.rng.shuffle(entries)
        new_seats = self.rng.sample(range(1, table.max_seats + 1), len(entries))
        redraw = []
        for entry, to_seat in zip(entries, new_seats, strict=True):
            from_table, from_seat = origin.get(entry, (table.table_id, table.seat_of(entry) or 0))
            redraw.append(
                SeatMove(
                    entry, from_table, from_seat, table.table_id, to_seat, MoveReason.FINAL_REDRAW
                )
            )
        return self.rng.choice(sorted(new_seats)), redraw

    def _balance(
        self,
        work: dict[int, TableSeats],
        counts: dict[int, int],
        moves: list[SeatMove],
        waiting: set[int],
    ) -> None:
        """Move next big blinds from long tables to short ones until within the tolerance."""
        stuck: set[int] = set()
        while True:
            shortest = min(counts.values())
            limit = shortest + self.settings.tolerance
            if shortest == 1:  # a table of one can never deal: filled whatever the tolerance
                limit = min(limit, 2)
            long_ids = [tid for tid, count in counts.items() if count > limit]
            waiting.update(tid for tid in long_ids if work[tid].in_hand)
            sources = [t for t in long_ids if not work[t].in_hand and t not in stuck]
            if not sources:
                return
            source = work[min(sources, key=lambda tid: (-counts[tid], tid))]
            move = self._one_move(source, work, counts)
            if move is None:
                stuck.add(source.table_id)
                continue
            work[source.table_id] = unseat_player(source, move.from_seat)
            work[move.to_table] = seat_player(work[move.to_table], move.to_seat, move.entry)
            counts[source.table_id] -= 1
            counts[move.to_table] += 1
            moves.append(move)

    def _one_move(
        self, source: TableSeats, work: dict[int, TableSeats], counts: dict[int, int]
    ) -> SeatMove | None:
        """The source's next big blind to the best seat of the shortest table that helps."""
        most = counts[source.table_id] - 2  # a target must end up no longer than the source
        shorter = sorted((c, tid) for tid, c in counts.items() if c <= most)
        target = next(
            (
                work[tid]
                for c, tid in shorter
                if allowed_seats(work[tid]) or (c == 1 and work[tid].open_seats())
            ),
            None,
        )  # a table of one takes a player in any empty seat rather than wait (T-10)
        if target is None:
            return None
        seat = next_big_blind_seat(source)
        to_seat = same_position_seat(target, hands_until_big_blind(source, seat))
        entry = source.seats[seat]
        return SeatMove(entry, source.table_id, seat, target.table_id, to_seat, MoveReason.BALANCE)


def lone_table_can_play(counts: dict[int, int], seats: int) -> bool:
    """A table holds one player (who cannot be dealt a hand) and a better arrangement exists:
    the players fit on fewer tables, or another table has a player to spare (T-10)."""
    if len(counts) < 2 or min(counts.values()) != 1:
        return False
    spare = max(counts.values()) >= 3
    return spare or len(counts) > -(-sum(counts.values()) // seats)


def compose_moves(moves: list[SeatMove]) -> list[SeatMove]:
    """One move per player: from the first seat to the last, in first-move order."""
    first: dict[str, SeatMove] = {}
    last: dict[str, SeatMove] = {}
    for move in moves:
        first.setdefault(move.entry, move)
        last[move.entry] = move
    composed = []
    for entry, start in first.items():
        end = last[entry]
        if (start.from_table, start.from_seat) != (end.to_table, end.to_seat):
            composed.append(replace(end, from_table=start.from_table, from_seat=start.from_seat))
    return composed


def next_big_blind_seat(table: TableSeats) -> int:
    """The seat of the player who would post the next big blind (lowest seat before any hand)."""
    ranked = sorted(table.seats, key=lambda seat: (hands_until_big_blind(table, seat) or 0, seat))
    return ranked[0]


def same_position_seat(table: TableSeats, hands_to_big_blind: int | None) -> int:
    """T-10: the allowed seat nearest the mover's distance to the big blind, the worse first
    (any empty seat when none is allowed: a table of one being filled)."""
    choices = allowed_seats(table) or table.open_seats()
    if hands_to_big_blind is None or table.big_blind is None:
        return choices[0]

    def distance(seat: int) -> tuple[int, int, int]:
        hands = hands_until_big_blind(table, seat) or 0
        return abs(hands - hands_to_big_blind), hands, seat

    return min(choices, key=distance)


def apply_plan(tables: Sequence[TableSeats], plan: BalancePlan) -> list[TableSeats]:
    """The tables after a plan: moves made, broken tables gone, a redrawn table's button set."""
    by_id = {table.table_id: table for table in tables}
    for move in plan.moves:
        source = by_id[move.from_table]
        if source.seats.get(move.from_seat) == move.entry:
            by_id[move.from_table] = unseat_player(source, move.from_seat)
    if plan.final_table is not None:
        final = by_id[plan.final_table]
        by_id[plan.final_table] = replace(final, seats={}, button=None, big_blind=None)
    for move in plan.moves:
        by_id[move.to_table] = seat_player(by_id[move.to_table], move.to_seat, move.entry)
    if plan.final_table is not None:
        by_id[plan.final_table] = replace(by_id[plan.final_table], button=plan.final_button)
    return [table for tid, table in sorted(by_id.items()) if tid not in plan.broken_tables]
