"""Hand settlements per second: group commit (`LedgerService.settle`) beside one transaction each.

    .venv/bin/python bench/settlements.py --db sqlite --seconds 5 --json
    .venv/bin/python bench/settlements.py --db postgresql --seconds 5 --tables 64 --json
    POKERROOM_BENCH_PG_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test  (the default)

In one run, on a fresh SQLite file (WAL, synchronous=FULL) or a fresh PostgreSQL schema:
  settle    `--tables` tables at once, each settling one six-handed hand after another through
            the public API (`LedgerService.settle`, the group commit) for `--seconds`: 8
            postings (six seats, rake, jackpot), each hand its own idempotency key, and 10 % of
            the sends a replay of one of the table's earlier keys (same content). A table waits
            for its answer (told after the commit) before the next hand, as a real table does.
            With `--rate R` the loop is open instead: R settlements a second arrive, table
            after table, whatever the answers (latency at a given load, not at saturation).
  baseline  a bare loop, one transaction per settlement (INSERT journal, INSERT 8 postings,
            UPDATE 8 balances; prebuilt statements, no checks), for `--seconds` / 2.
Prints one line per phase and, last, one JSON object (`--json`). Commit latency is from the
`settle` call to its Deferred firing; `cpu_us_per_settlement` is this process's CPU (all its
threads: the tables, the reactor and the writer; not the PostgreSQL server's). Not part of
the test run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import structlog
from bare_write import bare_transfer
from sqlalchemy.engine import Engine, make_url
from twisted.internet import defer, task

from pokerroom.ledger import LedgerService, LedgerSettings, migrate
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, house
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.schema import accounts
from pokerroom.ledger.transfers import transfer

PG_URL = os.environ.get(
    "POKERROOM_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
USD = "USD"
SEATS = 6
REPLAYED = 0.10
RAKE = house(AccountKind.HOUSE_RAKE, USD)
JACKPOT = house(AccountKind.HOUSE_FEES, USD)


@cache
def seat(table: int, s: int) -> AccountRef:
    """A seat's escrow (a table keeps its seats' references)."""
    return AccountRef(AccountKind.SEAT_ESCROW, f"bench/{table}/{s}", USD)


def hand(table: int, n: int) -> list[tuple[AccountRef, int]]:
    """Hand n of a table: five seats pay in, one wins, rake and jackpot: 8 postings."""
    winner = n % SEATS
    paid = {s: 10 + (n * 7 + s * 13) % 90 for s in range(SEATS) if s != winner}
    pot = sum(paid.values())
    rake, jackpot = pot // 20, pot // 50
    lines = [(seat(table, s), -a) for s, a in paid.items()]
    return [*lines, (seat(table, winner), pot - rake - jackpot), (RAKE, rake), (JACKPOT, jackpot)]


def fund(engine: Engine, tables: int) -> None:
    """A deep stack on every seat, and the house accounts opened."""
    for ref in [seat(t, s) for t in range(tables) for s in range(SEATS)] + [RAKE, JACKPOT]:
        transfer(
            engine,
            key=f"fund:{ref}",
            kind="deposit",
            currency=USD,
            postings=[(external(USD), -(10**12)), (ref, 10**12)],
        )


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def settle_phase(
    reactor: Any, service: LedgerService, tables: int, seconds: float
) -> dict[str, Any]:
    """Every table settles hand after hand until `seconds` pass; rates and latencies."""
    latencies: list[float] = []
    counts = {"sent": 0, "replayed": 0, "failed": 0}
    deadline = time.perf_counter() + seconds

    async def table(t: int) -> None:
        rng = random.Random(t)
        sent: list[tuple[str, list[tuple[AccountRef, int]]]] = []
        n = 0
        while time.perf_counter() < deadline:
            if sent and rng.random() < REPLAYED:
                key, lines = rng.choice(sent)  # the same hand sent again: answered `replayed`
            else:
                key, lines = f"hand:{t}:{n}", hand(t, n)
                n += 1
                sent = [*sent[-49:], (key, lines)]
            start = time.perf_counter()
            try:
                result = await service.settle(
                    key=key, kind="hand_settlement", currency=USD, postings=lines, reference=key
                )
            except Exception:
                counts["failed"] += 1
                continue
            latencies.append(time.perf_counter() - start)
            counts["sent"] += 1
            counts["replayed"] += result.replayed

    start, cpu = time.perf_counter(), time.process_time()
    batches0 = service.batches
    await defer.gatherResults([defer.ensureDeferred(table(t)) for t in range(tables)])
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return figures(counts, latencies, elapsed, cpu, service.batches - batches0)


def figures(
    counts: dict[str, int], latencies: list[float], elapsed: float, cpu: float, batches: int
) -> dict[str, Any]:
    """A settle phase's rates, latencies, CPU (this process) and batches."""
    return {
        "settlements_per_s": round(counts["sent"] / elapsed, 1),
        "applied_per_s": round((counts["sent"] - counts["replayed"]) / elapsed, 1),
        "replayed_fraction": round(counts["replayed"] / max(1, counts["sent"]), 3),
        "failed": counts["failed"],
        "p50_commit_ms": round(percentile(latencies, 0.50) * 1000, 2),
        "p99_commit_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "cpu_us_per_settlement": round(cpu / max(1, counts["sent"]) * 1e6),  # this process
        "batches": batches,
        "mean_batch": round(counts["sent"] / max(1, batches), 1),
    }


