"""RNG-7, RNG-8, RNG-10: pockets, dice and shoe positions are uniform (chi-square, fixed seeds).

The critical values are the chi-square 0.1 % points (df 36: 67.99; df 5: 20.52; df 12: 32.91):
a draw that dropped a pocket or a face, or reduced modulo with bias, fails by far.
"""

from __future__ import annotations

import random
from collections import Counter

from pokerroom.casino.core import roulette, sicbo
from pokerroom.casino.core.cards import Shoe


def chi_square(counts: Counter[int], cells: list[int], total: int) -> float:
    expected = total / len(cells)
    return sum((counts.get(cell, 0) - expected) ** 2 / expected for cell in cells)


def test_roulette_pockets_are_uniform() -> None:  # RNG-7
    rng = random.Random(11)
    draws = 370_000
    counts = Counter(roulette.draw(rng) for _ in range(draws))
    assert set(counts) == set(range(37))
    assert chi_square(counts, list(range(37)), draws) < 67.99


def test_sicbo_dice_are_uniform_and_independent() -> None:  # RNG-8
    rng = random.Random(12)
    rolls = [sicbo.draw(rng) for _ in range(120_000)]
    for position in range(3):
        counts = Counter(roll[position] for roll in rolls)
        assert chi_square(counts, [1, 2, 3, 4, 5, 6], len(rolls)) < 20.52
    pairs = Counter(roll[0] * 6 + roll[1] for roll in rolls)  # 36 cells: df 35 < 67.99
    cells = [a * 6 + b for a in range(1, 7) for b in range(1, 7)]
    assert chi_square(pairs, cells, len(rolls)) < 67.99


def test_the_first_card_of_a_shoe_is_uniform_by_rank() -> None:  # RNG-3
    rng = random.Random(13)
    shoes = 26_000
    counts = Counter(Shoe.shuffled(rng, 1).cards[0] >> 2 for _ in range(shoes))
    assert chi_square(counts, list(range(13)), shoes) < 32.91
