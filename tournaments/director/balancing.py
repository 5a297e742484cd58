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

    def plan(self, tables: Sequence[TableSeats], final_redrawn: bool = False) -> BalancePlan:
        """Every move due now: break what can be broken, then balance (T-10).

        `final_redrawn` says the final table was already drawn (pass True for a tournament
        that started on a single table); otherwise, once one table is left, its seats are
        redrawn at its first hand boundary.
        """
        work = {table.table_id: table for table in tables if table.seats or table.in_hand}
        moves: list[SeatMove] = []
        waiting: set[int] = set()
        broken = [t.table_id for t in tables if not t.seats and not t.in_hand]
        broken += self._break_tables(work, moves, waiting)
        moves = compose_moves(moves)
        final_table = final_button = None
        if len(work) == 1 and self.settings.final_table_redraw and not final_redrawn:
            (table,) = work.values()
            if table.in_hand:
                waiting.add(table.table_id)
            else:
                final_table = table.table_id
                final_button, moves = self._redraw(table, moves)
        elif len(work) > 1:
            self._balance(work, moves, waiting)
            moves = compose_moves(moves)
        return BalancePlan(
            tuple(moves), tuple(broken), final_table, final_button, tuple(sorted(waiting))
        )

    def _break_tables(
        self, work: dict[int, TableSeats], moves: list[SeatMove], waiting: set[int]
    ) -> list[int]:
        """Break the smallest table while its players fit elsewhere, reseating at random."""
        broken: list[int] = []
        while len(work) > 1:
            total = sum(table.count for table in work.values())
            seats = max(table.max_seats for table in work.values())
            if len(work) <= -(-total // seats):
                break
            smallest = min(table.count for table in work.values())
            ready = [t for t in work.values() if t.count == smallest and not t.in_hand]
            if not ready:
                waiting.update(t.table_id for t in work.values() if t.count == smallest)
                break
            victim = max(ready, key=lambda table: table.table_id)  # keep the low table ids
            placed = self._scatter(victim, {k: v for k, v in work.items() if k != victim.table_id})
            if placed is None:
                break
            others, new_moves = placed
            work.clear()
            work.update(others)
            moves.extend(new_moves)
            broken.append(victim.table_id)
        return broken

    def _scatter(
        self, victim: TableSeats, others: dict[int, TableSeats]
    ) -> tuple[dict[int, TableSeats], list[SeatMove]] | None:
        """Reseat a broken table's players at random on the shortest tables, or None."""
        players = sorted(victim.seats.items())
        self.rng.shuffle(players)
        moves = []
        for seat, entry in players:
            open_tables = [t for t in others.values() if allowed_seats(t)]
            if not open_tables:
                return None
            fewest = min(t.count for t in open_tables)
            target = self.rng.choice(
                sorted((t for t in open_tables if t.count == fewest), key=lambda t: t.table_id)
            )
            to_seat = self.rng.choice(allowed_seats(target))
            others[target.table_id] = seat_player(target, to_seat, entry)
            moves.append(
                SeatMove(entry, victim.table_id, seat, target.table_id, to_seat, MoveReason.BREAK)
            )
        return others, moves

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
        self, work: dict[int, TableSeats], moves: list[SeatMove], waiting: set[int]
    ) -> None:
        """Move next big blinds from long tables to short ones until within the tolerance."""
        stuck: set[int] = set()
        while True:
            shortest = min(table.count for table in work.values())
            long_tables = [t for t in work.values() if t.count - shortest > self.settings.tolerance]
            waiting.update(t.table_id for t in long_tables if t.in_hand)
            sources = sorted(
                (t for t in long_tables if not t.in_hand and t.table_id not in stuck),
                key=lambda t: (-t.count, t.table_id),
            )
            if not sources:
                return
            source = sources[0]
            move = self._one_move(source, list(work.values()))
            if move is None:
                stuck.add(source.table_id)
                continue
            target = work[move.to_table]
            work[source.table_id] = unseat_player(source, move.from_seat)
            work[target.table_id] = seat_player(target, move.to_seat, move.entry)
            moves.append(move)

    def _one_move(self, source: TableSeats, tables: list[TableSeats]) -> SeatMove | None:
        """The source's next big blind to the best seat of the shortest table that helps."""
        seat = next_big_blind_seat(source)
        targets = sorted(
            (
                t
                for t in tables
                if t.table_id != source.table_id
                and source.count - t.count >= 2
                and allowed_seats(t)
            ),
            key=lambda t: (t.count, t.table_id),
        )
        if not targets:
            return None
        target = targets[0]
        to_seat = same_position_seat(target, hands_until_big_blind(source, seat))
        entry = source.seats[seat]
        return SeatMove(entry, source.table_id, seat, target.table_id, to_seat, MoveReason.BALANCE)


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
    """T-10: the allowed seat nearest the mover's distance to the big blind, the worse first."""
    choices = allowed_seats(table)
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
