"""HandDriver: one hand at one table, from the shuffle to the result (C-5, C-6, C-7, C-14, C-15).

Cash tables (`pokerroom.cash.TableActor`) and tournament tables (`tournaments.tables.table`) each
own a driver and call it; neither inherits from it (docs/ARCHITECTURE.md rule 13). The driver:

- deals a hand the table has planned, with the table's injected random source (C-15);
- asks each player in turn (`action_request` with the deadline and the bank) and runs the
  action clock and then the time bank (C-6, C-7); a player who answers at once (a bot inside
  the `asked` call) costs no timer;
- applies an action only after the engine has verified it (rule 2): a refusal raises
  `ProtocolError` with a stable code and changes nothing (P-1);
- acts for a player who is out of time, leaving, or sitting out with ONE rule: check if
  checking is free, else fold (`check_or_fold`, C-6, T-12);
- keeps the cursor over the engine's log and sends each event to the audience that may see it
  (C-15: hole cards to their holder only);
- holds the result (`pot_awarded`, `hand_ended`) until the table says it is kept
  (`finish`): a client hears a result only after it is committed (rule 14).

Everything runs on the reactor thread; time comes from the table's `IReactorTime`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from structlog.typing import FilteringBoundLogger
from twisted.internet.interfaces import IReactorTime

from pokerroom.engine import EngineError, Hand, HandConfig
from pokerroom.engine import events as ev
from pokerroom.engine.cards import RandomSource, shuffled_deck
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import (
    UNSET,
    ActionRequest,
    HandEnded,
    HandStarted,
    HandView,
    PotAwarded,
    SeatStack,
    ServerMessage,
    TimebankStarted,
    UnsetType,
)
from pokerroom.table import errors as codes
from pokerroom.table.clock import ActionClock, seconds_to_ms
from pokerroom.table.views import (
    Delivery,
    TableListener,
    event_deliveries,
    hand_view,
    legal_view,
)

ACTIONS = ("fold", "check", "call", "bet", "raise")
#: The messages that tell a hand's result: held until the table has kept it (rule 14).
RESULT_MESSAGES = (PotAwarded, HandEnded)
#: Why the table acted for a player (the `auto` field of `player_acted`).
TIMEOUT, LEAVING, SITTING_OUT = "timeout", "leaving", "sitting_out"


class HandTable(Protocol):
    """What a driver asks of the table that owns it; `index` is the player's engine index."""

    def bank_ms(self, index: int) -> int:
        """The player's time bank now, in ms (C-7)."""
        ...

    def keep_bank(self, index: int, ms: int) -> None:
        """What is left of the player's bank after a decision (C-7)."""
        ...

    def act_for(self, index: int) -> str | None:
        """Why the table acts for this player at once, without the clock (`leaving`,
        `sitting_out`), or None to ask the player."""
        ...

    def out_of_time(self, index: int) -> float:
        """The clock and the bank ran out: seconds more to grant (T-12), or 0 to act for them."""
        ...

    def asked(self, index: int) -> None:
        """The player was just sent `action_request`; a bot may act at once, inside this call."""
        ...

    def hand_over(self, hand: Hand) -> None:
        """The hand is over: keep its result, then call the driver's `finish` (rule 14)."""
        ...


def check_action(action: object, amount: object) -> None:
    """Refuse a malformed action (P-1): the name, and an amount only where one belongs."""
    if action not in ACTIONS:
        raise ProtocolError(codes.BAD_ACTION, f"action must be one of {', '.join(ACTIONS)}")
    if action in ("bet", "raise"):
        if type(amount) is not int or amount <= 0:
            raise ProtocolError(codes.INVALID_AMOUNT, "amount must be a positive int")
    elif amount is not None and not (type(amount) is int and amount >= 0):
        raise ProtocolError(codes.INVALID_AMOUNT, "amount must be a non-negative int")


def check_or_fold(hand: Hand, index: int) -> str:
    """C-6, T-12: act for a player: check if checking is free, else fold; returns which."""
    if hand.call_amount(index) == 0:
        hand.check_or_call(index)
        return "check"
    hand.fold(index)
    return "fold"


