"""A table's HandStore fenced by its lease, through the real LedgerService on PostgreSQL
(docs/design/cluster.md, "Fence"): two tables' settlements share one group commit; the lease of
one was taken over meanwhile: its settlement fails alone with lease_lost (no transfer, the hand
stays `started` for the next owner to void, C-12), the other commits, and the node hears of
the refusal (it stops that table). The old owner's next `hands` row is refused too; an unfenced
store (one process, no --cluster) writes as before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.store import escrow
from pokerroom.cluster import leases
from pokerroom.cluster.fence import LeaseFence
from pokerroom.cluster.leases import LeaseLost
from pokerroom.ledger.kinds import external
from pokerroom.ledger.reports import balance
from pokerroom.ledger.service import LedgerSettings
from pokerroom.ledger.transfers import move
from tests.ledger.conftest import QueueReactor
from tests.ledger.group_commit import Room

pytestmark = pytest.mark.postgresql
USD = "USD"


@pytest.fixture
def room(pg: Engine) -> Iterator[Room]:
    """A started ledger service on the module's schema (fake reactor and clock)."""
    leases.install_fence(pg)
    started = Room(pg, QueueReactor(), LedgerSettings(batch_max_ms=5.0))
    yield started
    started.stop()


def hand_status(engine: Engine, hand_id: str) -> str | None:
    with engine.connect() as conn:
        row = conn.execute(
            sa.text("SELECT status FROM cash_hands WHERE id = :h"), {"h": hand_id}
        ).first()
    return None if row is None else str(row[0])


def settlements(engine: Engine, hand_id: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                sa.text("SELECT count(*) FROM journal WHERE idempotency_key = :k"),
                {"k": f"hand:{hand_id}"},
            ).scalar_one()
        )


def test_a_fenced_settlement_fails_alone_and_the_node_hears_it(room: Room, pg: Engine) -> None:
    lost: list[tuple[str, int]] = []
    stores: dict[str, HandStore] = {}
    for table in ("f1", "f2"):
        for player in ("p", "q"):
            funds = escrow(table, player, USD)
            move(pg, key=f"fund:{table}:{player}", kind="deposit", currency=USD,
                 source=external(USD), destination=funds, amount=100)  # fmt: skip
        epoch = leases.take(pg, f"table:{table}", "a", 10)
        assert epoch == 1
        fence = LeaseFence(f"table:{table}", "a", epoch, lambda r, e: lost.append((r, e)))
        stores[table] = HandStore(room.service, fence=fence)
    started = [
        stores[t].start_hand(f"{t}-1", t, 1, 0, {"p": 100, "q": 100}, []) for t in ("f1", "f2")
    ]
    assert room.answers(started) == [None, None]
    with pg.begin() as conn:  # f1's lease runs out and b takes the table
        conn.execute(sa.text("UPDATE cluster_leases SET expires_at = clock_timestamp()"
                             " WHERE resource = 'table:f1'"))  # fmt: skip
    assert leases.take(pg, "table:f1", "b", 10) == 2
    settled: list[Any] = [
        stores[t].settle_hand(f"{t}-1", t, USD, {"p": 30, "q": -30}, 0, {}, 5) for t in ("f1", "f2")
    ]
    answers = room.answers(settled)
    assert isinstance(answers[0], LeaseLost) and answers[0].code == "lease_lost"
    assert answers[1] is None
    assert lost == [("table:f1", 1)]
    assert hand_status(pg, "f1-1") == "started" and settlements(pg, "f1-1") == 0
    assert balance(pg, escrow("f1", "p", USD)).balance == 100  # nothing of the fenced hand
    assert hand_status(pg, "f2-1") == "settled" and settlements(pg, "f2-1") == 1
    assert balance(pg, escrow("f2", "p", USD)).balance == 130
    (refused,) = room.answers([stores["f1"].start_hand("f1-2", "f1", 2, 9, {"p": 100}, [])])
    assert isinstance(refused, LeaseLost)
    assert hand_status(pg, "f1-2") is None and lost == [("table:f1", 1), ("table:f1", 1)]
    (plain,) = room.answers([HandStore(room.service).start_hand("f1-3", "f1", 3, 9, {}, [])])
    assert plain is None and hand_status(pg, "f1-3") == "started"  # no fence: no check
