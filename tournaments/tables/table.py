"""A tournament table: seats, stacks, the blinds of the level; its hands run on a HandDriver.

The table deals when its tournament floor tells it to (`start_hand`) and reports each finished
hand (`HandResult`: final stacks and the knockouts of T-9/T-14). Seats come from the director
(numbered from 1 there); moves are applied only between hands. Button and blinds come from the
room's one planner, `pokerroom.table.positions.plan_hand` (dead button; every tournament seat is
dealt in, T-12). The hand itself — shuffle, clock and time bank, check-or-fold, the frames each
player may see — is the `HandDriver`'s, the same as at a cash table (docs/ARCHITECTURE.md rule
13). Clients see the table as `<tournament_id>.<table number>`, seats numbered from 0 like every
table (docs/PROTOCOL.md section 6). Chips are not money: nothing here touches the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

import structlog
from twisted.internet.interfaces import IReactorTime

from pokerroom.engine import errors as engine_errors
from pokerroom.engine.cards import RandomSource
from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.hand import Hand
from pokerroom.protocol.errors import STILL_SEATED, ProtocolError
from pokerroom.protocol.events import (
    PlayerSatIn,
    PlayerSatOut,
    SeatLeft,
    SeatTaken,
    ServerMessage,
    Snapshot,
    TableSnapshot,
)
from pokerroom.protocol.results import Empty
from pokerroom.table import errors as codes
from pokerroom.table.driver import SITTING_OUT, HandDriver
from pokerroom.table.positions import ALWAYS_DEALT, ButtonState, plan_hand
from pokerroom.table.views import TableListener
from tournaments.director.eliminations import Knockout
from tournaments.director.seating import TableSeats
from tournaments.director.structure import AnteKind, Level
from tournaments.tables.knockouts import HandBoundary, HandResult, hand_knockouts
from tournaments.tables.presence import ASKED, TIMEOUT, Presence
from tournaments.tables.sitout_log import SitOutLog
from tournaments.tables.table_snapshot import NO_LIMIT, NoFrames, table_snapshot, wire_id
from tournaments.tables.timebank import TimeBanks


class FloorListener(Protocol):
    """What the tournament floor hears from a table (frames go to the `TableListener`)."""

    def turn(self, table: TournamentTable, entry: str) -> None:
        """`entry` is to act (C-6); a bot may call `table.act` at once."""

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        """A hand is over; the table waits for `start_hand`."""


def _nothing_kept(table: TournamentTable) -> AbstractContextManager[None]:
    """A table whose hands nobody stores (tests of the table alone)."""
    return nullcontext()


class TournamentTable:
    """One table of a tournament: seats, stacks, the button, and the driver of its hands."""

    def __init__(
        self,
        tournament_id: str,
        table_id: int,
        max_seats: int,
        clock: IReactorTime,
        listener: FloorListener,
        rng: RandomSource,
        banks: TimeBanks,
        disconnect_grace: Callable[[str], int] = lambda entry: 0,
        sitouts: SitOutLog | None = None,
        *,
        presence: Presence | None = None,
        frames: TableListener | None = None,
        keep: Callable[[TournamentTable], AbstractContextManager[None]] | None = None,
    ) -> None:
        self.tournament_id = tournament_id
        self.table_id = table_id
        self.wire_id = wire_id(tournament_id, table_id)
        self.max_seats = max_seats
        self.clock = clock
        self.listener = listener
        self.banks = banks
        self.disconnect_grace = disconnect_grace  # T-12: seconds allowed now (0 before the bubble)
        self.presence = presence if presence is not None else Presence(sitouts)
        self.frames: TableListener = frames if frames is not None else NoFrames()
        #: Around the end of each hand: the tournament stores the table's seats and stacks
        #: and everything the hand causes in one unit, before anyone hears the result (T-18).
        self.keep = keep if keep is not None else _nothing_kept
        self.seats: dict[int, str] = {}  # director seat (from 1) -> entry
        self.stacks: dict[str, int] = {}
        self.observers: set[str] = set()
        self.hands_played = 0
        #: After the tournament resumed from a crash, every hand id ends with `r<resumes>`:
        #: a hand dealt but not stored before the crash kept its number (hand ids are never
        #: used twice, docs/PROTOCOL.md).
        self.hand_suffix = ""
        self.boundary: HandBoundary | None = None
        self.closed = False
        #: T-14: the bounty on a player's head (None: no bounty), shown per seat in snapshots.
        self.bounty_of: Callable[[str], int | None] | None = None
        self.log = structlog.get_logger("tournaments.table").bind(
            tournament_id=tournament_id, table_id=table_id
        )
        self.driver = HandDriver(
            self.wire_id, clock=clock, rng=rng, listener=self.frames, table=self, log=self.log
        )
        self._button_state: ButtonState | None = None
        self._drawn: int | None = None  # the drawn button of a (re)draw, until the next hand
        self._level: Level | None = None
        self._level_index = 0
        self._order_seats: list[int] = []  # director seats of the hand in engine order
        self._start_stacks: dict[str, int] = {}
        self._pending_chips: dict[str, int] = {}  # bought during a hand, added after it

    # ------------------------------------------------------------------ what others read

    @property
    def sitouts(self) -> SitOutLog:
        """T-12: the tournament's sit-out report."""
        return self.presence.sitouts

    @property
    def hand(self) -> Hand | None:
        """The hand in play, if any."""
        return self.driver.hand

    @property
    def hand_id(self) -> str:
        """The hand in play (or the last one)."""
        return self.driver.hand_id

    @property
    def order(self) -> list[str]:
        """The entries of the hand in play, in engine order (empty between hands)."""
        return list(self.driver.players) if self.driver.hand is not None else []

    @property
    def button(self) -> int | None:
        """The button's director seat: last hand's, or the drawn one before the first hand."""
        if self._drawn is not None or self._button_state is None:
            return self._drawn
        return self._button_state.button

    @property
    def big_blind(self) -> int | None:
        """Last hand's big blind seat (director numbering), None after a draw."""
        return (
            self._button_state.big_blind_seat
            if self._drawn is None and self._button_state
            else None
        )

    @property
    def count(self) -> int:
        """Players seated."""
        return len(self.seats)

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public frames: the seated players and the observers."""
        return self.observers | set(self.stacks)

    @property
    def hand_running(self) -> bool:
        """A hand is running: nobody leaves before it ends (T-10); chat rule C-13."""
        return self.driver.hand is not None

    def in_hand(self, entry: str) -> bool:
        """Whether `entry` holds live cards in the running hand (C-13)."""
        return self.driver.in_hand(entry)

    # ------------------------------------------------------------------ seats (between hands)

    def seat(self, entry: str, seat: int, stack: int) -> None:
        """Seat `entry` with `stack` chips; during a hand they are dealt in from the next one.

        The table tells its audience (`seat_taken`) and sends the player the table
        (`table_snapshot`, C-14, T-10).
        """
        if seat in self.seats or not 1 <= seat <= self.max_seats or stack <= 0:
            raise ValueError(f"seat {seat} at table {self.table_id} is not free")
        self.seats[seat] = entry
        self.stacks[entry] = stack
        self.observers.discard(entry)
        self._broadcast(SeatTaken(table_id=self.wire_id, seat=seat - 1, player=entry, stack=stack))
        self.frames.send(entry, self.snapshot_message(entry))

    def unseat(self, entry: str) -> int:
        """Take `entry` off the table between hands (a move or a break); return their chips."""
        if self.driver.hand is not None and entry in self.driver.players:
            raise EngineError(engine_errors.NOT_BETTING, "a player leaves only between hands")
        return self._remove(entry)

    def _remove(self, entry: str) -> int:
        number = next(s for s, who in self.seats.items() if who == entry)
        stack = self.stacks[entry]
        self._broadcast(
            SeatLeft(table_id=self.wire_id, seat=number - 1, player=entry, amount=stack)
        )
        del self.seats[number]
        return self.stacks.pop(entry)

    def kept_stack(self, entry: str) -> int:
        """The stack as of the table's last completed hand, with chips bought since (T-18)."""
        return self.stacks[entry] + self._pending_chips.get(entry, 0)

    def add_chips(self, entry: str, chips: int) -> None:
        """Rebuy or add-on chips (T-4): on the stack now, or after the hand if dealt in (C-9)."""
        if self.driver.hand is not None and entry in self.driver.players:
            self._pending_chips[entry] = self._pending_chips.get(entry, 0) + chips
        else:
            self.stacks[entry] += chips

    def table_state(self) -> str:
        """The button and blinds after the last hand, stored with it (T-18):
        `"button,small blind,big blind,heads up"`, or "" when none was dealt since a draw."""
        state = self._button_state
        if state is None or self._drawn is not None:
            return ""
        return (
            f"{state.button},{state.small_blind_seat},{state.big_blind_seat},{int(state.heads_up)}"
        )

    def restore(self, hands_played: int, table_state: str, resumes: int) -> None:
        """T-18 resume: the table's hand count and its button and blinds as stored with its
        last completed hand (the next hand moves on from them, nobody skips or pays a blind
        twice); the hands from now on take ids of the `resumes`-th resume."""
        self.hands_played = hands_played
        self.hand_suffix = f"r{resumes}" if resumes else ""
        if table_state:
            button, small, big, heads_up = (int(part) for part in table_state.split(","))
            self._button_state = ButtonState(button, small, big, bool(heads_up))
            self._drawn = None

    def redraw(self, button: int) -> None:
        """A new draw for the table (T-1 start, final-table redraw): the button at `button`."""
        self._drawn = button

    def seats_view(self) -> TableSeats:
        """What the director's balancer knows of this table."""
        return TableSeats(
            self.table_id, self.max_seats, dict(self.seats), self.button, self.big_blind,
            self.hand_running,
        )  # fmt: skip

    def chips(self) -> int:
        """Every chip at this table, in stacks and in the pot (chips are not money)."""
        hand = self.driver.hand
        if hand is None:
            return sum(self.stacks.values())
        dealt = set(self.driver.players)
        waiting = sum(stack for entry, stack in self.stacks.items() if entry not in dealt)
        pending = sum(self._pending_chips.values())
        return waiting + pending + sum(hand.stacks) + hand.pot_total()

    # ------------------------------------------------------------------ presence (T-12)

    def set_presence(self, entry: str, *, connected: bool, sitting_out: bool) -> None:
        """T-12: a disconnected or sitting-out player is still dealt in and posts."""
        self.presence.connection(entry, connected)
        self.set_sitting_out(entry, sitting_out)

    def set_sitting_out(self, entry: str, sitting_out: bool) -> None:
        """`tournament_sit_out`: asked to sit out (acted for at once), or back (T-12)."""
        now = self.clock.seconds()
        if sitting_out:
            if self.presence.sit_out(entry, self.table_id, now, ASKED):
                self._sat_out(entry, ASKED)
            index = self.driver.index_of(entry)
            if index is not None:  # asked while their clock runs: acted for now, not at its end
                self.driver.act_now_for(index, SITTING_OUT)
        elif self.presence.sit_in(entry, now):
            self._sat_in(entry)

    def disconnected(self, player: str) -> None:
        """C-14, T-12: the player dropped; the clock keeps running (and a grace is due)."""
        if player in self.stacks:
            self.presence.connection(player, False)

    def reconnected(self, player: str) -> Snapshot:
        """C-14: send the table again, and the action request if it is the player's turn."""
        if player in self.stacks:
            self.presence.connection(player, True)
        self.frames.send(player, self.snapshot_message(player))
        self.driver.remind(player)
        return self.snapshot(player)

    # ------------------------------------------------------------------ watching (C-15)

    def observe(self, player: str) -> Snapshot:
        """Start receiving the table's public frames; returns the snapshot."""
        if player not in self.stacks:
            self.observers.add(player)
        return self.snapshot(player)

    def unobserve(self, player: str) -> Empty:
        """Stop receiving the table's frames; a seated player cannot."""
        if player in self.stacks:
            raise ProtocolError(STILL_SEATED, "you play at this table")
        self.observers.discard(player)
        return Empty()

    def snapshot(self, player: str) -> Snapshot:
        """The table as `player` may see it: public state and only their own cards (C-15)."""
        dealt = set(self.driver.players) if self.driver.hand is not None else set()
        shown = {e: self._start_stacks.get(e, self.stacks[e]) for e in dealt if e in self.stacks}
        return table_snapshot(
            self.wire_id, self.max_seats, self._level, self.button, self.seats,
            {**self.stacks, **shown}, dealt, self.presence, self.bounty_of,
            self.driver.view(player), self.tournament_id,
        )  # fmt: skip

    def snapshot_message(self, player: str) -> TableSnapshot:
        """The `table_snapshot` frame for one player."""
        return TableSnapshot(table_id=self.wire_id, snapshot=self.snapshot(player))

    def _broadcast(self, message: ServerMessage) -> None:
        self.frames.broadcast(self.wire_id, message, set())

    def _number(self, entry: str) -> int | None:
        """The entry's seat in frames (from 0), or None if not seated here."""
        number = next((s for s, who in self.seats.items() if who == entry), None)
        return None if number is None else number - 1

    def _sat_out(self, entry: str, reason: str) -> None:
        number = self._number(entry)
        if number is not None:
            self._broadcast(
                PlayerSatOut(table_id=self.wire_id, seat=number, player=entry, reason=reason)
            )

    def _sat_in(self, entry: str) -> None:
        number = self._number(entry)
        if number is not None:
            self._broadcast(
                PlayerSatIn(
                    table_id=self.wire_id, seat=number, player=entry, owes=0, wait_for_bb=False
                )
            )

    # ------------------------------------------------------------------ dealing

    def _pick_button(self, ready: list[int]) -> int:
        return self._drawn if self._drawn is not None else ready[0]

    def start_hand(self, level: Level, level_index: int, ante_kind: AnteKind) -> bool:
        """Deal the next hand at `level`; False when fewer than two players sit here."""
        if self.driver.hand is not None:
            raise EngineError(engine_errors.NOT_DEALING, "a hand is already running")
        if len(self.seats) < 2 or self.closed:
            return False
        self.boundary = HandBoundary(
            self.table_id, self.hands_played, level_index, self.button, self.big_blind,
            tuple(sorted(self.seats.items())), tuple(sorted(self.stacks.items())),
        )  # fmt: skip
        plan = plan_hand(
            dict.fromkeys(self.seats, ALWAYS_DEALT),
            self.max_seats,
            level.small_blind,
            level.big_blind,
            None if self._drawn is not None else self._button_state,
            self._pick_button,
        )
        assert plan is not None  # two or more seats, all dealt in
        self._button_state = plan.state
        self._drawn = None
        order = [self.seats[s] for s in plan.order]
        stacks = tuple(self.stacks[e] for e in order)
        antes: tuple[int, ...] = ()
        big_index = plan.order.index(plan.big_blind_seat)
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
            blinds_or_straddles=plan.blinds,
            antes=antes,
            min_bet=level.big_blind,
            # Classic antes are live money: a player all in for the ante can win the antes.
            ante_trimming=ante_kind is AnteKind.CLASSIC,
        )
        self.hands_played += 1
        self._order_seats = list(plan.order)
        self._start_stacks = dict(zip(order, stacks, strict=True))
        self._level = level
        self._level_index = level_index
        self.driver.deal(
            f"{self.tournament_id}:{self.table_id}:{self.hands_played}{self.hand_suffix}",
            config,
            [s - 1 for s in plan.order],
            order,
            button=plan.button - 1,
            blinds=(level.small_blind, level.big_blind),
            post_kinds={s - 1: kind for s, kind in plan.post_kinds.items()},
            action_seconds=level.action_seconds,
            ante=level.ante if ante_kind is not AnteKind.NONE else 0,
        )
        return True

    # ------------------------------------------------------------------ actions

    def to_act(self) -> str | None:
        """The entry whose turn it is, if any."""
        hand = self.driver.hand
        if hand is None or hand.actor < 0 or self.driver.over:
            return None
        return self.driver.players[hand.actor]

    def act(self, entry: str, action: str, amount: int | None = None) -> Empty:
        """`entry` folds, checks, calls, or bets/raises to `amount`; refused with a stable
        code and nothing changed (P-1). Any action clears a timeout's sit-out (T-12)."""
        if entry not in self.stacks:
            raise ProtocolError(codes.NOT_SEATED, "you do not play at this table")
        if self.driver.hand is None:
            raise ProtocolError(codes.NO_HAND, "no hand is being played")
        index = self.driver.index_of(entry)
        if index is None:
            raise ProtocolError(codes.NOT_IN_HAND, "you were not dealt into this hand")
        self.driver.act(index, action, amount)  # raises before anything changes
        if self.presence.acted(entry, self.clock.seconds()):
            self._sat_in(entry)
        return Empty()

    # ------------------------------------------------------------------ HandTable (the driver)

    def bank_ms(self, index: int) -> int:
        """The player's time bank at this level (C-7), refilled per level."""
        return self.banks.bank_ms(self.driver.players[index], self._level_index)

    def keep_bank(self, index: int, ms: int) -> None:
        """What is left of the bank follows the player (C-7)."""
        self.banks.store(self.driver.players[index], ms)

    def act_for(self, index: int) -> str | None:
        """T-12: a player who asked to sit out is acted for at once, without the clock."""
        return SITTING_OUT if self.driver.players[index] in self.presence.asked else None

    def out_of_time(self, index: int) -> float:
        """C-6, T-12: a disconnected player may get a grace; otherwise they time out."""
        entry = self.driver.players[index]
        extra = self.presence.grace(entry, self._level_index, self.disconnect_grace(entry))
        if extra:
            return extra
        self.log.info("timed_out", hand_id=self.driver.hand_id, entry=entry)
        if self.presence.sit_out(entry, self.table_id, self.clock.seconds(), TIMEOUT):
            self._sat_out(entry, TIMEOUT)
        return 0

    def asked(self, index: int) -> None:
        """The floor's players (sessions or bots) hear whose turn it is."""
        self.listener.turn(self, self.driver.players[index])

    def hand_over(self, hand: Hand) -> None:
        """Stacks and knockouts (T-9, T-14); tell the result; the busted leave; report."""
        order = self.driver.players
        end = hand.stacks
        stacks = self.stacks
        busted = []
        pending = self._pending_chips
        for index, entry in enumerate(order):
            stacks[entry] = end[index] + pending.pop(entry, 0) if pending else end[index]
            if not stacks[entry]:
                busted.append(index)
        button = self._button_state.button if self._button_state else 0
        hand_id = self.driver.hand_id
        knockouts: tuple[Knockout, ...] = ()
        if busted:
            knockouts = hand_knockouts(
                hand, busted, list(order), self._order_seats, self._start_stacks,
                (self.table_id, self.max_seats, button, hand_id),
            )  # fmt: skip
        result = HandResult(
            self.table_id, hand_id, self._level_index, button,
            self._start_stacks, dict(zip(order, end, strict=True)), knockouts,
        )  # fmt: skip
        with self.keep(self):  # stored with what it causes, then told (rule 14)
            self.driver.finish()
            now = self.clock.seconds()
            for knockout in knockouts:
                self._remove(knockout.entry)
                self.presence.forget(knockout.entry, now)
            self._start_stacks = {}
            self.listener.hand_ended(self, result)
