"""Benchmark: a 10,000-entry freezeout simulated to the end.

Runs `tournaments.ops.simulation.simulate` (the real director, tables and LedgerService on a
temporary SQLite file, bots acting at once by a policy, a fake clock) and prints wall and CPU
time, the time spent registering (10,000 buy-in transfers), playing, and in the director's
balancer, hands, hands per entry and per second, tables at peak, and the bots' decisions.
The default is the tight policy on the regular structure (about 36 hands per entry); the
aggressive policy busts the field in about one hand per entry. Usage:
`.venv/bin/python bench/tournament.py [--entries N] [--policy tight|aggressive] [--no-persist]`.
With persistence on (the default, T-18) every hand's seats and stacks are stored with the
decisions it caused; `--no-persist` writes only the money, to measure what storing costs; the
recorder's commits and units (decisions) are printed, with the main thread's CPU time and the
writer thread's CPU and wall time inside the recorder's commits.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import structlog

import tournaments.actor.recorder
from pokerroom.ledger import make_engine, upgrade
from pokerroom.table.bot_policy import POLICIES
from tournaments.ops.simulation import simulate

#: The writer thread's time in the recorder's writes (inside the ledger's batch, its commit
#: not counted): [CPU seconds, wall seconds].
WRITER = [0.0, 0.0]
_commit = tournaments.actor.recorder.commit_groups_on


def _timed_commit(conn: Any, groups: Any) -> Any:
    """The recorder's commit, timed on the thread that runs it."""
    cpu, wall = time.thread_time(), time.perf_counter()
    try:
        return _commit(conn, groups)
    finally:
        WRITER[0] += time.thread_time() - cpu
        WRITER[1] += time.perf_counter() - wall


def main() -> None:
    """Run the benchmark and print one JSON line of figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--structure", default="regular")
    parser.add_argument("--policy", choices=sorted(POLICIES), default="tight")
    parser.add_argument("--check-every", type=int, default=1000, help="global chip audit")
    parser.add_argument(
        "--no-persist", action="store_true", help="write only the money (T-18 state not stored)"
    )
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    folder = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    engine = make_engine(f"sqlite:///{folder / 'bench.sqlite'}")
    upgrade(engine)
    tournaments.actor.recorder.commit_groups_on = _timed_commit
    began = time.perf_counter()
    cpu = time.process_time()
    main_cpu = time.thread_time()
    report = simulate(
        engine,
        args.entries,
        args.seed,
        structure=args.structure,
        check_every=args.check_every,
        policy=args.policy,
        persist=not args.no_persist,
    )
    wall = time.perf_counter() - began
    engine.dispose()
    summary = report.summary
    preflop = sum(n for (street, _), n in report.actions.items() if street == "preflop")
    figures = {
        "policy": args.policy,
        "persist": not args.no_persist,
        "commits": report.actor.durable.recorder.commits,
        "units": report.actor.durable.recorder.units_written,
        "structure": args.structure,
        "entries": summary.entries,
        "hands": summary.hands,
        "hands_per_entry": round(summary.hands / summary.entries, 1),
        "tables_max": summary.tables_max,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "main_thread_cpu_seconds": round(time.thread_time() - main_cpu, 1),
        "writer_cpu_seconds": round(WRITER[0], 1),
        "writer_wall_seconds": round(WRITER[1], 1),
        "registration_seconds": round(report.registration_seconds, 1),
        "play_seconds": round(report.play_seconds, 1),
        "registration_cpu_seconds": round(report.registration_cpu, 1),
        "play_cpu_seconds": round(report.play_cpu, 1),
        "balancing_seconds": round(report.balance_seconds, 2),
        "hands_per_second": round(summary.hands / report.play_seconds),
        "prize_pool": summary.prize_pool,
        "paid_total": summary.paid_total,
        "ledger_ok": report.ledger_ok,
        "chip_errors": len(report.chip_errors),
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "preflop_fold_share": round(report.actions["preflop", "fold"] / max(1, preflop), 3),
        "all_ins": dict(report.all_ins),
        "decisions": {f"{street}_{action}": n for (street, action), n in report.actions.items()},
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
