"""Main and side pots, the odd-chip split (C-5), and proportional shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class SidePot(NamedTuple):
    """One pot: its amount and the players (indices, in position order) who may win it."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(
    contributions: Sequence[int], live: Sequence[bool], dead_money: int = 0
) -> list[SidePot]:
    """Split what each player put in into a main pot and side pots (C-5, C-9).

    `live[i]` is false for a player who folded: their chips stay in the pots they
    reached but they are eligible for none. Pots with the same eligible players merge.
    `dead_money` (antes, dead posts) is not part of anyone's bet and joins the main pot.
    """
    levels = sorted({c for c, alive in zip(contributions, live, strict=True) if alive and c > 0})
    if len(levels) == 1:  # the usual case: every live player put in the same amount
        eligible = tuple(i for i, alive in enumerate(live) if alive and contributions[i])
        return [SidePot(sum(contributions) + dead_money, eligible)]
    pots: list[SidePot] = []
    previous = 0
    for level in levels:
        amount = 0
        for c in contributions:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(
            i
            for i, (c, alive) in enumerate(zip(contributions, live, strict=True))
            if alive and c >= level
        )
        if pots and pots[-1].eligible == eligible:
            pots[-1] = SidePot(pots[-1].amount + amount, eligible)
        else:
            pots.append(SidePot(amount, eligible))
        previous = level
    # Chips above every live player's level (not possible once uncalled bets are returned)
    # stay in the last pot rather than vanish.
    leftover = sum(contributions) - sum(p.amount for p in pots)
    if leftover and pots:
        pots[-1] = SidePot(pots[-1].amount + leftover, pots[-1].eligible)
    if dead_money:
        if pots:
            pots[0] = SidePot(pots[0].amount + dead_money, pots[0].eligible)
        else:
            everyone = tuple(i for i, alive in enumerate(live) if alive)
            pots.append(SidePot(dead_money, everyone))
    return pots


def split_evenly(amount: int, winners_in_order: Sequence[int]) -> dict[int, int]:
    """Split a pot among tied winners; odd units go one each in the given order (C-5)."""
    count = len(winners_in_order)
    share, odd = divmod(amount, count)
    return {w: share + (1 if k < odd else 0) for k, w in enumerate(winners_in_order)}


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Share `total` in proportion to `weights`, rounded down, remainder one unit each in order.

    The parts always sum to `total` (used for rake per player contribution, C-11).
    """
    weight_sum = sum(weights)
    if weight_sum <= 0:
        return [0] * len(weights)
    parts = [total * w // weight_sum for w in weights]
    remainder = total - sum(parts)
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % weight_sum), i))
    for i in order[:remainder]:
        parts[i] += 1
    return parts


def rake_for(pot_total: int, rake_bps: int, rake_cap: int) -> int:
    """The house commission on a pot: a percentage in basis points, capped (C-11)."""
    rake = pot_total * rake_bps // 10_000
    return rake if rake < rake_cap else rake_cap
