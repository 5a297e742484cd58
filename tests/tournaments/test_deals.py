"""Deals (T-13): ICM and chip-chop amounts, the floor, the amount left to play for; rounding (T-7).

The ICM reference here is written independently of the module: it walks every finishing order
of the players with exact fractions (Malmuth-Harville: each next place goes to a remaining
player with probability stack / chips remaining).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director.deals import (
    MAX_ICM_PLAYERS,
    Deal,
    DealMethod,
    bust_prize,
    chip_chop,
    deal_moves,
    exact_equities,
    icm_equities,
    propose_deal,
)
from tournaments.director.errors import BAD_PAYOUT_SETTINGS, NOT_ALLOWED, DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    house,
    prize_moves,
    prize_pool,
    total,
    wallet,
)

SETTINGS = settings(derandomize=True, deadline=None, max_examples=150)


def harville_by_orders(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Each player's expected prize over all n! finishing orders, exactly."""
    expected = [Fraction(0)] * len(stacks)
    for order in itertools.permutations(range(len(stacks))):
        chance, chips = Fraction(1), sum(stacks)
        for player in order:
            chance *= Fraction(stacks[player], chips)
            chips -= stacks[player]
        for place, player in enumerate(order[: len(prizes)]):
            expected[player] += chance * prizes[place]
    return expected


@st.composite
def tables(
    draw: st.DrawFn, max_players: int = 7, min_players: int = 1
) -> tuple[list[int], list[int]]:
    """Stacks (small ones tie and give whole-cent equities, large ones do not) and prizes."""
    players = draw(st.integers(min_players, max_players))
    top = draw(st.sampled_from([3, 12, 10**4, 10**9]))
    stacks = draw(st.lists(st.integers(1, top), min_size=players, max_size=players))
    places = draw(st.integers(0, players))
    biggest = draw(st.sampled_from([9, 10**3, 10**6, 10**12]))
    prizes = draw(st.lists(st.integers(0, biggest), min_size=places, max_size=places))
    return stacks, sorted(prizes, reverse=True)


def check_sums(deal: Deal, stacks: list[int], prizes: list[int]) -> None:
    """T-7: every cent is accounted for; rounding down leaves less than a cent a player."""
    assert deal.total == sum(prizes) == sum(deal.amounts) + deal.rounding + deal.reserved
    assert 0 <= deal.rounding < len(stacks)
    assert len(deal.amounts) == len(stacks)


# ICM against the reference ----------------------------------------------------------------


@SETTINGS
@given(tables())
def test_t13_icm_is_the_exact_equity_rounded_down_over_all_finishing_orders(
    table: tuple[list[int], list[int]],
) -> None:
    """T-13/T-7: every amount is the exact Malmuth-Harville equity rounded down, up to 7 players."""
    stacks, prizes = table
    reference = harville_by_orders(stacks, prizes)
    deal = icm_equities(stacks, prizes)
    assert list(deal.amounts) == [math.floor(x) for x in reference]
    assert list(exact_equities(stacks, prizes)) == reference
    check_sums(deal, stacks, prizes)
    assert deal.reserved == 0


@pytest.mark.parametrize(
    ("stacks", "prizes", "expected"),
    [
        # Whole-cent equities that a float computation gets as 389.99999999999994 and the like.
        ([1, 5, 3], [880, 360, 320], (390, 645, 525)),
        ([3, 3, 1], [940, 680], (670, 670, 280)),
        ([3, 3, 3], [1000, 290], (430, 430, 430)),
        ([1, 1, 1], [340, 190, 100], (210, 210, 210)),
    ],
)
def test_t13_whole_cent_equities_are_paid_in_full(
    stacks: list[int], prizes: list[int], expected: tuple[int, ...]
) -> None:
    """T-13/T-7: an equity of exactly N cents pays N, not N - 1 (no floating-point shortfall)."""
    assert harville_by_orders(stacks, prizes) == [Fraction(x) for x in expected]
    deal = icm_equities(stacks, prizes)
    assert deal.amounts == expected
    assert deal.rounding == 0


