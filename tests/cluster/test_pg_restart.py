"""PostgreSQL restarts while two nodes settle hands (docs/design/cluster.md, "Failure cases"):
on a private PostgreSQL of this test (tests/cluster/private_pg.py; never the machine's shared
one), nodes a and b split four tables and bots play; `pg_ctl restart -m fast` while settlement
batches flow (every table dealing, batches committing).

Expect: the nodes see the outage (`database_unavailable`) and its end (`database_available`);
every table deals and settles hands again afterwards (the ledger's retry, C-12: a batch that
failed is retried, a hand cut mid-way is void with its stacks restored); no hand applied twice
(one settlement transfer at most each); the ledger check passes and wallets + escrows + house
equal the deposits.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.ledger import make_engine
from tests.cluster.nodes import TABLES, Cluster, wait_for
from tests.cluster.private_pg import PrivatePostgres, private_postgres
from tests.cluster.test_failover import ledger_check, settled_after
from tests.server.test_settle_kills import check_money
from tests.serving import CLI

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


@pytest.fixture
def cluster(tmp_path: Path, nats_url: str) -> Iterator[tuple[Cluster, PrivatePostgres]]:
    """Nodes a and b on a private, migrated PostgreSQL; tables 2 and 2, bots seated."""
    with private_postgres() as pg:
        done = subprocess.run(
            [*CLI, "db", "upgrade", "--db", pg.url], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        c = Cluster(tmp_path, pg.url, nats_url, make_engine(pg.url))
        try:
            c.start("a")
            wait_for(lambda: c.owned() == {"a": TABLES}, 20, "a takes every table")
            c.start("b")
            wait_for(lambda: c.owned() == {"a": 2, "b": 2}, 20, "the tables split 2 and 2")
            c.seat_bots()
            yield c, pg
        finally:
            c.stop_all()
            c.engine.dispose()


def logged(c: Cluster, name: str) -> int:
    """`name` events logged by both nodes."""
    return sum(1 for node in ("a", "b") for e in c.log(node) if e.get("event") == name)


def test_tables_deal_again_after_postgresql_restarts_mid_batch(
    cluster: tuple[Cluster, PrivatePostgres],
) -> None:
    c, pg = cluster
    crowd = c.crowd
    assert crowd is not None
    tables = [f"c{n}" for n in range(TABLES)]
    crowd.pump(1.5)
    last = c.last_numbers()
    # settlements flowing: every table has settled a hand within the last moments
    crowd.pump_until(lambda: all(settled_after(c, tables, last).values()), limit=30)
    assert logged(c, "database_unavailable") == 0
    c.engine.dispose()  # the test's own connections do not outlive the restart
    pg.restart()
    crowd.pump_until(lambda: logged(c, "database_available") >= 2, limit=60)  # both nodes
    lanes = {e.get("lane") for n in ("a", "b") for e in c.log(n)}
    assert "money" in lanes  # a settlement batch (the money lane) failed and was retried
    c.engine.dispose()
    crowd.pump_until(lambda: set(c.owned()) <= {"a", "b"} and len(c.owners()) == TABLES, 30)
    last = c.last_numbers()
    crowd.pump_until(lambda: all(settled_after(c, tables, last).values()), limit=60)
    again = c.last_numbers()
    crowd.pump_until(lambda: all(settled_after(c, tables, again).values()), limit=30)
    c.stop_all()
    hands = c.hands(tables)
    assert all(r.transfers <= 1 for r in hands.values())  # no hand applied twice
    check_money(c.engine, c.deposits)
    assert ledger_check(c.url).returncode == 0
    voids = sum(1 for r in hands.values() if r.status == "void")
    print(f"PostgreSQL restart: {len(hands)} hands, {voids} void, money exact")
