"""Blackjack's exact return (pokerroom/casino/core/blackjack_exact.py): an infinite deck, exact
fractions, the best play; checked against published figures and exact identities."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pokerroom.casino import settings
from pokerroom.casino.core import blackjack_exact as bx
from pokerroom.casino.core.blackjack_rules import rules_from

#: The Wizard of Odds, "Blackjack Appendix 5: Expected Returns with Infinite Decks"
#: (https://wizardofodds.com/games/blackjack/appendix/5): dealer stands on soft 17, double after
#: split, resplitting without limit, split aces one card each, a dealer holding blackjack has
#: it checked before play (peek on A and 10), no surrender: house edge 0.5093975 %.
WIZARD = bx.Rules(peek=frozenset({1, 10}), surrender=False, resplit=True)
US_LATE_SURRENDER = bx.Rules(peek=frozenset({1, 10}), surrender=True, resplit=True)


def test_reproduces_the_published_infinite_deck_house_edge() -> None:
    edge = bx.exact_return(WIZARD).house_edge
    assert isinstance(edge, Fraction)
    assert abs(float(edge) * 100 - 0.5093975) < 5e-8  # all seven published digits


@pytest.mark.parametrize(
    ("up", "hard", "published"),
    [(2, 11, 0.4706), (6, 11, 0.6674), (1, 11, 0.143), (5, 10, 0.5125), (7, 8, 0.0822),
     (9, 12, -0.34), (10, 16, -0.5398), (10, 17, -0.4197)],
)  # fmt: skip
def test_reproduces_the_published_hand_values(up: int, hard: int, published: float) -> None:
    """The same page's table: a two-card hard total (no pair) against an up card, given the
    dealer has no blackjack."""
    world = bx._worlds(WIZARD, up)
    pairs = [(a, hard - a) for a in range(2, 11) if 2 <= hard - a <= 10 and a != hard - a]
    weight = sum(bx.P[a] * bx.P[b] for a, b in pairs)
    value = sum(bx.P[a] * bx.P[b] * world.value(hard, False, 2, bx.ORIGINAL) for a, b in pairs)
    assert round(float(value / weight), 4) == published


def test_dealer_totals_are_exact_distributions() -> None:  # BJ-14
    for up in bx.VALUES:
        assert sum(bx.dealer_outcomes(up).values()) == 1
    assert bx.dealer_outcomes(1)[bx.BJ] == Fraction(4, 13)
    assert bx.dealer_outcomes(10)[bx.BJ] == Fraction(1, 13)
    assert all(bx.BJ not in bx.dealer_outcomes(up) for up in range(2, 10))
    assert bx.dealer_outcomes(6)[17] > bx.dealer_outcomes(6)[18]  # stands on soft 17


def test_the_blackjack_payout_moves_the_return_by_the_naturals_exactly() -> None:  # BJ-15
    """Against 2 … 10 the play of other hands does not depend on the blackjack payout, so the
    difference between 3:2 and 6:5 is (3/2 − 6/5) × P(natural) × P(no dealer blackjack), with
    a push against a dealer blackjack found late (a 10 up, no peek: BJ-8)."""
    base = bx.rules_of(rules_from(settings.game_table("blackjack")))
    six_five = bx.Rules(**{**_fields(base), "blackjack": Fraction(6, 5)})
    three_two, low = bx.exact_return(base).by_up, bx.exact_return(six_five).by_up
    natural = 2 * Fraction(1, 13) * Fraction(4, 13)
    for up in range(2, 11):
        no_bj = 1 - bx.dealer_outcomes(up).get(bx.BJ, Fraction(0))
        assert three_two[up] - low[up] == Fraction(3, 10) * natural * no_bj


def test_late_dealer_blackjack_and_no_hole_card_touch_only_their_up_cards() -> None:  # BJ-8
    """Without a possible dealer blackjack (2 … 9 up) the hole-card rule and BJ-8's setting
    change nothing, exactly; with a 10 up, losing only the original bet is worth more."""
    base = bx.rules_of(rules_from(settings.game_table("blackjack")))
    original = bx.Rules(**{**_fields(base), "late_bj_takes_all": False})
    enhc = bx.Rules(**{**_fields(base), "peek": frozenset()})
    one, two, three = (bx.exact_return(r).by_up for r in (base, original, enhc))
    for up in range(2, 10):
        assert one[up] == two[up] == three[up]
    assert one[1] == two[1] and two[10] > one[10]
    assert one[10] == three[10]  # a 10 up is never peeked at (BJ-6)


def test_insurance_and_even_money_are_declined_at_the_shipped_pays() -> None:  # BJ-6, BJ-7
    base = bx.rules_of(rules_from(settings.game_table("blackjack")))
    assert not bx.takes_insurance(base) and not bx.takes_even_money(base)
    assert bx.takes_even_money(bx.Rules(**{**_fields(base), "blackjack": Fraction(6, 5)}))


@pytest.mark.parametrize(
    ("up", "hard", "ace", "best"),
    [(10, 16, False, "surrender"), (10, 15, False, "surrender"), (9, 16, False, "surrender"),
     (1, 11, False, "hit"), (10, 11, False, "double"), (2, 12, False, "hit"),
     (4, 12, False, "stand"), (3, 9, False, "double"), (2, 9, False, "hit"),
     (2, 8, True, "stand"), (3, 8, True, "double"), (9, 8, True, "hit"), (6, 9, True, "stand"),
     (3, 7, True, "double"), (5, 4, True, "double"), (4, 4, True, "hit")],
)  # fmt: skip
def test_the_best_play_is_the_published_basic_strategy(up, hard, ace, best) -> None:
    """Cells of the published basic strategy for 4-8 decks, S17, double after split, late
    surrender (Wikipedia, "Blackjack", basic strategy chart); `hard` counts an Ace as 1: A,7 is
    hard 8 with an ace (soft 18)."""
    assert bx.best_action(US_LATE_SURRENDER, up, hard, ace, 2) == best


@pytest.mark.parametrize(
    ("up", "card", "split"),
    [(10, 8, True), (1, 1, True), (7, 9, False), (8, 9, True), (10, 10, False), (5, 4, True),
     (7, 4, False), (7, 7, True), (8, 7, False), (6, 6, True), (7, 6, False), (5, 5, False)],
)  # fmt: skip
def test_pairs_split_as_published(up: int, card: int, split: bool) -> None:  # BJ-11
    assert bx.should_split(US_LATE_SURRENDER, up, card) is split


def test_the_shipped_rules_figure() -> None:
    """docs/CASINO.md "Blackjack's exact return": the shipped table (peek on an Ace
    only, one split, surrender that stands whatever the dealer holds) and its variants."""
    base = bx.rules_of(rules_from(settings.game_table("blackjack")))
    assert round(float(bx.exact_return(base).house_edge) * 100, 4) == 0.4031
    enhc = bx.Rules(**{**_fields(base), "peek": frozenset()})
    assert round(float(bx.exact_return(enhc).house_edge) * 100, 4) == 0.0339


def _fields(rules: bx.Rules) -> dict:
    return {name: getattr(rules, name) for name in bx.Rules.__dataclass_fields__}
