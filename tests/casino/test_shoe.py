"""Shoes: Fisher–Yates by the injected RNG, the start-of-shoe burn (B-2, BJ-2, RNG-5), the cut
card and the last round of a shoe (B-1, B-18, K-21, RNG-4)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pokerroom.casino.core import baccarat, cards
from pokerroom.casino.core.cards import Shoe
from pokerroom.casino.core.errors import CasinoError


def test_a_shuffled_shoe_is_n_full_decks_and_reproducible() -> None:  # RNG-3, RNG-10
    one = Shoe.shuffled(random.Random(7), decks=8)
    two = Shoe.shuffled(random.Random(7), decks=8)
    assert one.cards == two.cards and len(one.cards) == 416
    assert Counter(one.cards) == dict.fromkeys(range(52), 8)
    assert one.cards != Shoe.shuffled(random.Random(8), decks=8).cards


@pytest.mark.parametrize(("first", "burned"), [("As", 2), ("9d", 10), ("Tc", 11), ("Kh", 11)])
def test_b2_first_card_burns_its_value(first: str, burned: int) -> None:  # B-2
    order = [cards.card(first), *range(20)]
    shoe = Shoe(order, burn="by_value")
    assert len(shoe.burned) == burned and shoe.burned[0] == cards.card(first)
    assert shoe.deal() == order[burned]  # the next card after the burn is the first dealt


def test_bj2_burns_one_card() -> None:  # BJ-2
    shoe = Shoe([5, 6, 7], burn=1)
    assert shoe.burned == (5,) and shoe.deal() == 6


def test_the_round_that_reaches_the_cut_card_is_the_last() -> None:  # B-18, K-21, RNG-4
    """Cut card 7 from the end of a 20-card shoe: the 14th card (index 13) is the first beyond."""
    shoe = Shoe([cards.card("Kc")] * 20, cut_from_end=7)
    assert shoe.start_round() == 1
    for _ in range(13):
        shoe.deal()
    assert not shoe.cut_reached  # 13 dealt: the cut card is next, not yet passed
    assert shoe.start_round() == 2
    shoe.deal()  # the first card beyond the cut card: this round completes and is the last
    assert shoe.cut_reached
    shoe.deal()  # the round still completes (K-21: no reshuffle in the middle of a round)
    with pytest.raises(CasinoError) as caught:
        shoe.start_round()
    assert caught.value.code == "shoe_finished"


def test_an_eight_deck_shoe_never_runs_out_before_its_cut_round_ends() -> None:  # RNG-4
    rng = random.Random(3)
    for _ in range(20):
        shoe = Shoe.shuffled(rng, 8, cut_from_end=7, burn="by_value")
        while True:
            try:
                shoe.start_round()
            except CasinoError:
                break
            baccarat.draw(shoe)
        assert shoe.remaining >= 1  # at most 6 cards past the cut card: 7 were behind it


def test_dealing_past_the_end_is_refused() -> None:
    shoe = Shoe([1])
    shoe.deal()
    with pytest.raises(CasinoError) as caught:
        shoe.deal()
    assert caught.value.code == "shoe_exhausted"


@pytest.mark.parametrize("text", ["1s", "Ax", "", "AsK"])
def test_bad_cards(text: str) -> None:
    with pytest.raises(CasinoError) as caught:
        cards.card(text)
    assert caught.value.code == "bad_cards"


def test_card_text_round_trips() -> None:
    for value in range(52):
        assert cards.card(cards.name(value)) == value
    assert cards.card("10d") == cards.card("Td")


def test_the_commitment_names_the_order_burn_and_cut() -> None:  # RNG-2, K-20
    order = list(range(52))
    base = Shoe(order, cut_from_end=7, burn=1).commitment()
    assert base == Shoe(order, cut_from_end=7, burn=1).commitment() and len(base) == 64
    swapped = [1, 0, *order[2:]]
    assert Shoe(swapped, cut_from_end=7, burn=1).commitment() != base
    assert Shoe(order, cut_from_end=8, burn=1).commitment() != base
    assert Shoe(order, cut_from_end=7, burn=2).commitment() != base


@pytest.mark.parametrize("game", ["baccarat", "dragon_tiger", "blackjack"])
def test_a_void_round_starts_a_new_shoe(game: str) -> None:  # K-8, K-7
    """The card games keep their shoe between rounds (K-21) until a round is void: then the
    next round is the first of a freshly shuffled shoe (another commitment, RNG-10)."""
    import random

    from pokerroom.casino import settings
    from pokerroom.casino.games import make_game

    table = make_game(game, settings.game_table(game), random.Random(3))
    assert [table.open_round() for _ in range(3)] == [1, 2, 3]
    before = table.shoe.commitment()
    table.void()
    assert table.open_round() == 1
    assert table.shoe.commitment() != before
