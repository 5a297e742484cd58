"""A cluster of 1, 2, 3 nodes under the same crowd: actions/s, same-node and cross-node action
latency, node CPU per action, and failover time (issue 21, "Speed").

Run: .venv/bin/python bench/cluster.py [--nodes 1 2 3] [--clients 300] [--seconds 20]
     [--ttl T] [--renew R] [--margin M] [--failover-runs 1]
     (needs PostgreSQL at POKERROOM_TEST_PG_URL or 127.0.0.1:5432, and nats-server)

For each node count N: N `pokerroom serve --cluster --node` processes on a fresh PostgreSQL
schema and one nats-server of the run's own, `--clients` / 3 three-seat tables with 1 s clocks
(tests/cluster/nodes.py) and the `[cluster]` timings given (default: the room's own,
`ClusterSettings`). Once the tables are split evenly, bot k connects to node k mod N (so with N
nodes about (N-1)/N of the bots play at a table another node owns), deposits and sits; 3 s of
warm-up, then for `--seconds`: actions/s (the bots' `act`s answered), the round trip of each
`act` (sent -> its answer, as the bots see it; same-node: the bot's node owns the table,
cross-node: it does not) p50 and p99, and node CPU (user + system of every node, /proc/PID/stat;
nats-server and PostgreSQL not counted) per action. Then failover: `bench/cluster_failover.py`'s
run (two nodes, SIGKILL the owner mid-hand, seconds to the first hand dealt elsewhere) with the
same timings. Prints the load average first and last. Figures: docs/PERFORMANCE.md, "Cluster".
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.cluster.nodes as nodes
from bench.cluster_failover import one_run
from bench.cluster_routing import cpu_seconds
from pokerroom.cluster.config import ClusterSettings
from pokerroom.ledger import make_engine
from tests.cluster.natsproc import NatsServer, require_nats
from tests.cluster.nodes import BUY_IN, DEPOSIT, SEATS, Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.server.crowd import Bot
from tests.server.test_settle_kills import CashCrowd
from tests.serving import migrate


class Timed(CashCrowd):
    """Bots that time each `act` from sending to its answer, same-node or cross-node."""

    def __init__(self, port: int, rng: random.Random) -> None:
        super().__init__(port, rng)
        self.node_of: dict[str, str] = {}  # bot -> the node it is connected to
        self.owner_of: dict[str, str] = {}  # table -> its owner
        self.sent: dict[tuple[str, int], tuple[float, bool]] = {}
        self.times: dict[bool, list[float]] = {True: [], False: []}  # cross-node? -> seconds
        self.measuring = False
        self.acts = 0

    def _act_cash(self, bot: Bot, request: dict[str, Any]) -> None:
        sent = time.perf_counter()
        super()._act_cash(bot, request)
        cross = self.node_of[bot.name] != self.owner_of[request["table_id"]]
        self.sent[(bot.name, bot.next_id)] = (sent, cross)

    def _frame(self, bot: Bot, frame: dict[str, Any]) -> None:
        if frame.get("type") in ("ok", "error") and "id" in frame:
            timed = self.sent.pop((bot.name, frame["id"]), None)
            if timed is not None and self.measuring:
                self.acts += 1
                self.times[timed[1]].append(time.perf_counter() - timed[0])
            super()._frame(bot, frame)
            if timed is not None:  # an act's answer: nobody waits for it
                bot.answers.pop(frame["id"], None)
            return
        super()._frame(bot, frame)


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile of `values`, in milliseconds (nan if none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1e3


def even(c: Cluster, names: list[str]) -> bool:
    """Every table owned, by `names` only, none over its share (the balance hands a node's
    surplus over ceil(tables / nodes)), each node some."""
    owned = c.owned()
    counts = [owned.get(n, 0) for n in names]
    share = -(-c.tables // len(names))
    return (
        set(owned) <= set(names)
        and sum(counts) == c.tables
        and 0 < min(counts) <= max(counts) <= share
    )


def measure(nats: str, count: int, clients: int, seconds: float) -> dict[str, float]:
    """One node count: start, split, seat, play, measure."""
    tables = max(1, clients // SEATS)
    names = [f"n{k}" for k in range(count)]
    with fresh_pg_schema("bench_cluster_n") as url:
        migrate(url)
        c = Cluster(Path(tempfile.mkdtemp()), url, nats, make_engine(url), tables=tables)
        try:
            for k, name in enumerate(names):
                c.start(name)
                started = names[: k + 1]
                wait_for(lambda: even(c, started), 120, f"{k + 1} nodes split")  # noqa: B023
            crowd = Timed(0, random.Random(11))
            crowd.owner_of = c.owners()
            k = 0
            for table in sorted(crowd.owner_of):
                for s in range(SEATS):
                    node = names[k % count]
                    k += 1
                    crowd.port = c.ports[node]
                    name = f"{table}p{s}"
                    crowd.node_of[name] = node
                    bot = crowd.connect(name, new=True)
                    crowd.ok(bot, "deposit", amount=DEPOSIT)
                    for _ in range(40):  # a table handed over meanwhile: its next owner seats
                        answer = crowd.call(bot, "sit", table_id=table, buy_in=BUY_IN)
                        if answer.get("code") != "cluster_unavailable":
                            break
                        crowd.pump(0.25)
                    assert answer["type"] == "ok", (name, answer)
            crowd.owner_of = c.owners()  # as the tables stand once everyone sits
            crowd.pump(3)
            used = {n: cpu_seconds(p.pid) for n, p in c.procs.items()}
            crowd.measuring = True
            start = time.monotonic()
            crowd.pump(seconds)
            wall = time.monotonic() - start
            crowd.measuring = False
            cpu = sum(cpu_seconds(p.pid) - used[n] for n, p in c.procs.items())
            moved = c.owners() != crowd.owner_of
            same, cross = crowd.times[False], crowd.times[True]
            found = {
                "actions_per_s": crowd.acts / wall,
                "cpu_ms_per_action": cpu / max(crowd.acts, 1) * 1e3,
                "same_p50": percentile(same, 0.5),
                "same_p99": percentile(same, 0.99),
                "cross_p50": percentile(cross, 0.5),
                "cross_p99": percentile(cross, 0.99),
                "same_n": len(same),
                "cross_n": len(cross),
                "errors": len(crowd.errors),
            }
            codes = dict(Counter(e.get("code") for e in crowd.errors))
            print(
                f"nodes {count}: {tables} tables, {k} bots; {crowd.acts} actions in {wall:.1f} s"
                f" = {found['actions_per_s']:.0f}/s; node CPU {cpu:.2f} s"
                f" = {found['cpu_ms_per_action']:.3f} ms/action;"
                f" same-node act p50 {found['same_p50']:.1f} ms p99 {found['same_p99']:.1f} ms"
                f" (n={len(same)}); cross-node act p50 {found['cross_p50']:.1f} ms"
                f" p99 {found['cross_p99']:.1f} ms (n={len(cross)});"
                f" errors {len(crowd.errors)} {codes}{'; tables moved meanwhile' if moved else ''}",
                flush=True,
            )
            crowd.drop_all()
            return found
        finally:
            c.stop_all()
            c.engine.dispose()


def main() -> None:
    """Parse the options, measure each node count, then failover; print."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    room = ClusterSettings()  # the room's defaults
    parser.add_argument("--ttl", type=float, default=room.ttl_seconds)
    parser.add_argument("--renew", type=float, default=room.renew_seconds)
    parser.add_argument("--margin", type=float, default=room.margin_seconds)
    parser.add_argument("--failover-runs", type=int, default=1)
    args = parser.parse_args()
    nodes.RENEW, nodes.TTL, nodes.MARGIN = args.renew, args.ttl, args.margin
    nodes.CONFIG = nodes.config(nodes.TABLES)
    with open("/proc/loadavg") as f:
        print("load average before:", f.read().strip(), flush=True)
    server = NatsServer(require_nats())
    server.start()
    results: dict[int, dict[str, float]] = {}
    try:
        for count in args.nodes:
            results[count] = measure(server.url, count, args.clients, args.seconds)
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(args.failover_runs):
                folder = Path(tmp) / f"failover{run}"
                folder.mkdir()
                taken, dealt = one_run(folder, server.url, signal.SIGKILL)
                print(
                    f"failover {run}: lease taken {taken:.2f} s, first hand dealt elsewhere"
                    f" {dealt:.2f} s after SIGKILL (ttl {args.ttl:g}, renew {args.renew:g};"
                    f" goal <= 10 s: {'met' if dealt <= 10 else 'NOT met'})",
                    flush=True,
                )
    finally:
        server.stop()
    single = results.get(1)
    for count, found in results.items():
        if count == 1 or found["cross_n"] == 0:
            continue
        ratio = found["cross_p99"] / found["same_p99"]
        print(
            f"nodes {count}: cross-node p99 / same-node p99 = {ratio:.2f}"
            f" (goal <= 2: {'met' if ratio <= 2 else 'NOT met'})"
        )
        if single is not None:
            cpu = found["cpu_ms_per_action"] / single["cpu_ms_per_action"]
            print(
                f"nodes {count}: CPU per action / a single node's = {cpu:.2f}"
                f" (goal <= 1.3: {'met' if cpu <= 1.3 else 'NOT met'})"
            )
    with open("/proc/loadavg") as f:
        print("load average after:", f.read().strip())


if __name__ == "__main__":
    main()
