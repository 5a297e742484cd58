"""The tournament floor: every table of one tournament, the level clock, breaks, balancing.

It deals each table's hands at the level in force (`level_at`, a new level from the next hand
a table starts), rests tables during breaks (T-11: with synchronized breaks a table finishing
its hand late rests less, and every table resumes together), plays hand-for-hand on the bubble
(a table finishing its hand waits for the others; the round's knockouts are simultaneous,
T-9), and after each hand asks the director's `TableBalancer` for the moves, applied only to
tables between hands (T-10). Knockouts go to the actor through `on_knockouts`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import structlog
from twisted.internet.interfaces import IDelayedCall, IReactorTime

from pokerroom.table.views import TableListener
from tournaments.config import TournamentConfig
from tournaments.director.balancing import (
    BalancePlan,
    SeatMove,
    TableBalancer,
    lone_table_can_play,
)
from tournaments.director.eliminations import Knockout, hand_for_hand
from tournaments.director.rng import Rng
from tournaments.director.seating import draw_button, draw_seats, seat_newcomer
from tournaments.director.structure import (
    LevelStatus,
    disconnect_grace_seconds,
    level_at,
    table_break_window,
)
from tournaments.tables.floor_controls import FloorControls
from tournaments.tables.knockouts import HandResult
from tournaments.tables.presence import Presence
from tournaments.tables.sitout_log import SitOutLog
from tournaments.tables.table import TournamentTable
from tournaments.tables.timebank import TimeBanks


class Players:
    """What the floor tells the players' side (sessions, or bots); every method may be a no-op."""

    def turn(self, table: TournamentTable, entry: str) -> None:
        """`entry` is to act at `table` (C-6)."""

    def moved(self, move: SeatMove) -> None:
        """`entry` changes table or seat (T-10), announced to the moved player."""

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        """A hand ended at `table` (an observer hook: histories, tests)."""

    def finished(self, result: Any) -> None:
        """An entry finished (`actor.Result`: place, prize, busted by)."""

    def table_frames(self) -> TableListener | None:
        """Where the tables' protocol frames go (section 6 events); None: nowhere (bots)."""
        return None

    def hold_with(self, hold: Callable[..., None]) -> None:
        """Messages to clients go through `hold(send, *args)`: sent once every decision made
        before them is stored (persist, then tell). Players that tell nobody ignore it."""


def _nothing_kept(table: TournamentTable) -> AbstractContextManager[None]:
    return nullcontext()


