"""TableActor: one cash table; takes players' commands on the reactor thread (docs/design/room.md).

The actor owns its parts and calls them (docs/ARCHITECTURE.md rule 13): a `Roster` (who sits
where: buy-ins, top-ups, sitting out, leaving, C-2..C-4, C-8..C-10), the room's `HandDriver`
(the hand itself: shuffle, clock and time bank, check-or-fold, frames, C-5..C-7, C-15) and a
`TablePause` (database steps retried through an outage, C-12). What is the actor's own is the
cash game around the hand: the plan of blinds and posts (`plan_hand`), the `hands` row before
the first card, and the settlement after the last action — the transfer, the status and the
history in ONE transaction, after which, and only after which, the result is told (rule 14).

Every command checks everything first and raises `ProtocolError(code, message)` changing
nothing (P-1); commands that move money return a Deferred that fires when the ledger has.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

import structlog
from structlog.typing import FilteringBoundLogger
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

import pokerroom.cash.errors as codes
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.histories import hand_history
from pokerroom.cash.pause import TablePause
from pokerroom.cash.policies import RoomPolicies
from pokerroom.cash.roster import IDLE, PLAYING, SETTLING, STARTING, Roster
from pokerroom.cash.seating import Seat
from pokerroom.cash.snapshot import cash_snapshot
from pokerroom.cash.store import Recovery
from pokerroom.engine import Hand
from pokerroom.engine import events as ev
from pokerroom.ledger.service import LedgerService
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import (
    ServerMessage,
    Snapshot,
    TableHalted,
    TableSnapshot,
)
from pokerroom.protocol.results import CashedOut, Empty, SatIn, Seated, ToppedUp
from pokerroom.table.clock import ActionClock, refill_timebank, seconds_to_ms
from pokerroom.table.deck_random import DeckRandom
from pokerroom.table.driver import LEAVING, TIMEOUT, HandDriver, check_action
from pokerroom.table.positions import ButtonState, HandPlan, plan_hand
from pokerroom.table.views import TableListener

HALTED = "halted"


class Shuffler(Protocol):
    """The deck's random source: `DeckRandom` (a secrets.SystemRandom) in production, seeded
    in tests (C-15)."""

    def shuffle(self, x: list[Any]) -> None:
        """Shuffle in place."""
        ...

    def randrange(self, n: int) -> int:
        """An int in [0, n)."""
        ...


class TableActor:
    """One cash table: its roster, its hand driver, and the cash rules around each hand."""

    def __init__(
        self,
        config: CashTableConfig,
        *,
        clock: IReactorTime,
        ledger: LedgerService,
        listener: TableListener,
        rng: Shuffler | None = None,
        store: HandStore | None = None,
        policies: RoomPolicies | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.ledger = ledger
        self.listener = listener
        self.rng: Shuffler = rng if rng is not None else DeckRandom()
        self.store = store if store is not None else HandStore(ledger)
        self.policies = policies if policies is not None else RoomPolicies(self.store)
        self.log: FilteringBoundLogger = structlog.get_logger("pokerroom.cash").bind(
            table_id=config.table_id
        )
        self.observers: set[str] = set()
        self.button_state: ButtonState | None = None
        self.phase = IDLE
        self.plan: HandPlan | None = None
        self.hand_number = 1  # the next hand's number at this table
        self.hand_seq = 0  # the current hand's number
        self.start_stacks: dict[str, int] = {}
        #: Staff hold (docs/ADMIN.md): `paused` deals no new hand; `closed` also seats no one.
        self.staff_hold: str | None = None
        self._next_hand: IDelayedCall | None = None
        self._closed = False
        self._hand_id = ""
        self._started_ms = 0
        self.roster = Roster(
            config,
            clock=clock,
            store=self.store,
            policies=self.policies,
            table=self,
            log=lambda: self.log,
        )
        self.driver = HandDriver(
            config.table_id, clock=clock, rng=self.rng, listener=listener, table=self, log=self.log
        )
        #: Hand starts and settlements, paused and retried while the database is out (C-12).
        self.pause = TablePause(
            config.table_id, clock, self.broadcast, lambda: self.log, self._halt
        )

    # ------------------------------------------------------------------ what others read

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    @property
    def seats(self) -> dict[int, Seat]:
        """Seat number -> seat (the roster's)."""
        return self.roster.seats

    @property
    def by_player(self) -> dict[str, int]:
        """Player -> seat number (the roster's)."""
        return self.roster.by_player

    @property
    def hand(self) -> Hand | None:
        """The hand being played (or settled), if any."""
        return self.driver.hand

    @property
    def hand_id(self) -> str:
        """The current (or last) hand's id."""
        return self._hand_id

    @property
    def order(self) -> tuple[int, ...]:
        """The seats dealt in, in engine order."""
        return self.driver.order

    @property
    def players(self) -> tuple[str, ...]:
        """The players dealt in, in engine order."""
        return self.driver.players

    @property
    def action_clock(self) -> ActionClock:
        """The clock of the decision being timed (C-6, C-7)."""
        return self.driver.action_clock

    @property
    def closed(self) -> bool:
        """Stopped: shut down, or halted by a database refusal."""
        return self._closed or self.phase == HALTED

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events: observers and seated players."""
        return self.observers | set(self.roster.by_player)

    @property
    def hand_running(self) -> bool:
        """Whether a hand is being dealt or played (for chat, C-13)."""
        return self.phase in (STARTING, PLAYING)

    def in_hand(self, player_id: str) -> bool:
        """Whether the player holds live cards in the running hand (C-13)."""
        number = self.roster.by_player.get(player_id)
        if number is None or not self.hand_running or not self.roster.seats[number].in_hand:
            return False
        return self.driver.hand is None or self.driver.in_hand(player_id)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Deferred[Recovery]:
        """C-12: void interrupted hands, reseat players with their escrow stacks, begin."""
        d = self.store.recover(self.config.table_id, self.config.currency)
        d.addCallback(self._restore)
        return d

    def _restore(self, found: Recovery) -> Recovery:
        self.hand_number = found.next_number
        self.roster.restore(found.seats, last_transfer_id=found.last_transfer_id)
        if found.voided:
            self.log.warning("hands_voided", hands=list(found.voided))
        self.deal_soon()
        return found

    def hold(self, closed: bool = False) -> None:
        """Staff: deal no new hand (the running one plays out); `closed`: seat no one either."""
        self.staff_hold = "closed" if closed else "paused"
        if self._next_hand is not None and self._next_hand.active():
            self._next_hand.cancel()
        self._next_hand = None

    def release(self) -> None:
        """Staff: deal and seat again."""
        self.staff_hold = None
        self.deal_soon()

    def close(self) -> None:
        """Stop dealing and timing (server shutdown); an unfinished hand is void on restart."""
        self._closed = True
        self.driver.abandon()
        self.pause.stop()
        self.roster.close()
        if self._next_hand is not None and self._next_hand.active():
            self._next_hand.cancel()
        self._next_hand = None

    # ------------------------------------------------------------------ telling

    def broadcast(self, msg: ServerMessage) -> None:
        """Tell the table's audience."""
        self.listener.broadcast(self.config.table_id, msg, set())

    def send(self, player_id: str, msg: ServerMessage) -> None:
        """Tell one player."""
        self.listener.send(player_id, msg)

    # ------------------------------------------------------------------ watching (C-14, C-15)

    def observe(self, player_id: str) -> Snapshot:
        """Start receiving the table's public events; returns the snapshot."""
        self.observers.add(player_id)
        self._tell_pause(player_id)
        return self.snapshot(player_id)

    def _tell_pause(self, player_id: str) -> None:
        """A player who opens the table while it waits for the database hears so (C-12)."""
        notice = self.pause.notice()
        if notice is not None:
            self.listener.send(player_id, notice)

    def unobserve(self, player_id: str) -> Empty:
        """Stop receiving public events; a seated player must leave first."""
        if player_id in self.roster.by_player:
            raise ProtocolError(codes.STILL_SEATED, "you sit at this table: leave first")
        self.observers.discard(player_id)
        return Empty()

    def snapshot(self, player_id: str) -> Snapshot:
        """The table as `player_id` may see it: public state and only their own cards (C-15);
        a result not yet kept is not in it (rule 14)."""
        button = self.button_state.button if self.button_state else None
        return cash_snapshot(
            self.config, self.roster.seats.values(), button, self.driver.view(player_id)
        )

    def snapshot_message(self, player_id: str) -> TableSnapshot:
        """The `table_snapshot` message for one player."""
        return TableSnapshot(table_id=self.table_id, snapshot=self.snapshot(player_id))

    def disconnected(self, player_id: str) -> None:
        """C-14: the seat stays and the clock keeps running."""
        number = self.roster.by_player.get(player_id)
        if number is not None:
            self.roster.seats[number].disconnected = True
            self.log.info("disconnected", player_id=player_id)

    def reconnected(self, player_id: str) -> Snapshot:
        """C-14: resend the snapshot, and the action request if it is the player's turn."""
        number = self.roster.by_player.get(player_id)
        if number is not None:
            self.roster.seats[number].disconnected = False
        self.listener.send(player_id, self.snapshot_message(player_id))
        self._tell_pause(player_id)
        if number is not None and self.phase == PLAYING:
            self.driver.remind(player_id)
        return self.snapshot(player_id)

    # ------------------------------------------------------------------ the roster's commands

    def sit(
        self, player_id: str, seat: int | None, buy_in: int, wait_for_big_blind: bool = False
    ) -> Deferred[Seated]:
        """Take a seat and buy in (C-2, C-8, C-9, C-10); fires with the seat and stack."""
        return self.roster.sit(player_id, seat, buy_in, wait_for_big_blind)

    def top_up(self, player_id: str, amount: int, key: str | None = None) -> Deferred[ToppedUp]:
        """Add chips from the wallet (C-9); `key` makes a retried request move money once."""
        return self.roster.top_up(player_id, amount, key)

    def sit_out(self, player_id: str) -> Empty:
        """Keep the seat, stop being dealt in (C-3)."""
        return self.roster.sit_out(player_id)

    def sit_in(self, player_id: str, post: bool = True) -> SatIn:
        """Come back: post what is owed, or wait for the big blind (C-4)."""
        return self.roster.sit_in(player_id, post)

    def leave(self, player_id: str) -> Deferred[CashedOut]:
        """Stand up after the current hand and cash out (C-8, C-10)."""
        return self.roster.leave(player_id)

    # ------------------------------------------------------------------ acting (C-6, P-1)

    def act(self, player_id: str, action: str, amount: int | None = None) -> Empty:
        """A betting action by the player whose turn it is; `amount` is the bet/raise total."""
        seat = self.roster.seat_of(player_id)
        check_action(action, amount)
        if self.driver.hand is None or self.phase != PLAYING:
            raise ProtocolError(codes.NO_HAND, "no hand is being played")
        index = self.driver.index_of(player_id)
        if index is None:
            raise ProtocolError(codes.NOT_IN_HAND, "you were not dealt into this hand")
        told = self.driver.verify(index, action, amount)  # refused here: nothing changed
        if seat.timed_out and seat.sitting_out:
            self.roster.back_from_timeout(seat)  # C-6: sat out "until they act again"
        self.driver.apply(index, told, amount if told in ("bet", "raise") else None)
        return Empty()

    def act_now_for(self, seat: Seat) -> None:
        """A leaver whose turn it is now: check if free, else fold (C-6)."""
        index = self.driver.index_of(seat.player_id)
        if index is not None:
            self.driver.act_now_for(index, LEAVING)

    # ------------------------------------------------------------------ dealing

    def deal_soon(self) -> None:
        """Deal the next hand after the pause, if two players are ready and none runs."""
        if self.phase != IDLE or self._next_hand is not None or self._closed or self.staff_hold:
            return
        if sum(1 for s in self.roster.seats.values() if s.ready) < 2:
            return
        self._next_hand = self.clock.callLater(self.config.between_hands_seconds, self._begin)

    def _begin(self) -> None:
        """Plan the blinds and posts (C-2, C-4); the `hands` row goes first (C-12)."""
        self._next_hand = None
        if self.phase != IDLE or self._closed or self.staff_hold:
            return
        cfg = self.config
        seats = self.roster.seats
        plan = plan_hand(
            seats, cfg.max_seats, cfg.small_blind, cfg.big_blind, self.button_state,
            self._pick_button,
        )  # fmt: skip
        if plan is None:
            return
        for number, missed_sb, missed_bb in plan.missed:  # C-4
            seat = seats[number]
            seat.missed_sb = seat.missed_sb or missed_sb
            seat.missed_bb = seat.missed_bb or missed_bb
        for number in plan.order:
            seat = seats[number]
            seat.in_hand = True
            seat.clear_debts()  # a blind or a post settles what was owed (C-2, C-4)
        self.plan = plan
        self.button_state = plan.state
        hand_id = self._hand_id = f"{cfg.table_id}-{self.hand_number}"
        number = self.hand_seq = self.hand_number
        self.hand_number += 1
        self.phase = STARTING
        self.start_stacks = {seats[n].player_id: seats[n].stack for n in plan.order}
        now_ms, stacks, rows = self._now_ms(), self.start_stacks, self.roster.seat_rows()
        self._started_ms = now_ms  # the history's start time
        self.pause.run(  # retried with these same values until the database takes them
            "start_hand",
            lambda: self.store.start_hand(hand_id, cfg.table_id, number, now_ms, stacks, rows),
            self._deal,
        )

    def _pick_button(self, ready: list[int]) -> int:
        """The first button of a game is drawn at random among the ready seats."""
        return ready[self.rng.randrange(len(ready))]

    def _deal(self) -> None:
        """The hands row exists (C-12): the driver shuffles (C-15) and deals."""
        if self._closed:
            return  # closed meanwhile: the hand stays `started` and is void on restart
        plan = self.plan
        assert plan is not None
        seats = self.roster.seats
        stacks = tuple(seats[n].stack for n in plan.order)
        config = self.config.hand_config(stacks, plan.blinds, plan.live_posts, plan.dead_posts)
        self.phase = PLAYING
        self.log = self.log.bind(hand_id=self._hand_id)
        self.log.info("hand_started", button=plan.button, order=list(plan.order))
        self.driver.deal(
            self._hand_id,
            config,
            plan.order,
            [seats[n].player_id for n in plan.order],
            button=plan.button,
            blinds=(self.config.small_blind, self.config.big_blind),
            post_kinds=plan.post_kinds,
            action_seconds=self.config.action_seconds,
        )

    def _now_ms(self) -> int:
        return seconds_to_ms(self.clock.seconds())

    # ------------------------------------------------------------------ HandTable (the driver)

    def _seat_at(self, index: int) -> Seat:
        return self.roster.seats[self.driver.order[index]]

    def bank_ms(self, index: int) -> int:
        """The seat's time bank (C-7)."""
        return self._seat_at(index).timebank_ms

    def keep_bank(self, index: int, ms: int) -> None:
        """What is left of the seat's bank (C-7)."""
        self._seat_at(index).timebank_ms = ms

    def act_for(self, index: int) -> str | None:
        """A player who asked to leave is acted for when the turn comes (C-6)."""
        return LEAVING if self._seat_at(index).leaving else None

    def out_of_time(self, index: int) -> float:
        """C-6: no grace at a cash table; the player is sat out (C-3) until they act again."""
        seat = self._seat_at(index)
        if not seat.sitting_out:
            seat.timed_out = True
            self.roster.sit_out_seat(seat, reason=TIMEOUT)
        return 0.0

    def asked(self, index: int) -> None:
        """Nothing to add: the player was sent `action_request`."""

    def hand_over(self, hand: Hand) -> None:
        """Keep the result in ONE commit (C-11, C-12, rule 14), then tell it (`_kept`)."""
        ended = hand.log[-1]
        assert type(ended) is ev.HandEnded
        self.phase = SETTLING
        players = self.driver.players
        deltas = {p: ended.stacks[i] - self.start_stacks[p] for i, p in enumerate(players)}
        rake_by_player = {p: r for p, r in zip(players, ended.rake_by_player, strict=True) if r}
        self.log.info("hand_ended", rake=ended.rake, deltas=deltas)
        fields = hand_history(
            hand, self.hand_seq, self._hand_id, self.config, self.driver.order, players,
            plan=self.plan, started_at_ms=self._started_ms,
        )  # fmt: skip
        settle = partial(
            self.store.settle_hand,
            self._hand_id,
            self.config.table_id,
            self.config.currency,
            deltas,
            ended.rake,
            rake_by_player,
            self._now_ms(),
            (self.config.table_id, players, fields),
        )
        self.pause.run("settle_hand", settle, partial(self._kept, ended))  # retried until kept

    def _kept(self, ended: ev.HandEnded) -> None:
        """The result is committed: stacks, hand counts and banks move on, then clients are
        told (`pot_awarded`, `hand_ended`); then the next hand."""
        for i, number in enumerate(self.driver.order):
            seat = self.roster.seats[number]
            seat.stack = ended.stacks[i]
            seat.hands_played += 1  # C-8
            seat.timebank_ms, seat.hands_since_refill = refill_timebank(  # C-7
                seat.timebank_ms,
                seat.hands_since_refill,
                self.config.timebank_refill_hands,
                seconds_to_ms(self.config.timebank_refill_seconds),
                seconds_to_ms(self.config.timebank_max_seconds),
            )
        self.driver.finish()  # persist, then tell
        self._after_hand()

    def _after_hand(self) -> None:
        """Between hands: pending top-ups, busted players, leavers; then the next hand."""
        self.plan = None
        self.phase = IDLE
        self.log = self.log.try_unbind("hand_id")
        self.roster.between_hands()
        self.deal_soon()

    def _halt(self, step: str, failure: Failure) -> None:
        """The database refused `step` for good (not an outage, which pauses): stop dealing;
        the hand is void on restart (C-12), its result never told; the audience hears
        `table_halted`."""
        self.phase = HALTED
        self.driver.abandon()
        self.log.error(
            "table_halted", step=step, error=str(failure.value), traceback=failure.getTraceback()
        )
        hand_id = self._hand_id or None
        self.broadcast(TableHalted(table_id=self.table_id, step=step, hand_id=hand_id))
