"""Benchmark: baccarat rounds per CPU second through the pure casino core.

Each round opens on the current 8-deck shoe (a new shoe, shuffled by a seeded RNG with its burn
and cut card, after the cut-card round, B-18), deals a coup with the tableau (`baccarat.draw`)
and settles a set of bets (`baccarat_bets.settle`): the three main bets, or all seven spots of
the commission table. The goal is 100,000 rounds per CPU second (docs/PERFORMANCE.md); the
process's own CPU time is measured (`time.process_time`), because the machine is shared.

    .venv/bin/python bench/casino.py                        # 200,000 rounds, 5 repeats
    .venv/bin/python bench/casino.py --rounds 500000 --repeats 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

from pokerroom.casino import settings
from pokerroom.casino.core import baccarat, baccarat_bets
from pokerroom.casino.core.cards import Shoe
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet

MAIN = ("player", "banker", "tie")
ALL = ("player", "banker", "tie", "player_pair", "banker_pair", "big", "small")


def run(rounds: int, spots: tuple[str, ...], seed: int, settle: bool = True) -> float:
    """CPU seconds for `rounds` rounds (draw, and settle `spots` unless `settle` is False)."""
    rules = baccarat_bets.rules_from(settings.game_table("baccarat"))
    bets = [Bet("p1", spot, 100) for spot in spots]
    rng = random.Random(seed)
    shoe = Shoe.shuffled(rng, rules.decks, rules.cut_from_end, rules.burn)
    draw, pay = baccarat.draw, baccarat_bets.settle
    started = time.process_time()
    for _ in range(rounds):
        try:
            shoe.start_round()
        except CasinoError:
            shoe = Shoe.shuffled(rng, rules.decks, rules.cut_from_end, rules.burn)
            shoe.start_round()
        outcome = draw(shoe)
        if settle:
            pay(bets, outcome, rules)
    return time.process_time() - started


def main() -> None:
    """Time each workload `--repeats` times and print the median rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    results = {}
    for name, spots, settle in (
        ("draw only", (), False),
        ("draw + settle 3 main bets", MAIN, True),
        ("draw + settle all 7 spots", ALL, True),
    ):
        rates = [
            args.rounds / run(args.rounds, spots, args.seed + i, settle)
            for i in range(args.repeats)
        ]
        results[name] = {"median": statistics.median(rates), "best": max(rates)}
    summary = {
        "rounds": args.rounds,
        "repeats": args.repeats,
        "python": sys.version.split()[0],
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "rounds_per_cpu_second": {
            name: {measure: round(value) for measure, value in rates.items()}
            for name, rates in results.items()
        },
    }
    if args.json:
        print(json.dumps(summary))
        return
    for name, rate in results.items():
        median, best = rate["median"], rate["best"]
        print(f"{name:28} median {median:>10,.0f}  best {best:>10,.0f} rounds/CPU s")
    print(f"load average {summary['load_average'][0]} -> {summary['load_average'][1]}")


if __name__ == "__main__":
    main()
