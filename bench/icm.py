"""ICM deal speed (T-13): CPU time per exact Malmuth-Harville deal for 6, 9, 12 and 13 players.

Run: .venv/bin/python bench/icm.py [--sets 5] [--min-seconds 0.5] [--exact-12]

For each field size it draws `--sets` final tables (seeded: stacks of unrelated sizes, every
remaining place paid, prizes the top of a 1,000-entry prize table), and times
`icm_equities` on each, repeating until `--min-seconds` of CPU have passed; the figure is CPU
time (time.process_time) per computation, the mean over all repeats. It also times:

- equal stacks (the players fall into one group, so the recursion has n + 1 states);
- the exact-fraction computation the module falls back on when an equity sits on a whole
  cent (`exact_equities`), on unrelated stacks, its worst case (12 players only with
  `--exact-12`: several seconds);
- the reference: naive enumeration of every finishing order, in floats (the cheapest form of
  the textbook method), for 6, 7 and 8 players; its results are checked to agree with ours
  to within one cent.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import time
from collections.abc import Callable, Sequence

from tournaments.director import deals
from tournaments.director.deals import exact_equities, icm_equities
from tournaments.director.payouts import prize_table


def tables(players: int, sets: int) -> list[tuple[list[int], list[int]]]:
    """Seeded final tables: unrelated stacks (10,000 to 5,000,000 chips), every place paid."""
    prizes = list(prize_table(1_000, 1_000 * 10_000).amounts[:players])
    out = []
    for seed in range(sets):
        rng = random.Random(players * 1_000 + seed)
        out.append(([rng.randint(10_000, 5_000_000) for _ in range(players)], prizes))
    return out


def cpu_per_call(
    work: Callable[[list[int], list[int]], object],
    cases: list[tuple[list[int], list[int]]],
    min_seconds: float,
) -> float:
    """Mean CPU seconds per call of `work` over `cases`, repeated for at least `min_seconds`."""
    calls, began = 0, time.process_time()
    while True:
        for stacks, prizes in cases:
            work(stacks, prizes)
        calls += len(cases)
        spent = time.process_time() - began
        if spent >= min_seconds:
            return spent / calls


def naive_orders(stacks: Sequence[int], prizes: Sequence[int]) -> list[float]:
    """Reference: every finishing order's Harville probability, in floats."""
    equity = [0.0] * len(stacks)
    chips = sum(stacks)
    for order in itertools.permutations(range(len(stacks))):
        chance, left = 1.0, chips
        for player in order:
            chance *= stacks[player] / left
            left -= stacks[player]
        for place, player in enumerate(order[: len(prizes)]):
            equity[player] += chance * prizes[place]
    return equity


def fallbacks(cases: list[tuple[list[int], list[int]]]) -> int:
    """How many cases needed the exact-fraction fallback (none expected on unrelated stacks)."""
    used = 0
    for stacks, prizes in cases:
        floor = deals.bust_prize(len(stacks), prizes)
        used += deals._interval_floors(stacks, deals._weights(prizes, floor)) is None
    return used


def ms(seconds: float) -> float:
    """Seconds as milliseconds, 3 significant digits."""
    value = seconds * 1000
    return float(f"{value:.3g}")


def main() -> None:
    """Time every case and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=5, help="tables per field size")
    parser.add_argument("--min-seconds", type=float, default=0.5, help="CPU per measurement")
    parser.add_argument("--exact-12", action="store_true", help="also time fractions at 12")
    args = parser.parse_args()
    figures: dict[str, object] = {"unit": "CPU ms per computation (time.process_time)"}
    for players in (6, 9, 12, 13):
        cases = tables(players, args.sets)
        equal = [([1_000_000] * players, prizes) for _, prizes in cases[:1]]
        row: dict[str, object] = {
            "icm_equities": ms(cpu_per_call(icm_equities, cases, args.min_seconds)),
            "fallbacks_used": f"{fallbacks(cases)} of {len(cases)}",
            "icm_equities_equal_stacks": ms(cpu_per_call(icm_equities, equal, args.min_seconds)),
        }
        if players <= 9 or (args.exact_12 and players == 12):
            row["exact_fractions"] = ms(cpu_per_call(exact_equities, cases[:1], 0.0))
        figures[f"{players} players"] = row
    for players in (6, 7, 8):
        cases = tables(players, 1)
        stacks, prizes = cases[0]
        naive = naive_orders(stacks, prizes)
        ours = icm_equities(stacks, prizes).amounts
        assert all(abs(math.floor(x) - y) <= 1 for x, y in zip(naive, ours, strict=True))
        row = {
            "naive_orders_floats": ms(cpu_per_call(naive_orders, cases, 0.0)),
            "icm_equities": ms(cpu_per_call(icm_equities, cases, args.min_seconds)),
        }
        figures[f"reference, {players} players"] = row
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
