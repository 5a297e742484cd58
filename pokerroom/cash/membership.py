"""Sitting down, topping up, sitting out and in, leaving (C-2, C-3, C-4, C-8, C-9, C-10).

`Membership` is the half of `TableActor` that changes who sits where; mixed into it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.cash import errors as codes
from pokerroom.cash.declines import is_decline
from pokerroom.cash.memory import CashOut
from pokerroom.cash.pause import TABLE_BACKOFF
from pokerroom.cash.policies import AdmissionDecision
from pokerroom.cash.seating import Seat, free_seat
from pokerroom.cash.state import IDLE, PLAYING, TableState
from pokerroom.cash.store import SeatRow
from pokerroom.ledger.errors import Busy, IdempotencyConflict, InsufficientFunds, ServiceUnavailable
from pokerroom.protocol.errors import ProtocolError
from pokerroom.table.clock import seconds_to_ms


def _is_amount(value: object) -> bool:
    return type(value) is int and value > 0


def _ledger_error(failure: Failure) -> Failure:
    """Money errors become protocol errors; nothing changed (P-1)."""
    if failure.check(ProtocolError):
        return failure
    if failure.check(InsufficientFunds):
        return Failure(ProtocolError(codes.INSUFFICIENT_FUNDS, "the wallet holds too little"))
    if failure.check(IdempotencyConflict):  # P-2: a client's key reused for other content
        return Failure(ProtocolError(IdempotencyConflict.code, "this key was used for another"))
    if isinstance(failure.value, ServiceUnavailable | Busy):  # an outage or load: try later
        return Failure(ProtocolError(failure.value.code, failure.value.message))
    return Failure(ProtocolError(codes.LEDGER_FAILED, f"the money move failed: {failure.value}"))


class Membership(TableState):
    """Seat-changing commands mixed into TableActor."""

    # ------------------------------------------------------------------ sit (C-2, C-8, C-9, C-10)

    def sit(
        self,
        player_id: str,
        seat: int | None,
        buy_in: int,
        wait_for_big_blind: bool = False,
    ) -> Deferred[dict[str, Any]]:
        """Take a seat and buy in; fires with {seat, stack} once the money has moved."""
        cfg = self.config
        if self._closed or self.staff_hold == "closed":
            raise ProtocolError(codes.TABLE_CLOSED, "the table is closed")
        if player_id in self.by_player or player_id in self._joining:
            raise ProtocolError(codes.ALREADY_SEATED, "you already sit at this table")
        if player_id in self._cashing_out:
            raise ProtocolError(codes.LEAVING, "your cash-out from this table is not done yet")
        if not _is_amount(buy_in):
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

        def admitted(decision: AdmissionDecision) -> Deferred[None]:
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

        def seated(_: None) -> dict[str, Any]:
            decision = self._admitted.pop(player_id)
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
            self._seat_event("seat_taken", new, stack=buy_in)
            self.listener.send(player_id, self.snapshot_message(player_id))
            self._maybe_schedule_hand()
            return {"seat": number, "stack": buy_in}

        def done(result: dict[str, Any] | Failure) -> dict[str, Any] | Failure:
            self._reserved.discard(number)
            self._joining.discard(player_id)
            self._admitted.pop(player_id, None)
            return result

        return d.addCallback(admitted).addCallback(seated).addErrback(_ledger_error).addBoth(done)

    # ------------------------------------------------------------------ top up (C-9)

    def top_up(
        self, player_id: str, amount: int, key: str | None = None
    ) -> Deferred[dict[str, Any]]:
        """Add chips from the wallet; during a hand they join the stack when it ends (C-9).

        `key` is the ledger idempotency key of a keyed request (P-2): when the ledger already
        holds that transfer (a retry), no chips are added and the stack as it is answers.
        """
        seat = self._seat_of(player_id)
        if not _is_amount(amount):
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

        def added(replayed: bool) -> dict[str, Any]:
            if replayed:  # P-2: this key's chips were added before
                self.log.info("top_up_replayed", player_id=player_id, amount=amount)
            elif seat.in_hand:
                seat.pending_chips += amount
            else:
                seat.stack += amount
            self.log.info("topped_up", player_id=player_id, amount=amount)
            return {"stack": seat.stack, "pending": seat.pending_chips}

        def done(result: dict[str, Any] | Failure) -> dict[str, Any] | Failure:
            left = self._topping_up.get(player_id, 0) - amount
            if left > 0:
                self._topping_up[player_id] = left
            else:
                self._topping_up.pop(player_id, None)
                if seat.leaving and self.seats.get(seat.number) is seat:
                    self._request_leave(seat)  # the leave waited for this money to land
            return result

        return d.addCallback(added).addErrback(_ledger_error).addBoth(done)

    # ------------------------------------------------------------------ sit out / in (C-3, C-4)

    def sit_out(self, player_id: str) -> dict[str, Any]:
        """Keep the seat, stop being dealt in; stood up after `sitout_max_minutes` (C-3)."""
        seat = self._seat_of(player_id)
        if seat.sitting_out:
            raise ProtocolError(codes.ALREADY_SITTING_OUT, "you are already sitting out")
        self._sit_out_seat(seat, reason="asked")
        return {}

    def _sit_out_seat(self, seat: Seat, *, reason: str, announce: bool = True) -> None:
        seat.sitting_out = True
        seat.sat_out_at = self.clock.seconds()
        old = self._sitout_timers.pop(seat.player_id, None)
        if old is not None and old.active():
            old.cancel()
        self._sitout_timers[seat.player_id] = self.clock.callLater(
            self.config.sitout_max_minutes * 60, self._sitout_expired, seat.player_id
        )
        self.log.info("sat_out", player_id=seat.player_id, reason=reason)
        if announce:
            self._seat_event("player_sat_out", seat, reason=reason)

    def _sitout_expired(self, player_id: str) -> None:
        """C-3: too long away: stand up; the chips go back to the wallet."""
        self._sitout_timers.pop(player_id, None)
        number = self.by_player.get(player_id)
        if number is None or not self.seats[number].sitting_out:
            return
        self.log.info("sitout_expired", player_id=player_id)
        self._request_leave(self.seats[number])

    def sit_in(self, player_id: str, post: bool = True) -> dict[str, Any]:
        """Come back: post what is owed next hand (post) or wait for the big blind (C-4)."""
        seat = self._seat_of(player_id)
        if not seat.sitting_out:
            raise ProtocolError(codes.NOT_SITTING_OUT, "you are not sitting out")
        if seat.stack + seat.pending_chips <= 0:
            raise ProtocolError(codes.NO_CHIPS, "you have no chips: top up first")
        if seat.leaving:
            raise ProtocolError(codes.LEAVING, "you are leaving this table")
        self._sit_in_seat(seat, post)
        return {"owes": seat.owes, "wait_for_big_blind": seat.wait_for_bb}

    def _sit_in_seat(self, seat: Seat, post: bool) -> None:
        timer = self._sitout_timers.pop(seat.player_id, None)
        if timer is not None and timer.active():
            timer.cancel()
        seat.sitting_out = False
        seat.timed_out = False
        seat.sat_out_at = None
        if seat.owes:
            seat.waiting = True
            seat.wait_for_bb = not post
        self._seat_event("player_sat_in", seat, owes=seat.owes, wait_for_bb=seat.wait_for_bb)
        self._maybe_schedule_hand()

    def _back_from_timeout(self, seat: Seat) -> None:
        """C-6: a player sat out by the clock who acts again is back in."""
        self._sit_in_seat(seat, post=True)

    # ------------------------------------------------------------------ leave (C-8, C-10)

    def leave(self, player_id: str) -> Deferred[dict[str, Any]]:
        """Stand up after the current hand and cash out; fires with {amount, decline, ...}."""
        seat = self._seat_of(player_id)
        d: Deferred[dict[str, Any]] = Deferred()
        self._leaves.setdefault(player_id, []).append(d)
        if not seat.leaving:
            self._request_leave(seat)
        return d

    def _request_leave(self, seat: Seat) -> None:
        seat.leaving = True
        if seat.in_hand and self.phase != IDLE:
            # Folds (or checks) when the turn comes; stands up when the hand is settled.
            hand = self.hand
            if hand is not None and self.phase == PLAYING:
                index = self.order.index(seat.number)
                if hand.actor == index:
                    self._auto_act(index, timed_out=False)
            return
        self._stand_up(seat)

    def _stand_up(self, seat: Seat) -> None:
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
        timer = self._sitout_timers.pop(seat.player_id, None)
        if timer is not None and timer.active():
            timer.cancel()
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
        self._maybe_schedule_hand()

    def _try_cash_out(
        self, seat: Seat, cash_out: Callable[[], Deferred[CashOut]], tries: int
    ) -> None:
        """Cash out; while the database is out, keep the seat empty and try again (C-12).

        The leave is answered when the money is back in the wallet: the outage only delays it.
        """
        self._cashing_out[seat.player_id] = None
        if self._closed:
            return  # the seat row and the escrow stay: the restart reseats the player (C-12)
        d = cash_out()

        def cashed(out: CashOut) -> dict[str, Any]:
            self._cashing_out.pop(seat.player_id, None)
            self._reserved.discard(seat.number)
            self.log.info(
                "stood_up", player_id=seat.player_id, amount=out.amount, decline=out.decline_number
            )
            self._seat_event("seat_left", seat, amount=out.amount)
            result = {
                "amount": out.amount,
                "decline_number": out.decline_number,
                "blocked_until_ms": out.blocked_until_ms,
            }
            for waiter in self._leaves.pop(seat.player_id, []):
                waiter.callback(result)
            return result

        def failed(failure: Failure) -> None:
            if failure.check(ServiceUnavailable, Busy) and not self._closed:
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
                self._sit_out_seat(seat, reason="cash_out_failed")
            for waiter in self._leaves.pop(seat.player_id, []):
                waiter.errback(_ledger_error(failure))

        d.addCallbacks(cashed, failed)
