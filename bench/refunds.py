"""Benchmark: the T-18 refund run of a 10,000-entry cancelled tournament (goal: under 30 s).

The stored state is built directly through the store (entries, purchases, one table row per
seat as of the last completed hand) and the ledger holds what the entries paid in (the prize
pool and the house fees, funded in one transfer each; players' wallets exist already). Then the
refund job runs exactly as `pokerroom jobs run refunds` does (`run_blocking`, lock, run row,
plan, batches), and a second run that finds nothing to pay.

    .venv/bin/python bench/refunds.py                      # 10,000 entries, SQLite temp file
    .venv/bin/python bench/refunds.py --phase not_started  # every buy-in and fee back
    .venv/bin/python bench/refunds.py --db postgresql+psycopg://postgres@127.0.0.1:5432/test

Prints one JSON line: entries, phase, transfers, wall and CPU seconds of each part.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, Engine

from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import resolve_refs
from pokerroom.ledger.db import in_transaction, make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import check_ledger
from tournaments import store
from tournaments.director.registration import Funding

USD = "USD"
BUY_IN, FEE = 920, 80


def build(engine: Engine, entries: int, phase: str) -> None:
    """A cancelled tournament of `entries` players, all still in (the most transfers)."""
    tid = "bench"
    record = store.TournamentRecord(tid, "bench", USD, 1_800_000_000_000)
    names = [f"player{i:05d}" for i in range(entries)]

    def state(conn: Connection) -> None:
        store.save_tournament(conn, record)
        store.add_entries(
            conn,
            tid,
            [store.EntryRecord(n) for n in names],
            [store.Payment(n, 1, 1, "entry", Funding.CASH, BUY_IN, FEE) for n in names],
        )
        if phase != "not_started":
            store.mark_started(conn, tid, 1_800_000_060_000)
            for table in range(0, entries, 9):
                seats = [
                    store.SeatRecord(f"t{table // 9}", k, n, 1, 10_000 + 37 * (table + k))
                    for k, n in enumerate(names[table : table + 9])
                ]
                store.record_hand(conn, tid, f"t{table // 9}", 12, seats)
        store.mark_cancelled(conn, tid, store.CancelReason.OUTAGE, 1_800_003_600_000)

    in_transaction(engine, state)
    pool = AccountRef(AccountKind.PRIZE_POOL, tid, USD)
    fees = AccountRef(AccountKind.HOUSE_FEES, "house", USD)
    transfers.transfer(
        engine,
        key="bench:paid-in",
        kind="buy_in",
        currency=USD,
        postings=[
            (external(USD), -(BUY_IN + FEE) * entries),
            (pool, BUY_IN * entries),
            (fees, FEE * entries),
        ],
    )
    resolve_refs(engine, [AccountRef(AccountKind.WALLET, n, USD) for n in names])


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    """Build, run, run again, check; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--phase", choices=("before_money", "not_started"), default="before_money")
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--db", default=None, help="a URL; default: a new SQLite temp file")
    args = parser.parse_args()
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-refunds-')) / 'r.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    _, build_wall, _ = timed(lambda: build(engine, args.entries, args.phase))

    def run() -> Any:
        ctx = JobContext(time.time, JobSettings(batch=args.batch))
        return run_blocking(engine, job_run(RefundsJob(), f"bench:{os.getpid()}:1", ctx))

    report, wall, cpu = timed(run)
    again, wall2, _ = timed(run)
    ok = check_ledger(engine).ok
    print(
        json.dumps(
            {
                "entries": args.entries,
                "phase": args.phase,
                "db": engine.dialect.name,
                "batch": args.batch,
                "outcome": report.outcome,
                "transfers": report.transfers,
                "paid": dict(report.amounts),
                "refund_run_wall_s": round(wall, 2),
                "refund_run_cpu_s": round(cpu, 2),
                "us_per_transfer_wall": round(wall / max(1, report.transfers) * 1e6),
                "second_run_wall_s": round(wall2, 2),
                "second_run_transfers": again.transfers,
                "build_wall_s": round(build_wall, 2),
                "ledger_check_ok": ok,
                "load_average": os.getloadavg()[0],
            }
        )
    )
    engine.dispose()


if __name__ == "__main__":
    main()
