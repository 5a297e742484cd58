"""Ledger throughput: the public API through the thread pool beside a bare SQLAlchemy Core loop.

    .venv/bin/python bench/ledger.py                  # SQLite (temp file) and PostgreSQL
    .venv/bin/python bench/ledger.py --db sqlite --count 1500 --rounds 3
    POKERROOM_BENCH_PG_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test  (the default)

For each database it times, in the same run and interleaved round by round:
  bare-2 / bare-8   one transaction per transfer: INSERT journal RETURNING id, INSERT the
                    postings (executemany), UPDATE the balances (executemany); no checks
  api-2 / api-8     LedgerService.transfer(...) through the ledger thread pool, with keys,
                    validation, row locks, funds checks and balance_after: the real path
and prints transfers/s (over all rounds) and api/bare. Not part of the test run.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import structlog
from bare_write import bare_transfer
from sqlalchemy.engine import Engine, make_url
from twisted.internet import defer, task

from pokerroom.ledger import LedgerService, migrate
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external
from pokerroom.ledger.schema import accounts
from pokerroom.ledger.transfers import transfer

PG_URL = os.environ.get(
    "POKERROOM_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
USD = "USD"
SEATS = [AccountRef(AccountKind.SEAT_ESCROW, f"bench/s{i}", USD) for i in range(8)]


def _legs(n: int, width: int) -> list[tuple[AccountRef, int]]:
    """Transfer n: seat n%width wins width-1 units, the other seats lose 1 each."""
    winner = n % width
    return [(SEATS[i], width - 1 if i == winner else -1) for i in range(width)]


def _fund(engine: Engine) -> dict[AccountRef, int]:
    for seat in SEATS:
        transfer(
            engine,
            key=f"fund:{seat}",
            kind="deposit",
            currency=USD,
            postings=[(external(USD), -(10**12)), (seat, 10**12)],
        )
    with engine.connect() as conn:
        rows = conn.execute(sa.select(accounts.c.id, accounts.c.owner)).all()
    by_owner = {row.owner: row.id for row in rows}
    return {seat: by_owner[seat.owner] for seat in SEATS}


def bare_loop(
    engine: Engine, ids: dict[AccountRef, int], width: int, count: int, tag: str
) -> float:
    """Transfers/s for the same inserts and updates, prebuilt, with nothing around them."""
    start = time.perf_counter()
    for n in range(count):
        legs = [(ids[ref], amount) for ref, amount in _legs(n, width)]
        bare_transfer(engine, f"{tag}:{n}", USD, legs)
    return count / (time.perf_counter() - start)


async def api_loop(service: LedgerService, width: int, count: int, tag: str) -> float:
    """Transfers/s through LedgerService: all submitted at once, timed until the last fires."""
    start = time.perf_counter()
    pending = [
        service.transfer(
            key=f"{tag}:{n}",
            kind="hand_settlement",
            currency=USD,
            postings=_legs(n, width),
            reference="bench",
        )
        for n in range(count)
    ]
    await defer.gatherResults(pending, consumeErrors=True)
    return count / (time.perf_counter() - start)


def _databases(which: list[str]) -> list[tuple[str, str, Callable[[], None]]]:
    out = []
    for name in which:
        if name == "sqlite":
            folder = Path(tempfile.mkdtemp(prefix="ledger-bench-", dir=Path.cwd()))
            path = folder / "bench.sqlite"
            out.append(("sqlite", f"sqlite:///{path}", lambda f=folder: _rmtree(f)))
        elif name == "postgresql":
            schema = f"ledger_bench_{uuid.uuid4().hex[:8]}"
            admin = make_engine(PG_URL)
            with admin.begin() as conn:
                conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})

            def drop(schema: str = schema, admin: Engine = admin) -> None:
                with admin.begin() as conn:
                    conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
                admin.dispose()

            out.append(("postgresql", url.render_as_string(hide_password=False), drop))
        else:
            out.append((make_url(name).get_backend_name(), name, lambda: None))
    return out


def _rmtree(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


async def bench_one(reactor: Any, label: str, url: str, args: argparse.Namespace) -> list[str]:
    """Run every workload on one database, interleaved round by round; return table rows.

    Disk flush latency drifts a lot on a shared machine, so bare and api chunks alternate
    (in rotating order) and each rate is total transfers / total time over all rounds.
    """
    engine = make_engine(url)
    migrate.upgrade(engine)
    ids = _fund(engine)
    thread_counts = [1] if label == "sqlite" else [1, args.pg_threads]
    services = {t: LedgerService(reactor, engine, threads=t) for t in thread_counts}
    for service in services.values():
        service.startService()
    rows = []
    for width in (2, 8):
        elapsed: dict[str, float] = {}
        cpu: dict[str, float] = {}
        names = ["bare", *(f"api{t}" for t in thread_counts)]
        for r in range(args.rounds):
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                tag = f"{name}:{width}:{r}"
                cpu_start = time.process_time()
                if name == "bare":
                    rate = bare_loop(engine, ids, width, args.count, tag)
                else:
                    rate = await api_loop(services[int(name[3:])], width, args.count, tag)
                cpu[name] = cpu.get(name, 0.0) + time.process_time() - cpu_start
                elapsed[name] = elapsed.get(name, 0.0) + args.count / rate
        total = args.count * args.rounds
        bare = total / elapsed["bare"]
        bare_cpu = cpu["bare"] / total * 1e6
        for t in thread_counts:
            api = total / elapsed[f"api{t}"]
            api_cpu = cpu[f"api{t}"] / total * 1e6
            rows.append(
                f"{label:<10} {width:>8} {t:>7} {bare:>10.0f} {api:>10.0f} {api / bare:>8.0%}"
                f" {bare_cpu:>10.0f} {api_cpu:>10.0f}"
            )
    for service in services.values():
        service.stopService()  # disposes the engine too
    return rows


async def main(reactor: Any, args: argparse.Namespace) -> None:
    """Benchmark each requested database and print one table."""
    print(
        f"python {sys.version.split()[0]}, sqlalchemy {sa.__version__}; "
        f"{args.count} transfers x {args.rounds} interleaved rounds per figure"
    )
    print(
        f"{'database':<10} {'postings':>8} {'threads':>7} {'bare tx/s':>10} {'api tx/s':>10} "
        f"{'api/bare':>8} {'bare cpu':>10} {'api cpu':>10}  (cpu: process µs per transfer)"
    )
    for label, url, cleanup in _databases(args.db):
        try:
            for row in await bench_one(reactor, label, url, args):
                print(row, flush=True)
        finally:
            cleanup()


def parse(argv: list[str]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db", action="append", help="sqlite, postgresql or a SQLAlchemy URL (repeatable)"
    )
    parser.add_argument("--count", type=int, default=50, help="transfers per measurement")
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds")
    parser.add_argument("--pg-threads", type=int, default=4, help="extra PostgreSQL pool size")
    args = parser.parse_args(argv)
    args.db = args.db or ["sqlite", "postgresql"]
    return args


if __name__ == "__main__":
    options = parse(sys.argv[1:])
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    task.react(lambda reactor: defer.ensureDeferred(main(reactor, options)))
