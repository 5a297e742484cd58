"""Deal proposals (T-13): ICM (Malmuth-Harville) and chip-chop, with an amount left to play for.

Inputs: the remaining players' stacks (chips, each > 0) and the prizes still to award, in
cents, first place first (non-increasing, never more places than players). Output: a `Deal`,
each player's amount in the order of the stacks, what rounding leaves for the house rounding
account, and what is left to play for. Always `sum(amounts) + rounding + reserved ==
sum(prizes)`, to the cent.

Rounding (T-7): every amount is the exact equity rounded **down** to the cent; the cents
this leaves (fewer than the number of players) go to the house rounding account. So players
with equal stacks get exactly equal amounts, and an amount never depends on the order in which
the players are listed.

The floor. The next player out finishes in place n (n = players remaining) and gets
`bust_prize(n, prizes)`: the lowest prize when every remaining place is paid (k == n), and 0
when more players remain than places are paid (k < n, a deal on or before the bubble: the next
player out wins nothing, so nobody is guaranteed anything, and the lowest prize cannot be
promised to every player, since n times it may exceed the money). No deal pays a player less
than that floor:

- chip-chop pays the floor to everyone first, and the rest in proportion to chips;
- ICM needs no clamp: a player's exact equity is a weighted average of the prizes of places
  1..n (weights: the probabilities of finishing there, summing to 1), and every one of those
  prizes is at least the prize of place n, because the prizes do not increase. The floor is a
  whole number of cents, so rounding the equity down cannot take it below the floor either.

ICM. Malmuth-Harville: the chance of finishing first is the stack over all chips; the others
then finish by the same rule among themselves. A player's equity is the sum over places of
P(finishing there) × prize. The floor prize is taken off every place first (it is paid for
certain), so equal prizes need no probabilities at all. The sum runs over subsets, not
finishing orders: the probability that a set of players took the top places (in any order) is
built from the sets one smaller, about n · 2^(n-1) steps for n players instead of n!. Players
with equal stacks are interchangeable, so a set is only counted by how many of each stack it
holds (equal stacks: n + 1 sets in all). `MAX_ICM_PLAYERS` bounds the work.

Exactness. The probabilities are carried as integer intervals in units of 2^-128 (the low end
rounded down, the high end up at every step), so the exact equity lies between the two ends;
when both round down to the same cent, that cent is exact. When they do not (the exact equity
is a whole number of cents, or within about 2^-80 of one), everything is recomputed with
`fractions.Fraction`. That is correct always, and quick in the cases that lead there in
practice (equal stacks, one place paying above the floor: few distinct fractions); on
unrelated stacks it would take seconds for 12 players (docs/PERFORMANCE.md, ICM).

Left to play for (T-13): an amount taken from the first prize and paid to the winner by the
final result. The deal shares the prizes with the first one reduced by it; the reserve may not
make first place pay less than second (the deal would then no longer reward chips).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import pairwise

from tournaments.director.errors import BAD_PAYOUT_SETTINGS, NOT_ALLOWED, DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    MoneyMove,
    house,
    moves,
    prize_pool,
    wallet,
)

SCALE_BITS = 128  # probabilities as integers in units of 2**-SCALE_BITS
MAX_ICM_PLAYERS = 13  # 13 players: about 0.1 s of CPU; each more player doubles it


class DealMethod(StrEnum):
    """How a deal shares the prizes (T-13)."""

    ICM = "icm"
    CHIP_CHOP = "chip_chop"


@dataclass(frozen=True, slots=True)
class Deal:
    """A proposed deal: amounts paid at once, the house rounding (T-7), what is left to play for."""

    amounts: tuple[int, ...]  # cents, one per player, in the order of the stacks given
    rounding: int  # cents to the house rounding account (T-7), fewer than the players
    reserved: int = 0  # cents left to play for, paid to the winner by the final result

    @property
    def total(self) -> int:
        """All the prize money the deal accounts for."""
        return sum(self.amounts) + self.rounding + self.reserved


def bust_prize(players: int, prizes: Sequence[int]) -> int:
    """The prize of the next player out: place `players`, 0 outside the money (T-13 floor)."""
    return prizes[players - 1] if 1 <= players <= len(prizes) else 0


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> Deal:
    """T-13 ICM: each player's exact Malmuth-Harville equity rounded down, the rest to the house."""
    _check(stacks, prizes)
    if len(stacks) > MAX_ICM_PLAYERS:
        raise DirectorError(
            NOT_ALLOWED, f"ICM is offered for at most {MAX_ICM_PLAYERS} players; use chip-chop"
        )
    floor = bust_prize(len(stacks), prizes)
    weights = _weights(prizes, floor)
    cents = _interval_floors(stacks, weights)
    if cents is None:
        cents = [x.numerator // x.denominator for x in _exact(stacks, weights)]
    amounts = tuple(floor + c for c in cents)
    return Deal(amounts, sum(prizes) - sum(amounts))


def exact_equities(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[Fraction, ...]:
    """T-13 ICM: each player's Malmuth-Harville equity in cents, as an exact fraction."""
    _check(stacks, prizes)
    if len(stacks) > MAX_ICM_PLAYERS:
        raise DirectorError(NOT_ALLOWED, f"ICM is offered for at most {MAX_ICM_PLAYERS} players")
    floor = bust_prize(len(stacks), prizes)
    return tuple(floor + x for x in _exact(stacks, _weights(prizes, floor)))


def chip_chop(stacks: Sequence[int], prizes: Sequence[int]) -> Deal:
    """T-13 chip-chop: everyone gets the next bust's prize, the rest by chips, rounded down."""
    _check(stacks, prizes)
    floor = bust_prize(len(stacks), prizes)
    money = sum(prizes)
    rest, chips = money - floor * len(stacks), sum(stacks)
    amounts = tuple(floor + rest * stack // chips for stack in stacks)
    return Deal(amounts, money - sum(amounts))


def propose_deal(
    stacks: Sequence[int],
    prizes: Sequence[int],
    method: DealMethod = DealMethod.ICM,
    left_to_play_for: int = 0,
) -> Deal:
    """T-13: the deal by `method`, the amount left to play for first taken from the first prize."""
    _check(stacks, prizes)
    if left_to_play_for:
        second = prizes[1] if len(prizes) > 1 else 0
        if not prizes or not 0 <= left_to_play_for <= prizes[0] - second:
            raise DirectorError(
                BAD_PAYOUT_SETTINGS,
                "the amount left to play for must lie between 0 and first less second prize",
            )
        prizes = (prizes[0] - left_to_play_for, *prizes[1:])
    share = icm_equities if method is DealMethod.ICM else chip_chop
    dealt = share(stacks, prizes)
    return Deal(dealt.amounts, dealt.rounding, left_to_play_for)


def deal_moves(
    tournament_id: str, deal_id: str, players: Sequence[str], deal: Deal
) -> tuple[MoneyMove, ...]:
    """T-13: pay an accepted deal at once from the pool, the rounding to the house (T-7).

    The reserved part stays in the pool for the winner's prize. Keys name the deal, so a
    deal's payment is never confused with the prize the same player is paid at the end.
    """
    if len(players) != len(deal.amounts) or len(set(players)) != len(players):
        raise DirectorError(BAD_PAYOUT_SETTINGS, "one distinct player per deal amount")
    pool = prize_pool(tournament_id)
    key = f"{tournament_id}:deal:{deal_id}"
    paid: list[MoneyMove | None] = [
        MoneyMove("prize", pool, wallet(player), amount, f"{key}:{player}")
        for player, amount in zip(players, deal.amounts, strict=True)
    ]
    paid.append(
        MoneyMove("rounding", pool, house(HOUSE_ROUNDING), deal.rounding, f"{key}:rounding")
    )
    return moves(*paid)


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    """Refuse what no deal can share: no players, empty stacks, more places than players."""
    if not stacks or any(stack <= 0 for stack in stacks):
        raise DirectorError(BAD_PAYOUT_SETTINGS, "a deal needs players, each with chips")
    if len(prizes) > len(stacks):
        raise DirectorError(BAD_PAYOUT_SETTINGS, "more prizes to award than players remaining")
    if any(prize < 0 for prize in prizes) or any(a < b for a, b in pairwise(prizes)):
        raise DirectorError(BAD_PAYOUT_SETTINGS, "prizes must be non-negative, first place first")


def _weights(prizes: Sequence[int], floor: int) -> tuple[int, ...]:
    """What each place pays above the floor, trailing zeros dropped (they need no probability)."""
    weights = [prize - floor for prize in prizes]
    while weights and weights[-1] == 0:
        weights.pop()
    return tuple(weights)


@dataclass(frozen=True, slots=True)
class _Groups:
    """Players grouped by equal stacks; a state counts how many of each group took top places.

    A state is a mixed-radix number: digit v (weight `radixes[v]`) is how many players of
    group v are among the top places; players of one group are interchangeable, so the
    probability of a state is all that the recursion needs.
    """

    values: tuple[int, ...]  # each group's stack
    sizes: tuple[int, ...]  # how many players hold it
    radixes: tuple[int, ...]
    states: int  # the number of states, at most 2**players
    of_player: tuple[int, ...]  # each player's group

    def kinds(self) -> list[tuple[int, int, int, int, int]]:
        """Per group: index, stack, size, size + 1 (its digit's base), radix."""
        return [
            (v, value, size, size + 1, radix)
            for v, (value, size, radix) in enumerate(
                zip(self.values, self.sizes, self.radixes, strict=True)
            )
        ]


def _groups(stacks: Sequence[int]) -> _Groups:
    """The players grouped by stack, largest first, with the radixes of the states."""
    values = tuple(sorted(set(stacks), reverse=True))
    sizes = tuple(stacks.count(value) for value in values)
    radixes, states = [], 1
    for size in sizes:
        radixes.append(states)
        states *= size + 1
    index = {value: v for v, value in enumerate(values)}
    return _Groups(values, sizes, tuple(radixes), states, tuple(index[s] for s in stacks))


def _interval_floors(stacks: Sequence[int], weights: Sequence[int]) -> list[int] | None:
    """Each player's floor of sum(weight(place) * P(place)) from integer bounds, or None.

    lo[S] <= 2**SCALE_BITS * P(the top |S| places went to the players counted by S) <= hi[S];
    None when a player's low and high bounds round down to different cents.
    """
    groups = _groups(stacks)
    lo, hi, rests = [0] * groups.states, [0] * groups.states, [0] * groups.states
    lo[0] = hi[0] = 1 << SCALE_BITS
    rests[0] = sum(stacks)
    low_sum, high_sum = [0] * len(groups.values), [0] * len(groups.values)
    kinds = groups.kinds()
    frontier = [0]
    for place, weight in enumerate(weights):
        more = place + 1 < len(weights)
        following: list[int] = []
        for taken in frontier:
            a, b, rest = lo[taken], hi[taken], rests[taken]
            for v, value, size, base, radix in kinds:
                left = size - taken // radix % base
                if not left:
                    continue
                chips = left * value  # P(one of them next) = chips / rest
                q_lo, q_hi = a * chips // rest, -(-b * chips // rest)  # down for lo, up for hi
                low_sum[v] += weight * q_lo
                high_sum[v] += weight * q_hi
                if more:
                    grown = taken + radix
                    if not hi[grown]:  # first reached: hi of a reached state is >= 1
                        following.append(grown)
                        rests[grown] = rest - value
                    lo[grown] += q_lo
                    hi[grown] += q_hi
        frontier = following
    cents: list[int] = []
    for v, size in enumerate(groups.sizes):  # a player's share is the group's over its size
        unit = size << SCALE_BITS
        low, high = low_sum[v] // unit, high_sum[v] // unit
        if low != high:
            return None
        cents.append(low)
    return [cents[v] for v in groups.of_player]


def _exact(stacks: Sequence[int], weights: Sequence[int]) -> list[Fraction]:
    """Each player's sum(weight(place) * P(place)) as an exact fraction (the same recursion)."""
    groups = _groups(stacks)
    chance: dict[int, Fraction] = {0: Fraction(1)}
    rests = {0: sum(stacks)}
    sums = [Fraction(0)] * len(groups.values)
    kinds = groups.kinds()
    for place, weight in enumerate(weights):
        more = place + 1 < len(weights)
        following: dict[int, Fraction] = {}
        for taken, p in chance.items():
            rest = rests[taken]
            for v, value, size, base, radix in kinds:
                left = size - taken // radix % base
                if not left:
                    continue
                q = p * (left * value) / rest
                sums[v] += weight * q
                if more:
                    grown = taken + radix
                    following[grown] = following.get(grown, Fraction(0)) + q
                    rests[grown] = rest - value
        chance = following
    return [sums[v] / groups.sizes[v] for v in groups.of_player]
