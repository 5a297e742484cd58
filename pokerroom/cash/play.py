"""The hand loop of a table: plan, record, deal, ask, time, apply, settle (C-2..C-7, C-11, C-12).

`HandLoop` is the half of `TableActor` that runs hands; the other half (actor.py) takes the
players' commands. Both run on the reactor thread only.
"""

from __future__ import annotations

from functools import partial

from twisted.python.failure import Failure

from pokerroom.cash.histories import hand_history
from pokerroom.cash.state import HALTED, IDLE, PLAYING, SETTLING, STARTING, TableState
from pokerroom.engine import Hand
from pokerroom.engine import events as ev
from pokerroom.engine.cards import shuffled_deck
from pokerroom.table.clock import refill_timebank, seconds_to_ms
from pokerroom.table.positions import plan_hand
from pokerroom.table.views import event_deliveries, legal_view, message


class HandLoop(TableState):
    """Hand lifecycle methods mixed into TableActor."""

    # ------------------------------------------------------------------ starting a hand

    def _maybe_schedule_hand(self) -> None:
        """Deal the next hand after the pause, if two players are ready and none runs."""
        if self.phase != IDLE or self._next_hand is not None or self._closed or self.staff_hold:
            return
        if sum(1 for s in self.seats.values() if s.ready) < 2:
            return
        self._next_hand = self.clock.callLater(self.config.between_hands_seconds, self._begin)

    def _begin(self) -> None:
        self._next_hand = None
        if self.phase != IDLE or self._closed or self.staff_hold:
            return
        cfg = self.config
        plan = plan_hand(
            self.seats,
            cfg.max_seats,
            cfg.small_blind,
            cfg.big_blind,
            self.button_state,
            self._pick_button,
        )
        if plan is None:
            return
        for number, missed_sb, missed_bb in plan.missed:  # C-4
            seat = self.seats[number]
            seat.missed_sb = seat.missed_sb or missed_sb
            seat.missed_bb = seat.missed_bb or missed_bb
        for number in plan.order:
            seat = self.seats[number]
            seat.in_hand = True
            seat.clear_debts()  # a blind or a post settles what was owed (C-2, C-4)
        self.plan = plan
        self.button_state = plan.state
        self.hand_id = f"{cfg.table_id}-{self.hand_number}"
        number = self.hand_seq = self.hand_number
        self.hand_number += 1
        self.phase = STARTING
        self.start_stacks = {self.seats[n].player_id: self.seats[n].stack for n in plan.order}
        hand_id, now_ms, stacks, rows = (
            self.hand_id,
            self._now_ms(),
            self.start_stacks,
            self._seat_rows(),
        )
        self.pause.run(  # retried with these same values until the database takes them
            "start_hand",
            lambda: self.store.start_hand(hand_id, cfg.table_id, number, now_ms, stacks, rows),
            self._deal,
        )

    def _pick_button(self, ready: list[int]) -> int:
        """The first button of a game is drawn at random among the ready seats."""
        return ready[self.rng.randrange(len(ready))]

    def _deal(self) -> None:
        """The hands row exists (C-12): shuffle (C-15) and deal."""
        if self._closed:
            return  # closed meanwhile: the hand stays `started` and is void on restart
        plan = self.plan
        assert plan is not None
        stacks = tuple(self.seats[n].stack for n in plan.order)
        config = self.config.hand_config(stacks, plan.blinds, plan.live_posts, plan.dead_posts)
        self.order = plan.order
        self.players = tuple(self.seats[n].player_id for n in plan.order)
        self.hand = Hand(config, deck=shuffled_deck(self.rng))
        self._seen = 0
        self.phase = PLAYING
        self.log = self.log.bind(hand_id=self.hand_id)
        self.log.info("hand_started", button=plan.button, order=list(plan.order))
        self._broadcast(
            message(
                self.config.table_id,
                "hand_started",
                hand_id=self.hand_id,
                button=plan.button,
                blinds=[self.config.small_blind, self.config.big_blind],
                seats=[
                    {"seat": n, "player": p, "stack": s}
                    for n, p, s in zip(plan.order, self.players, stacks, strict=True)
                ],
            )
        )
        self._flush()
        self._prompt()

    # ------------------------------------------------------------------ turns and the clock

    def _flush(self, label: str | None = None, auto: str | None = None) -> None:
        """Deliver the engine events logged since the last flush."""
        hand = self.hand
        assert hand is not None and self.plan is not None
        new = hand.log[self._seen :]
        self._seen = len(hand.log)
        for delivery in event_deliveries(
            self.config.table_id,
            self.hand_id,
            new,
            self.order,
            self.players,
            self.plan.post_kinds,
            label,
            auto,
        ):
            if delivery.to is None:
                self._broadcast(delivery.message)
            else:
                self.listener.send(delivery.to, delivery.message)

    def _prompt(self) -> None:
        """Ask the next player to act, or end the hand."""
        hand = self.hand
        assert hand is not None
        if hand.is_over:
            self._end_hand()
            return
        index = hand.actor
        seat = self.seats[self.order[index]]
        if seat.leaving:
            self._auto_act(index, timed_out=False)
            return
        deadline = self.action_clock.start(self.config.action_seconds, seat.timebank_ms)
        self._request_action(index, deadline)

    def _request_action(self, index: int, deadline: float) -> None:
        hand = self.hand
        assert hand is not None
        legal = hand.legal_actions(index)
        assert legal is not None
        self.listener.send(
            self.players[index],
            message(
                self.config.table_id,
                "action_request",
                hand_id=self.hand_id,
                seat=self.order[index],
                actions=legal_view(legal),
                deadline_ms=seconds_to_ms(deadline),
                timebank_ms=self.action_clock.bank_left_ms(),
            ),
        )

    def _on_timebank(self, remaining_ms: int) -> None:
        """C-7: the action time ran out; the bank starts on its own and everyone is told."""
        hand = self.hand
        assert hand is not None
        seat = self.order[hand.actor]
        self._broadcast(
            message(
                self.config.table_id,
                "timebank_started",
                hand_id=self.hand_id,
                seat=seat,
                timebank_ms=remaining_ms,
                deadline_ms=seconds_to_ms(self.action_clock.deadline),
            )
        )

    def _on_timeout(self) -> None:
        """C-6: no time left: check if free, else fold; then the player sits out (C-3)."""
        hand = self.hand
        assert hand is not None
        index = hand.actor
        seat = self.seats[self.order[index]]
        seat.timebank_ms = 0
        if not seat.sitting_out:
            seat.timed_out = True
            self._sit_out_seat(seat, reason="timeout")
        self._auto_act(index, timed_out=True)

    def _auto_act(self, index: int, *, timed_out: bool) -> None:
        hand = self.hand
        assert hand is not None
        self.action_clock.stop()
        if hand.call_amount(index) == 0:
            hand.check_or_call(index)
        else:
            hand.fold(index)
        self.log.info("auto_action", seat=self.order[index], timed_out=timed_out)
        self._flush(auto="timeout" if timed_out else "leaving")
        self._prompt()

    def _apply(self, index: int, action: str, amount: int | None) -> None:
        """A checked, legal player action: stop the clock, keep the bank left, apply (C-7)."""
        hand = self.hand
        assert hand is not None
        seat = self.seats[self.order[index]]
        seat.timebank_ms = self.action_clock.stop()
        if action == "fold":
            hand.fold(index)
        elif action in ("check", "call"):
            hand.check_or_call(index)
        else:
            assert amount is not None
            hand.bet_or_raise(index, amount)
        self._flush(label=action)
        self._prompt()

    # ------------------------------------------------------------------ ending a hand

    def _end_hand(self) -> None:
        """Settle in one ledger transfer keyed by the hand id (C-11), then tidy up."""
        hand = self.hand
        assert hand is not None
        ended = hand.log[-1]
        assert type(ended) is ev.HandEnded
        self.phase = SETTLING
        deltas: dict[str, int] = {}
        rake_by_player: dict[str, int] = {}
        for i, number in enumerate(self.order):
            seat = self.seats[number]
            deltas[seat.player_id] = ended.stacks[i] - self.start_stacks[seat.player_id]
            if ended.rake_by_player[i]:
                rake_by_player[seat.player_id] = ended.rake_by_player[i]
            seat.stack = ended.stacks[i]
            seat.hands_played += 1  # C-8
            seat.timebank_ms, seat.hands_since_refill = refill_timebank(  # C-7
                seat.timebank_ms,
                seat.hands_since_refill,
                self.config.timebank_refill_hands,
                seconds_to_ms(self.config.timebank_refill_seconds),
                seconds_to_ms(self.config.timebank_max_seconds),
            )
        self.log.info("hand_ended", rake=ended.rake, deltas=deltas)
        fields = hand_history(
            hand, self.hand_seq, self.hand_id, self.config, self.order, self.players
        )
        settle = partial(
            self.store.settle_hand,
            self.hand_id,
            self.config.table_id,
            self.config.currency,
            deltas,
            ended.rake,
            rake_by_player,
            self._now_ms(),
            (self.config.table_id, self.players, fields),
        )
        self.pause.run("settle_hand", settle, self._after_hand)  # retried until it lands

    def _after_hand(self) -> None:
        """Between hands: pending top-ups, busted players, leavers; then the next hand."""
        self.hand = None
        self.plan = None
        self.phase = IDLE
        self.log = self.log.try_unbind("hand_id")
        for seat in list(self.seats.values()):
            seat.in_hand = False
            if seat.pending_chips:
                seat.stack += seat.pending_chips  # C-9: chips added between hands
                seat.pending_chips = 0
            if seat.leaving:
                self._stand_up(seat)
            elif seat.stack == 0 and not seat.sitting_out:
                self._sit_out_seat(seat, reason="no_chips")
        self._maybe_schedule_hand()

    def _halt(self, step: str, failure: Failure) -> None:
        """The database refused `step` for good (not an outage, which pauses): stop dealing;
        the hand is void on restart (C-12); the audience hears `table_halted`."""
        self.phase = HALTED
        self.action_clock.stop()
        self.log.error(
            "table_halted", step=step, error=str(failure.value), traceback=failure.getTraceback()
        )
        hand_id = self.hand_id or None
        self._broadcast(message(self.table_id, "table_halted", step=step, hand_id=hand_id))
