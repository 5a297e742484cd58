"""Roster: who sits where at one cash table, and the commands that change it (C-2, C-3, C-4,
C-8, C-9, C-10).

The table actor owns one `Roster` and calls it (docs/ARCHITECTURE.md rule 13): taking a seat
and buying in, topping up, sitting out and in, leaving and cashing out, the C-3 sit-out timers.
The roster keeps its own state (the seats, and the seats and money in flight) and asks the
table, through `RosterTable`, only what is the table's: whether it is closed or held, how far
its hand is, to tell its audience, and to deal again. Reactor thread only.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial
from typing import Protocol

from structlog.typing import FilteringBoundLogger
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

import pokerroom.cash.errors as codes
from pokerroom.cash.chips import SeatChips, is_amount, ledger_refusal
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.declines import is_decline
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.memory import CashOut
from pokerroom.cash.pause import TABLE_BACKOFF
from pokerroom.cash.policies import AdmissionDecision, RoomPolicies
from pokerroom.cash.seating import Seat, free_seat, seat_of_row, seat_row
from pokerroom.cash.sitouts import SitOuts
from pokerroom.cash.store import ChipsAdded, SeatRow
from pokerroom.ledger.errors import Busy, ServiceUnavailable
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import (
    SeatLeft,
    SeatTaken,
    ServerMessage,
    TableSnapshot,
)
from pokerroom.protocol.results import CashedOut, Empty, SatIn, Seated, ToppedUp
from pokerroom.table.clock import seconds_to_ms

IDLE, STARTING, PLAYING, SETTLING = "idle", "starting", "playing", "settling"


class RosterTable(Protocol):
    """What the roster asks of the table that owns it."""

    @property
    def closed(self) -> bool:
        """The table stopped (server shutdown)."""
        ...

    @property
    def staff_hold(self) -> str | None:
        """Staff hold: `paused` deals no new hand, `closed` seats no one either."""
        ...

    @property
    def phase(self) -> str:
        """Where the table's hand is: idle, starting, playing or settling."""
        ...

    def broadcast(self, msg: ServerMessage) -> None:
        """Tell the table's audience."""
        ...

    def send(self, player_id: str, msg: ServerMessage) -> None:
        """Tell one player."""
        ...

    def snapshot_message(self, player_id: str) -> TableSnapshot:
        """The `table_snapshot` for one player."""
        ...

    def deal_soon(self) -> None:
        """Deal the next hand after the pause, if two players are ready."""
        ...

    def act_now_for(self, seat: Seat) -> None:
        """A leaver whose turn it is: check if free, else fold, now (C-6)."""
        ...