class Floor(FloorControls):
    """Deals, rests, balances and breaks the tables of one tournament."""

    def __init__(
        self,
        config: TournamentConfig,
        clock: IReactorTime,
        rng: Rng,
        players: Players,
        on_knockouts: Callable[[list[Knockout]], None],
        paid_places: Callable[[], int],
        players_left: Callable[[], int],
    ) -> None:
        self.config = config
        self.structure = config.structure
        self.clock = clock
        self.rng = rng
        self.players = players
        self.on_knockouts = on_knockouts
        self.paid_places = paid_places
        self.players_left = players_left
        self.banks = TimeBanks(config.structure)
        self.sitouts = SitOutLog()  # T-12: the staff's report of players sitting out together
        self.presence = Presence(self.sitouts)  # T-12: follows the players from table to table
        self.balancer = TableBalancer(rng, config.balancing)
        self.tables: dict[int, TournamentTable] = {}
        self.next_table_id = 1
        self.hand_suffix = ""  # T-18: after a resume, the end of every hand id (new ids)
        self.started_at = 0.0
        self.paused_total = 0.0
        self.running = False
        self.final_redrawn = False
        self.hands = 0
        self.tables_max = 0
        self.balance_seconds = 0.0
        self.in_hand = 0
        self._scheduled: dict[int, IDelayedCall] = {}
        self._dirty = False
        self._waiting_for: frozenset[int] = frozenset()
        self._round: list[Knockout] = []
        self._round_call: IDelayedCall | None = None
        self._rounding = False  # a hand-for-hand round is being played
        self._status: LevelStatus | None = None
        self._status_until = 0.0
        #: Storage hooks (the actor's `Durable`; T-18): around each hand's end, the seats as
        #: drawn at the start, and a player sitting down between hands (a move, a late seat).
        self.keep: Callable[[TournamentTable], AbstractContextManager[None]] = _nothing_kept
        self.seated: Callable[[Sequence[TournamentTable]], None] = lambda tables: None
        self.sat: Callable[[TournamentTable, int, str, int], None] = lambda t, s, e, c: None
        #: T-14: the bounty on a player's head, which every table shows per seat (or None).
        self.bounty_of: Callable[[str], int | None] | None = None
        #: T-13: a deal is being made: no table starts a hand, the level clock stands still;
        #: `on_held` is called whenever a table would deal and no hand is running anywhere.
        self.held = False
        self.on_held: Callable[[], None] = lambda: None
        self._held_at = 0.0
        self.log = structlog.get_logger("tournaments.floor").bind(
            tournament_id=config.tournament_id
        )

    # ------------------------------------------------------------------ the clock

    def level(self) -> LevelStatus:
        """The level in force now (cached until the next level, break or break end)."""
        now = self.clock.seconds()
        if self.clock_held(
            now
        ):  # a staff pause or added time (tournaments/tables/floor_controls.py)
            return self.held_level(now)
        if self._status is None or now >= self._status_until:
            status = level_at(self.structure, self.started_at, now, self.paused_total)
            ends = [t for t in (status.ends_at, status.break_ends_at, status.next_break_at) if t]
            self._status = status
            self._status_until = min((t for t in ends if t > now), default=float("inf"))
        return self._status

    def _grace(self, entry: str) -> int:
        """T-12: extra seconds a disconnected player may get now (from the bubble on); the
        tournament's `Presence` grants them once per drop and per level."""
        left, paid = self.players_left(), self.paid_places()
        return disconnect_grace_seconds(self.structure, left, paid, used_this_level=False)

    def table_of(self, entry: str) -> TournamentTable | None:
        """The table `entry` sits at."""
        for table in self.tables.values():
            if entry in table.stacks:
                return table
        return None

    # ------------------------------------------------------------------ opening and closing

    def _new_table(self) -> TournamentTable:
        table = TournamentTable(
            self.config.tournament_id, self.next_table_id, self.config.max_seats, self.clock,
            self, self.rng, self.banks, self._grace,
            presence=self.presence, frames=self.players.table_frames(),
            keep=lambda table: self.keep(table),
        )  # fmt: skip
        table.bounty_of = self.bounty_of
        table.hand_suffix = self.hand_suffix
        self.tables[table.table_id] = table
        self.next_table_id += 1
        self.tables_max = max(self.tables_max, len(self.tables))
        return table

    def start(self, stacks: dict[str, int]) -> None:
        """T-1: seats drawn at random, a button drawn per table, every table deals."""
        self.started_at = self.clock.seconds()
        self._status = None  # a level read before the start is not the tournament's clock
        self.running = True
        for seats in draw_seats(sorted(stacks), self.config.max_seats, self.rng):
            table = self._new_table()
            for seat, entry in seats.seats.items():
                table.seat(entry, seat, stacks[entry])
            table.redraw(draw_button(seats, self.rng))
        self.final_redrawn = len(self.tables) == 1
        self.seated(list(self.tables.values()))
        for table in list(self.tables.values()):
            self._deal(table)

    def restore(
        self,
        tables: Mapping[int, Sequence[tuple[int, str, int]]],
        waiting: Sequence[tuple[str, int]],
        started_at: float,
        paused_total: float,
        deal_in: float,
        states: Mapping[int, tuple[int, str]] | None = None,
        resumes: int = 0,
    ) -> None:
        """T-18 resume: every player back at their stored seat with their stored stack, each
        table's hand count and button as stored with its last hand (`states`: table ->
        (hands, state); a button is drawn only at a table that never dealt), the players
        who had paid and were waiting for a seat seated as late entries; the tables deal in
        `deal_in` seconds, their hands with ids of the `resumes`-th resume."""
        self.started_at = started_at
        self.paused_total = paused_total
        self._status = None
        self.running = True
        self.hand_suffix = f"r{resumes}" if resumes else ""
        for table_id in sorted(tables):
            self.next_table_id = table_id
            table = self._new_table()
            for seat, entry, stack in tables[table_id]:
                table.seat(entry, seat, stack)
            hands, state = (states or {}).get(table_id, (0, ""))
            table.restore(hands, state, resumes)
            if table.seats and not state:
                table.redraw(draw_button(table.seats_view(), self.rng))
        self.next_table_id = max(tables, default=0) + 1
        self.final_redrawn = len(self.tables) == 1
        self._dirty = True  # tables left short by the crash are balanced at the first hands
        for entry, stack in waiting:
            self.seat_newcomer(entry, stack, balance=False)
        for table in list(self.tables.values()):
            if table.table_id not in self._scheduled:
                self._schedule(table, deal_in)

    def hold(self) -> None:
        """T-13: no new hand anywhere; the level clock stands still until `release`."""
        if not self.held:
            self.held = True
            self._held_at = self.clock.seconds()

    def release(self) -> None:
        """T-13: play resumes exactly as it was: the same level and time left in it (the held
        time is paused time), the same stacks and buttons; every table deals again."""
        if not self.held:
            return
        self.held = False
        self.paused_total += self.clock.seconds() - self._held_at
        self._status = None
        for table in list(self.tables.values()):
            self._kick(table)

    def stop(self) -> None:
        """The tournament is over: no more hands."""
        self.running = False
        for call in self._scheduled.values():
            if call.active():
                call.cancel()
        self._scheduled.clear()

    def seat_newcomer(self, entry: str, stack: int, *, balance: bool = True) -> None:
        """A late registration or re-entry sits at random on a short table (T-5). Alone at a
        new table (every table was full), they are not left to wait for another table's hand
        to end: the tables are balanced now (T-10), unless `balance` is False (a resume
        balances once every table is back)."""
        shortest = sorted(self.tables.values(), key=lambda t: (t.count, t.table_id))
        views = [t.seats_view() for t in shortest[: self.SHORTLIST]]
        seating, new = seat_newcomer(
            views, entry, self.rng, self.config.max_seats, self.next_table_id
        )
        table = self._new_table() if new is not None else self.tables[seating.table_id]
        table.seat(entry, seating.seat, stack)
        self.sat(table, seating.seat, entry, stack)
        if new is not None:
            table.redraw(seating.seat)
        self._dirty = True
        if balance and table.count < 2 and not self._rounding:
            self._rebalance()  # moves and kicks the tables it touches
        if table.table_id in self.tables:
            self._kick(table)

    def chips_in_play(self) -> int:
        """Every chip on every table."""
        return sum(table.chips() for table in self.tables.values())

    # ------------------------------------------------------------------ dealing

    def player_moved(self, dest: TournamentTable) -> None:
        """Staff moved a player to `dest` (T-10): balancing looks again; `dest` deals soon."""
        self._dirty = True
        self._kick(dest)

    def _kick(self, table: TournamentTable) -> None:
        """Deal at `table` soon if it is idle and nothing is scheduled."""
        if not table.hand_running and table.table_id not in self._scheduled:
            self._schedule(table, self.config.between_hands_seconds)

    def _schedule(self, table: TournamentTable, delay: float) -> None:
        table_id = table.table_id
        self._scheduled[table_id] = self.clock.callLater(delay, self._deal_later, table_id)

    def _deal_later(self, table_id: int) -> None:
        self._scheduled.pop(table_id, None)
        table = self.tables.get(table_id)
        if table is not None:
            self._deal(table)

    def _h4h(self) -> bool:
        """Hand-for-hand play (the bubble, several tables)."""
        margin = self.config.hand_for_hand_margin
        left, paid = self.players_left(), self.paid_places()
        if not paid < left <= paid + margin:  # the cheap test first: this runs every hand
            return False
        playing = sum(1 for t in self.tables.values() if len(t.seats) >= 2)
        return hand_for_hand(left, paid, playing, margin)

    def _deal(self, table: TournamentTable) -> None:
        """Start the next hand at `table`, unless on a break, hand-for-hand, or short-handed."""
        if not self.running or table.hand_running or table.count < 2:
            return
        if self.paused:  # a staff pause: the hands in play finish, no new one is dealt
            return
        if self.held:  # T-13: every table stops between hands while a deal is made
            if not self.in_hand:
                self.on_held()
            return
        if self._h4h():
            if not self.in_hand and self._round_call is None:
                self._round_call = self.clock.callLater(0, self._deal_round)
            return  # T-11: hand-for-hand, every table deals the round's hand together
        status = self.level()
        if status.on_break and status.break_ends_at is not None:
            self._schedule(table, self._rest(status))
            return
        self.in_hand += 1
        if not table.start_hand(status.level, status.index, self.structure.ante_kind):
            self.in_hand -= 1

    def _rest(self, status: LevelStatus) -> float:
        """Seconds until this table resumes after the break it reached now (T-11)."""
        now = self.clock.seconds()
        end = status.break_ends_at or now
        start = end - self.structure.breaks.seconds
        return max(0.0, table_break_window(self.structure, start, end, now)[1] - now)

    def _deal_round(self) -> None:
        """Hand-for-hand: every table with players deals at once; the round ends with the last."""
        self._round_call = None
        if not self.running or self.held or self.paused:
            return
        status = self.level()
        if status.on_break and status.break_ends_at is not None:
            self._round_call = self.clock.callLater(self._rest(status), self._deal_round)
            return
        ready = [t for t in self.tables.values() if t.count >= 2 and not t.hand_running]
        self._rounding = bool(ready)
        self.in_hand += len(ready)  # counted first: a hand may end while the next is dealt
        for table in ready:
            call = self._scheduled.pop(table.table_id, None)
            if call is not None and call.active():
                call.cancel()
            if not table.start_hand(status.level, status.index, self.structure.ante_kind):
                self.in_hand -= 1

    # ------------------------------------------------------------------ TableListener

    def turn(self, table: TournamentTable, entry: str) -> None:
        """Pass the turn on to the players' side."""
        self.players.turn(table, entry)

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        """Knockouts, balancing, the next hand (or the wait for the hand-for-hand round)."""
        self.in_hand -= 1
        self.hands += 1
        self.players.hand_ended(table, result)
        result = self.at_boundary(table, result)  # staff work waiting for this hand's end
        if result.knockouts:
            self._dirty = True
        if self._rounding or self._h4h() or self._round:
            # T-9/T-11: hand-for-hand, the knockouts of one round are simultaneous; a round
            # ends as a round even when its last knockout ends hand-for-hand play (the tables
            # that finished first are waiting for it).
            self._round.extend(result.knockouts)
            if self.in_hand:
                return
            self._rounding = False
            knockouts, self._round = self._round, []
            if knockouts:
                self.on_knockouts(knockouts)
            if self.running:
                self._rebalance()
                for other in list(self.tables.values()):
                    self._kick(other)
            return
        if result.knockouts:
            self.on_knockouts(list(result.knockouts))
        if not self.running:
            return
        if self._dirty or table.table_id in self._waiting_for:
            self._rebalance(table)
        if table.table_id in self.tables:
            self._kick(table)

    # ------------------------------------------------------------------ balancing (T-10)

    def _concerned(self, finished: TournamentTable | None) -> list[TournamentTable] | None:
        """The tables a balancing plan is about now, or None when nothing is due (T-10).

        Breaking is due when the players fit on fewer tables, balancing when two tables
        differ by more than the tolerance, the redraw when one table is left. The balancer
        then sees the table that just finished its hand and the shortest tables: moves go
        from a long table between hands to the short ones, and a broken table's players
        fill the short ones. Other tables are looked at when they finish their hands.
        """
        tables = self.tables
        if len(tables) == 1:
            return None if self.final_redrawn else list(tables.values())
        counts = [t.count for t in tables.values()]
        seats = self.config.max_seats
        fits = len(tables) > -(-sum(counts) // seats)
        tolerated = max(counts) - min(counts) <= self.config.balancing.tolerance
        if not fits and tolerated and not lone_table_can_play(dict(enumerate(counts)), seats):
            return None
        shortest = sorted(tables.values(), key=lambda t: (t.count, t.table_id))[: self.SHORTLIST]
        concerned = {t.table_id: t for t in shortest}
        if finished is not None and finished.table_id in tables:
            concerned[finished.table_id] = finished
        else:
            longest = max(tables.values(), key=lambda t: (not t.hand_running, t.count, -t.table_id))
            concerned[longest.table_id] = longest
        return sorted(concerned.values(), key=lambda t: t.table_id)

    SHORTLIST = 6

    def _rebalance(self, finished: TournamentTable | None = None) -> None:
        """Ask the director for the moves due now and apply them between hands (T-10)."""
        began = time.perf_counter()
        concerned = self._concerned(finished)
        self._dirty = False
        if concerned is None:
            self._waiting_for = frozenset()
        else:
            views = [t.seats_view() for t in concerned]
            plan = self.balancer.plan(
                views, final_redrawn=self.final_redrawn, tables_in_play=len(self.tables)
            )
            self._apply(plan)
            self._waiting_for = frozenset(plan.waiting_for)
        self.balance_seconds += time.perf_counter() - began

    def _apply(self, plan: BalancePlan) -> None:
        """Moves first off their old seats, then onto the new ones; broken tables close."""
        chips: dict[str, int] = {}
        for move in plan.moves:
            chips[move.entry] = self.tables[move.from_table].unseat(move.entry)
        touched: set[int] = set()
        for move in plan.moves:
            self.players.moved(move)  # `tournament_seat` first, then the new table's snapshot
            to_table = self.tables[move.to_table]
            to_table.seat(move.entry, move.to_seat, chips[move.entry])
            self.sat(to_table, move.to_seat, move.entry, chips[move.entry])
            touched.add(move.to_table)
        if plan.final_table is not None and plan.final_button is not None:
            self.tables[plan.final_table].redraw(plan.final_button)
            self.final_redrawn = True
        for table_id in plan.broken_tables:
            table = self.tables.pop(table_id, None)
            if table is not None:
                table.closed = True
                call = self._scheduled.pop(table_id, None)
                if call is not None and call.active():
                    call.cancel()
        for table_id in touched:
            table = self.tables.get(table_id)
            if table is not None:
                self._kick(table)

    def boundaries(self) -> Sequence[object]:
        """Each table's state at its last hand boundary (T-18 refunds read these)."""
        return [t.boundary for t in self.tables.values() if t.boundary is not None]
