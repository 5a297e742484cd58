"""Benchmark: a 10,000-entry freezeout simulated to the end (goal under 3 minutes).

Runs `tournaments.simulation.simulate` (the real director, tables and LedgerService on a
temporary SQLite file, bots acting at once, a fake clock) and prints wall time, the time spent
registering (10,000 buy-in transfers), playing, and in the director's balancer, hands per
second, and tables at peak. Usage: `.venv/bin/python bench/tournament.py [--entries N]`.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import tempfile
import time
from pathlib import Path

import structlog

from pokerroom.ledger import make_engine, upgrade
from tournaments.simulation import simulate


def main() -> None:
    """Run the benchmark and print one JSON line of figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--structure", default="turbo")
    parser.add_argument("--check-every", type=int, default=1000, help="global chip audit")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    folder = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    engine = make_engine(f"sqlite:///{folder / 'bench.sqlite'}")
    upgrade(engine)
    began = time.perf_counter()
    cpu = time.process_time()
    report = simulate(
        engine, args.entries, args.seed, structure=args.structure, check_every=args.check_every
    )
    wall = time.perf_counter() - began
    engine.dispose()
    summary = report.summary
    figures = {
        "entries": summary.entries,
        "hands": summary.hands,
        "tables_max": summary.tables_max,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "registration_seconds": round(report.registration_seconds, 1),
        "play_seconds": round(report.play_seconds, 1),
        "balancing_seconds": round(report.balance_seconds, 2),
        "hands_per_second": round(summary.hands / report.play_seconds),
        "prize_pool": summary.prize_pool,
        "paid_total": summary.paid_total,
        "ledger_ok": report.ledger_ok,
        "chip_errors": len(report.chip_errors),
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