def test_t13_three_players_two_prizes_worked_by_hand() -> None:
    """T-13: stacks 50/30/20, prizes 70.00/30.00 (k < n: the next bust gets nothing).

    P(first) = 0.5, 0.3, 0.2. P(A second) = 0.3·50/70 + 0.2·50/80 = 19/56, so
    A = 3500 + 3000·19/56 = 4517 6/7. P(B second) = 0.5·30/50 + 0.2·30/80 = 3/8, B = 3225.
    P(C second) = 0.5·20/50 + 0.3·20/70 = 2/7, C = 1400 + 857 1/7 = 2257 1/7.
    Rounded down: 4517 + 3225 + 2257 = 9,999; the cent left goes to house rounding (T-7).
    """
    stacks, prizes = [50, 30, 20], [7000, 3000]
    assert exact_equities(stacks, prizes) == (
        Fraction(31625, 7),
        Fraction(3225),
        Fraction(15800, 7),
    )
    assert icm_equities(stacks, prizes) == Deal((4517, 3225, 2257), 1)
    # chip-chop: nobody is guaranteed a prize (the next bust gets 0), so all by chips.
    assert chip_chop(stacks, prizes) == Deal((5000, 3000, 2000), 0)


def test_t13_three_players_three_prizes_worked_by_hand() -> None:
    """T-13: stacks 50/30/20, prizes 50.00/30.00/20.00: everyone is sure of 20.00.

    Above the 2000 floor, first pays 3000 more and second 1000 more:
    A = 2000 + 3000·0.5 + 1000·19/56 = 3839 2/7, B = 2000 + 900 + 375 = 3275,
    C = 2000 + 600 + 1000·2/7 = 2885 5/7. Chip-chop: 2000 each, the other 4000 by chips.
    """
    stacks, prizes = [50, 30, 20], [5000, 3000, 2000]
    assert icm_equities(stacks, prizes) == Deal((3839, 3275, 2885), 1)
    assert chip_chop(stacks, prizes) == Deal((4000, 3200, 2800), 0)


def test_t7_equal_stacks_split_evenly_and_the_house_keeps_the_odd_cents() -> None:
    """T-7: three equal stacks share 1.00: 33 cents each and 1 cent to house rounding."""
    assert icm_equities([7, 7, 7], [100]) == Deal((33, 33, 33), 1)
    assert chip_chop([7, 7, 7], [100]) == Deal((33, 33, 33), 1)
    assert icm_equities([5] * 9, [900, 450, 90]) == Deal((160,) * 9, 0)


# Properties -----------------------------------------------------------------------------------


@SETTINGS
@given(tables(max_players=10, min_players=2), st.randoms(use_true_random=False))
def test_t13_amounts_follow_the_players_not_their_order_in_the_list(
    table: tuple[list[int], list[int]], rng: random.Random
) -> None:
    """T-13: listing the players in another order lists the same amounts in that order."""
    stacks, prizes = table
    order = list(range(len(stacks)))
    rng.shuffle(order)
    deal = icm_equities(stacks, prizes)
    shuffled = icm_equities([stacks[i] for i in order], prizes)
    assert shuffled.amounts == tuple(deal.amounts[i] for i in order)
    assert shuffled.rounding == deal.rounding


@SETTINGS
@given(tables(max_players=10, min_players=2))
def test_t13_more_chips_never_get_less(table: tuple[list[int], list[int]]) -> None:
    """T-13: a bigger stack never gets less than a smaller one; equal stacks get equal amounts."""
    stacks, prizes = table
    for deal in (icm_equities(stacks, prizes), chip_chop(stacks, prizes)):
        for i, j in itertools.permutations(range(len(stacks)), 2):
            if stacks[i] >= stacks[j]:
                assert deal.amounts[i] >= deal.amounts[j], (stacks, prizes, deal)
            if stacks[i] == stacks[j]:
                assert deal.amounts[i] == deal.amounts[j]


@SETTINGS
@given(tables(max_players=8, min_players=2), st.integers(0, 7), st.integers(1, 10**6))
def test_t13_gaining_chips_never_lowers_ones_own_amount(
    table: tuple[list[int], list[int]], who: int, extra: int
) -> None:
    """T-13: the same player with more chips (others unchanged) is offered at least as much."""
    stacks, prizes = table
    who %= len(stacks)
    richer = [stack + extra if i == who else stack for i, stack in enumerate(stacks)]
    for share in (icm_equities, chip_chop):
        assert share(richer, prizes).amounts[who] >= share(stacks, prizes).amounts[who]


@SETTINGS
@given(tables(max_players=10, min_players=1), st.booleans())
def test_t13_no_deal_pays_less_than_the_next_bust_would_get(
    table: tuple[list[int], list[int]], every_place_paid: bool
) -> None:
    """T-13: every amount is at least the prize of place n (0 while places < players)."""
    stacks, prizes = table
    if every_place_paid:  # pad with the lowest prize so that k == n and the floor is not 0
        lowest = prizes[-1] if prizes else 1
        prizes = prizes + [lowest] * (len(stacks) - len(prizes))
    floor = bust_prize(len(stacks), prizes)
    assert floor == (prizes[-1] if len(prizes) == len(stacks) else 0)
    for deal in (icm_equities(stacks, prizes), chip_chop(stacks, prizes)):
        check_sums(deal, stacks, prizes)
        assert min(deal.amounts) >= floor


