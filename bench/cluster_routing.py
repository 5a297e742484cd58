"""Routing's cost: the same bots play the same tables of a two-node cluster, connected first to
each table's owner (same-node), then to the other node (cross-node).

Run: .venv/bin/python bench/cluster_routing.py [--seconds 20]
     (needs PostgreSQL at POKERROOM_TEST_PG or 127.0.0.1:5432, and nats-server)

Two `pokerroom serve --cluster --node` processes (a, b) on a fresh PostgreSQL schema and a
nats-server of the run's own, four tables of three bots with 1 s clocks
(`tests/cluster/nodes.py`). For each mode, once the bots sit (and 3 s more), for `--seconds`:
actions/s (the bots' `act`s) and node CPU per action (user + system time of both nodes; the
nats-server's not counted). Then a probe on node a sends 2,000 refused `act`s (not seated) to
a table of a and 2,000 to a table of b, one at a time: p50 and p99 of the round trip. Prints the
load average last. Figures: docs/design/cluster.md, "Measured".
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pokerroom.ledger import make_engine
from tests.cluster.natsproc import NatsServer, require_nats
from tests.cluster.nodes import BUY_IN, DEPOSIT, SEATS, TABLES, Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.server.crowd import Bot
from tests.server.test_settle_kills import CashCrowd
from tests.serving import migrate


class Counting(CashCrowd):
    """Bots that count the actions they send."""

    acts = 0

    def _act_cash(self, bot: Bot, request: dict[str, Any]) -> None:
        self.acts += 1
        super()._act_cash(bot, request)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def play(c: Cluster, mode: str, seconds: float) -> None:
    """Bots at every table, connected to its owner (same-node) or the other node; measured."""
    owners = c.owners()
    crowd = Counting(0, random.Random(1))
    for table in sorted(owners):
        owner = owners[table]
        node = owner if mode == "same-node" else ("a" if owner == "b" else "b")
        crowd.port = c.ports[node]
        for s in range(SEATS):
            bot = crowd.connect(f"{mode[0]}{table}p{s}", new=True)
            crowd.ok(bot, "deposit", amount=DEPOSIT)
            crowd.ok(bot, "sit", table_id=table, buy_in=BUY_IN)
    crowd.pump(3)
    acts, used = crowd.acts, {n: cpu_seconds(p.pid) for n, p in c.procs.items()}
    start = time.monotonic()
    crowd.pump(seconds)
    wall = time.monotonic() - start
    acts = crowd.acts - acts
    cpu = sum(cpu_seconds(p.pid) - used[n] for n, p in c.procs.items())
    print(
        f"{mode}: {acts} actions in {wall:.1f} s = {acts / wall:.0f}/s; node CPU {cpu:.2f} s"
        f" = {cpu / max(acts, 1) * 1e3:.3f} ms/action; errors {len(crowd.errors)}",
        flush=True,
    )
    for name, bot in crowd.bots.items():
        crowd.send(bot, "leave", table_id=name[1:].rsplit("p", 1)[0])
    crowd.pump(3)
    crowd.drop_all()


def probe(c: Cluster) -> None:
    """Round trips of refused `act`s from node a to a table of a and to one of b."""
    near, far = c.tables_of("a")[0], c.tables_of("b")[0]
    crowd = CashCrowd(c.ports["a"], random.Random(2))
    for label, table in (("same-node", near), ("cross-node", far)):
        times: list[float] = []
        for n in range(8):  # 250 each: within a connection's inbound burst
            bot = crowd.connect(f"probe{label[0]}{n}", new=True)
            crowd.ok(bot, "observe", table_id=table)
            for _ in range(250):
                sent = time.perf_counter()
                answer = crowd.call(bot, "act", table_id=table, action="check", limit=5)
                times.append(time.perf_counter() - sent)
                assert answer["type"] == "error", answer
        times.sort()
        p50, p99 = statistics.median(times) * 1e3, times[int(0.99 * len(times))] * 1e3
        print(f"probe {label}: p50 {p50:.3f} ms, p99 {p99:.3f} ms", flush=True)
    crowd.drop_all()


def main() -> None:
    """Start the cluster, play both ways, probe, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    nats = NatsServer(require_nats())
    nats.start()
    try:
        with fresh_pg_schema("bench_cluster") as url:
            migrate(url)
            engine = make_engine(url)
            c = Cluster(Path(tempfile.mkdtemp()), url, nats.url, engine)
            try:
                c.start("a")
                wait_for(lambda: c.owned() == {"a": TABLES}, 30, "a takes every table")
                c.start("b")
                wait_for(lambda: c.owned() == {"a": 2, "b": 2}, 30, "the tables split")
                for mode in ("same-node", "cross-node"):
                    play(c, mode, args.seconds)
                probe(c)
            finally:
                c.stop_all()
                engine.dispose()
    finally:
        nats.stop()
    with open("/proc/loadavg") as f:
        print("load average:", f.read().strip())


if __name__ == "__main__":
    main()
