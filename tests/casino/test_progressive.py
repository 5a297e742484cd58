"""Progressive baccarat's worked examples (PB-1 … PB-9, L-4) and its pool conservation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.casino.core import progressive
from pokerroom.casino.core.baccarat import draw
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet, void
from tests.casino.conftest import table

POOL = 1_234_567


@pytest.fixture(scope="module")
def rules() -> progressive.ProgressiveRules:
    """The book's example: amounts in whole units, J_max = 100, seed 1,000,000."""
    return progressive.rules_from(
        table("progressive", jackpot_max_bet=100, limits={"default": [1, 10**9]})
    )


def coup(player: str, banker: str):
    p, b = cards(player), cards(banker)
    return draw(Shoe([p[0], b[0], p[1], b[1], *p[2:], *b[2:]]))


def nets(result: progressive.ProgressiveSettlement) -> dict[str, int]:
    return {line.spot: line.net for line in result.settlement.lines}


def test_pb_example_1_full_jackpot_and_reset(rules) -> None:  # PB-5 … PB-8, L-4
    bets = [Bet("ann", s, 100) for s in ("jackpot", "tie", "player", "banker")]
    result = progressive.settle(bets, coup("Ah 8h", "Ah 8h"), rules, POOL)
    assert result.contribution == 7
    assert result.prizes == (("ann", 1_234_574),)  # the pool after the contribution
    assert result.seed_topup == 1_000_000 and result.pool_after == 1_000_000
    assert nets(result) == {"jackpot": -100, "tie": 800, "player": 0, "banker": 0}
    assert result.settlement.player("ann").jackpot == 1_234_574


def test_pb_example_2_suits_differ(rules) -> None:  # PB-6
    bets = [Bet("ann", "jackpot", 100), Bet("ann", "tie", 100)]
    result = progressive.settle(bets, coup("Ah 8h", "Ah 8s"), rules, POOL)
    assert result.prizes == () and result.contribution == 7 and result.pool_after == POOL + 7
    assert nets(result) == {"jackpot": -100, "tie": 800}
    assert result.bankroll == 100 - 7 - 800  # 93 of the jackpot bet to the house, tie paid


def test_pb_example_3_half_the_pool_for_half_the_max_bet(rules) -> None:  # PB-7, PB-8
    result = progressive.settle([Bet("ann", "jackpot", 50)], coup("Ac 8c", "Ac 8c"), rules, POOL)
    assert result.contribution == 3
    assert result.prizes == (("ann", 617_285),)
    assert result.seed_topup == 1_000_000 - 617_285 and result.pool_after == 1_000_000


def test_pb_example_4_player_seven_beats_three_card_six(rules) -> None:  # PB-2, PB-3
    bets = [Bet("ann", s, 100) for s in ("player", "jackpot", "big", "small")]
    result = progressive.settle(bets, coup("5d 2c", "Ks 4h 2d"), rules, POOL)
    assert nets(result) == {"player": 100, "jackpot": -100, "big": 52, "small": -100}
    assert result.pool_after == POOL + 7


def test_pb_example_5_void_round_leaves_the_pool(rules) -> None:  # PB-9, K-7
    bets = [Bet("ann", "jackpot", 100), Bet("ann", "player", 100)]
    assert void(bets).player("ann").paid == 200  # and no settle(): no contribution


def test_a_pool_above_the_seed_is_not_topped_up(rules) -> None:  # PB-8
    result = progressive.settle([Bet("a", "jackpot", 10)], coup("Ah 8h", "Ah 8h"), rules, 10**8)
    assert result.prizes == (("a", 10_000_000),) and result.seed_topup == 0


def test_two_winners_share_from_one_pool_in_order(rules) -> None:  # PB-7 [unsourced]
    bets = [Bet("a", "jackpot", 100), Bet("b", "jackpot", 100)]
    result = progressive.settle(bets, coup("Ah 8h", "Ah 8h"), rules, 1_000)
    pool = 1_000 + 14
    assert result.prizes == (("a", pool // 2), ("b", pool // 2))


def test_the_jackpot_prize_is_outside_the_cap(rules) -> None:  # K-12, PB-7 [unsourced]
    """The cap withholds the tie's winnings above it, never the prize from the pool."""
    bets = [Bet("ann", "jackpot", 100), Bet("ann", "tie", 100)]
    result = progressive.settle(bets, coup("Ah 8h", "Ah 8h"), rules, POOL, max_win=300)
    ann = result.settlement.player("ann")
    assert (ann.capped, ann.jackpot) == (500, 1_234_574)  # tie 800 won, 300 paid
    assert ann.paid == 100 + 300 + 1_234_574  # the tie's stake, its capped win, the prize
    assert sum(result.legs.values()) == 0


def test_jackpot_bet_limits(rules) -> None:  # PB-4, B-16
    progressive.check_bet(Bet("a", "jackpot", 100), rules)
    for bet, code in [
        (Bet("a", "jackpot", 101), "above_maximum"),
        (Bet("a", "either_pair", 100), "unknown_spot"),
        (Bet("a", "perfect_pair", 100), "unknown_spot"),
    ]:
        with pytest.raises(CasinoError) as caught:
            progressive.check_bet(bet, rules)
        assert caught.value.code == code


def test_each_round_is_a_fresh_six_deck_shoe(rules) -> None:  # PB-1
    rng = random.Random(5)
    for _ in range(50):
        outcome = progressive.draw(rng, rules)
        assert 4 <= outcome.card_count <= 6


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    pool=st.integers(0, 10**9),
    jackpots=st.lists(st.integers(1, 100), max_size=4),
    qualify=st.booleans(),
)
def test_the_legs_balance_and_the_pool_never_goes_negative(rules, seed, pool, jackpots, qualify):
    """L-3: in_play, players, bankroll, pool and seed legs sum to zero in every round."""
    bets = [Bet(f"p{i}", "jackpot", j) for i, j in enumerate(jackpots)] + [
        Bet("p0", "player", 100), Bet("p1", "tie", 50),
    ]  # fmt: skip
    outcome = coup("Ah 8h", "Ah 8h") if qualify else progressive.draw(random.Random(seed), rules)
    result = progressive.settle(bets, outcome, rules, pool)
    assert sum(result.legs.values()) == 0
    assert result.pool_after >= 0
    assert sum(prize for _, prize in result.prizes) <= pool + result.contribution
