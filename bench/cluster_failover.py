"""Failover time of a two-node cluster: SIGKILL (or SIGTERM) of a table's owner mid-hand -> its
lease taken by the other node -> the first hand dealt there (docs/design/cluster.md, "Failure
cases").

Run: .venv/bin/python bench/cluster_failover.py [--runs 3] [--ttl 8] [--renew 2] [--margin 3]
     [--signal KILL|TERM]
     (needs PostgreSQL at POKERROOM_TEST_PG_URL or 127.0.0.1:5432, and nats-server)

Each run: two `pokerroom serve --cluster --node` processes (a, b) on a fresh PostgreSQL schema
and a nats-server of the run's own, four tables of three bots with 1 s clocks
(`tests/cluster/nodes.py`) with the `[cluster]` timings given (default: the room's defaults);
the tables split 2 and 2, the bots play, node a is killed while one of its hands is running,
its bots log in again on b. Prints, per run, the seconds from the kill to the lease taken and to
the first hand dealt on b at one of a's tables; then the load average. With `--signal TERM` node
a stops cleanly instead (its leases released, its row deleted): b takes the tables at its next
round.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.cluster.nodes as nodes
from pokerroom.cluster.config import ClusterSettings
from pokerroom.ledger import make_engine
from tests.cluster.natsproc import NatsServer, require_nats
from tests.cluster.nodes import TABLES, Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.serving import migrate


def one_run(folder: Path, nats: str, sig: signal.Signals) -> tuple[float, float]:
    """Seconds from the kill to the lease taken, and to the first hand dealt elsewhere."""
    with fresh_pg_schema("bench_failover") as url:
        migrate(url)
        c = Cluster(folder, url, nats, make_engine(url))
        try:
            c.start("a")
            wait_for(lambda: c.owned() == {"a": TABLES}, 30, "a takes every table")
            c.start("b")
            wait_for(lambda: c.owned() == {"a": 2, "b": 2}, 30, "the tables split")
            crowd = c.seat_bots()
            a_tables = c.tables_of("a")
            crowd.pump(3.0)
            crowd.pump_until(
                lambda: any(r.status == "started" for r in c.hands(a_tables).values()), 20
            )
            last = c.last_numbers()
            c.procs["a"].send_signal(sig)
            killed = time.monotonic()
            c.procs["a"].wait()
            crowd.pump_until(lambda: c.owned() == {"b": TABLES}, 60)
            taken = time.monotonic() - killed
            c.reconnect(a_tables, "b")

            def dealt() -> bool:
                return any(
                    int(h.rsplit("-", 1)[1]) > last.get(r.table_id, 0)
                    for h, r in c.hands(a_tables).items()
                )

            crowd.pump_until(dealt, 60)
            return taken, time.monotonic() - killed
        finally:
            c.stop_all()
            c.engine.dispose()


def main() -> None:
    """Parse the options, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    room = ClusterSettings()  # the room's [cluster] defaults
    parser.add_argument("--ttl", type=float, default=room.ttl_seconds)
    parser.add_argument("--renew", type=float, default=room.renew_seconds)
    parser.add_argument("--margin", type=float, default=room.margin_seconds)
    parser.add_argument("--signal", choices=["KILL", "TERM"], default="KILL")
    args = parser.parse_args()
    nodes.RENEW, nodes.TTL, nodes.MARGIN = args.renew, args.ttl, args.margin
    nodes.CONFIG = nodes.config(TABLES)  # the timings given, in the nodes' room.toml
    server = NatsServer(require_nats())
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(args.runs):
                folder = Path(tmp) / f"run{run}"
                folder.mkdir()
                taken, dealt = one_run(folder, server.url, signal.Signals[f"SIG{args.signal}"])
                print(
                    f"run {run}: lease taken {taken:.2f} s, first hand dealt elsewhere"
                    f" {dealt:.2f} s after SIG{args.signal}"
                    f" (ttl {args.ttl:g}, renew {args.renew:g})",
                    flush=True,
                )
    finally:
        server.stop()
    print("load average:", Path("/proc/loadavg").read_text().strip())


if __name__ == "__main__":
    main()