def test_t13_the_floor_is_the_next_busts_prize() -> None:
    """T-13: the floor is the prize of place n when n places remain, else nothing."""
    assert bust_prize(3, [5000, 3000, 2000]) == 2000
    assert bust_prize(4, [5000, 3000, 2000]) == 0
    assert bust_prize(1, [5000]) == 5000
    # A tiny stack against two big ones, every place paid: ICM pays it just over the floor.
    deal = icm_equities([1, 10**6, 10**6], [5000, 3000, 2000])
    assert deal.amounts[0] == 2000
    assert chip_chop([1, 10**6, 10**6], [5000, 3000, 2000]).amounts[0] == 2000


@SETTINGS
@given(tables(max_players=MAX_ICM_PLAYERS, min_players=1), st.integers(0, 10**12))
def test_t13_one_paid_place_icm_is_chip_chop(
    table: tuple[list[int], list[int]], prize: int
) -> None:
    """T-13: with one place left to pay, ICM and chip-chop are both a split by chips."""
    stacks, _ = table
    assert icm_equities(stacks, [prize]) == chip_chop(stacks, [prize])
    assert chip_chop(stacks, [prize]).amounts == tuple(
        prize * stack // sum(stacks) if len(stacks) > 1 else prize for stack in stacks
    )


@SETTINGS
@given(st.integers(1, 10**9), st.integers(1, 10**9), st.integers(0, 10**9), st.integers(0, 10**9))
def test_t13_heads_up_icm_is_chip_chop(a: int, b: int, first: int, second: int) -> None:
    """T-13: two players: ICM gives second prize plus the difference by chips, as chip-chop."""
    prizes = sorted([first, second], reverse=True)
    assert icm_equities([a, b], prizes) == chip_chop([a, b], prizes)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(tables(max_players=9, min_players=8))
def test_t13_fast_bounds_agree_with_exact_fractions_for_8_and_9_players(
    table: tuple[list[int], list[int]],
) -> None:
    """T-13: the integer-bound computation rounds to the same cents as exact fractions."""
    stacks, prizes = table
    deal = icm_equities(stacks, prizes)
    assert list(deal.amounts) == [math.floor(x) for x in exact_equities(stacks, prizes)]
    check_sums(deal, stacks, prizes)


def test_t13_thirteen_players_sum_exactly_and_rank_by_chips() -> None:
    """T-13: the largest ICM deal: exact sum, order by chips, ties equal, floor kept."""
    stacks = [
        9_000_000, 7_000_000, 5_500_000, 5_500_000, 4_000_000, 3_000_003, 2_000_000,
        1_500_000, 1_000_000, 700_000, 400_000, 100_000, 1,
    ]  # fmt: skip
    prizes = [
        1_000_000, 600_000, 400_000, 300_000, 240_000, 200_000, 160_000,
        130_000, 110_000, 95_000, 85_000, 80_000, 77_777,
    ]  # fmt: skip
    deal = icm_equities(stacks, prizes)
    check_sums(deal, stacks, prizes)
    assert list(deal.amounts) == sorted(deal.amounts, reverse=True)
    assert deal.amounts[2] == deal.amounts[3]
    assert deal.amounts[-1] == 77_777  # one chip: the floor and a fraction of a cent
    assert deal.amounts[0] < chip_chop(stacks, prizes).amounts[0]  # ICM flattens the chip lead


# Left to play for -------------------------------------------------------------------------------


def test_t13_amount_left_to_play_for_comes_off_first_prize_worked_by_hand() -> None:
    """T-13: 10.00 left to play for: the deal shares 40.00/30.00/20.00 and 10.00 is reserved.

    A = 2000 + 2000·0.5 + 1000·19/56 = 3339 2/7, B = 2000 + 600 + 375 = 2975,
    C = 2000 + 400 + 1000·2/7 = 2685 5/7.
    """
    stacks, prizes = [50, 30, 20], [5000, 3000, 2000]
    deal = propose_deal(stacks, prizes, DealMethod.ICM, left_to_play_for=1000)
    assert deal == Deal((3339, 2975, 2685), 1, 1000)
    assert deal.total == 10_000
    chop = propose_deal(stacks, prizes, DealMethod.CHIP_CHOP, left_to_play_for=1000)
    assert chop == Deal((3500, 2900, 2600), 0, 1000)