class Roster:
    """The seats of one cash table and the commands that change them."""

    def __init__(
        self,
        config: CashTableConfig,
        *,
        clock: IReactorTime,
        store: HandStore,
        policies: RoomPolicies,
        table: RosterTable,
        log: Callable[[], FilteringBoundLogger],
    ) -> None:
        self.config = config
        self.clock = clock
        self.store = store
        self.policies = policies
        self.table = table
        self._log = log  # the table's logger as it is bound now
        self.seats: dict[int, Seat] = {}
        self.by_player: dict[str, int] = {}
        self._reserved: set[int] = set()  # seats being sat in or cashed out
        self._joining: set[str] = set()
        self._topping_up: dict[str, int] = {}
        self._admitted: dict[str, AdmissionDecision] = {}
        self._leaves: dict[str, list[Deferred[CashedOut]]] = {}
        #: Players whose cash-out waits for the database, with the timer of its next try.
        self._cashing_out: dict[str, IDelayedCall | None] = {}
        #: Seats sitting out and their C-3 timers (C-4 coming back).
        self.sitouts = SitOuts(
            config, clock=clock, table=table, expired=self._sitout_expired, log=log
        )
        #: Seat session -> what its stack holds of its escrow's transfers (P-2).
        self._chips: dict[str, SeatChips] = {}

    @property
    def log(self) -> FilteringBoundLogger:
        """The table's logger."""
        return self._log()

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    def _now_ms(self) -> int:
        return seconds_to_ms(self.clock.seconds())

    # ------------------------------------------------------------------ reading

    def seat_of(self, player_id: str) -> Seat:
        """The player's seat; `table_closed` or `not_seated` otherwise (P-1)."""
        if self.table.closed:
            raise ProtocolError(codes.TABLE_CLOSED, "the table is closed")
        number = self.by_player.get(player_id)
        if number is None:
            raise ProtocolError(codes.NOT_SEATED, "you are not seated at this table")
        return self.seats[number]

    def seat_rows(self) -> list[SeatRow]:
        """Every seat as the database keeps it at a hand boundary (C-12)."""
        return [seat_row(s) for s in sorted(self.seats.values(), key=lambda s: s.number)]

    def restore(self, rows: tuple[SeatRow, ...], *, last_transfer_id: int) -> None:
        """C-12: reseat the players found at start-up, with their escrow stacks (which hold
        every transfer up to `last_transfer_id`, P-2)."""
        for row in rows:
            self._chips[row.session] = SeatChips(last_transfer_id)
            seat = seat_of_row(row)
            self.seats[row.seat] = seat
            self.by_player[row.player_id] = row.seat
            if row.sitting_out:
                self.sit_out_seat(seat, reason="restart", announce=False)

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        self.sitouts.close()
        for call in self._cashing_out.values():
            if call is not None and call.active():
                call.cancel()

    # ------------------------------------------------------------------ sit (C-2, C-8, C-9, C-10)

    def sit(
        self,
        player_id: str,
        seat: int | None,
        buy_in: int,
        wait_for_big_blind: bool = False,
    ) -> Deferred[Seated]:
        """Take a seat and buy in; fires with the seat and stack once the money has moved."""
        cfg = self.config
        if self.table.closed or self.table.staff_hold == "closed":
            raise ProtocolError(codes.TABLE_CLOSED, "the table is closed")
        if player_id in self.by_player or player_id in self._joining:
            raise ProtocolError(codes.ALREADY_SEATED, "you already sit at this table")
        if player_id in self._cashing_out:
            raise ProtocolError(codes.LEAVING, "your cash-out from this table is not done yet")
        if not is_amount(buy_in):
            raise ProtocolError(codes.INVALID_AMOUNT, "buy_in must be a positive int of cents")
        taken = set(self.seats) | self._reserved
        if seat is None:
            number = free_seat(taken, cfg.max_seats)
            if number is None:
                raise ProtocolError(codes.TABLE_FULL, "the table is full")
        elif type(seat) is not int or not 0 <= seat < cfg.max_seats:
            raise ProtocolError(codes.UNKNOWN_SEAT, f"seats are 0 to {cfg.max_seats - 1}")
        elif seat in taken:
            raise ProtocolError(codes.SEAT_TAKEN, f"seat {seat} is taken")
        else:
            number = seat
        if not cfg.min_buy_in <= buy_in <= cfg.max_buy_in:
            raise ProtocolError(
                codes.BUY_IN_OUT_OF_RANGE,
                f"buy in between {cfg.min_buy_in} and {cfg.max_buy_in}",
                {"min": cfg.min_buy_in, "max": cfg.max_buy_in},
            )
        self._reserved.add(number)
        self._joining.add(player_id)
        now = self.clock.seconds()
        session = uuid.uuid4().hex[:16]
        d = self.policies.admission(player_id, cfg, now)

        def admitted(decision: AdmissionDecision) -> Deferred[ChipsAdded]:
            if decision.blocked_until_ms is not None:  # C-8
                raise ProtocolError(
                    codes.BLOCKED,
                    "blocked from this blind level after declining to play",
                    {"until_ms": decision.blocked_until_ms},
                )
            if buy_in < decision.min_buy_in:  # C-10
                raise ProtocolError(
                    codes.RATHOLE_MINIMUM,
                    f"you left this level recently: bring at least {decision.min_buy_in}",
                    {"minimum": decision.min_buy_in},
                )
            self._admitted[player_id] = decision
            row = SeatRow(
                seat=number,
                player_id=player_id,
                session=session,
                stack=buy_in,
                sat_at_ms=seconds_to_ms(now),
                hands_played=0,
                timebank_ms=seconds_to_ms(cfg.timebank_seconds),
                sitting_out=False,
                missed_sb=decision.missed_sb,
                missed_bb=decision.missed_bb,
            )
            key = f"buyin:{cfg.table_id}:{player_id}:{session}"
            return self.store.seat_player(cfg.table_id, row, cfg.currency, key)

        def seated(buy_in_moved: ChipsAdded) -> Seated:
            decision = self._admitted.pop(player_id)
            self._chips[session] = SeatChips(buy_in_moved.transfer_id)
            new = Seat(
                number=number,
                player_id=player_id,
                stack=buy_in,
                session=session,
                sat_at=now,
                timebank_ms=seconds_to_ms(cfg.timebank_seconds),
                wait_for_bb=bool(wait_for_big_blind),
                missed_sb=decision.missed_sb,  # C-4: remembered after leaving
                missed_bb=decision.missed_bb,
            )
            self.seats[number] = new
            self.by_player[player_id] = number
            self.log.info("seated", player_id=player_id, seat=number, buy_in=buy_in)
            self.table.broadcast(
                SeatTaken(table_id=self.table_id, seat=number, player=player_id, stack=buy_in)
            )
            self.table.send(player_id, self.table.snapshot_message(player_id))
            self.table.deal_soon()
            return Seated(seat=number, stack=buy_in)

        def done(result: Seated | Failure) -> Seated | Failure:
            self._reserved.discard(number)
            self._joining.discard(player_id)
            self._admitted.pop(player_id, None)
            return result

        return d.addCallback(admitted).addCallback(seated).addErrback(ledger_refusal).addBoth(done)

    # ------------------------------------------------------------------ top up (C-9)

    def top_up(self, player_id: str, amount: int, key: str | None = None) -> Deferred[ToppedUp]:
        """Add chips from the wallet; during a hand they join the stack when it ends (C-9).

        `key` is the ledger idempotency key of a keyed request (P-2): a retry whose chips the
        stack holds already adds none and answers with the stack as it is; a transfer the
        ledger holds but the stack does not (the first try's answer was lost) adds its chips
        once (`SeatChips`).
        """
        seat = self.seat_of(player_id)
        if not is_amount(amount):
            raise ProtocolError(codes.INVALID_AMOUNT, "amount must be a positive int of cents")
        if seat.leaving:
            raise ProtocolError(codes.LEAVING, "you are leaving this table")
        pending = self._topping_up.get(player_id, 0)
        room = self.config.max_buy_in - seat.stack - seat.pending_chips - pending
        if amount > room:
            raise ProtocolError(
                codes.ABOVE_TABLE_MAX,
                f"the table maximum is {self.config.max_buy_in}; you may add {max(room, 0)}",
                {"max_add": max(room, 0)},
            )
        self._topping_up[player_id] = pending + amount
        if key is None:
            key = f"topup:{self.table_id}:{player_id}:{uuid.uuid4().hex[:16]}"
        d = self.store.add_chips(self.table_id, player_id, self.config.currency, amount, key)

        def added(moved: ChipsAdded) -> ToppedUp:
            chips = self._chips.setdefault(seat.session, SeatChips(moved.transfer_id))
            if key in chips.credited or (
                moved.replayed and moved.transfer_id <= chips.counted_upto
            ):
                # P-2: a retry: the stack holds these chips already
                self.log.info("top_up_replayed", player_id=player_id, amount=amount)
                return ToppedUp(stack=seat.stack, pending=seat.pending_chips)
            chips.credited.add(key)
            if seat.in_hand:
                seat.pending_chips += amount
            else:
                seat.stack += amount
            self.log.info("topped_up", player_id=player_id, amount=amount, replayed=moved.replayed)
            return ToppedUp(stack=seat.stack, pending=seat.pending_chips)

        def done(result: ToppedUp | Failure) -> ToppedUp | Failure:
            left = self._topping_up.get(player_id, 0) - amount
            if left > 0:
                self._topping_up[player_id] = left
            else:
                self._topping_up.pop(player_id, None)
                if seat.leaving and self.seats.get(seat.number) is seat:
                    self.request_leave(seat)  # the leave waited for this money to land
            return result

        return d.addCallback(added).addErrback(ledger_refusal).addBoth(done)

    # ------------------------------------------------------------------ sit out / in (C-3, C-4)

    def sit_out(self, player_id: str) -> Empty:
        """Keep the seat, stop being dealt in; stood up after `sitout_max_minutes` (C-3)."""
        seat = self.seat_of(player_id)
        if seat.sitting_out:
            raise ProtocolError(codes.ALREADY_SITTING_OUT, "you are already sitting out")
        self.sit_out_seat(seat, reason="asked")
        return Empty()

    def sit_out_seat(self, seat: Seat, *, reason: str, announce: bool = True) -> None:
        """Sit the seat out and start its C-3 timer; tell the audience unless restoring."""
        self.sitouts.sit_out(seat, reason=reason, announce=announce)

    def _sitout_expired(self, player_id: str) -> None:
        """C-3: too long away: stand up; the chips go back to the wallet."""
        number = self.by_player.get(player_id)
        if number is None or not self.seats[number].sitting_out:
            return
        self.log.info("sitout_expired", player_id=player_id)
        self.request_leave(self.seats[number])

    def sit_in(self, player_id: str, post: bool = True) -> SatIn:
        """Come back: post what is owed next hand (post) or wait for the big blind (C-4)."""
        seat = self.seat_of(player_id)
        if not seat.sitting_out:
            raise ProtocolError(codes.NOT_SITTING_OUT, "you are not sitting out")
        if seat.stack + seat.pending_chips <= 0:
            raise ProtocolError(codes.NO_CHIPS, "you have no chips: top up first")
        if seat.leaving:
            raise ProtocolError(codes.LEAVING, "you are leaving this table")
        self.sit_in_seat(seat, post)
        return SatIn(owes=seat.owes, wait_for_big_blind=seat.wait_for_bb)

    def sit_in_seat(self, seat: Seat, post: bool) -> None:
        """Back in: post what is owed (`post`) or wait for the big blind (C-4)."""
        self.sitouts.sit_in(seat, post)

    def back_from_timeout(self, seat: Seat) -> None:
        """C-6: a player sat out by the clock who acts again is back in."""
        self.sit_in_seat(seat, post=True)

    def between_hands(self) -> None:
        """After a hand: pending top-ups join the stack (C-9), leavers stand up, a seat with no
        chips sits out."""
        for seat in list(self.seats.values()):
            seat.in_hand = False
            if seat.pending_chips:
                seat.stack += seat.pending_chips  # C-9: chips added between hands
                seat.pending_chips = 0
            if seat.leaving:
                self.stand_up(seat)
            elif seat.stack == 0 and not seat.sitting_out:
                self.sit_out_seat(seat, reason="no_chips")

    # ------------------------------------------------------------------ leave (C-8, C-10)

    def leave(self, player_id: str) -> Deferred[CashedOut]:
        """Stand up after the current hand and cash out; fires with the amount and C-8 count."""
        seat = self.seat_of(player_id)
        d: Deferred[CashedOut] = Deferred()
        self._leaves.setdefault(player_id, []).append(d)
        if not seat.leaving:
            self.request_leave(seat)
        return d

    def request_leave(self, seat: Seat) -> None:
        """Stand up now between hands, else after the hand (acted for when the turn comes)."""
        seat.leaving = True
        if seat.in_hand and self.table.phase != IDLE:
            # Folds (or checks) when the turn comes; stands up when the hand is settled.
            if self.table.phase == PLAYING:
                self.table.act_now_for(seat)
            return
        self.stand_up(seat)

    def stand_up(self, seat: Seat) -> None:
        """Remove the seat now and cash out; record the decline (C-8) and memory (C-10, C-4)."""
        if seat.player_id in self._topping_up:
            return  # cash out only after the top-up has landed in the escrow
        others = [s for s in self.seats.values() if s is not seat]
        declined = self.config.hit_and_run and is_decline(
            seat.hands_played,
            self.config.decline_hands,
            len(others),
            sum(1 for s in others if s.sitting_out),
        )
        del self.seats[seat.number]
        del self.by_player[seat.player_id]
        self._reserved.add(seat.number)
        self.sitouts.forget(seat.player_id)
        cash_out = partial(  # the same values on every try: memory.cash_out is idempotent
            self.store.cash_out,
            self.table_id,
            seat.number,
            seat.player_id,
            self.config.currency,
            f"cashout:{self.table_id}:{seat.player_id}:{seat.session}",
            self.config.stakes,
            self._now_ms(),
            declined,
            (seat.missed_sb, seat.missed_bb),
        )
        self._cashing_out[seat.player_id] = None
        self._try_cash_out(seat, cash_out, 0)
        self.table.deal_soon()

    def _try_cash_out(
        self, seat: Seat, cash_out: Callable[[], Deferred[CashOut]], tries: int
    ) -> None:
        """Cash out; while the database is out, keep the seat empty and try again (C-12).

        The leave is answered when the money is back in the wallet: the outage only delays it.
        """
        self._cashing_out[seat.player_id] = None
        if self.table.closed:
            return  # the seat row and the escrow stay: the restart reseats the player (C-12)
        d = cash_out()

        def cashed(out: CashOut) -> CashedOut:
            self._cashing_out.pop(seat.player_id, None)
            self._chips.pop(seat.session, None)
            self._reserved.discard(seat.number)
            self.log.info(
                "stood_up", player_id=seat.player_id, amount=out.amount, decline=out.decline_number
            )
            self.table.broadcast(
                SeatLeft(
                    table_id=self.table_id,
                    seat=seat.number,
                    player=seat.player_id,
                    amount=out.amount,
                )
            )
            result = CashedOut(
                amount=out.amount,
                decline_number=out.decline_number,
                blocked_until_ms=out.blocked_until_ms,
            )
            for waiter in self._leaves.pop(seat.player_id, []):
                waiter.callback(result)
            return result

        def failed(failure: Failure) -> None:
            if failure.check(ServiceUnavailable, Busy) and not self.table.closed:
                if tries == 0:
                    self.log.warning(
                        "cash_out_waiting",
                        player_id=seat.player_id,
                        error=str(failure.value)[:200],
                    )
                delay = TABLE_BACKOFF.delay(tries)
                later = self.clock.callLater(delay, self._try_cash_out, seat, cash_out, tries + 1)
                self._cashing_out[seat.player_id] = later
                return
            # Refused for good: the money stayed in escrow: keep the seat, sitting out (P-1).
            self._cashing_out.pop(seat.player_id, None)
            self._reserved.discard(seat.number)
            seat.leaving = False
            self.seats[seat.number] = seat
            self.by_player[seat.player_id] = seat.number
            self.log.error("cash_out_failed", player_id=seat.player_id, error=str(failure.value))
            if not seat.sitting_out:
                self.sit_out_seat(seat, reason="cash_out_failed")
            for waiter in self._leaves.pop(seat.player_id, []):
                waiter.errback(ledger_refusal(failure))

        d.addCallbacks(cashed, failed)
