"""TableActor: one cash table; takes players' commands on the reactor thread (docs/design/room.md).

Every command checks everything first and raises `ProtocolError(code, message)` changing
nothing (P-1); commands that move money return a Deferred that fires when the ledger has.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred

from pokerroom.cash import errors as codes
from pokerroom.cash.membership import Membership
from pokerroom.cash.play import HandLoop
from pokerroom.cash.seating import Seat
from pokerroom.cash.state import PLAYING, STARTING
from pokerroom.cash.store import Recovery
from pokerroom.engine import EngineError
from pokerroom.protocol.errors import ProtocolError
from pokerroom.table.clock import seconds_to_ms
from pokerroom.table.views import Message, hand_view, message

ACTIONS = ("fold", "check", "call", "bet", "raise")


def _is_amount(value: object) -> bool:
    return type(value) is int and value > 0


class TableActor(HandLoop, Membership):
    """Owns one table's seats, stacks, button and current hand (constructor: TableState)."""

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Deferred[Recovery]:
        """C-12: void interrupted hands, reseat players with their escrow stacks, begin."""
        d = self.store.recover(self.config.table_id, self.config.currency)
        d.addCallback(self._restore)
        return d

    def _restore(self, found: Recovery) -> Recovery:
        self.hand_number = found.next_number
        for row in found.seats:
            seat = Seat(
                number=row.seat,
                player_id=row.player_id,
                stack=row.stack,
                session=row.session,
                sat_at=row.sat_at_ms / 1000,
                timebank_ms=row.timebank_ms,
                waiting=False,
                missed_sb=row.missed_sb,
                missed_bb=row.missed_bb,
                hands_played=row.hands_played,
                disconnected=True,  # C-14: nobody is connected after a restart
            )
            self.seats[row.seat] = seat
            self.by_player[row.player_id] = row.seat
            if row.sitting_out:
                self._sit_out_seat(seat, reason="restart", announce=False)
        if found.voided:
            self.log.warning("hands_voided", hands=list(found.voided))
        self._maybe_schedule_hand()
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
        self._maybe_schedule_hand()

    def close(self) -> None:
        """Stop dealing and timing (server shutdown); an unfinished hand is void on restart."""
        self._closed = True
        self.action_clock.stop()
        self.pause.stop()
        for call in [self._next_hand, *self._sitout_timers.values(), *self._cashing_out.values()]:
            if call is not None and call.active():
                call.cancel()
        self._next_hand = None
        self._sitout_timers.clear()

    # ------------------------------------------------------------------ helpers

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events: observers and seated players."""
        return self.observers | set(self.by_player)

    @property
    def hand_running(self) -> bool:
        """Whether a hand is being dealt or played (for chat, C-13)."""
        return self.phase in (STARTING, PLAYING)

    def in_hand(self, player_id: str) -> bool:
        """Whether the player holds live cards in the running hand (C-13)."""
        number = self.by_player.get(player_id)
        if number is None or not self.hand_running or not self.seats[number].in_hand:
            return False
        if self.hand is None:
            return True
        return not self.hand.folded[self.order.index(number)]

    # ------------------------------------------------------------------ watching (C-14, C-15)

    def observe(self, player_id: str) -> dict[str, Any]:
        """Start receiving the table's public events; returns the snapshot."""
        self.observers.add(player_id)
        self._tell_pause(player_id)
        return self.snapshot(player_id)

    def _tell_pause(self, player_id: str) -> None:
        """A player who opens the table while it waits for the database hears so (C-12)."""
        notice = self.pause.notice()
        if notice is not None:
            kind = notice.pop("type")
            self.listener.send(player_id, message(self.table_id, kind, **notice))

    def unobserve(self, player_id: str) -> dict[str, Any]:
        """Stop receiving public events; a seated player must leave first."""
        if player_id in self.by_player:
            raise ProtocolError(codes.STILL_SEATED, "you sit at this table: leave first")
        self.observers.discard(player_id)
        return {}

    def snapshot(self, player_id: str) -> dict[str, Any]:
        """The table as `player_id` may see it: public state and only their own cards (C-15)."""
        cfg = self.config
        seats = [
            {
                "seat": s.number,
                "player": s.player_id,
                "stack": s.stack,
                "sitting_out": s.sitting_out,
                "waiting": s.waiting,
                "in_hand": s.in_hand,
                "disconnected": s.disconnected,
            }
            for s in sorted(self.seats.values(), key=lambda s: s.number)
        ]
        snap: dict[str, Any] = {
            "table_id": cfg.table_id,
            "variant": cfg.variant,
            "max_seats": cfg.max_seats,
            "blinds": [cfg.small_blind, cfg.big_blind],
            "currency": cfg.currency,
            "buy_in": [cfg.min_buy_in, cfg.max_buy_in],
            "button": self.button_state.button if self.button_state else None,
            "seats": seats,
            "hand": None,
        }
        if self.hand is not None:
            mine = self.by_player.get(player_id)
            viewer = self.order.index(mine) if mine in self.order else None
            snap["hand"] = hand_view(self.hand, self.hand_id, self.order, viewer)
            if self.hand.actor >= 0 and self.action_clock.running:
                snap["hand"]["deadline_ms"] = seconds_to_ms(self.action_clock.deadline)
        return snap

    def snapshot_message(self, player_id: str) -> Message:
        """The `table_snapshot` message for one player."""
        return message(self.table_id, "table_snapshot", snapshot=self.snapshot(player_id))

    def disconnected(self, player_id: str) -> None:
        """C-14: the seat stays and the clock keeps running."""
        number = self.by_player.get(player_id)
        if number is not None:
            self.seats[number].disconnected = True
            self.log.info("disconnected", player_id=player_id)

    def reconnected(self, player_id: str) -> dict[str, Any]:
        """C-14: resend the snapshot, and the action request if it is the player's turn."""
        number = self.by_player.get(player_id)
        if number is not None:
            self.seats[number].disconnected = False
        self.listener.send(player_id, self.snapshot_message(player_id))
        self._tell_pause(player_id)
        hand = self.hand
        if (
            number is not None
            and hand is not None
            and self.phase == PLAYING
            and hand.actor >= 0
            and self.order[hand.actor] == number
        ):
            self._request_action(hand.actor, self.action_clock.deadline)
        return self.snapshot(player_id)

    # ------------------------------------------------------------------ acting (C-6, P-1)

    def act(self, player_id: str, action: str, amount: int | None = None) -> dict[str, Any]:
        """A betting action by the player whose turn it is; `amount` is the bet/raise total."""
        seat = self._seat_of(player_id)
        if action not in ACTIONS:
            raise ProtocolError(codes.BAD_ACTION, f"action must be one of {', '.join(ACTIONS)}")
        if action in ("bet", "raise"):
            if not _is_amount(amount):
                raise ProtocolError(codes.INVALID_AMOUNT, "amount must be a positive int")
        elif amount is not None and not (type(amount) is int and amount >= 0):
            raise ProtocolError(codes.INVALID_AMOUNT, "amount must be a non-negative int")
        hand = self.hand
        if hand is None or self.phase != PLAYING:
            raise ProtocolError(codes.NO_HAND, "no hand is being played")
        if seat.number not in self.order:
            raise ProtocolError(codes.NOT_IN_HAND, "you were not dealt into this hand")
        index = self.order.index(seat.number)
        try:
            if action == "fold":
                hand.verify_fold(index)
            elif action in ("bet", "raise"):
                assert amount is not None
                hand.verify_bet_or_raise(index, amount)
            else:
                hand.verify_check_or_call(index)
                owed = hand.call_amount(index)
                if action == "check" and owed:
                    raise ProtocolError(codes.CANNOT_CHECK, f"{owed} to call: call or fold")
                if action == "call" and not owed:
                    raise ProtocolError(codes.NOTHING_TO_CALL, "nothing to call: check")
        except EngineError as exc:
            raise ProtocolError(exc.code, exc.message) from None
        if seat.timed_out and seat.sitting_out:
            self._back_from_timeout(seat)  # C-6: sat out "until they act again"
        if hand.current_bet == 0 and action == "raise":
            action = "bet"
        elif hand.current_bet > 0 and action == "bet":
            action = "raise"
        self._apply(index, action, amount if action in ("bet", "raise") else None)
        return {}
