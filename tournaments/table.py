"""A tournament table: the hand engine driven with seats, a dead button, levels and the clock.

The table deals when its tournament actor tells it to (`start_hand`) and reports each finished
hand (`HandResult`: final stacks and the knockouts of T-9/T-14). Seats come from the director;
moves are applied only between hands. Chips are not money: nothing here touches the ledger.
Time comes from an injected `IReactorTime`; no I/O. Blinds follow the dead-button rule: the big
blind moves to the next player every hand, the small blind falls on the seat that had the big
blind (dead when that player is gone), and the button on the seat that had the small blind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import structlog
from twisted.internet.interfaces import IReactorTime

from pokerroom.engine import errors as engine_errors
from pokerroom.engine.cards import RandomSource, shuffled_deck
from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.hand import Hand
from pokerroom.engine.variants import VARIANTS
from pokerroom.table.clock import ActionClock
from tournaments.director.eliminations import Knockout
from tournaments.director.seating import TableSeats
from tournaments.director.structure import AnteKind, Level
from tournaments.knockouts import HandBoundary, HandResult, hand_knockouts
from tournaments.sitout_log import SitOutLog
from tournaments.timebank import TimeBanks

NO_LIMIT = VARIANTS["NT"]


class TableListener(Protocol):
    """What the tournament actor hears from a table."""

    def turn(self, table: TournamentTable, entry: str) -> None:
        """`entry` is to act (C-6); a bot may call `table.act` at once."""

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        """A hand is over; the table waits for `start_hand`."""


class TournamentTable:
    """One table of a tournament: seats, stacks, the button, the hand in play and its clock."""

    def __init__(
        self,
        tournament_id: str,
        table_id: int,
        max_seats: int,
        clock: IReactorTime,
        listener: TableListener,
        rng: RandomSource,
        banks: TimeBanks,
        disconnect_grace: Callable[[str], int] = lambda entry: 0,
        sitouts: SitOutLog | None = None,
    ) -> None:
        self.tournament_id = tournament_id
        self.table_id = table_id
        self.max_seats = max_seats
        self.clock = clock
        self.listener = listener
        self.rng = rng
        self.banks = banks
        self.disconnect_grace = disconnect_grace  # T-12: extra seconds, once per level
        self.sitouts = sitouts if sitouts is not None else SitOutLog()  # T-12 report
        self.seats: dict[int, str] = {}
        self.stacks: dict[str, int] = {}
        self.button: int | None = None
        self.small_blind_position: int | None = None
        self.big_blind: int | None = None
        self.hand: Hand | None = None
        self.hand_id = ""
        self.hands_played = 0
        self.order: list[str] = []
        self.sitting_out: set[str] = set()
        self.disconnected: set[str] = set()
        self.boundary: HandBoundary | None = None
        self.closed = False
        self._level_index = 0
        self._action_seconds = 15
        self._start_stacks: dict[str, int] = {}
        self._pending_chips: dict[str, int] = {}  # bought during a hand, added after it
        self._asking = False
        self._acted = False
        self._graced = False
        self._action_clock = ActionClock(clock, self._on_timebank, self._on_timeout)
        self.log = structlog.get_logger("tournaments.table").bind(
            tournament_id=tournament_id, table_id=table_id
        )

    # ------------------------------------------------------------------ seats (between hands)

    @property
    def in_hand(self) -> bool:
        """A hand is running: nobody leaves before it ends (T-10)."""
        return self.hand is not None

    @property
    def count(self) -> int:
        """Players seated."""
        return len(self.seats)

    def seat(self, entry: str, seat: int, stack: int) -> None:
        """Seat `entry` with `stack` chips; during a hand they are dealt in from the next one."""
        if seat in self.seats or not 1 <= seat <= self.max_seats or stack <= 0:
            raise ValueError(f"seat {seat} at table {self.table_id} is not free")
        self.seats[seat] = entry
        self.stacks[entry] = stack

    def unseat(self, entry: str) -> int:
        """Take `entry` off the table between hands (a move or a break); return their chips."""
        if self.hand is not None and entry in self.order:
            raise EngineError(engine_errors.NOT_BETTING, "a player leaves only between hands")
        for seat, who in self.seats.items():
            if who == entry:
                del self.seats[seat]
                break
        self._sit_in(entry)
        self.disconnected.discard(entry)
        return self.stacks.pop(entry)

    def add_chips(self, entry: str, chips: int) -> None:
        """Rebuy or add-on chips (T-4): on the stack now, or after the hand if dealt in (C-9)."""
        if self.hand is not None and entry in self.order:
            self._pending_chips[entry] = self._pending_chips.get(entry, 0) + chips
        else:
            self.stacks[entry] += chips

    def redraw(self, button: int) -> None:
        """A new draw for the table (T-1 start, final-table redraw): the button at `button`."""
        self.button = button
        self.small_blind_position = None
        self.big_blind = None

    def seats_view(self) -> TableSeats:
        """What the director's balancer knows of this table."""
        return TableSeats(
            self.table_id, self.max_seats, dict(self.seats), self.button, self.big_blind,
            self.hand is not None,
        )  # fmt: skip

    def chips(self) -> int:
        """Every chip at this table, in stacks and in the pot (chips are not money)."""
        if self.hand is None:
            return sum(self.stacks.values())
        dealt = set(self.order)
        waiting = sum(stack for entry, stack in self.stacks.items() if entry not in dealt)
        pending = sum(self._pending_chips.values())
        return waiting + pending + sum(self.hand.stacks) + self.hand.pot_total()

    def set_presence(self, entry: str, *, connected: bool, sitting_out: bool) -> None:
        """T-12: a disconnected or sitting-out player is still dealt in and posts."""
        (self.disconnected.discard if connected else self.disconnected.add)(entry)
        if sitting_out:
            self._sit_out(entry)
        else:
            self._sit_in(entry)

    def _sit_out(self, entry: str) -> None:
        """T-12: still dealt in; the interval goes to the report."""
        self.sitting_out.add(entry)
        self.sitouts.begin(entry, self.table_id, self.clock.seconds())

    def _sit_in(self, entry: str) -> None:
        if entry in self.sitting_out:
            self.sitting_out.discard(entry)
            self.sitouts.end(entry, self.clock.seconds())

    # ------------------------------------------------------------------ dealing

    def _next_occupied(self, seat: int) -> int:
        """The first occupied seat strictly after `seat`, clockwise."""
        for step in range(1, self.max_seats + 1):
            candidate = (seat + step - 1) % self.max_seats + 1
            if candidate in self.seats:
                return candidate
        raise ValueError("empty table")

    def _positions(self) -> tuple[int, int | None, int]:
        """(button, small blind seat or None when dead, big blind) for the next hand."""
        heads_up = len(self.seats) == 2
        if self.big_blind is None or self.small_blind_position is None:
            start = self.button if self.button is not None else self.max_seats
            button = start if start in self.seats else self._next_occupied(start)
            small = button if heads_up else self._next_occupied(button)
            self.small_blind_position = small
            return button, small, self._next_occupied(small)
        big = self._next_occupied(self.big_blind)
        if heads_up:  # heads-up the button posts the small blind; the big blind moves on
            other = self._next_occupied(big)
            self.small_blind_position = other
            return other, other, big
        button = self.small_blind_position
        small_position = self.big_blind
        self.small_blind_position = small_position
        return button, (small_position if small_position in self.seats else None), big

    def start_hand(self, level: Level, level_index: int, ante_kind: AnteKind) -> bool:
        """Deal the next hand at `level`; False when fewer than two players sit here."""
        if self.hand is not None:
            raise EngineError(engine_errors.NOT_DEALING, "a hand is already running")
        if len(self.seats) < 2 or self.closed:
            return False
        self.boundary = HandBoundary(
            self.table_id, self.hands_played, level_index, self.button, self.big_blind,
            tuple(sorted(self.seats.items())), tuple(sorted(self.stacks.items())),
        )  # fmt: skip
        button, small, big = self._positions()
        self.button, self.big_blind = button, big
        max_seats = self.max_seats
        seats = sorted(self.seats, key=lambda s: (s - button - 1) % max_seats)
        order = [self.seats[s] for s in seats]
        stacks = tuple(self.stacks[e] for e in order)
        blinds = [0] * len(order)
        big_index = seats.index(big)
        blinds[big_index] = level.big_blind
        if small is not None:
            blinds[seats.index(small)] = level.small_blind
        antes: tuple[int, ...] = ()
        if level.ante and ante_kind is AnteKind.CLASSIC:
            antes = (level.ante,) * len(order)
        elif level.ante and ante_kind is AnteKind.BIG_BLIND:
            # The big blind is posted before the ante when the stack cannot cover both.
            bb_ante = [0] * len(order)
            bb_ante[big_index] = min(level.ante, max(0, stacks[big_index] - level.big_blind))
            antes = tuple(bb_ante) if bb_ante[big_index] else ()
        config = HandConfig(
            variant=NO_LIMIT,
            starting_stacks=stacks,
            blinds_or_straddles=tuple(blinds),
            antes=antes,
            min_bet=level.big_blind,
            # Classic antes are live money: a player all in for the ante can win the antes.
            ante_trimming=ante_kind is AnteKind.CLASSIC,
        )
        self.hands_played += 1
        self.hand_id = f"{self.tournament_id}:{self.table_id}:{self.hands_played}"
        self.order = order
        self._seats_dealt = seats
        self._start_stacks = dict(zip(order, stacks, strict=True))
        self._level_index = level_index
        self._action_seconds = level.action_seconds
        self.hand = Hand(config, shuffled_deck(self.rng))
        self._advance()
        return True

    # ------------------------------------------------------------------ actions

    def to_act(self) -> str | None:
        """The entry whose turn it is, if any."""
        hand = self.hand
        if hand is None or hand.actor < 0:
            return None
        return self.order[hand.actor]

    def act(self, entry: str, action: str, amount: int | None = None) -> None:
        """`entry` folds, checks, calls, or bets/raises to `amount` (engine rules apply)."""
        hand = self.hand
        if hand is None:
            raise EngineError(engine_errors.HAND_OVER, "no hand is running")
        index = hand.actor
        if index < 0 or self.order[index] != entry:
            raise EngineError(engine_errors.NOT_YOUR_TURN, f"it is not {entry}'s turn")
        if action == "fold":
            hand.fold(index)
        elif action in ("check", "call"):
            hand.check_or_call(index)
        elif action in ("bet", "raise") and amount is not None:
            hand.bet_or_raise(index, amount)
        else:
            raise EngineError(engine_errors.BAD_ACTION, f"unknown action {action!r}")
        if entry in self.sitting_out:
            self._sit_in(entry)  # acting brings a timed-out player back (C-6)
        self._acted = True
        if self._asking:
            return
        if self._action_clock.running:
            self.banks.store(entry, self._action_clock.stop())
        self._advance()

    def _advance(self) -> None:
        """Ask each player in turn until one has to be timed, or the hand ends."""
        while True:
            hand = self.hand
            assert hand is not None
            if hand.is_over:
                self._finish()
                return
            entry = self.order[hand.actor]
            if entry in self.sitting_out:
                self._auto_act()  # T-12: sitting out, still dealt in; acted for at once
                continue
            self._acted = False
            self._asking = True
            try:
                self.listener.turn(self, entry)
            finally:
                self._asking = False
            if not self._acted:
                self._graced = False
                bank = self.banks.bank_ms(entry, self._level_index)
                self._action_clock.start(self._action_seconds, bank)  # C-6, C-7
                return

    def _auto_act(self) -> None:
        """T-12 / C-6: fold when facing a bet, check otherwise."""
        hand = self.hand
        assert hand is not None
        index = hand.actor
        if hand.can_fold(index):
            hand.fold(index)
        else:
            hand.check_or_call(index)

    def _on_timebank(self, remaining_ms: int) -> None:
        """C-7: the bank started on its own (the actor may tell the clients)."""

    def _on_timeout(self) -> None:
        """C-6 / T-12: time is up; a disconnected player may get extra seconds once per level."""
        entry = self.to_act()
        if entry is None:
            return
        self.banks.store(entry, 0)
        if entry in self.disconnected and not self._graced:
            extra = self.disconnect_grace(entry)
            if extra > 0:
                self._graced = True
                self._action_clock.start(extra, 0)
                return
        self.log.info("timed_out", hand_id=self.hand_id, entry=entry)
        self._auto_act()
        self._sit_out(entry)  # sat out until they act again (our choice, as online)
        self._advance()

    # ------------------------------------------------------------------ the end of a hand

    def _finish(self) -> None:
        """Take the final stacks, find the knockouts, report the hand."""
        hand = self.hand
        assert hand is not None
        order = self.order
        end = hand.stacks
        stacks = self.stacks
        busted = []
        pending = self._pending_chips
        for index, entry in enumerate(order):
            stacks[entry] = end[index] + pending.pop(entry, 0) if pending else end[index]
            if not stacks[entry]:
                busted.append(index)
        knockouts: tuple[Knockout, ...] = ()
        if busted:
            knockouts = hand_knockouts(
                hand, busted, self.order, self._seats_dealt, self._start_stacks,
                (self.table_id, self.max_seats, self.button or 0, self.hand_id),
            )  # fmt: skip
            gone = {k.entry for k in knockouts}
            for seat in [s for s, e in self.seats.items() if e in gone]:
                del self.seats[seat]
            for entry in gone:
                del stacks[entry]
                self._sit_in(entry)
                self.disconnected.discard(entry)
        result = HandResult(
            self.table_id, self.hand_id, self._level_index, self.button or 0,
            self._start_stacks, dict(zip(order, end, strict=True)), knockouts,
        )  # fmt: skip
        self.hand = None
        self.order = []
        self.listener.hand_ended(self, result)
