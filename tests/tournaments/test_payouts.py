"""Prize tables (T-6, T-7), satellites (T-8, T-16): exact sums and non-increasing prizes."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director.errors import DirectorError
from tournaments.director.payouts import (
    Leftover,
    PayoutSettings,
    PrizeKind,
    paid_places,
    prize_table,
    satellite_prizes,
    seat_award,
    split_equally,
    tied_prizes,
)


def check_table(entries: int, pool: int, config: PayoutSettings) -> None:
    """The invariants every prize table keeps (T-7)."""
    table = prize_table(entries, pool, config)
    amounts = table.amounts
    assert sum(amounts) + table.rounding == pool
    if config.leftover is Leftover.TOP_PLACES:
        assert table.rounding == 0
    else:
        assert 0 <= table.rounding < max(1, paid_places(entries, config)) or not amounts
    assert all(a >= b for a, b in itertools.pairwise(amounts)), entries
    assert all(a > 0 for a in amounts) and len(amounts) <= entries


@pytest.mark.slow
def test_t7_every_field_from_2_to_10000_sums_exactly_and_never_increases() -> None:
    """T-6/T-7: for every field size 2..10,000 the prizes sum to the pool, best place first."""
    config = PayoutSettings()
    for entries in range(2, 10_001):
        check_table(entries, entries * 92 + 7, config)  # 0.92 buy-in (T-2) and an odd 7 cents


@pytest.mark.slow
def test_t6_min_cash_is_at_least_one_and_a_half_entries_in_every_field() -> None:
    """T-6: above the fixed small tables, the last paid place gets at least 1.5 average entries."""
    for entries in (10, 50, 100, 500, 1_000, 5_000, 10_000):
        pool = entries * 92
        table = prize_table(entries, pool)
        assert table.prize(table.paid_places) * entries >= pool * 15 // 10 - entries


@settings(derandomize=True, max_examples=150, deadline=None)
@given(
    entries=st.integers(2, 10_000),
    pool=st.integers(0, 10**11),
    paid=st.integers(1, 10_000),
    first=st.integers(1, 10_000),
    leftover=st.sampled_from(list(Leftover)),
    steepness=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
)
def test_t7_property_any_settings_sum_exactly(
    entries: int, pool: int, paid: int, first: int, leftover: Leftover, steepness: float
) -> None:
    """T-7: any share paid, any first share, any pool: exact sum, never increasing down."""
    check_table(entries, pool, PayoutSettings(paid, first, steepness, leftover=leftover))


def test_t6_small_fields_use_the_fixed_tables() -> None:
    """T-6: 2-3 entries winner takes all, 4-6 pay 65/35, 7-9 pay 50/30/20."""
    assert prize_table(3, 300).amounts == (300,)
    assert prize_table(6, 1000).amounts == (650, 350)
    assert prize_table(9, 1000).amounts == (500, 300, 200)
    assert [paid_places(n) for n in (2, 4, 9, 10, 100, 1000)] == [1, 2, 3, 3, 15, 150]


def test_t6_big_field_first_share_and_paid_share_follow_the_settings() -> None:
    """T-6: 10,000 entries with 15 % paid and a 20 % first prize; 10 % paid with 25 %."""
    pool = 10_000 * 920
    table = prize_table(10_000, pool)
    assert table.paid_places == 1500
    assert abs(table.amounts[0] - pool // 5) <= pool // 100_000
    other = prize_table(10_000, pool, PayoutSettings(paid_share_bps=1000, first_share_bps=2500))
    assert other.paid_places == 1000 and abs(other.amounts[0] - pool // 4) <= pool // 100_000


def test_t6_small_paid_fields_stay_steep() -> None:
    """T-6: where 20 % for first is below a 1/i shape, first gets the 1/i share instead."""
    table = prize_table(100, 100_000)
    assert table.paid_places == 15
    assert table.amounts[0] > table.amounts[1] > table.amounts[-1]
    assert table.amounts[0] > 100_000 // 5


def test_t7_rounding_down_and_the_house_rounding_account() -> None:
    """T-7: 50/30/20 of 10.01 rounds down to 5.00/3.00/2.00 and the cent goes to the house
    rounding account, not to first place; only a config that chooses TOP_PLACES pays it out."""
    table = prize_table(9, 1001)
    assert table.amounts == (500, 300, 200) and table.rounding == 1
    chosen = prize_table(9, 1001, PayoutSettings(leftover=Leftover.TOP_PLACES))
    assert chosen.amounts == (501, 300, 200) and chosen.rounding == 0


def test_t7_the_default_sends_leftovers_to_the_house_in_every_field() -> None:
    """T-7: with default settings no place ever gets more than its rounded-down share: for
    fixed tables and the power law alike, every leftover cent is `rounding` (none to the top)."""
    assert PayoutSettings().leftover is Leftover.HOUSE
    for entries, pool, amounts, rounding in (
        (6, 1001, (650, 350), 1),  # 650.65 / 350.35
        (9, 9009, (4504, 2702, 1801), 2),  # 4504.5 / 2702.7 / 1801.8
    ):
        table = prize_table(entries, pool)
        assert (table.amounts, table.rounding) == (amounts, rounding)
    leftovers = 0
    for entries in (10, 100, 1_000, 10_000):
        pool = entries * 92 + 7
        house = prize_table(entries, pool)
        top = prize_table(entries, pool, PayoutSettings(leftover=Leftover.TOP_PLACES))
        assert top.rounding == 0 and sum(top.amounts) == pool
        # the same rounded-down shares; the top places got the leftover only by choice
        assert house.amounts == tuple(
            a - (1 if place < house.rounding else 0) for place, a in enumerate(top.amounts)
        )
        leftovers += house.rounding
    assert leftovers > 0  # the check above compared something


def test_t7_split_and_tied_prizes_round_down() -> None:
    """T-7: 10.00 split three ways is 3.33 each and 0.01 to the house rounding account."""
    assert split_equally(1000, 3) == (333, 1)
    table = prize_table(9, 1000)
    assert tied_prizes(table, 2, 2) == (250, 0)
    with pytest.raises(DirectorError):
        split_equally(10, 0)


def test_t8_t16_satellite_awards_equal_seats_and_the_remainder() -> None:
    """T-8/T-16: 100 x 10.00 for 215.00 seats: 4 seats, 140.00 cash to 5th place."""
    prizes = satellite_prizes(100, 100_000, 21_500)
    assert (prizes.seats, prizes.remainder) == (4, 14_000)
    assert prizes.award(4) == (PrizeKind.SEAT, 21_500)
    assert prizes.award(5) == (PrizeKind.CASH, 14_000)
    assert prizes.award(6) is None
    in_tdollars = satellite_prizes(100, 100_000, 21_500, PrizeKind.TDOLLARS)
    assert in_tdollars.award(5) == (PrizeKind.TDOLLARS, 14_000)


def test_t6_satellite_guaranteed_seat_is_overlay() -> None:
    """T-6: a guaranteed seat the pool does not cover is topped up by the house."""
    prizes = satellite_prizes(5, 5_000, 21_500, guaranteed_seats=1)
    assert (prizes.seats, prizes.overlay, prizes.remainder) == (1, 16_500, 0)


def test_t16_duplicate_seat_becomes_tdollars_of_the_buy_in_less_fee() -> None:
    """T-16: a seat to a 100 event (90 + 10) won by a registered player is T$90."""
    assert seat_award(9_000, 1_000, registered_in_target=True, entries_used=1, max_entries=3) == (
        seat_award(9_000, 1_000, False, entries_used=3, max_entries=3)
    )
    award = seat_award(9_000, 1_000, True, 1, 3)
    assert (award.kind, award.amount) == (PrizeKind.TDOLLARS, 9_000)
    assert seat_award(9_000, 1_000, False, 0, 1).kind is PrizeKind.SEAT


def test_bad_settings_are_refused() -> None:
    """A fixed table that does not sum to 100 % or rises is bad_payout_settings."""
    with pytest.raises(DirectorError):
        PayoutSettings(small_fields=((3, (6000, 3000)),))
    with pytest.raises(DirectorError):
        PayoutSettings(small_fields=((3, (3000, 7000)),))
