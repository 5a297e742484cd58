"""The whole baccarat tableau, table-driven (B-6 … B-8): every Player two-card total × Banker
two-card total × Player third card (or none), dealt through draw() from a fixed shoe.

The expectation is written independently of the code's table, in the words of Y.-B. Chen's
"Mini Baccarat" rules (vegastrip.com): with the Player drawing, the Banker draws on 0-2, on 3
unless the third card is 8, on 4 with 2-7, on 5 with 4-7, on 6 with 6-7, never on 7.
"""

from __future__ import annotations

import itertools

import pytest

from pokerroom.casino.core.baccarat import BANKER_DRAWS, banker_draws, draw
from pokerroom.casino.core.cards import Shoe, card

FACE = "KA23456789"  # a card of each baccarat value 0…9 (B-3)
CLUBS = [card(FACE[v] + "c") for v in range(10)]
HEARTS = [card(FACE[v] + "h") for v in range(10)]


def expected_banker_draws(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    return (
        banker <= 2
        or (banker == 3 and third != 8)
        or (banker == 4 and 2 <= third <= 7)
        or (banker == 5 and 4 <= third <= 7)
        or (banker == 6 and third in (6, 7))
    )


CASES = list(itertools.product(range(10), range(10), range(10)))


@pytest.mark.parametrize(("player", "banker", "third"), CASES)
def test_tableau(player: int, banker: int, third: int) -> None:  # B-6, B-7, B-8
    """Player total `player` (a card of that value and a K), Banker `banker` likewise; the next
    card has value `third` (the Player's third card if the Player draws), then a 3 of spades."""
    order = [CLUBS[player], HEARTS[banker], CLUBS[0], HEARTS[0], card(FACE[third] + "d"),
             card("3s"), card("3s")]  # fmt: skip
    outcome = draw(Shoe(order))
    natural = player >= 8 or banker >= 8
    player_draws = not natural and player <= 5  # B-7
    assert len(outcome.player) == 2 + player_draws
    if natural:  # B-6
        banker_draws_ = False
    elif player_draws:
        banker_draws_ = expected_banker_draws(banker, third)
    else:
        banker_draws_ = expected_banker_draws(banker, None)
    assert len(outcome.banker) == 2 + banker_draws_, (player, banker, third)
    final_player = (player + third) % 10 if player_draws else player
    banker_third = 3 if player_draws else third  # who takes the 'd' card depends on the Player
    final_banker = (banker + banker_third) % 10 if banker_draws_ else banker
    assert (outcome.player_total, outcome.banker_total) == (final_player, final_banker)


def test_code_table_matches_the_words_everywhere() -> None:  # B-8
    for banker in range(8):
        assert banker_draws(banker, None) == expected_banker_draws(banker, None)
        for third in range(10):
            assert BANKER_DRAWS[banker][third] == expected_banker_draws(banker, third)
    assert not banker_draws(8, None) and not banker_draws(9, 5)


def test_b8_banker_three_stands_on_player_third_eight() -> None:  # B-8, the one S on row 3
    assert not banker_draws(3, 8) and banker_draws(3, 9) and banker_draws(3, 0)