class HandDriver:
    """Deals, times, applies and tells one hand at a time for the table that owns it."""

    def __init__(
        self,
        table_id: str,
        *,
        clock: IReactorTime,
        rng: RandomSource,
        listener: TableListener,
        table: HandTable,
        log: FilteringBoundLogger,
    ) -> None:
        self.table_id = table_id
        self.clock = clock
        self.rng = rng
        self.listener = listener
        self.table = table
        self.log = log
        self.action_clock = ActionClock(clock, self._on_timebank, self._on_timeout)
        self.hand: Hand | None = None
        self.last_hand: Hand | None = None  # the hand finished last (tests, histories)
        self.hand_id = ""
        self.order: tuple[int, ...] = ()  # engine index -> seat number in frames
        self.players: tuple[str, ...] = ()  # engine index -> player
        self.post_kinds: Mapping[int, str] = {}
        self.action_seconds = 15.0
        self.over = False  # the hand ended; its result waits for `finish`
        self.dealt_at = 0.0  # when the hand in play (or the last one) was dealt (clock s)
        self._seen = 0  # the cursor over the engine's log
        self._held: list[Delivery] = []
        self._asking = False
        self._answered = False

    # ------------------------------------------------------------------ dealing

    def deal(
        self,
        hand_id: str,
        config: HandConfig,
        order: Sequence[int],
        players: Sequence[str],
        *,
        button: int,
        blinds: tuple[int, int],
        post_kinds: Mapping[int, str],
        action_seconds: float,
        ante: int | UnsetType = UNSET,
    ) -> Hand:
        """Shuffle (C-15), post, deal, announce `hand_started`, and ask the first player.

        `order[i]` and `players[i]` are engine index i's seat and player; `post_kinds` names
        each forced bet by seat (small, big, entry); `ante` (tournament tables) is told in
        `hand_started`.
        """
        self.hand_id = hand_id
        self.dealt_at = self.clock.seconds()
        self.order = tuple(order)
        self.players = tuple(players)
        self.post_kinds = post_kinds
        self.action_seconds = action_seconds
        self.over = False
        self._seen = 0
        self._held = []
        hand = self.hand = Hand(config, deck=shuffled_deck(self.rng))
        self.log = self.log.bind(hand_id=hand_id)
        self.log.debug("hand_started", button=button, order=list(self.order))
        stacks = config.starting_stacks
        self._broadcast(
            HandStarted(
                table_id=self.table_id,
                hand_id=hand_id,
                button=button,
                blinds=list(blinds),
                seats=[
                    SeatStack(seat=n, player=p, stack=s)
                    for n, p, s in zip(self.order, self.players, stacks, strict=True)
                ],
                ante=ante,
            )
        )
        self._flush()
        self._prompt()
        return hand

    # ------------------------------------------------------------------ asking, timing

    def _prompt(self) -> None:
        """Ask players in turn until one has to be timed, or the hand is over."""
        try:
            self._ask_next()
        finally:
            self.action_clock.release()  # a call `apply` parked and no decision took

    def _ask_next(self) -> None:
        while True:
            hand = self.hand
            if hand is None or self.over:
                return
            if hand.is_over:
                self._hand_over()
                return
            index = hand.actor
            reason = self.table.act_for(index)
            if reason is not None:
                self._act_for(index, reason)
                continue
            bank = self.table.bank_ms(index)
            deadline = self.clock.seconds() + self.action_seconds
            self._answered = False
            self._asking = True
            try:
                self._send_request(index, deadline, bank)
                if not self._answered:  # a client may answer inside the send (in-process)
                    self.table.asked(index)
            finally:
                self._asking = False
            if self._answered:
                continue  # answered at once: no timer was needed
            self.action_clock.start(self.action_seconds, bank)  # C-6, C-7
            return

    def _send_request(self, index: int, deadline: float, bank_ms: int) -> None:
        hand = self.hand
        assert hand is not None
        legal = hand.legal_actions(index)
        assert legal is not None
        self.listener.send(
            self.players[index],
            ActionRequest(
                table_id=self.table_id,
                hand_id=self.hand_id,
                seat=self.order[index],
                actions=legal_view(legal),
                deadline_ms=seconds_to_ms(deadline),
                timebank_ms=bank_ms,
            ),
        )

    def remind(self, player: str) -> None:
        """C-14: a player back after a drop gets the action request again if it is their turn."""
        hand = self.hand
        if hand is None or self.over or hand.actor < 0 or not self.action_clock.running:
            return
        if self.players[hand.actor] == player:
            deadline = self.action_clock.deadline
            self._send_request(hand.actor, deadline, self.action_clock.bank_left_ms())

    def _on_timebank(self, remaining_ms: int) -> None:
        """C-7: the action time ran out; the bank starts on its own and everyone is told."""
        hand = self.hand
        assert hand is not None
        self._broadcast(
            TimebankStarted(
                table_id=self.table_id,
                hand_id=self.hand_id,
                seat=self.order[hand.actor],
                timebank_ms=remaining_ms,
                deadline_ms=seconds_to_ms(self.action_clock.deadline),
            )
        )

    def _on_timeout(self) -> None:
        """C-6: nothing left: the table may grant more time (T-12), else check or fold."""
        hand = self.hand
        assert hand is not None
        index = hand.actor
        self.table.keep_bank(index, 0)
        extra = self.table.out_of_time(index)
        if extra > 0:
            self.action_clock.start(extra, 0)
            self._on_timebank(seconds_to_ms(extra))  # the grace runs and is told like a bank
            return
        self._act_for(index, TIMEOUT)
        self._prompt()

    # ------------------------------------------------------------------ acting

    def index_of(self, player: str) -> int | None:
        """The player's engine index in the running hand, or None if not dealt in."""
        try:
            return self.players.index(player) if self.hand is not None else None
        except ValueError:
            return None

    def in_hand(self, player: str) -> bool:
        """Whether the player holds live (not folded) cards in the running hand (C-13)."""
        index = self.index_of(player)
        return index is not None and self.hand is not None and not self.hand.folded[index]

    def verify(self, index: int, action: str, amount: int | None = None) -> str:
        """Check an action with the engine (rule 2): refused with a stable code, nothing changed
        (P-1). Returns the action's name as told (`bet` when nothing was bet, else `raise`).

        `amount` is the total a bet or raise goes to; `bet` and `raise` name the same action.
        """
        check_action(action, amount)
        hand = self.hand
        if hand is None or self.over:
            raise ProtocolError(codes.NO_HAND, "no hand is being played")
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
        if action in ("bet", "raise"):
            return "bet" if hand.current_bet == 0 else "raise"
        return action

    def act(self, index: int, action: str, amount: int | None = None) -> None:
        """A player's action: verified by the engine, then applied (P-1, rule 2)."""
        self.apply(index, self.verify(index, action, amount), amount)

    def apply(self, index: int, action: str, amount: int | None) -> None:
        """Apply an action `verify` accepted: keep the bank left (C-7), tell, ask the next."""
        hand = self.hand
        assert hand is not None
        if self.action_clock.running:  # C-7: the rest is kept; the call is moved, not remade
            self.table.keep_bank(index, self.action_clock.park())
        if action == "fold":
            hand.fold(index)
        elif action in ("check", "call"):
            hand.check_or_call(index)
        else:
            assert amount is not None
            hand.bet_or_raise(index, amount)
        self._flush(label=action)
        if self._asking:
            self._answered = True  # the prompt loop goes on
        else:
            self._prompt()

    def act_now_for(self, index: int, reason: str) -> None:
        """Act for the player whose turn it is now (a leave asked during their turn, C-6)."""
        hand = self.hand
        if hand is None or self.over or hand.actor != index:
            return
        self._act_for(index, reason)
        if self._asking:
            self._answered = True
        else:
            self._prompt()

    def _act_for(self, index: int, reason: str) -> None:
        hand = self.hand
        assert hand is not None
        self.action_clock.stop()
        done = check_or_fold(hand, index)
        self.log.debug("auto_action", seat=self.order[index], action=done, reason=reason)
        self._flush(auto=reason)

    # ------------------------------------------------------------------ telling

    def _broadcast(self, msg: ServerMessage) -> None:
        self.listener.broadcast(self.table_id, msg, set())

    def _deliver(self, delivery: Delivery) -> None:
        if delivery.to is None:
            self._broadcast(delivery.message)
        else:
            self.listener.send(delivery.to, delivery.message)

    def _flush(self, label: str | None = None, auto: str | None = None) -> None:
        """Deliver the engine events logged since the last flush; hold back the result."""
        hand = self.hand
        assert hand is not None
        new = hand.log[self._seen :]
        self._seen = len(hand.log)
        deliveries = event_deliveries(
            self.table_id,
            self.hand_id,
            new,
            self.order,
            self.players,
            self.post_kinds,
            label,
            auto,
        )
        for delivery in deliveries:
            if isinstance(delivery.message, RESULT_MESSAGES):
                self._held.append(delivery)  # told by `finish`, once the result is kept
            else:
                self._deliver(delivery)

    def _hand_over(self) -> None:
        hand = self.hand
        assert hand is not None
        self.over = True
        self.action_clock.stop()
        self.table.hand_over(hand)

    def finish(self) -> None:
        """The table kept the result: tell `pot_awarded` and `hand_ended`, then forget the hand."""
        held, self._held = self._held, []
        for delivery in held:
            self._deliver(delivery)
        self.last_hand = self.hand
        self.hand = None
        self.over = False
        self.log = self.log.try_unbind("hand_id")

    def abandon(self) -> None:
        """Stop timing and never tell this hand's result (the table halts; C-12 voids it)."""
        self.action_clock.stop()
        self._held = []

    # ------------------------------------------------------------------ seeing

    def view(self, player: str) -> HandView | None:
        """The running hand as `player` may see it (C-15: own cards and shown cards only)."""
        hand = self.hand
        if hand is None:
            return None
        deadline: int | UnsetType = UNSET
        if hand.actor >= 0 and self.action_clock.running:
            deadline = seconds_to_ms(self.action_clock.deadline)
        won: list[int] | None = None
        if self.over:  # the result is not kept yet: the hand as it stood before the awards
            won = [0] * len(self.order)
            for event in hand.log:
                if isinstance(event, ev.PotAwarded):
                    for i, share in event.shares:
                        won[i] += share
        return hand_view(
            hand, self.hand_id, self.order, self.index_of(player), deadline_ms=deadline, less=won
        )