async def rate_phase(
    reactor: Any, service: LedgerService, tables: int, seconds: float, rate: float
) -> dict[str, Any]:
    """Open loop: settlements arrive at `rate` a second whatever the answers (a room's tables
    end hands when their players do, not when the last commit is told), table after table,
    10 % of them replays; rates and latencies."""
    latencies: list[float] = []
    counts = {"sent": 0, "replayed": 0, "failed": 0}
    sent: list[list[tuple[str, list[tuple[AccountRef, int]]]]] = [[] for _ in range(tables)]
    rngs = [random.Random(t) for t in range(tables)]
    numbers = [0] * tables
    pending: list[defer.Deferred[None]] = []

    def one(t: int) -> defer.Deferred[None]:
        rng = rngs[t]
        if sent[t] and rng.random() < REPLAYED:
            key, lines = rng.choice(sent[t])
        else:
            key, lines = f"hand:{t}:{numbers[t]}", hand(t, numbers[t])
            numbers[t] += 1
            sent[t] = [*sent[t][-49:], (key, lines)]
        start = time.perf_counter()

        def told(result: Any) -> None:
            latencies.append(time.perf_counter() - start)
            counts["sent"] += 1
            counts["replayed"] += result.replayed

        def failed(_: Any) -> None:
            counts["failed"] += 1

        d = service.settle(
            key=key, kind="hand_settlement", currency=USD, postings=lines, reference=key
        )
        return d.addCallbacks(told, failed)

    start, cpu = time.perf_counter(), time.process_time()
    batches0 = service.batches
    due = 0
    done = defer.Deferred[None]()

    def tick() -> None:
        nonlocal due
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            ticker.stop()
            done.callback(None)
            return
        while due < int(elapsed * rate):  # every arrival due by now, in order
            pending.append(one(due % tables))
            due += 1

    ticker = task.LoopingCall(tick)
    ticker.clock = reactor
    ticker.start(0.001)
    await done
    offered = time.perf_counter() - start
    await defer.gatherResults(pending)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    found = figures(counts, latencies, elapsed, cpu, service.batches - batches0)
    return {"offered_per_s": round(due / offered, 1), **found}


def baseline_phase(engine: Engine, tables: int, seconds: float) -> float:
    """Settlements/s of a bare loop with one transaction per settlement (no checks)."""
    with engine.connect() as conn:
        ids = {(r.kind, r.owner): r.id for r in conn.execute(sa.select(accounts))}
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        lines = [(ids[(ref.kind.value, ref.owner)], a) for ref, a in hand(done % tables, done)]
        bare_transfer(engine, f"bare:{done}", USD, lines)
        done += 1
    return done / (time.perf_counter() - start)


def database(which: str) -> tuple[str, Callable[[], None], Path | None]:
    """A fresh database's URL, its clean-up, and the SQLite folder if any."""
    if which == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="settle-bench-", dir=Path.cwd()))

        def remove() -> None:
            for child in folder.iterdir():
                child.unlink()
            folder.rmdir()

        return f"sqlite:///{folder / 'bench.sqlite'}", remove, folder
    schema = f"settle_bench_{uuid.uuid4().hex[:8]}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})

    def drop() -> None:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()

    return url.render_as_string(hide_password=False), drop, None


def durability(engine: Engine) -> str:
    """What the database does at commit: SQLite's journal and sync modes, PostgreSQL's."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
            sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
            return f"journal_mode={mode} synchronous={'FULL' if sync == 2 else sync}"
        fsync = conn.exec_driver_sql("SHOW fsync").scalar()
        sync = conn.exec_driver_sql("SHOW synchronous_commit").scalar()
        return f"fsync={fsync} synchronous_commit={sync}"


async def main(reactor: Any, args: argparse.Namespace) -> None:
    """Run both phases on one fresh database and print the figures."""
    url, cleanup, _ = database(args.db)
    engine = make_engine(url)
    try:
        migrate.upgrade(engine)
        fund(engine, args.tables)
        settings = LedgerSettings(batch_max_hands=args.max_hands, batch_max_ms=args.max_ms)
        service = LedgerService(reactor, engine, settings=settings)
        service.startService()
        if args.rate:
            settled = await rate_phase(reactor, service, args.tables, args.seconds, args.rate)
        else:
            settled = await settle_phase(reactor, service, args.tables, args.seconds)
        report = check_ledger(engine)
        baseline = baseline_phase(engine, args.tables, args.seconds / 2)
        how = durability(engine)
        service.stopService()  # disposes the engine
        print(
            f"settle   {args.db}: {settled['settlements_per_s']:.0f}/s from {args.tables} tables,"
            f" p50 {settled['p50_commit_ms']} ms, p99 {settled['p99_commit_ms']} ms,"
            f" {settled['mean_batch']} per batch (max {args.max_hands}, {args.max_ms} ms)"
            + (f", offered {args.rate:.0f}/s" if args.rate else "")
        )
        print(f"baseline {args.db}: {baseline:.0f}/s, one transaction per settlement ({how})")
        result = {
            "db": args.db,
            **settled,
            "baseline_per_s": round(baseline, 1),
            "postings_per_settlement": len(hand(0, 0)),
            "tables": args.tables,
            "batch_max_hands": args.max_hands,
            "batch_max_ms": args.max_ms,
            "seconds": args.seconds,
            "rate": args.rate,
            "ledger_ok": report.ok,
            "durability": how,
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
        if args.json:
            print(json.dumps(result))
    finally:
        engine.dispose()
        cleanup()


def parse(argv: list[str]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the settle phase")
    parser.add_argument("--tables", type=int, default=64, help="tables settling at once")
    parser.add_argument("--max-hands", type=int, default=100, help="[database] batch_max_hands")
    parser.add_argument("--max-ms", type=float, default=5.0, help="[database] batch_max_ms")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: settlements offered a second over --tables tables, whatever the answers"
        " (default: closed loop, each table waits for its answer)",
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    return parser.parse_args(argv)


if __name__ == "__main__":
    options = parse(sys.argv[1:])
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    task.react(lambda reactor: defer.ensureDeferred(main(reactor, options)))
