"""Blackjack's exact return to player for a table's rules (BJ-), by combinatorial analysis.

The deck is infinite: every card is drawn with its probability in a full shoe (1/13 for each of
A … 9, 4/13 for a 10-value card), whatever was dealt before. That is the limit of many decks
(8 decks, BJ-1, are close to it) and it makes the computation exact in rational numbers: the
dealer's final totals for each up card (BJ-14: stands on all 17s), then for every two-card
start the best of stand, hit, double (BJ-10, also after a split, not on split aces),
surrender (BJ-13) and split (BJ-11, once; split aces one card each, BJ-12), each decision
maximising the expected amount won. Insurance and even money are taken only when they are
worth it (at the shipped 2:1 and 1:1 never). The figure is per unit of the original bet
(doubles and splits add stakes but not units), as house edges are quoted.

How the table's hole-card rule enters (BJ-5, BJ-6, BJ-8): with `peek` the dealer checks for
blackjack only with an Ace up, so a dealer blackjack is known before any decision there; with a
10 up, and always in `enhc`, it is found after the boxes have acted: doubled and split stakes
lose too (`late_dealer_bj_takes = "all"`) or only the original bet (`original_only`), and a
surrender stands whatever the dealer turns out to hold (an early surrender there). Doubling for
less (`double_for_less`) changes nothing: a double's value is linear in its stake, so the best
double is the whole stake or none.

`validation` rules (`Rules(peek=frozenset({1, 10}), resplit=True, ...)`) reproduce published
infinite-deck figures (docs/CASINO.md, "Blackjack's exact return").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache

from pokerroom.casino.core.blackjack_rules import BlackjackRules

VALUES = tuple(range(1, 11))  # A = 1 … 10 (BJ-3)
P: dict[int, Fraction] = {v: Fraction(4 if v == 10 else 1, 13) for v in VALUES}
BJ, BUST = 0, 22  # the dealer's blackjack and bust among the final totals 17 … 21
STAND, HIT, DOUBLE, SURRENDER, SPLIT = "stand", "hit", "double", "surrender", "split"
ORIGINAL, SPLIT_FIRST, SPLIT_SECOND = 0, 1, 2  # which stake a hand is (BJ-8 `original_only`)


@dataclass(frozen=True, slots=True)
class Rules:
    """What the return depends on (module doc)."""

    peek: frozenset[int] = frozenset({1})  # up cards whose hole card is checked first
    surrender: bool = True
    late_bj_takes_all: bool = True
    split_same_rank_only: bool = False
    blackjack: Fraction = Fraction(3, 2)
    win: Fraction = Fraction(1)
    insurance: Fraction = Fraction(2)
    even_money: Fraction = Fraction(1)
    double_after_split: bool = True
    resplit: bool = False  # split again without limit (not BJ-11; for published figures)
    resplit_aces: bool = False


def rules_of(rules: BlackjackRules) -> Rules:
    """The exact-return view of a table's rules."""
    pays = rules.pays
    return Rules(
        peek=frozenset({1}) if rules.hole_card == "peek" else frozenset(),
        surrender=rules.surrender,
        late_bj_takes_all=rules.late_dealer_bj_takes == "all",
        split_same_rank_only=rules.split_same_rank_only,
        blackjack=pays["blackjack"],
        win=pays["win"],
        insurance=pays["insurance"],
        even_money=pays["even_money"],
    )


