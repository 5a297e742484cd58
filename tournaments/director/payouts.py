"""Prize tables: a generator for any field, fixed small-field tables, satellites (T-6..T-8, T-16).

Money is int minor units. The generator's shape comes from a power law, place i weighing
1 / i**e, the exponent `e` chosen so that first place takes the configured share; the
float work stops at integer weights, and every amount is then `pool * weight // total`
in ints, rounded down (T-7). What the rounding leaves (fewer cents than places paid) goes,
by default (`Leftover.HOUSE`, as T-7 says), to the house rounding account: it is reported
in `PrizeTable.rounding`, and the prizes plus `rounding` sum to the pool exactly. A
tournament's config may choose `Leftover.TOP_PLACES` instead, which hands the leftover out
one cent at a time from first place down so that the house rounding account gets nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import accumulate, pairwise

from tournaments.director.errors import BAD_PAYOUT_SETTINGS, DirectorError

BPS = 10_000  # basis points: shares are ints out of 10,000
WEIGHT_SCALE = 10**12


class Leftover(StrEnum):
    """Where the cents left by rounding down go (T-7)."""

    TOP_PLACES = "top_places"  # by choice: one cent each from first place down, nothing left
    HOUSE = "house"  # to the house rounding account: the T-7 rule and the default


class PrizeKind(StrEnum):
    """What a satellite place receives (T-8, T-16)."""

    SEAT = "seat"
    CASH = "cash"
    TDOLLARS = "tdollars"


@dataclass(frozen=True, slots=True)
class PayoutSettings:
    """How a field is paid; shares in basis points of the entries or of the pool."""

    paid_share_bps: int = 1500  # share of the entries paid, above the small fields
    first_share_bps: int = 2000  # first place's share of the pool in big fields
    min_exponent: float = 1.0  # small paid fields are never flatter than 1/i
    min_cash_bps: int = 15_000  # the last paid place gets at least 1.5x an average entry's share
    leftover: Leftover = Leftover.HOUSE  # T-7: rounding leftovers go to the house rounding account
    # fixed tables for small fields: (largest field, shares by place in bps)
    small_fields: tuple[tuple[int, tuple[int, ...]], ...] = (
        (3, (10_000,)),  # winner takes all
        (6, (6_500, 3_500)),
        (9, (5_000, 3_000, 2_000)),
    )

    def __post_init__(self) -> None:
        if not 0 < self.paid_share_bps <= BPS or not 0 < self.first_share_bps <= BPS:
            raise DirectorError(BAD_PAYOUT_SETTINGS, "shares must lie in (0, 10000] bps")
        if self.min_cash_bps < 0:
            raise DirectorError(BAD_PAYOUT_SETTINGS, "min_cash_bps must not be negative")
        if self.min_exponent < 0:
            raise DirectorError(BAD_PAYOUT_SETTINGS, "min_exponent must not be negative")
        for _, shares in self.small_fields:
            if sum(shares) != BPS or any(a < b for a, b in pairwise(shares)):
                raise DirectorError(BAD_PAYOUT_SETTINGS, f"bad fixed table {shares}")


@dataclass(frozen=True, slots=True)
class PrizeTable:
    """Prizes by place (first place first) and what goes to the house rounding account."""

    pool: int
    amounts: tuple[int, ...]
    rounding: int = 0  # T-7: to the house rounding account (always 0 with Leftover.TOP_PLACES)

    @property
    def paid_places(self) -> int:
        """How many places win money."""
        return len(self.amounts)

    def prize(self, place: int) -> int:
        """The prize of a finishing place (1 = winner); 0 outside the money."""
        return self.amounts[place - 1] if 1 <= place <= len(self.amounts) else 0


def paid_places(entries: int, settings: PayoutSettings = PayoutSettings()) -> int:
    """How many places a field of `entries` pays (T-6)."""
    if entries <= 0:
        return 0
    for largest, shares in settings.small_fields:
        if entries <= largest:
            return min(len(shares), entries)
    floor = max((len(shares) for _, shares in settings.small_fields), default=1)
    by_share = -(-entries * settings.paid_share_bps // BPS)  # ceiling
    return min(entries, max(floor, by_share))


def prize_table(entries: int, pool: int, settings: PayoutSettings = PayoutSettings()) -> PrizeTable:
    """The prize table of a field of `entries` sharing `pool` (T-6, T-7)."""
    if pool < 0 or entries < 0:
        raise DirectorError(BAD_PAYOUT_SETTINGS, "entries and pool must not be negative")
    places = paid_places(entries, settings)
    if places == 0 or pool == 0:
        return PrizeTable(pool, (), pool)
    weights = _fixed_weights(entries, settings) or _power_weights(
        places,
        settings.first_share_bps,
        settings.min_exponent,
        _min_cash_share(entries, places, settings.min_cash_bps),
    )
    return _allocate(pool, weights, settings.leftover)


def _fixed_weights(entries: int, settings: PayoutSettings) -> tuple[int, ...] | None:
    """The fixed small-field table for `entries`, if one applies."""
    for largest, shares in settings.small_fields:
        if entries <= largest:
            kept = shares[: min(len(shares), entries)]
            return kept if sum(kept) == BPS else (*kept[:-1], BPS - sum(kept[:-1]))
    return None


def _allocate(pool: int, weights: tuple[int, ...], leftover: Leftover) -> PrizeTable:
    """Split `pool` by non-increasing int `weights`, rounding down (T-7), then place the rest."""
    total = sum(weights)
    amounts = [pool * weight // total for weight in weights]
    rest = pool - sum(amounts)  # 0 <= rest < len(weights)
    if leftover is Leftover.TOP_PLACES:
        for place in range(rest):  # a prefix gains one cent: still non-increasing
            amounts[place] += 1
        rest = 0
    while amounts and amounts[-1] == 0:  # a place paying nothing is not in the money
        amounts.pop()
    return PrizeTable(pool, tuple(amounts), rest)


def _min_cash_share(entries: int, places: int, min_cash_bps: int) -> float:
    """Each paid place's guaranteed share of the pool: a multiple of an average entry's share,
    never more than half the pool over all paid places (so the top still pays out of line)."""
    return min(min_cash_bps / BPS / entries, 0.5 / places)


@lru_cache(maxsize=4096)
def _power_weights(
    places: int, first_bps: int, min_exponent: float, floor_share: float = 0.0
) -> tuple[int, ...]:
    """Integer weights: a floor for every place plus 1/i**e on the rest of the pool, `e` chosen
    so that first place gets about `first_bps` of the pool; non-increasing down the places."""
    rest = 1.0 - places * floor_share
    first_extra = max(first_bps / BPS - floor_share, 1e-9) / rest
    exponent = _exponent(places, min(first_extra, 1.0), min_exponent)
    power = [place**-exponent for place in range(1, places + 1)]
    scale = rest / math.fsum(power)
    raw = [max(1, round(WEIGHT_SCALE * (floor_share + scale * p))) for p in power]
    return tuple(accumulate(raw, min))  # non-increasing even after rounding


EXACT_TERMS = 64  # sum the first terms exactly, the tail by its midpoint integral


def _log_power_sum(places: int, exponent: float) -> float:
    """log(sum of i**-e for i in 1..places), the tail past EXACT_TERMS by an integral."""
    head = math.fsum(i**-exponent for i in range(1, min(places, EXACT_TERMS) + 1))
    if places <= EXACT_TERMS:
        return math.log(head)
    low, high = math.log(EXACT_TERMS + 0.5), math.log(places + 0.5)
    u = 1.0 - exponent
    tail = high - low if abs(u) < 1e-12 else (math.expm1(u * high) - math.expm1(u * low)) / u
    return math.log(head + tail)


def _exponent(places: int, first_share: float, min_exponent: float) -> float:
    """Solve sum(i**-e) = 1/first_share for e >= min_exponent (Newton; the log-sum is convex)."""
    target = -math.log(first_share)  # we want log S(e) == target
    e = min_exponent
    for _ in range(60):
        value = _log_power_sum(places, e)
        if value <= target:  # first place already has at least its share
            return e
        h = 1e-6
        slope = (_log_power_sum(places, e + h) - _log_power_sum(places, e - h)) / (2 * h)
        if slope >= 0:
            return e
        step = (value - target) / -slope
        e += step
        if step < 1e-10:
            break
    return e


def split_equally(amount: int, parts: int) -> tuple[int, int]:
    """Each of `parts` equal shares of `amount` rounded down, and the rest for the house (T-7)."""
    if parts <= 0 or amount < 0:
        raise DirectorError(BAD_PAYOUT_SETTINGS, "split needs parts > 0 and amount >= 0")
    each = amount // parts
    return each, amount - each * parts


def tied_prizes(table: PrizeTable, best_place: int, count: int) -> tuple[int, int]:
    """Players tied for places best..best+count-1 share those prizes equally (T-7 rest)."""
    total = sum(table.prize(place) for place in range(best_place, best_place + count))
    return split_equally(total, count)


@dataclass(frozen=True, slots=True)
class SatellitePrizes:
    """N equal seats, and the rest of the pool to the next place (T-8, T-16)."""

    seats: int
    seat_value: int
    remainder: int
    remainder_kind: PrizeKind
    overlay: int = 0  # the house adds it when fewer seats than guaranteed are covered (T-6)

    def award(self, place: int) -> tuple[PrizeKind, int] | None:
        """What a finishing place receives: a seat, the remainder, or nothing."""
        if 1 <= place <= self.seats:
            return PrizeKind.SEAT, self.seat_value
        if place == self.seats + 1 and self.remainder:
            return self.remainder_kind, self.remainder
        return None


def satellite_prizes(
    entries: int,
    pool: int,
    seat_value: int,
    remainder_kind: PrizeKind = PrizeKind.CASH,
    guaranteed_seats: int = 0,
) -> SatellitePrizes:
    """Seats worth `seat_value` (target buy-in + fee) each; the rest as cash or T$ (T-16).

    The rules are silent on the remainder: it goes to the first place after the seats, as
    cash by default or T$ by setting. At most `entries - 1` seats are awarded so that a
    satellite is played (T-8); guaranteed seats the pool does not cover are overlay.
    """
    if seat_value <= 0 or pool < 0 or entries < 0:
        raise DirectorError(BAD_PAYOUT_SETTINGS, "seat value must be positive")
    if remainder_kind is PrizeKind.SEAT:
        raise DirectorError(BAD_PAYOUT_SETTINGS, "the remainder is cash or T$")
    seats = max(pool // seat_value, guaranteed_seats)
    seats = max(0, min(seats, entries - 1))
    overlay = max(0, seats * seat_value - pool)
    return SatellitePrizes(
        seats, seat_value, pool + overlay - seats * seat_value, remainder_kind, overlay
    )


@dataclass(frozen=True, slots=True)
class SeatAward:
    """What a satellite seat becomes for one winner (T-16)."""

    kind: PrizeKind  # SEAT (a ticket to the target) or TDOLLARS
    amount: int  # the seat's value, or the T$ paid in its place


def seat_award(
    target_buy_in: int,
    target_fee: int,
    registered_in_target: bool,
    entries_used: int,
    max_entries: int,
) -> SeatAward:
    """A ticket, or T$ of the target's buy-in less its fee for a duplicate seat (T-16)."""
    if registered_in_target or entries_used >= max_entries:
        return SeatAward(PrizeKind.TDOLLARS, target_buy_in)
    return SeatAward(PrizeKind.SEAT, target_buy_in + target_fee)
