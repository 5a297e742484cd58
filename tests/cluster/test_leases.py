"""Leases on a real PostgreSQL (docs/design/cluster.md, "Ownership"): take bumps the epoch, renew
keeps only what is still the node's, an expired lease is taken over, and a fenced write after
the take-over is refused with `lease_lost` and commits nothing — also inside a settlement batch,
where it fails alone and the other tables' hands commit. A take racing a fenced write waits for
that write's commit (the `FOR SHARE` row lock)."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.cash import store
from pokerroom.cash.schema import cash_hands
from pokerroom.cluster import leases
from pokerroom.cluster.leases import LeaseLost
from pokerroom.ledger import batch
from pokerroom.ledger.kinds import AccountKind, AccountRef, external
from pokerroom.ledger.reports import balance
from pokerroom.ledger.transfers import check_request, move

pytestmark = pytest.mark.postgresql
TTL = 10.0


def expire(engine: Engine, resource: str) -> None:
    """Let a lease run out now (as if its TTL had passed without a renewal)."""
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE cluster_leases SET expires_at = clock_timestamp() - interval '1 second'"
                " WHERE resource = :r"
            ),
            {"r": resource},
        )


def hand_exists(engine: Engine, hand_id: str) -> bool:
    """Whether a `hands` row was committed."""
    with engine.connect() as conn:
        query = sa.select(cash_hands.c.id).where(cash_hands.c.id == hand_id)
        return conn.execute(query).first() is not None


def test_take_bumps_the_epoch_and_refuses_a_held_lease(pg: Engine) -> None:
    """A free lease is taken at epoch 1; another node gets nothing while it is held; the owner
    taking it again (a restart under the same name) bumps the epoch."""
    assert leases.take(pg, "table:t1", "a", TTL) == 1
    assert leases.take(pg, "table:t1", "b", TTL) is None
    assert leases.take(pg, "table:t1", "a", TTL) == 2
    rows = {row.resource: row for row in leases.leases(pg)}
    assert rows["table:t1"].owner == "a" and rows["table:t1"].epoch == 2
    assert 0 < rows["table:t1"].expires_in <= TTL


def test_an_expired_lease_is_taken_over_with_a_new_epoch_and_the_old_renewal_fails(
    pg: Engine,
) -> None:
    """Renew keeps what is still the node's at its epoch, one statement for all; after an
    expiry and a take-over by another node, the old owner's renewal leaves that lease out."""
    assert leases.take(pg, "table:t2", "a", TTL) == 1
    assert leases.take(pg, "table:t3", "a", TTL) == 1
    assert leases.renew(pg, "a", {"table:t2": 1, "table:t3": 1}, TTL) == {"table:t2", "table:t3"}
    assert leases.renew(pg, "a", {"table:t2": 7}, TTL) == set()  # a wrong epoch renews nothing
    expire(pg, "table:t2")
    assert leases.take(pg, "table:t2", "b", TTL) == 2
    assert leases.renew(pg, "a", {"table:t2": 1, "table:t3": 1}, TTL) == {"table:t3"}
    assert leases.owners(pg)["table:t2"] == "b"


def test_release_keeps_the_epoch_and_frees_the_lease(pg: Engine) -> None:
    """A drained lease ends now with its epoch; the next owner takes it at epoch + 1."""
    assert leases.take(pg, "table:t4", "a", TTL) == 1
    assert leases.release(pg, "table:t4", "a", 1)
    assert not leases.release(pg, "table:t4", "a", 1)  # already released
    assert "table:t4" not in leases.owners(pg)
    assert leases.take(pg, "table:t4", "b", TTL) == 2


def _start_hand(engine: Engine, hand_id: str) -> None:
    store.start_hand(engine, hand_id, "t5", 1, 0, {"p": 100}, [])


