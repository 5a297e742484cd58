"""T-12: players who sit out at the same time repeatedly, listed for the staff to look at.

Two or more players may not agree to sit out together. The actor records each sit-out as
an interval (player, table, start, end); `repeated_sitouts` pairs players whose sit-outs
overlap on at least `min_times` occasions (at any tables of the tournament).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SitOut:
    """One player sitting out from `start` to `end` (seconds)."""

    player: str
    table_id: int
    start: float
    end: float


@dataclass(frozen=True, slots=True)
class SitOutPair:
    """Two players whose sit-outs overlapped `times` times (a line of the T-12 report)."""

    players: tuple[str, str]
    times: int


def repeated_sitouts(
    sitouts: Sequence[SitOut], min_times: int = 3, min_overlap_seconds: float = 30
) -> list[SitOutPair]:
    """T-12: pairs of players sitting out together at least `min_times` times, most first."""
    ordered = sorted(sitouts, key=lambda s: (s.start, s.end, s.player))
    together: Counter[tuple[str, str]] = Counter()
    open_ones: list[SitOut] = []
    for current in ordered:
        open_ones = [s for s in open_ones if s.end > current.start]
        for other in open_ones:
            overlap = min(other.end, current.end) - current.start
            if other.player != current.player and overlap >= min_overlap_seconds:
                pair = tuple(sorted((other.player, current.player)))
                together[(pair[0], pair[1])] += 1
        open_ones.append(current)
    found = [SitOutPair(pair, n) for pair, n in together.items() if n >= min_times]
    return sorted(found, key=lambda p: (-p.times, p.players))
