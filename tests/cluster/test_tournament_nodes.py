"""An MTT whose players are connected to three different nodes, on real processes (issue 21:
"A 200-entry MTT whose players are connected to three different nodes plays to the end with
prizes exact; kill the tournament's owner in the middle: it resumes on another node";
docs/design/cluster.md, "Tournaments across nodes").

Three `pokerroom serve --cluster` nodes on one PostgreSQL and a nats-server of the test's own;
the schedule's MTT is created and run by the first node; the bots connect round-robin to the
three nodes and register there (two of three through the owner's `<p>.tourney.<id>.cmd`), and
play by the frames they get (action requests on their node, the tables' events fanned out).
A few players bust (one a hand), the bots then only check or fold, and the owner is
SIGKILLed: another node takes `tournament:<id>` at a new epoch and resumes it (T-18), the
killed node's bots log in again on the other two, the bots of the survivors keep their
sessions and play on from their nodes, and the tournament plays to the end: every entry
placed, the prizes and what rounding left to the house (T-7) add up to the prize pool, money
is conserved and `pokerroom ledger check` passes.

The issue's size is 200 entries (`POKERROOM_MTT_ENTRIES=200`; the wall time of such a run is in
docs/design/cluster.md); CI runs `CI_ENTRIES` so the whole suite stays within its 20 minutes on
2 cores (issue 21's CI budget).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine
from tests.cluster.nodes import wait_for
from tests.cluster.test_tournament_failover import lease, rows
from tests.postgres import fresh_pg_schema
from tests.server.crowd import ALL_IN, DUEL, Crowd
from tests.serving import CLI, ROOM_HEAD, migrate, start_serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]
#: Issue 21 asks for 200 entries; CI plays this many (three nodes, several tables, a table
#: broken and its players moved) so the suite keeps to its time budget.
CI_ENTRIES = 30
ENTRIES = int(os.environ.get("POKERROOM_MTT_ENTRIES", CI_ENTRIES))
BUY_IN, FEE, DEPOSIT = 100, 10, 1_000
NODES = ("n1", "n2", "n3")
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
name = "quick"
starting_stack = 1000
level_minutes = 5
levels = [[5, 10], [10, 20], [15, 30], [20, 40], [30, 60], [50, 100]]

[[mtt]]
name = "xn"
structure = "quick"
buy_in = 100
fee = 10
every_minutes = 60
at_minute = {at_minute}
registration_open_minutes = 60
max_seats = 9
between_hands_seconds = 0.1
outage = {{ resume_within_minutes = 10, reconnect_seconds = 1 }}
"""


@pytest.fixture
def pg_url_own() -> Iterator[str]:
    """A fresh migrated PostgreSQL schema of this test's own."""
    with fresh_pg_schema("cluster_tnodes") as url:
        yield migrate(url)


def node(tmp: Path, url: str, nats: str, name: str) -> tuple[int, subprocess.Popen[str]]:
    """A cluster node with the schedule; returns once it listens."""
    args = ["serve", "--db", url, "--cluster", nats, "--node", name, "--port", "0"]
    args += ["--config", str(tmp / "room.toml"), "--schedule", str(tmp / "schedule.toml")]
    return start_serve(args, tmp / f"{name}.log")


def status(engine: Engine, tid: str) -> str:
    return str(rows(engine, "SELECT status FROM tournaments WHERE id = :t", t=tid)[0][0])


