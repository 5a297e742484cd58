"""Real cluster nodes for tests: `pokerroom serve --cluster --node` processes on one PostgreSQL
and one nats-server, bots at the tables each node owns, and what the database says of them."""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from pokerroom.cluster import leases
from tests.server.test_settle_kills import CashCrowd, hands_now
from tests.serving import CLI, ROOM_HEAD, fast_tables, start_serve, stop

RENEW, TTL, MARGIN = 0.5, 3.0, 1.0
TABLES = 4
SEATS = 3
BUY_IN = 200
DEPOSIT = 1_000


def config(tables: int) -> str:
    """The room.toml of the test nodes: fast timers and leases, `tables` 3-seat tables."""
    return ROOM_HEAD + (
        f"""[session]
max_connections_per_address = 0
[tournaments]
schedule = ""
[cluster]
renew_seconds = {RENEW}
ttl_seconds = {TTL}
margin_seconds = {MARGIN}
"""
        + fast_tables("c", tables, SEATS, BUY_IN)
    )


CONFIG = config(TABLES)


def wait_for(test: Callable[[], bool], limit: float, what: str, step: float = 0.05) -> float:
    """Poll `test()` until true (a real process's state; deadline `limit` s); seconds taken."""
    start = time.monotonic()
    while not test():
        if time.monotonic() - start > limit:
            raise TimeoutError(f"{what}: not within {limit} s")
        time.sleep(step)
    return time.monotonic() - start


@dataclass
class Cluster:
    """Nodes (name -> process and port) on `url`, bots in one crowd, deposits counted."""

    tmp: Path
    url: str
    nats: str
    engine: Engine
    procs: dict[str, subprocess.Popen[str]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    crowd: CashCrowd | None = None
    deposits: int = 0
    seated: dict[str, list[str]] = field(default_factory=dict)  # table -> its bots
    tables: int = TABLES

    def start(self, name: str) -> None:
        """Start node `name` and return once it listens."""
        (self.tmp / "room.toml").write_text(
            CONFIG if self.tables == TABLES else config(self.tables)
        )
        args = ["serve", "--db", self.url, "--port", "0", "--config", str(self.tmp / "room.toml")]
        args += ["--cluster", self.nats, "--node", name]
        port, proc = start_serve(args, self.tmp / f"{name}.log")
        self.procs[name], self.ports[name] = proc, port

    def log(self, name: str) -> list[dict[str, Any]]:
        """Node `name`'s JSON log lines."""
        found = []
        for line in (self.tmp / f"{name}.log").read_text().splitlines():
            if line.startswith("{"):
                found.append(json.loads(line))
        return found

    def owners(self) -> dict[str, str]:
        """Cash table id -> owning node (leases not expired; casino tables and tournaments
        are leases too, not counted here)."""
        found = leases.owners(self.engine).items()
        return {r.split(":", 1)[1]: o for r, o in found if r.startswith("table:")}

    def owned(self) -> dict[str, int]:
        """node -> tables it owns now."""
        counts: dict[str, int] = {}
        for owner in self.owners().values():
            counts[owner] = counts.get(owner, 0) + 1
        return counts

    def tables_of(self, node: str) -> list[str]:
        """The tables node `node` owns now."""
        return sorted(t for t, o in self.owners().items() if o == node)

    def status(self) -> dict[str, Any]:
        """`pokerroom cluster status --json`."""
        done = subprocess.run(
            [*CLI, "cluster", "status", "--db", self.url, "--json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        found: dict[str, Any] = json.loads(done.stdout)
        return found

    def seat_bots(self) -> CashCrowd:
        """SEATS bots at every table, each connected to the node that owns its table."""
        owners = self.owners()
        crowd = self.crowd = CashCrowd(0, random.Random(7))
        for n in range(self.tables):
            table = f"c{n}"
            crowd.port = self.ports[owners[table]]
            self.seated[table] = []
            for s in range(SEATS):
                name = f"{table}p{s}"
                bot = crowd.connect(name, new=True)
                crowd.ok(bot, "deposit", amount=DEPOSIT)
                self.deposits += DEPOSIT
                crowd.ok(bot, "sit", table_id=table, buy_in=BUY_IN)
                self.seated[table].append(name)
        return crowd

    def reconnect(self, tables: list[str], node: str) -> None:
        """The bots of `tables` log in again on node `node` (their node went away)."""
        assert self.crowd is not None
        self.crowd.port = self.ports[node]
        for table in tables:
            for name in self.seated[table]:
                bot = self.crowd.bots[name]
                if bot.sock is not None:
                    self.crowd.selector.unregister(bot.sock)
                    bot.sock.close()
                    bot.sock = None
                self.crowd.connect(name, new=False)

    def hands(self, tables: list[str]) -> dict[str, Any]:
        """Hand rows of `tables`, by id."""
        return {h: r for h, r in hands_now(self.engine).items() if r.table_id in tables}

    def last_numbers(self) -> dict[str, int]:
        """table -> its highest hand number so far."""
        last: dict[str, int] = {}
        for r in hands_now(self.engine).values():
            number = int(r.id.rsplit("-", 1)[1])
            last[r.table_id] = max(last.get(r.table_id, 0), number)
        return last

    def mid_hand(self, tables: list[str], limit: float = 20.0) -> set[str]:
        """Let the bots play until a hand at `tables` is `started` and still is after 0.25 s in
        which no bot moved (it waits on a bot's action, far inside the 1 s clock); its ids. A
        hand seen `started` once may still end from moves already on the wire."""
        assert self.crowd is not None
        deadline = time.monotonic() + limit
        while True:
            self.crowd.pump_until(
                lambda: any(r.status == "started" for r in self.hands(tables).values()),
                limit=max(deadline - time.monotonic(), 0.1),
            )
            seen = {h for h, r in self.hands(tables).items() if r.status == "started"}
            time.sleep(0.25)
            still = {h for h, r in self.hands(tables).items() if r.status == "started"} & seen
            if still:
                return still
            if time.monotonic() > deadline:
                raise TimeoutError(f"no hand held mid-way at {tables} within {limit} s")

    def stop_all(self) -> None:
        """Drop the bots, stop every node still running."""
        if self.crowd is not None:
            self.crowd.drop_all()
        for proc in self.procs.values():
            stop(proc)
