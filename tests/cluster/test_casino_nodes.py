"""Casino tables on real cluster nodes (docs/design/cluster.md, "Casino tables"): two
`pokerroom serve --cluster --node` processes on one PostgreSQL and a nats-server of the test's own.

Each casino table is run by one node (its lease `casino:<id>`; the six tables split 3 and 3).
A player connected to the other node joins `roulette-1` and confirms a bet there (carried to
the owner: the stake leaves the wallet once). The owner is SIGKILLed with the round open; the
surviving node takes the table's lease at a new epoch and voids the round at start (the stake
back, once); the player joins again on the same connection and bets at the new owner. The
ledger check passes and every round's `in_play` holds its open stakes only (L-7).
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from pokerroom.casino import money
from pokerroom.casino import store as casino_store
from pokerroom.cluster import leases
from pokerroom.ledger import make_engine
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.transfers import move
from tests.cluster.natsproc import running_nats
from tests.cluster.nodes import Cluster, wait_for
from tests.postgres import fresh_pg_schema
from tests.server.test_settle_kills import CashCrowd
from tests.serving import migrate

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]
TABLE = "roulette-1"
RESOURCE = f"casino:{TABLE}"
USD = "USD"
DEPOSIT = 1_000


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """Nodes a and b on a fresh migrated schema, the casino tables split 3 and 3."""
    with running_nats() as nats, fresh_pg_schema("cluster_casino_nodes") as url:
        migrate(url)
        engine = make_engine(url)
        found = Cluster(tmp_path, url, nats.url, engine, tables=2)
        try:
            found.start("a")
            found.start("b")
            wait_for(lambda: casino_owners(found) == {"a": 3, "b": 3}, 30, "casino split 3/3")
            yield found
        finally:
            found.stop_all()
            engine.dispose()


def casino_owners(c: Cluster) -> dict[str, int]:
    """node -> casino tables it runs now."""
    counts: dict[str, int] = {}
    for resource, owner in leases.owners(c.engine).items():
        if resource.startswith("casino:"):
            counts[owner] = counts.get(owner, 0) + 1
    return counts


def open_round(c: Cluster) -> str | None:
    """The id of roulette-1's open round, if any."""
    with c.engine.connect() as conn:
        return conn.execute(
            sa.text("SELECT id FROM casino_rounds WHERE table_id = :t AND status = 'open'"),
            {"t": TABLE},
        ).scalar()


def test_a_casino_table_fails_over_and_its_open_round_is_voided_once(cluster: Cluster) -> None:
    """Module docstring."""
    c = cluster
    move(c.engine, key="fund:bankroll", kind="deposit", currency=USD, source=external(USD),
         destination=money.bankroll(USD), amount=10**12)  # fmt: skip
    owner = leases.owners(c.engine)[RESOURCE]
    other = "b" if owner == "a" else "a"
    crowd = c.crowd = CashCrowd(c.ports[other], random.Random(7))
    bot = crowd.connect("punter", new=True)
    crowd.ok(bot, "deposit", amount=DEPOSIT)
    joined = crowd.ok(bot, "casino_join", table_id=TABLE)  # carried to the owner
    assert joined["table"]["table_id"] == TABLE
    crowd.pump_until(lambda: any(f["type"] == "casino_betting_open" for f in bot.frames), 20)
    crowd.ok(bot, "casino_place", table_id=TABLE, spot="red", amount=100)
    confirmed = crowd.ok(bot, "casino_confirm", table_id=TABLE, key="k1")
    assert confirmed["staked"] == 100
    round_id = confirmed["round_id"]
    assert balance(c.engine, wallet("punter", USD)).balance == DEPOSIT - 100
    listed = crowd.ok(bot, "casino_tables")["tables"]
    assert {t["table_id"] for t in listed} >= {TABLE, "baccarat-1", "blackjack-1"}

    epoch = leases.leases(c.engine)
    before = {lease.resource: lease.epoch for lease in epoch}[RESOURCE]
    c.procs[owner].send_signal(signal.SIGKILL)  # the round is open, its window running
    c.procs[owner].wait(timeout=30)
    wait_for(lambda: leases.owners(c.engine).get(RESOURCE) == other, 30, "the other node takes it")
    after = {lease.resource: lease.epoch for lease in leases.leases(c.engine)}[RESOURCE]
    assert after == before + 1
    wait_for(lambda: open_round(c) != round_id, 30, "the round a dead owner left is void")
    with c.engine.connect() as conn:
        status = conn.execute(
            sa.text("SELECT status FROM casino_rounds WHERE id = :r"), {"r": round_id}
        ).scalar_one()
    assert status == "void"
    assert balance(c.engine, wallet("punter", USD)).balance == DEPOSIT  # the stake back, once

    crowd.ok(bot, "casino_join", table_id=TABLE)  # now a table of the punter's own node
    crowd.pump_until(lambda: open_round(c) not in (None, round_id), 20)
    crowd.pump_until(lambda: sum(f["type"] == "casino_betting_open" for f in bot.frames) >= 2, 20)
    crowd.ok(bot, "casino_place", table_id=TABLE, spot="black", amount=200)
    assert crowd.ok(bot, "casino_confirm", table_id=TABLE, key="k2")["staked"] == 200
    assert balance(c.engine, wallet("punter", USD)).balance == DEPOSIT - 200
    report = check_ledger(c.engine)
    assert report.ok, report
    assert casino_store.in_play_mismatches(c.engine) == ()