def test_an_mtt_played_from_three_nodes_to_the_end_its_owner_killed_midway(
    tmp_path: Path, pg_url_own: str, nats_url: str
) -> None:
    url, began, began_at = pg_url_own, time.monotonic(), time.time()
    engine = make_engine(url)
    (tmp_path / "room.toml").write_text(CONFIG)
    start = round(time.time()) + 30 + ENTRIES // 8  # nodes up and every bot registered first
    (tmp_path / "schedule.toml").write_text(SCHEDULE.format(at_minute=(start % 86_400) / 60))
    tid, resource = f"xn-{start}", f"tournament:xn-{start}"
    procs: dict[str, subprocess.Popen[str]] = {}
    ports: dict[str, int] = {}
    crowd = Crowd(0)
    try:
        ports["n1"], procs["n1"] = node(tmp_path, url, nats_url, "n1")
        wait_for(lambda: lease(engine, resource) is not None, 20, "the MTT created and taken")
        for name in NODES[1:]:
            ports[name], procs[name] = node(tmp_path, url, nats_url, name)
        owner = lease(engine, resource)
        assert owner is not None and owner[0] == "n1"
        home: dict[str, str] = {}  # bot -> the node it is connected to
        for n in range(ENTRIES):  # round-robin over the nodes: 2 of 3 register remotely
            home[f"xb{n}"] = NODES[n % len(NODES)]
            crowd.port = ports[home[f"xb{n}"]]
            bot = crowd.connect(f"xb{n}", new=True)
            crowd.ok(bot, "deposit", amount=DEPOSIT)
            entered = crowd.ok(bot, "tournament_register", tournament_id=tid, key=f"reg-{n}")
            assert entered["entry"] == 1
        registered = time.monotonic() - began
        assert time.time() < start, "registration must end before the start: raise the margin"

        def listed() -> int:  # n2 lists n1's tournament by n1's latest line
            listing = crowd.ok(crowd.bots["xb1"], "tournament_list")
            line = next(t for t in listing["tournaments"] if t["tournament_id"] == tid)
            return int(line["entries"])

        wait_for(lambda: listed() == ENTRIES, 5, "every entry listed on n2")
        crowd.mode[tid] = DUEL  # one knock-out a hand, `busts` of them, then passive
        crowd.bust_limit[tid] = busts = max(3, ENTRIES // 10)
        crowd.pump_until(lambda: status(engine, tid) == "running", limit=60)
        crowd.pump_until(lambda: len(crowd.busts.get(tid, [])) >= busts, limit=120)
        assert lease(engine, resource) == owner  # it ran on n1 all along

        procs["n1"].send_signal(signal.SIGKILL)  # the owner, in the middle
        procs["n1"].wait(timeout=10)
        killed_at = time.monotonic()
        wait_for(lambda: (lease(engine, resource) or ("n1", 0))[0] != "n1", 20, "taken")
        taker = lease(engine, resource)
        assert taker is not None and taker[1] > owner[1]
        took = time.monotonic() - killed_at
        wait_for(
            lambda: rows(engine, "SELECT resumes FROM tournaments WHERE id = :t", t=tid)[0][0] == 1,
            20,
            "resumed",
        )
        alive = {
            str(r[0])
            for r in rows(
                engine,
                "SELECT player FROM tournament_entries WHERE tournament_id = :t AND place IS NULL",
                t=tid,
            )
        }
        assert len(alive) >= ENTRIES - busts - 1  # the middle of it (T-18: as stored)
        survivors = [name for name in NODES if name != "n1"]
        for i, name in enumerate(sorted(b for b, h in home.items() if h == "n1")):
            bot = crowd.bots[name]
            if bot.sock is not None:
                crowd.selector.unregister(bot.sock)
                bot.sock.close()
                bot.sock = None
            home[name] = survivors[i % 2]
            crowd.port = ports[home[name]]
            crowd.connect(name, new=False)  # C-14: their table's snapshot from the owner
        before = {name: len(bot.frames) for name, bot in crowd.bots.items()}
        crowd.bust_limit.pop(tid)
        crowd.mode[tid] = ALL_IN
        crowd.pump_until(lambda: tid in crowd.results, limit=240)
        played = time.monotonic() - began

        # every player left connected to a node that does not run it played on from there
        elsewhere = sorted(b for b in alive if home[b] != taker[0])
        assert elsewhere
        for name in elsewhere:
            seen = crowd.bots[name].frames[before[name] :]
            assert any(f["type"] == "tournament_action_request" for f in seen), name

        def told() -> bool:  # every bot, on both nodes left, gets the results (fanned out)
            return all(
                any(f["type"] == "tournament_results" for f in bot.frames)
                for bot in crowd.bots.values()
            )

        crowd.pump_until(told, limit=10)
        results = crowd.results[tid]
        assert results["prize_pool"] == ENTRIES * BUY_IN
        assert sorted(r["place"] for r in results["results"]) == list(range(1, ENTRIES + 1))
        rounding = rows(  # T-7: the cents rounding down left, the only tournament's here
            engine, "SELECT COALESCE(SUM(balance), 0) FROM accounts WHERE kind = 'house_rounding'"
        )[0][0]
        assert sum(r["prize"] for r in results["results"]) + int(rounding) == ENTRIES * BUY_IN
        assert status(engine, tid) == "finished"
        paid = rows(
            engine,
            "SELECT COALESCE(SUM(prize), 0) FROM tournament_entries WHERE tournament_id = :t",
            t=tid,
        )
        assert int(paid[0][0]) + int(rounding) == ENTRIES * BUY_IN
        (inside, outside) = rows(
            engine,
            "SELECT COALESCE(SUM(balance) FILTER (WHERE kind <> 'external'), 0),"
            " COALESCE(SUM(balance) FILTER (WHERE kind = 'external'), 0) FROM accounts",
        )[0]
        assert int(inside) == -int(outside) == ENTRIES * DEPOSIT
        print(
            f"{ENTRIES} entries on 3 nodes: registered at {registered:.1f} s, lease taken"
            f" {took:.2f} s after the SIGKILL at {killed_at - began:.1f} s, tournament over at"
            f" {played:.1f} s (the start: {start - began_at:.1f} s)"
        )
    finally:
        crowd.drop_all()
        for proc in procs.values():
            stop(proc)
        engine.dispose()
    check = subprocess.run(
        [*CLI, "ledger", "check", "--db", url], capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 0, check.stdout + check.stderr
