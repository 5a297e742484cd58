"""Blackjack as a pure state machine (BJ-1 … BJ-19), checked then applied like the poker engine.

A round is built from the boxes' confirmed bets (spot `box:1` … `box:7`) and a shoe; it deals at
once (BJ-5). With an Ace up the round asks every box about insurance or even money (BJ-6, BJ-7),
then peeks (`peek` mode); then each hand decides in turn (BJ-9 … BJ-13); the dealer plays by
BJ-14 when no decision is left, and `settle()` gives the lines (BJ-15, BJ-8; `cancel()` BJ-18,
BJ-19; both in `blackjack_settle`). The rules are `blackjack_rules`. Every decision has
a `check_…` that raises a `CasinoError` with a stable code, a `can_…` form, and the action, which
returns a frozen `BlackjackEvent` (also appended to `events`). A decision that adds a stake
(double, split, insurance) names it in `stake_for` so that the table can take the funds first
(K-4, L-2). `timeout()` applies the default of BJ-16 (stand; insurance declined).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pokerroom.casino.core import errors
from pokerroom.casino.core.blackjack_hand import VALUE, Box, Hand, dealer_draws, is_blackjack
from pokerroom.casino.core.blackjack_rules import BlackjackRules, rules_from
from pokerroom.casino.core.blackjack_settle import cancel_boxes, progress, settle_boxes
from pokerroom.casino.core.cards import Shoe
from pokerroom.casino.core.results import Bet, Settlement

__all__ = ["BlackjackEvent", "BlackjackRound", "BlackjackRules", "Box", "Hand", "rules_from"]

INSURANCE, PLAYING, OVER = "insurance", "playing", "over"
DEALER = 0  # the `box` of dealer events


@dataclass(frozen=True, slots=True)
class BlackjackEvent:
    """What happened: a card dealt, a decision, the peek or the dealer's play (the round's log).

    `box` is 0 for the dealer; `hand` is 0 or 1 (the second hand of a split); `stake` is the new
    stake a decision adds (double, split, insurance), `cards` the cards it dealt.
    """

    kind: str
    box: int
    hand: int = 0
    cards: tuple[int, ...] = ()
    stake: int = 0


def box_number(spot: str) -> int:
    """The box of a `box:N` spot; `unknown_box` otherwise."""
    kind, _, number = spot.partition(":")
    if kind != "box" or not number.isdigit():
        raise errors.CasinoError(errors.UNKNOWN_BOX, f"{spot!r} is not a box")
    return int(number)


def check_bet(bet: Bet, rules: BlackjackRules) -> None:
    """Refuse a bet on a box that does not exist or outside the limits (K-5)."""
    number = box_number(bet.spot)
    if not 1 <= number <= rules.max_boxes:
        raise errors.CasinoError(errors.UNKNOWN_BOX, f"box {number} of {rules.max_boxes}")
    rules.limits.check("box", bet.stake)


class BlackjackRound:
    """One round of blackjack at a table (K-1): deal, insurance, decisions, dealer, settle."""

    def __init__(self, rules: BlackjackRules, bets: Sequence[Bet], shoe: Shoe) -> None:
        self.rules = rules
        self.shoe = shoe
        self.events: list[BlackjackEvent] = []
        numbers = [box_number(bet.spot) for bet in bets]
        if not bets or len(set(numbers)) != len(numbers):
            raise errors.CasinoError(errors.UNKNOWN_BOX, "one bet per box, at least one box")
        for bet in bets:
            check_bet(bet, rules)
        self.boxes: list[Box] = sorted(
            (
                Box(number, bet.player, bet.stake, [Hand([], bet.stake)])
                for number, bet in zip(numbers, bets, strict=True)
            ),
            key=lambda box: box.number,
        )
        self.dealer: list[int] = []
        self.dealer_blackjack_known = False  # peeked with an Ace up (BJ-6, BJ-8)
        self.current = 0  # index into self._hands() of the hand that decides
        self.phase = PLAYING
        self._deal()

    # -- the deal (BJ-5) --------------------------------------------------------------------
    def _card(self, kind: str, box: int, hand: int = 0) -> int:
        card = self.shoe.deal()
        self.events.append(BlackjackEvent(kind, box, hand, (card,)))
        return card

    def _deal(self) -> None:
        for box in self.boxes:
            box.hands[0].cards.append(self._card("deal", box.number))
        self.dealer.append(self._card("dealer_up", DEALER))
        for box in self.boxes:
            box.hands[0].cards.append(self._card("deal", box.number))
        if self.rules.hole_card == "peek":
            self.dealer.append(self.shoe.deal())  # the hole card, shown at `dealer_reveal`
        for box in self.boxes:
            if box.hands[0].blackjack:
                box.hands[0].done = True  # BJ-9: a blackjack takes no decision
        if VALUE[self.dealer[0]] == 1:
            self.phase = INSURANCE  # BJ-6
        else:
            self._start_play()

    @property
    def up_card(self) -> int:
        """The dealer's face-up card."""
        return self.dealer[0]

    @property
    def dealer_blackjack(self) -> bool:
        """The dealer's first two cards are a blackjack (BJ-8)."""
        return len(self.dealer) >= 2 and is_blackjack(self.dealer[:2])

    # -- insurance and even money (BJ-6, BJ-7) ----------------------------------------------
    def _box(self, number: int) -> Box:
        for box in self.boxes:
            if box.number == number:
                return box
        raise errors.CasinoError(errors.UNKNOWN_BOX, f"no bet on box {number}")

    def check_insurance(self, number: int, even_money: bool = False) -> Box:
        """Refuse insurance (or even money) out of its phase, twice, or even money without BJ."""
        if self.phase != INSURANCE:
            raise errors.CasinoError(errors.WRONG_PHASE, "insurance is offered only on an Ace")
        box = self._box(number)
        if box.insurance_decided:
            raise errors.CasinoError(errors.NOT_ALLOWED, f"box {number} has answered")
        if even_money and not box.hands[0].blackjack:
            raise errors.CasinoError(errors.NOT_ALLOWED, "even money needs a blackjack (BJ-7)")
        return box

    def can_insure(self, number: int) -> bool:
        """Whether box `number` may take insurance now."""
        return self._can(lambda: self.check_insurance(number))

    def can_take_even_money(self, number: int) -> bool:
        """Whether box `number` may take even money now (BJ-7)."""
        return self._can(lambda: self.check_insurance(number, even_money=True))

    def insure(self, number: int) -> BlackjackEvent:
        """Buy insurance: half the original bet, rounded down (BJ-6, K-16)."""
        box = self.check_insurance(number)
        box.insurance = box.stake // 2
        return self._answer(box, BlackjackEvent("insurance", number, stake=box.insurance))

    def take_even_money(self, number: int) -> BlackjackEvent:
        """Take even money on a blackjack: paid 1:1 whatever the dealer holds (BJ-7)."""
        box = self.check_insurance(number, even_money=True)
        box.even_money = True
        return self._answer(box, BlackjackEvent("even_money", number))

    def decline_insurance(self, number: int) -> BlackjackEvent:
        """Decline insurance (and even money)."""
        box = self.check_insurance(number)
        return self._answer(box, BlackjackEvent("no_insurance", number))

    def _answer(self, box: Box, event: BlackjackEvent) -> BlackjackEvent:
        box.insurance_decided = True
        self.events.append(event)
        if all(other.insurance_decided for other in self.boxes):
            self._close_insurance()
        return event

    def _close_insurance(self) -> None:
        """Every box answered (or the window ran out): peek, then play (BJ-6)."""
        for box in self.boxes:
            if not box.insurance_decided:
                box.insurance_decided = True
                self.events.append(BlackjackEvent("no_insurance", box.number))
        if self.rules.hole_card == "peek":
            self.dealer_blackjack_known = self.dealer_blackjack
            self.events.append(
                BlackjackEvent("peek", DEALER, stake=int(self.dealer_blackjack_known))
            )
            if self.dealer_blackjack_known:  # the round ends at once (BJ-6, BJ-8)
                for hand in self._hands():
                    hand.done = True
                self._finish()
                return
        self._start_play()

    # -- the boxes' decisions (BJ-9 … BJ-13) ------------------------------------------------
    def _hands(self) -> list[Hand]:
        return [hand for box in self.boxes for hand in box.hands]

    def _owner(self, index: int) -> tuple[Box, int]:
        seen = 0
        for box in self.boxes:
            if index < seen + len(box.hands):
                return box, index - seen
            seen += len(box.hands)
        raise IndexError(index)

    def _start_play(self) -> None:
        self.phase = PLAYING
        for box in self.boxes:
            if box.even_money:
                for hand in box.hands:
                    hand.done = True
        self.current = 0
        self._advance()

    def _advance(self) -> None:
        """Move to the next hand that decides, dealing a split hand its second card (BJ-11)."""
        hands = self._hands()
        while self.current < len(hands):
            hand = hands[self.current]
            if not hand.done and len(hand.cards) == 1:
                box, index = self._owner(self.current)
                hand.cards.append(self._card("deal", box.number, index))
            if not hand.done and hand.total >= 21:
                hand.done = True  # BJ-9: 21 takes no more cards
            if not hand.done:
                return
            self.current += 1
        self._dealer_play()

    @property
    def turn(self) -> tuple[int, int] | None:
        """(box, hand) that decides now, or None outside the playing phase."""
        if self.phase != PLAYING:
            return None
        box, index = self._owner(self.current)
        return box.number, index

    def _turn(self, number: int) -> tuple[Box, Hand]:
        if self.phase == OVER:
            raise errors.CasinoError(errors.ROUND_OVER, "the round has no decision left")
        if self.phase != PLAYING:
            raise errors.CasinoError(errors.WRONG_PHASE, "insurance is being decided")
        box, index = self._owner(self.current)
        if box.number != number:
            self._box(number)
            raise errors.CasinoError(errors.NOT_YOUR_TURN, f"box {box.number} decides now")
        return box, box.hands[index]

    def _can(self, check: Callable[[], object]) -> bool:
        try:
            check()
        except errors.CasinoError:
            return False
        return True

    def check_hit(self, number: int) -> Hand:
        """Hit is allowed on the hand whose turn it is (BJ-9)."""
        return self._turn(number)[1]

    def can_hit(self, number: int) -> bool:
        """Whether box `number` may hit now."""
        return self._can(lambda: self.check_hit(number))

    def hit(self, number: int) -> BlackjackEvent:
        """Take a card; a bust or 21 ends the hand (BJ-9)."""
        hand = self.check_hit(number)
        index = self._owner(self.current)[1]
        card = self.shoe.deal()
        hand.cards.append(card)
        event = BlackjackEvent("hit", number, index, (card,))
        self.events.append(event)
        if hand.total >= 21:
            hand.done = True
            self._next()
        return event

    def check_stand(self, number: int) -> Hand:
        """Stand is allowed on the hand whose turn it is."""
        return self._turn(number)[1]

    def can_stand(self, number: int) -> bool:
        """Whether box `number` may stand now."""
        return self._can(lambda: self.check_stand(number))

    def stand(self, number: int) -> BlackjackEvent:
        """End the hand."""
        hand = self.check_stand(number)
        index = self._owner(self.current)[1]
        hand.done = True
        event = BlackjackEvent("stand", number, index)
        self.events.append(event)
        self._next()
        return event

    def check_double(self, number: int, amount: int | None = None) -> tuple[Hand, int]:
        """BJ-10: a two-card hand, not of split aces; the stake equal to the hand's (or, with
        `double_for_less`, any amount up to it)."""
        hand = self._turn(number)[1]
        if len(hand.cards) != 2:
            raise errors.CasinoError(errors.NOT_ALLOWED, "double only on two cards (BJ-10)")
        stake = hand.stake if amount is None else amount
        if stake != hand.stake and not (self.rules.double_for_less and 0 < stake < hand.stake):
            raise errors.CasinoError(errors.NOT_ALLOWED, f"double stake {stake} (BJ-10)")
        return hand, stake

    def can_double(self, number: int, amount: int | None = None) -> bool:
        """Whether box `number` may double now."""
        return self._can(lambda: self.check_double(number, amount))

    def double(self, number: int, amount: int | None = None) -> BlackjackEvent:
        """Add the stake and take exactly one card (BJ-10)."""
        hand, stake = self.check_double(number, amount)
        index = self._owner(self.current)[1]
        card = self.shoe.deal()
        hand.doubled = stake
        hand.cards.append(card)
        hand.done = True
        event = BlackjackEvent("double", number, index, (card,), stake)
        self.events.append(event)
        self._next()
        return event

    def check_split(self, number: int) -> Box:
        """BJ-11: the box's first two cards, of one value (or rank), split once only."""
        box, hand = self._turn(number)
        if len(box.hands) != 1 or len(hand.cards) != 2:
            raise errors.CasinoError(errors.NOT_ALLOWED, "one split per box, on two cards")
        first, second = hand.cards
        same = first >> 2 == second >> 2 if self.rules.split_same_rank_only else (
            VALUE[first] == VALUE[second]
        )  # fmt: skip
        if not same:
            raise errors.CasinoError(errors.NOT_ALLOWED, "the two cards differ (BJ-11)")
        return box

    def can_split(self, number: int) -> bool:
        """Whether box `number` may split now."""
        return self._can(lambda: self.check_split(number))

    def split(self, number: int) -> BlackjackEvent:
        """Split into two hands of the original stake; split aces take one card each (BJ-12)."""
        box = self.check_split(number)
        first, second = box.hands[0].cards
        box.hands = [
            Hand([first], box.stake, from_split=True),
            Hand([second], box.stake, from_split=True),
        ]
        event = BlackjackEvent("split", number, 0, (), box.stake)
        self.events.append(event)
        if VALUE[first] == 1:  # BJ-12: one card to each Ace, and both stand
            for index, hand in enumerate(box.hands):
                hand.cards.append(self._card("deal", number, index))
                hand.done = True
        else:
            box.hands[0].cards.append(self._card("deal", number, 0))
        self._advance()
        return event

    def check_surrender(self, number: int) -> Hand:
        """BJ-13: the original two-card hand before any other action, when the table allows."""
        box, hand = self._turn(number)
        if not self.rules.surrender:
            raise errors.CasinoError(errors.NOT_ALLOWED, "this table has no surrender")
        if len(box.hands) != 1 or len(hand.cards) != 2:
            raise errors.CasinoError(errors.NOT_ALLOWED, "surrender only on the first two cards")
        return hand

    def can_surrender(self, number: int) -> bool:
        """Whether box `number` may surrender now."""
        return self._can(lambda: self.check_surrender(number))

    def surrender(self, number: int) -> BlackjackEvent:
        """Give up half the bet; the hand ends whatever the dealer holds (BJ-13)."""
        hand = self.check_surrender(number)
        hand.surrendered = hand.done = True
        event = BlackjackEvent("surrender", number)
        self.events.append(event)
        self._next()
        return event

    def timeout(self) -> BlackjackEvent | None:
        """The decision timer ran out (BJ-16, K-10): insurance declined, or the hand stands."""
        if self.phase == INSURANCE:
            self._close_insurance()
            return None
        if self.phase == PLAYING:
            box, _ = self._owner(self.current)
            return self.stand(box.number)
        raise errors.CasinoError(errors.ROUND_OVER, "the round has no decision left")

    def stake_for(self, action: str, number: int) -> int:
        """The new stake `double`, `split` or `insure` would add (K-4: funds are checked first)."""
        box = self._box(number)
        if action == "insure":
            return box.stake // 2
        if action == "split":
            return box.stake
        if action == "double":
            return self._turn(number)[1].stake
        raise ValueError(action)

    def _next(self) -> None:
        self.current += 1
        self._advance()

    # -- the dealer (BJ-14) -----------------------------------------------------------------
    def _dealer_play(self) -> None:
        """Reveal (or, `enhc`, draw) the second card and draw to 17 when an outcome depends."""
        live = any(
            not hand.surrendered and hand.total <= 21 and not hand.blackjack and not box.even_money
            for box in self.boxes
            for hand in box.hands
        )
        ten_or_ace = VALUE[self.up_card] in (1, 10)
        blackjack_waits = ten_or_ace and any(
            hand.blackjack and not box.even_money for box in self.boxes for hand in box.hands
        )
        insured = any(box.insurance for box in self.boxes)
        if self.rules.hole_card == "peek":
            self.events.append(BlackjackEvent("dealer_reveal", DEALER, 0, (self.dealer[1],)))
        elif live or blackjack_waits or insured:
            self.dealer.append(self._card("dealer_draw", DEALER))
        if live:
            while dealer_draws(self.dealer):
                self.dealer.append(self._card("dealer_draw", DEALER))
        self._finish()

    def _finish(self) -> None:
        self.phase = OVER
        self.events.append(BlackjackEvent("round_over", DEALER, 0, tuple(self.dealer)))

    # -- settlement (BJ-8, BJ-15) and cancellation (BJ-18, BJ-19): blackjack_settle ---------
    def settle(self, max_win: int | None = None) -> Settlement:
        """Every stake's line: `box:N` (its first hand), `box:N:split`, `box:N:insurance`."""
        if self.phase != OVER:
            raise errors.CasinoError(errors.WRONG_PHASE, "the round is still being played")
        return settle_boxes(self.boxes, self.dealer, self.rules, max_win)

    @property
    def dealer_blackjack_shown(self) -> bool:
        """The dealer's blackjack is known to the players: the peek found it, or the round is
        over and the second card is shown (BJ-19: a blackjack hand keeps its result)."""
        return self.dealer_blackjack_known or (self.phase == OVER and self.dealer_blackjack)

    def progress(self) -> dict[str, Any]:
        """The round's record so far, for a cancellation after a crash (BJ-19, L-5)."""
        return progress(self.boxes, self.dealer_blackjack_shown, self.rules, len(self.events))

    def cancel(self, max_win: int | None = None) -> Settlement:
        """A house malfunction (K-7): every stake back (BJ-18), or BJ-19 in `partial` mode."""
        rules = self.rules
        done = cancel_boxes(
            self.boxes, self.dealer_blackjack_shown, rules.pays, rules.cancel_mode, max_win
        )
        self.phase = OVER
        return done
