"""Odds and rounding: every payout in integer minor units, rounded down (K-16).

Odds are exact fractions ("0.95:1" is 19/20), read from pay tables as strings or integers, never
as floats. Every function that splits an amount returns parts that sum to the whole
(tests/casino/test_money.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pokerroom.casino.core import errors

Odds = Fraction  # "pays N:1": a winning stake s gets s back plus N × s


def parse_odds(value: object, where: str = "odds") -> Fraction:
    """Read "pays N:1" from a pay table: an int or a decimal string ("0.95"); never a float."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise errors.CasinoError(errors.BAD_CONFIG, f"{where}: {value!r} is not an int or string")
    try:
        odds = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise errors.CasinoError(errors.BAD_CONFIG, f"{where}: {value!r} is not a number") from None
    if odds < 0:
        raise errors.CasinoError(errors.BAD_CONFIG, f"{where}: odds {value!r} are negative")
    return odds


def winnings(stake: int, odds: Fraction) -> int:
    """What a winning stake gains at `odds`, rounded down to the minor unit (K-16)."""
    return stake * odds.numerator // odds.denominator


def commission_split(stake: int, odds: Fraction) -> tuple[int, int]:
    """A 1:1 win less commission (B-10, PB-2) as (paid, commission); the parts sum to `stake`.

    The commission is what the rounded-down payout at `odds` (at most 1:1) leaves of the full
    1:1 win: 15 at 0.95:1 is paid 14 and keeps 1 (K-16).
    """
    if odds > 1:
        raise ValueError("a commission is charged on a win of at most 1:1")
    paid = winnings(stake, odds)
    return paid, stake - paid


def half_split(stake: int) -> tuple[int, int]:
    """ "Loses half" (DT-5, BJ-13): (returned, lost); the returned half is rounded down (K-16)."""
    returned = stake // 2
    return returned, stake - returned


def percent_split(amount: int, percent: Fraction) -> tuple[int, int]:
    """`amount` split into (floor(amount × percent / 100), the rest) (PB-5 contribution)."""
    part = amount * percent.numerator // (100 * percent.denominator)
    return part, amount - part


def proportional_shares(claims: Sequence[int], total: int) -> list[int]:
    """Claims scaled down to fit `total` when they exceed it, each rounded down (PB-7).

    Claims that fit are returned unchanged; the sum of the result never exceeds `total` and what
    the rounding leaves stays where `total` came from.
    """
    if total < 0 or any(claim < 0 for claim in claims):
        raise ValueError("claims and total must not be negative")
    wanted = sum(claims)
    if wanted <= total:
        return list(claims)
    return [claim * total // wanted for claim in claims]
