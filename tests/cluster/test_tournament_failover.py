"""A tournament's owner killed mid-tournament, on real processes (docs/design/cluster.md,
"Tournaments"; issue 21: "kill the tournament's owner in the middle: it resumes on another
node"): two `pokerroom serve --cluster` nodes on one PostgreSQL and a nats-server of the test's
own, the schedule's MTT created by the schedule's holder, six bots playing it on its owner.
SIGKILL the owner: the other node takes `tournament:<id>` at a new epoch, resumes it as after a
restart (T-18: `resumes` 1, the decision on its row, every player at their stored seat with
their stored stack), the bots log in again on it and its hands are dealt again; no chip is
made or lost, money is conserved and `pokerroom ledger check` passes."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine
from tests.cluster.nodes import wait_for
from tests.postgres import fresh_pg_schema
from tests.server.crowd import Crowd
from tests.serving import CLI, ROOM_HEAD, migrate, start_serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]
ENTRIES, STACK, DEPOSIT = 6, 1000, 10_000
CONFIG = (
    ROOM_HEAD
    + """[session]
max_connections_per_address = 0
[cluster]
renew_seconds = 0.5
ttl_seconds = 3.0
margin_seconds = 1.0
"""
)
SCHEDULE = """
[[structure]]
name = "slow"
starting_stack = 1000
level_minutes = 5
levels = [[5, 10], [10, 20], [15, 30], [20, 40], [30, 60], [50, 100]]

[[mtt]]
name = "cf"
structure = "slow"
buy_in = 100
fee = 10
every_minutes = 60
at_minute = {at_minute}
registration_open_minutes = 60
max_seats = 3
between_hands_seconds = 0.2
outage = {{ resume_within_minutes = 10, reconnect_seconds = 2 }}
"""


@pytest.fixture
def pg_url_own() -> Iterator[str]:
    """A fresh migrated PostgreSQL schema of this test's own."""
    with fresh_pg_schema("cluster_tfail") as url:
        yield migrate(url)


def rows(engine: Engine, sql: str, **params: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(sql), params).all())


def lease(engine: Engine, resource: str) -> tuple[str, int] | None:
    """(owner, epoch) of an unexpired lease."""
    found = rows(
        engine,
        "SELECT owner, epoch FROM cluster_leases WHERE resource = :r"
        " AND expires_at > clock_timestamp()",
        r=resource,
    )
    return (str(found[0][0]), int(found[0][1])) if found else None


def seats(engine: Engine, tid: str) -> dict[str, tuple[str, int, int]]:
    found = rows(
        engine,
        "SELECT player, table_id, seat, stack FROM tournament_seats WHERE tournament_id = :t",
        t=tid,
    )
    return {str(r[0]): (str(r[1]), int(r[2]), int(r[3])) for r in found}


def hands(engine: Engine, tid: str) -> int:
    found = rows(
        engine,
        "SELECT COALESCE(MAX(hand_number), 0) FROM tournament_seats WHERE tournament_id = :t",
        t=tid,
    )
    return int(found[0][0])


def node(tmp: Path, url: str, nats: str, name: str) -> tuple[int, subprocess.Popen[str]]:
    """A cluster node with the schedule; returns once it listens."""
    args = ["serve", "--db", url, "--cluster", nats, "--node", name, "--port", "0"]
    args += ["--config", str(tmp / "room.toml"), "--schedule", str(tmp / "schedule.toml")]
    return start_serve(args, tmp / f"{name}.log")


def test_the_owner_killed_mid_tournament_it_resumes_on_the_other_node(
    tmp_path: Path, pg_url_own: str, nats_url: str
) -> None:
    url = pg_url_own
    engine = make_engine(url)
    (tmp_path / "room.toml").write_text(CONFIG)
    start = round(time.time()) + 15
    (tmp_path / "schedule.toml").write_text(SCHEDULE.format(at_minute=(start % 86_400) / 60))
    tid, resource = f"cf-{start}", f"tournament:cf-{start}"
    procs: list[subprocess.Popen[str]] = []
    try:
        port1, n1 = node(tmp_path, url, nats_url, "n1")
        procs.append(n1)
        wait_for(lambda: lease(engine, resource) is not None, 20, "the MTT created and taken")
        owner = lease(engine, resource)
        assert owner == ("n1", 1)  # the only node: the schedule's holder and the owner
        crowd = Crowd(port1)
        for n in range(ENTRIES):
            bot = crowd.connect(f"cfbot{n}", new=True)
            crowd.ok(bot, "deposit", amount=DEPOSIT)
            crowd.ok(bot, "tournament_register", tournament_id=tid)
        port2, n2 = node(tmp_path, url, nats_url, "n2")
        procs.append(n2)
        crowd.pump_until(lambda: hands(engine, tid) >= 3, limit=60)  # it runs on n1
        assert lease(engine, resource) == ("n1", 1)  # a balance moves the schedule first
        n1.send_signal(signal.SIGKILL)
        n1.wait(timeout=10)
        killed = seats(engine, tid)
        assert sum(stack for _, _, stack in killed.values()) == ENTRIES * STACK
        taken = wait_for(lambda: lease(engine, resource) == ("n2", 2), 20, "n2 takes it")
        print(f"tournament lease taken by n2 {taken:.2f} s after the kill")
        wait_for(
            lambda: rows(engine, "SELECT resumes FROM tournaments WHERE id = :t", t=tid)[0][0] == 1,
            20,
            "resumed on n2",
        )
        (status, decision) = rows(
            engine, "SELECT status, decision FROM tournaments WHERE id = :t", t=tid
        )[0]
        assert status == "running" and str(decision).startswith("resumed")
        assert seats(engine, tid) == killed  # T-18: as stored (n2 deals after 2 s)
        before = hands(engine, tid)
        back = Crowd(port2)  # the bots log in again on n2 (C-14: their table's snapshot)
        for n in range(ENTRIES):
            back.connect(f"cfbot{n}", new=False)
        back.pump_until(lambda: hands(engine, tid) >= before + 3, limit=60)  # n2 deals on
        stacks = seats(engine, tid)
        assert sum(stack for _, _, stack in stacks.values()) == ENTRIES * STACK
        (inside, outside) = rows(
            engine,
            "SELECT COALESCE(SUM(balance) FILTER (WHERE kind <> 'external'), 0),"
            " COALESCE(SUM(balance) FILTER (WHERE kind = 'external'), 0) FROM accounts",
        )[0]
        assert int(inside) == -int(outside) == ENTRIES * DEPOSIT
    finally:
        for proc in procs:
            stop(proc)
        engine.dispose()
    check = subprocess.run(
        [*CLI, "ledger", "check", "--db", url], capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 0, check.stdout + check.stderr