@SETTINGS
@given(tables(max_players=7, min_players=1), st.integers(0, 10**12), st.booleans())
def test_t13_a_reserve_deals_the_prizes_less_the_reserve(
    table: tuple[list[int], list[int]], reserve: int, icm: bool
) -> None:
    """T-13: the deal equals the plain deal on first prize less the reserve, reserve kept apart."""
    stacks, prizes = table
    if not prizes:
        prizes = [reserve]
    headroom = prizes[0] - (prizes[1] if len(prizes) > 1 else 0)
    reserve %= headroom + 1
    method = DealMethod.ICM if icm else DealMethod.CHIP_CHOP
    share = icm_equities if icm else chip_chop
    deal = propose_deal(stacks, prizes, method, left_to_play_for=reserve)
    dealt = [prizes[0] - reserve, *prizes[1:]]
    plain = share(stacks, dealt)
    assert deal == Deal(plain.amounts, plain.rounding, reserve)
    check_sums(deal, stacks, prizes)
    assert min(deal.amounts) >= bust_prize(len(stacks), dealt)
    if len(stacks) > 1:  # the reserve comes off first place, never off the next bust's prize
        assert bust_prize(len(stacks), dealt) == bust_prize(len(stacks), prizes)


def test_t13_the_reserve_may_not_make_first_pay_less_than_second() -> None:
    """T-13: between 0 and first less second; all of a lone prize may be left to play for."""
    stacks, prizes = [50, 30, 20], [5000, 3000, 2000]
    assert propose_deal(stacks, prizes, left_to_play_for=2000).reserved == 2000
    for bad in (2001, -1):
        with pytest.raises(DirectorError) as error:
            propose_deal(stacks, prizes, left_to_play_for=bad)
        assert error.value.code == BAD_PAYOUT_SETTINGS
    assert propose_deal([3, 1], [800], left_to_play_for=800) == Deal((0, 0), 0, 800)
    with pytest.raises(DirectorError):
        propose_deal([3, 1], [], left_to_play_for=1)


# Refusals and money ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stacks", "prizes"),
    [
        ([], []),
        ([10, 0], [100]),
        ([10, -5], [100]),
        ([10, 20], [300, 200, 100]),  # more places than players
        ([10, 20], [100, 200]),  # second pays more than first
        ([10, 20], [100, -1]),
    ],
)
def test_t13_refuses_what_no_deal_can_share(stacks: list[int], prizes: list[int]) -> None:
    """T-13: empty or zero stacks, more prizes than players, increasing or negative prizes."""
    for share in (icm_equities, chip_chop, exact_equities, propose_deal):
        with pytest.raises(DirectorError) as error:
            share(stacks, prizes)
        assert error.value.code == BAD_PAYOUT_SETTINGS


def test_t13_icm_is_bounded_chip_chop_is_not() -> None:
    """T-13: ICM above MAX_ICM_PLAYERS is refused (its cost doubles per player); chip-chop works."""
    stacks = list(range(1, MAX_ICM_PLAYERS + 2))
    prizes = [1000] * 3
    with pytest.raises(DirectorError) as error:
        icm_equities(stacks, prizes)
    assert error.value.code == NOT_ALLOWED
    deal = chip_chop(stacks, prizes)
    check_sums(deal, stacks, prizes)


def test_t13_deal_moves_pay_each_player_at_once_and_rounding_to_the_house() -> None:
    """T-13/T-7: one prize move per player with money, the rounding to the house, reserve kept."""
    deal = propose_deal([50, 30, 20, 1], [5000, 3000, 2000], left_to_play_for=1000)
    players = ["ann", "bob", "cy", "dee"]
    paid = deal_moves("t1", "d1", players, deal)
    assert sum(m.amount for m in paid) == deal.total - deal.reserved
    assert total(paid, prize_pool("t1")) == -(deal.total - 1000)
    assert total(paid, house(HOUSE_ROUNDING)) == deal.rounding > 0
    for player, amount in zip(players, deal.amounts, strict=True):
        assert total(paid, wallet(player)) == amount
    assert all(m.amount > 0 for m in paid)
    keys = {m.key for m in paid}
    assert len(keys) == len(paid)
    assert not keys & {m.key for m in prize_moves("t1", dict.fromkeys(players, 1), 1)}
    assert {m.key for m in deal_moves("t1", "d1", players, deal)} == keys  # same deal, same keys
    with pytest.raises(DirectorError):
        deal_moves("t1", "d1", players[:3], deal)
    with pytest.raises(DirectorError):
        deal_moves("t1", "d1", ["ann", "ann", "cy", "dee"], deal)
