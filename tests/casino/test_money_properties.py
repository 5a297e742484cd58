"""Rounding and conservation (K-16, K-12, L-3, PB-5, PB-7): every split sums to its whole, no
payout above the pay table or the cap, and settle never invents money."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.casino.core import baccarat, baccarat_bets, dragon_tiger, roulette, sicbo
from pokerroom.casino.core.cards import Shoe
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.money import (
    commission_split,
    half_split,
    parse_odds,
    percent_split,
    proportional_shares,
    winnings,
)
from pokerroom.casino.core.results import Bet, void
from tests.casino.conftest import table

stakes = st.integers(min_value=1, max_value=10**12)


@given(stakes)
def test_commission_parts_sum_to_the_stake(stake: int) -> None:  # B-10, K-16
    paid, commission = commission_split(stake, Fraction(19, 20))
    assert paid + commission == stake and commission >= 0
    assert paid == stake * 95 // 100  # rounded down: the fraction stays with the house
    assert paid <= stake * Fraction(19, 20) < paid + 1


@given(stakes)
def test_half_parts_sum_to_the_stake(stake: int) -> None:  # DT-5, BJ-13, K-16
    returned, lost = half_split(stake)
    assert returned + lost == stake and returned <= lost <= returned + 1


@given(stakes, st.fractions(min_value=0, max_value=200, max_denominator=1000))
def test_winnings_round_down_never_up(stake: int, odds: Fraction) -> None:  # K-16
    won = winnings(stake, odds)
    assert won <= stake * odds < won + 1


@given(st.integers(min_value=0, max_value=10**9))
def test_contribution_and_house_part_sum_to_the_jackpot_bet(bet: int) -> None:  # PB-5
    pool, house = percent_split(bet, Fraction(7))
    assert pool + house == bet and pool == bet * 7 // 100


@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=8), st.integers(0, 10**9))
def test_shares_never_exceed_the_pool(claims: list[int], pool: int) -> None:  # PB-7
    shares = proportional_shares(claims, pool)
    assert len(shares) == len(claims) and sum(shares) <= max(pool, sum(claims))
    if sum(claims) > pool:
        assert sum(shares) <= pool and all(s <= c for s, c in zip(shares, claims, strict=True))
    else:
        assert shares == claims


@pytest.mark.parametrize("value", [0.95, True, None, "x", "-1", [1, 2]])
def test_odds_must_be_exact_and_non_negative(value: object) -> None:  # K-16: no floats
    with pytest.raises(CasinoError) as caught:
        parse_odds(value)
    assert caught.value.code == "bad_config"


def _games():
    commission = baccarat_bets.rules_from(table("baccarat", fortune6=True))
    super6 = baccarat_bets.rules_from(table("baccarat", variant="super6", fortune6=True))
    dt = dragon_tiger.rules_from(table("dragon_tiger"))
    wheel = roulette.rules_from(table("roulette", la_partage=True))
    dice = sicbo.rules_from(table("sicbo"))

    def bac(rules):
        def play(rng, bets, cap):
            shoe = Shoe.shuffled(rng, 1)
            return baccarat_bets.settle(bets, baccarat.draw(shoe), rules, cap)

        return sorted(rules.spots), play, max((rules.pays or {}).values())

    return {
        "commission": bac(commission),
        "super6": bac(super6),
        "dragon_tiger": (
            sorted(dt.spots),
            lambda rng, bets, cap: dragon_tiger.settle(
                bets, dragon_tiger.draw(Shoe.shuffled(rng, 8)), dt, cap
            ),
            max(dt.pays.values()),
        ),
        "roulette": (
            sorted(roulette.SPOTS),
            lambda rng, bets, cap: roulette.settle(bets, roulette.draw(rng), wheel, cap),
            max(wheel.pays.values()),
        ),
        "sicbo": (
            list(sicbo.SPOTS),
            lambda rng, bets, cap: sicbo.settle(bets, sicbo.draw(rng), dice, cap),
            max(dice.pays.values()),
        ),
    }


GAMES = _games()


@settings(max_examples=300, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**32),
    picks=st.lists(
        st.tuples(st.sampled_from(["ann", "bob", "cy"]), st.integers(0, 10**6), stakes),
        min_size=1,
        max_size=12,
    ),
    cap=st.one_of(st.none(), st.integers(0, 10**13)),
)
def test_settle_never_invents_money_and_respects_the_cap(game, seed, picks, cap) -> None:
    """K-12, K-16, L-3: each line returns 0 … stake × (1 + the table's top odds); a player's
    winnings never exceed the cap; the players' nets and the house's sum to zero."""
    spots, play, top = GAMES[game]
    bets = [Bet(player, spots[index % len(spots)], stake) for player, index, stake in picks]
    result = play(random.Random(seed), bets, cap)
    assert [(line.player, line.spot, line.stake) for line in result.lines] == [
        (bet.player, bet.spot, bet.stake) for bet in bets
    ]
    for line in result.lines:
        assert 0 <= line.returned <= line.stake * (1 + top)
        assert line.result in ("win", "lose", "push", "half")
    for total in result.players:
        assert total.staked == sum(b.stake for b in bets if b.player == total.player)
        if cap is not None:
            assert total.paid - total.staked <= cap
            assert total.paid >= 0
    house = result.staked - result.paid
    assert sum(total.net for total in result.players) + house == 0


def test_the_cap_withholds_only_winnings_above_it() -> None:  # K-12
    rules = roulette.rules_from(table("roulette"))
    bets = [Bet("ann", "straight:7", 1000), Bet("ann", "red", 1000), Bet("ann", "black", 500)]
    result = roulette.settle(bets, 7, rules, max_win=10_000)
    ann = result.player("ann")
    # straight +35,000 and red +1,000 won (black lost 500): winnings 36,000 capped to 10,000
    assert (ann.returned, ann.capped, ann.paid) == (38_000, 26_000, 12_000)
    assert ann.net == 9_500  # the losing Black stake is lost as usual


def test_a_void_round_returns_every_stake() -> None:  # K-7, L-5
    bets = [Bet("ann", "player", 100), Bet("bob", "tie", 33), Bet("ann", "small", 7)]
    result = void(bets)
    assert [t.paid for t in result.players] == [107, 33] and result.paid == result.staked