def _best(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


@cache
def _dealer(hard: int, ace: bool, two: bool) -> Mapping[int, Fraction]:
    """The dealer's final totals (BJ, 17 … 21, BUST) from a hand; `two`: it holds one card."""
    best = _best(hard, ace)
    if best >= 17 and not two:
        return {BUST if best > 21 else best: Fraction(1)}
    found: dict[int, Fraction] = {}
    for value, p in P.items():
        nxt_hard, nxt_ace = hard + value, ace or value == 1
        if two and _best(nxt_hard, nxt_ace) == 21:
            found[BJ] = found.get(BJ, Fraction(0)) + p
            continue
        for total, q in _dealer(nxt_hard, nxt_ace, False).items():
            found[total] = found.get(total, Fraction(0)) + p * q
    return found


def dealer_outcomes(up: int) -> Mapping[int, Fraction]:
    """The dealer's final totals for an up card, blackjack (`BJ`) included (BJ-14, S17)."""
    return _dealer(up, up == 1, True)


@dataclass
class _UpCard:
    """Every decision's value against one up card (the `peeked` world has no dealer BJ)."""

    rules: Rules
    up: int
    dist: dict[int, Fraction] = field(init=False)
    q: Fraction = field(init=False)  # the dealer's BJ within this world
    best: dict[tuple[int, bool, int, int], str] = field(default_factory=dict)
    _values: dict[tuple[int, bool, int, int], Fraction] = field(default_factory=dict)

    def __post_init__(self) -> None:
        outcomes = dealer_outcomes(self.up)
        bj = outcomes.get(BJ, Fraction(0))
        if self.up in self.rules.peek:
            self.dist = {t: p / (1 - bj) for t, p in outcomes.items() if t != BJ}
            self.q = Fraction(0)
        else:
            self.dist = {t: p for t, p in outcomes.items() if t != BJ}
            self.q = bj

    def _late_bj(self, stake: int, kind: int) -> Fraction:
        """What a non-busted hand of `stake` units loses to a dealer BJ found late (BJ-8)."""
        if self.rules.late_bj_takes_all:
            return Fraction(-stake)
        return Fraction(0 if kind == SPLIT_SECOND else -1)

    def stand(self, total: int, stake: int, kind: int) -> Fraction:
        """A finished, non-busted hand of `stake` units (BJ-15)."""
        win = self.rules.win
        value = Fraction(0)
        for dealer, p in self.dist.items():
            if dealer == BUST or total > dealer:
                value += p * win
            elif total < dealer:
                value -= p
        return stake * value + self.q * self._late_bj(stake, kind)

    def value(self, hard: int, ace: bool, cards: int, kind: int) -> Fraction:
        """A hand's value under the best play; `cards` is 2 while it may double (3: more)."""
        key = (hard, ace, min(cards, 3), kind)
        found = self._values.get(key)
        if found is not None:
            return found
        total = _best(hard, ace)
        if total > 21:
            return Fraction(-1)
        options = {STAND: self.stand(total, 1, kind)}
        if total < 21:  # BJ-9: a 21 takes no more cards
            options[HIT] = sum(
                (p * self.value(hard + v, ace or v == 1, cards + 1, kind) for v, p in P.items()),
                Fraction(0),
            )
            if cards == 2 and (kind == ORIGINAL or self.rules.double_after_split):
                options[DOUBLE] = sum((p * self._doubled(hard + v, ace or v == 1, kind)
                                       for v, p in P.items()), Fraction(0))  # fmt: skip
            if cards == 2 and kind == ORIGINAL and self.rules.surrender:
                options[SURRENDER] = Fraction(-1, 2)
        action = max(options, key=lambda name: options[name])
        self.best[key] = action
        self._values[key] = options[action]
        return options[action]

    def _doubled(self, hard: int, ace: bool, kind: int) -> Fraction:
        total = _best(hard, ace)
        return Fraction(-2) if total > 21 else self.stand(total, 2, kind)

    def split_hand(self, card: int, kind: int) -> Fraction:
        """One hand of a split pair of `card` (BJ-11, BJ-12)."""
        rules = self.rules
        if card == 1:
            played = {v: self.stand(_best(1 + v, True), 1, kind) for v in VALUES}
            again = rules.resplit and rules.resplit_aces
        else:
            played = {v: self.value(card + v, card == 1 or v == 1, 2, kind) for v in VALUES}
            again = rules.resplit
        rest = sum((P[v] * played[v] for v in VALUES if v != card), Fraction(0))
        if again:  # the same choice every time: V = rest + p max(play, 2V)
            resplit = rest / (1 - 2 * P[card])
            if 2 * resplit >= played[card]:
                return resplit
        return rest + P[card] * played[card]

    def split(self, card: int) -> Fraction:
        """Both hands of a split pair (with `late_bj_takes = original_only` they differ)."""
        return self.split_hand(card, SPLIT_FIRST) + self.split_hand(card, SPLIT_SECOND)

    def start(self, first: int, second: int, splittable: bool) -> Fraction:
        """A two-card start, not a blackjack, in this world."""
        hand = self.value(first + second, 1 in (first, second), 2, ORIGINAL)
        return max(hand, self.split(first)) if splittable else hand


@dataclass(frozen=True, slots=True)
class ExactReturn:
    """The return to player per unit of the original bet, and its parts."""

    expected: Fraction  # the player's expected win per unit bet (negative: the house edge)
    by_up: Mapping[int, Fraction]  # the same for each up card

    @property
    def rtp(self) -> Fraction:
        """Return to player: what a unit bet returns on average, stake included."""
        return 1 + self.expected

    @property
    def house_edge(self) -> Fraction:
        """The house's expected win per unit bet."""
        return -self.expected


def _up_card(rules: Rules, up: int) -> Fraction:
    world = _UpCard(rules, up)
    bj = dealer_outcomes(up).get(BJ, Fraction(0))
    peeked = up in rules.peek
    natural = rules.blackjack if peeked else (1 - bj) * rules.blackjack  # a push against BJ
    if peeked:
        natural = (1 - bj) * natural
    if up == 1:  # BJ-7: even money instead, if it is worth more
        natural = max(natural, rules.even_money)
    insurance = Fraction(0)
    if up == 1:  # BJ-6: half the bet, taken only if it gains
        insurance = max(Fraction(0), (bj * rules.insurance - (1 - bj)) / 2)
    total = Fraction(0)
    for first in VALUES:
        for second in VALUES:
            p = P[first] * P[second]
            if {first, second} == {1, 10}:
                total += p * natural
                continue
            pair = first == second
            if pair and first == 10 and rules.split_same_rank_only:
                shares = [(Fraction(1, 4), True), (Fraction(3, 4), False)]  # K-K, not K-Q
            else:
                shares = [(Fraction(1), pair)]
            for share, splittable in shares:
                played = world.start(first, second, splittable)
                if peeked:
                    played = bj * -1 + (1 - bj) * played
                total += p * share * (played + insurance)
    return total


def exact_return(rules: Rules) -> ExactReturn:
    """The exact return to player of `rules` under the best play (module doc)."""
    by_up = {up: _up_card(rules, up) for up in VALUES}
    return ExactReturn(sum((P[up] * ev for up, ev in by_up.items()), Fraction(0)), by_up)


def best_action(
    rules: Rules, up: int, hard: int, ace: bool, cards: int, kind: int = ORIGINAL
) -> str:
    """The best play of a hand that is not a pair to split (stand, hit, double, surrender);
    `kind` names a split hand (SPLIT_FIRST, SPLIT_SECOND)."""
    if _best(hard, ace) >= 21:
        return STAND
    world = _worlds(rules, up)
    world.value(hard, ace, cards, kind)
    return world.best[(hard, ace, min(cards, 3), kind)]


def should_split(rules: Rules, up: int, card: int) -> bool:
    """Whether a pair of `card` is best split."""
    world = _worlds(rules, up)
    return world.split(card) > world.value(2 * card, card == 1, 2, ORIGINAL)


def takes_insurance(rules: Rules) -> bool:
    """Whether insurance (half the bet, BJ-6) gains against an Ace up."""
    bj = dealer_outcomes(1)[BJ]
    return bj * rules.insurance - (1 - bj) > 0


def takes_even_money(rules: Rules) -> bool:
    """Whether even money (BJ-7) is worth more than the blackjack against an Ace up."""
    bj = dealer_outcomes(1)[BJ]
    return rules.even_money > (1 - bj) * rules.blackjack


@cache
def _worlds(rules: Rules, up: int) -> _UpCard:
    return _UpCard(rules, up)