def test_a_fenced_write_after_a_take_over_is_refused_and_commits_nothing(pg: Engine) -> None:
    """The old owner's `hands` row (a write through its fenced engine) fails with lease_lost
    once another node took the table; the new owner's goes in; an expired lease nobody took
    also refuses the old owner's write (its own expiry, by the database clock)."""
    leases.install_fence(pg)
    assert leases.take(pg, "table:t5", "a", TTL) == 1
    old = leases.fenced(pg, "table:t5", "a", 1)
    _start_hand(old, "t5-1")  # while held, it writes
    assert hand_exists(pg, "t5-1")
    expire(pg, "table:t5")
    with pytest.raises(LeaseLost) as lost:
        _start_hand(old, "t5-2")  # expired, not yet taken: refused too
    assert lost.value.code == "lease_lost"
    assert leases.take(pg, "table:t5", "b", TTL) == 2
    with pytest.raises(LeaseLost):
        _start_hand(old, "t5-3")
    assert not hand_exists(pg, "t5-2") and not hand_exists(pg, "t5-3")
    _start_hand(leases.fenced(pg, "table:t5", "b", 2), "t5-4")
    assert hand_exists(pg, "t5-4")
    _start_hand(pg, "t5-5")  # an engine without a fence (single-process mode) checks nothing
    assert hand_exists(pg, "t5-5")


def _escrow(table: str) -> AccountRef:
    return AccountRef(AccountKind.SEAT_ESCROW, f"{table}/p", "USD")


def _winner(table: str) -> AccountRef:
    return AccountRef(AccountKind.SEAT_ESCROW, f"{table}/q", "USD")


def test_a_fenced_settlement_fails_alone_in_its_batch(pg: Engine) -> None:
    """Three tables' hands in one group commit: the one whose lease was taken over fails with
    lease_lost and moves nothing; the other two commit."""
    tables = ["b1", "b2", "b3"]
    for table in tables:
        move(
            pg,
            key=f"fund:{table}",
            kind="deposit",
            currency="USD",
            source=external("USD"),
            destination=_escrow(table),
            amount=1000,
        )
        assert leases.take(pg, f"table:{table}", "a", TTL) == 1
    expire(pg, "table:b2")
    assert leases.take(pg, "table:b2", "b", TTL) == 2
    items = [
        batch.Pending(
            check_request(
                key=f"hand:{table}-1",
                kind="hand_settlement",
                currency="USD",
                postings_in=[(_escrow(table), -300), (_winner(table), 300)],
                reference="",
                memo="",
            ),
            also=partial(leases.check, resource=f"table:{table}", owner="a", epoch=1),
        )
        for table in tables
    ]
    batch.write_batch(pg, items)
    assert isinstance(items[1].outcome, LeaseLost)
    assert not isinstance(items[0].outcome, Exception) and items[0].outcome is not None
    assert not isinstance(items[2].outcome, Exception) and items[2].outcome is not None
    assert balance(pg, _escrow("b1")).balance == 700
    assert balance(pg, _escrow("b2")).balance == 1000  # nothing of the fenced hand
    assert balance(pg, _escrow("b3")).balance == 700


def test_a_take_racing_a_fenced_write_waits_for_its_commit(pg: Engine) -> None:
    """A fenced write holds the lease row share-locked until it commits: a take of the lease,
    expired meanwhile, waits for that commit and only then bumps the epoch; the old owner's
    next write is refused. (A fence without FOR SHARE lets the take through at once.)"""
    leases.install_fence(pg)
    assert leases.take(pg, "table:t6", "a", 0.5) == 1
    old = leases.fenced(pg, "table:t6", "a", 1)
    taken: dict[str, int | None] = {}
    with old.connect() as conn, conn.begin():
        conn.execute(sa.text("SELECT 1"))  # the transaction begins: the fence is checked
        conn.execute(
            cash_hands.insert().values(
                id="t6-1",
                table_id="t6",
                number=1,
                status="started",
                started_at_ms=0,
                start_stacks={},
            )
        )
        deadline = time.monotonic() + 5
        while leases.owners(pg).get("table:t6") and time.monotonic() < deadline:
            time.sleep(0.05)  # the lease runs out (database clock) while the write is open
        racer = threading.Thread(
            target=lambda: taken.update(epoch=leases.take(pg, "table:t6", "b", TTL))
        )
        racer.start()
        racer.join(0.5)
        assert racer.is_alive(), "the take went through while a fenced write was open"
    racer.join(10)
    assert taken == {"epoch": 2}
    assert hand_exists(pg, "t6-1")  # the write made while holding the lease stands
    with pytest.raises(LeaseLost):
        _start_hand(old, "t6-2")
    assert not hand_exists(pg, "t6-2")
