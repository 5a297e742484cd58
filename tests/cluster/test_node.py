"""ClusterNode on a real PostgreSQL and a fake clock (docs/design/cluster.md, "Ownership"): the
split to ceil(resources / live nodes) with the surplus handed over, a lease lost at renewal
stopping its table at once, the self-stop at exactly `ttl - margin` on the node's own clock
(before the lease expires in the database), a fenced write stopping its table, and a drain that
waits for each table's hand to end and keeps the epoch for the next owner to bump."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.task import Clock

from pokerroom.cluster import leases
from pokerroom.cluster.config import ClusterSettings
from pokerroom.cluster.leases import LeaseLost
from pokerroom.cluster.node import EXPIRY_SLACK, ClusterNode
from pokerroom.ledger import make_engine
from pokerroom.ledger.errors import ServiceUnavailable
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService
from tests.postgres import fresh_pg_schema
from tests.serving import migrate

pytestmark = pytest.mark.postgresql
SETTINGS = ClusterSettings(renew_seconds=2.0, ttl_seconds=10.0, margin_seconds=3.0)


class SyncLedger:
    """The node's `ledger.run`, done at once on the test's thread (or refused: `down`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.down = False

    def run(self, work: Callable[..., Any], /, *args: Any) -> Deferred[Any]:
        """`work(engine, *args)` now, as a fired Deferred."""
        if self.down:
            return fail(ServiceUnavailable("the database does not answer"))
        try:
            return succeed(work(self.engine, *args))
        except Exception as exc:
            return fail(exc)


class Host:
    """Tables that open and close at once; `busy` ones are mid-hand (not idle)."""

    def __init__(self, count: int) -> None:
        self.names = [f"table:h{n}" for n in range(count)]
        self.open_now: dict[str, WriteFence] = {}
        self.closed: list[str] = []
        self.held: set[str] = set()
        self.busy: set[str] = set()

    def resources(self) -> list[str]:
        return list(self.names)

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        self.open_now[resource] = fence
        return succeed(None)

    def close(self, resource: str) -> None:
        self.open_now.pop(resource, None)
        self.closed.append(resource)

    def hold(self, resource: str) -> None:
        self.held.add(resource)

    def idle(self, resource: str) -> bool:
        return resource not in self.busy


@pytest.fixture
def engine() -> Iterator[Engine]:
    """A fresh migrated schema per test (node rows and leases of its own)."""
    with fresh_pg_schema("cluster_node") as url:
        migrate(url)
        found = make_engine(url)
        yield found
        found.dispose()


def node(name: str, engine: Engine, host: Host, clock: Clock) -> tuple[ClusterNode, SyncLedger]:
    """A started node on the fake clock (its first round has run)."""
    ledger = SyncLedger(engine)
    started = ClusterNode(name, cast(LedgerService, ledger), host, SETTINGS, clock=clock)
    started.startService()
    return started, ledger


def owned_by(engine: Engine) -> dict[str, str]:
    """Resource -> owner of the leases not expired."""
    return leases.owners(engine)


def test_two_nodes_split_the_tables_and_a_lost_lease_stops_at_once(engine: Engine) -> None:
    """The first node takes all 4 (share ceil(4/1)); a second joins: the first hands its surplus
    over (idle tables: at once) and the second takes them at a new epoch. A lease taken by
    someone else is missing from the next renewal: its table stops and `on_lose` hears it."""
    clock = Clock()
    host_a, host_b = Host(4), Host(4)
    a, _ = node("a", engine, host_a, clock)
    assert a.owned() == frozenset(host_a.names)
    b, _ = node("b", engine, host_b, clock)
    assert b.owned() == frozenset()  # nothing free
    clock.advance(SETTINGS.renew_seconds)  # a's round: 2 live nodes, share 2, two handed over
    assert len(a.owned()) == 2 and sorted(host_a.closed) == ["table:h2", "table:h3"]
    clock.advance(SETTINGS.renew_seconds)  # b's round takes them
    assert b.owned() == {"table:h2", "table:h3"}
    assert b.epoch("table:h2") == 2 and a.epoch("table:h0") == 1
    assert set(host_b.open_now) == {"table:h2", "table:h3"}
    lost: list[str] = []
    a.on_lose.append(lost.append)
    with engine.begin() as conn:  # h0's lease runs out and "x" takes it
        conn.execute(sa.text("UPDATE cluster_leases SET expires_at = clock_timestamp()"
                             " WHERE resource = 'table:h0'"))  # fmt: skip
    assert leases.take(engine, "table:h0", "x", 10) == 2
    clock.advance(SETTINGS.renew_seconds)
    assert lost == ["table:h0"] and "table:h0" not in host_a.open_now
    assert a.owned() == {"table:h1"}


def test_self_stop_at_ttl_minus_margin_before_the_lease_expires(engine: Engine) -> None:
    """The database stops answering: the node keeps its tables until exactly `ttl - margin`
    after the last renewal it sent (its own clock), then stops them all — while the database
    still shows the leases unexpired (they are not taken from under a live table)."""
    clock = Clock()
    host = Host(2)
    a, ledger = node("a", engine, host, clock)
    assert a.owned() == frozenset(host.names)
    ledger.down = True
    deadline = SETTINGS.ttl_seconds - SETTINGS.margin_seconds
    clock.advance(deadline - 0.01)
    for _ in range(3):  # rounds fail meanwhile; nothing stops early
        clock.advance(0.0)
    assert host.closed == [] and a.owned() == frozenset(host.names)
    clock.advance(0.01)
    assert sorted(host.closed) == host.names and a.owned() == frozenset()
    assert all(lease.expires_in > 0 for lease in leases.leases(engine))


def test_a_write_refused_by_the_fence_stops_the_table(engine: Engine) -> None:
    """The table's fence reports `lease_lost`: the node stops that table (and only for that
    error; an outage pauses the table instead, C-12)."""
    clock = Clock()
    host = Host(2)
    a, _ = node("a", engine, host, clock)
    fence = host.open_now["table:h1"]
    fence.refused(ServiceUnavailable("out"))
    assert a.owned() == frozenset(host.names)
    fence.refused(LeaseLost("table:h1 is no longer a's"))
    assert a.owned() == {"table:h0"} and host.closed == ["table:h1"]


def test_drain_hands_each_table_over_once_its_hand_has_ended(engine: Engine) -> None:
    """`cluster drain a`: a deals no new hand at either table; the idle one is released at once
    (epoch kept), the one mid-hand only once its hand is over; b takes both at epoch + 1."""
    clock = Clock()
    host_a, host_b = Host(2), Host(2)
    a, _ = node("a", engine, host_a, clock)
    b, _ = node("b", engine, host_b, clock)
    host_a.busy.add("table:h1")
    assert leases.set_draining(engine, "a")
    clock.advance(SETTINGS.renew_seconds)  # a's round releases h0, then b's round takes it
    assert host_a.held == {"table:h0", "table:h1"}
    assert a.owned() == {"table:h1"} and host_a.closed == ["table:h0"]
    assert b.owned() == {"table:h0"} and b.epoch("table:h0") == 2  # released at 1, bumped
    clock.advance(SETTINGS.renew_seconds)
    assert a.owned() == {"table:h1"} and owned_by(engine)["table:h1"] == "a"  # still mid-hand
    host_a.busy.clear()  # its hand is settled
    clock.advance(SETTINGS.renew_seconds)
    clock.advance(SETTINGS.renew_seconds)
    assert a.owned() == frozenset() and b.owned() == {"table:h0", "table:h1"}
    assert b.epoch("table:h1") == 2


def test_a_dying_lease_is_taken_as_it_expires_not_at_the_next_round(engine: Engine) -> None:
    """Another node's lease that runs out before the next round (it stopped renewing: dead)
    brings an extra round just after its expiry: the table is taken then, not up to
    `renew_seconds` later (failover time)."""
    clock = Clock()
    host = Host(2)
    assert leases.take(engine, "table:h1", "x", 0.4) == 1  # x: no heartbeat, 0.4 s left
    b, _ = node("b", engine, host, clock)
    assert b.owned() == {"table:h0"}
    deadline = time.monotonic() + 5
    while "table:h1" in leases.owners(engine):  # the database clock runs out x's lease
        assert time.monotonic() < deadline
        time.sleep(0.05)
    clock.advance(0.4 + EXPIRY_SLACK)
    assert b.owned() == {"table:h0", "table:h1"} and b.epoch("table:h1") == 2
    assert clock.seconds() < SETTINGS.renew_seconds  # before the next regular round


def test_a_node_started_while_the_database_is_out_registers_once_it_is_back(
    engine: Engine,
) -> None:
    """The first write (the node's row) fails: tried again every `renew_seconds`, then the
    rounds begin and the node takes its tables."""
    clock = Clock()
    host = Host(2)
    ledger = SyncLedger(engine)
    ledger.down = True
    a = ClusterNode("a", cast(LedgerService, ledger), host, SETTINGS, clock=clock)
    a.startService()
    clock.advance(SETTINGS.renew_seconds)
    assert a.owned() == frozenset() and leases.nodes(engine) == []
    ledger.down = False
    clock.advance(SETTINGS.renew_seconds)
    assert [n.name for n in leases.nodes(engine)] == ["a"]
    assert a.owned() == frozenset(host.names)
    a.stopService()
    assert a.owned() == frozenset() and "table:h0" not in leases.owners(engine)  # released


def test_a_stopped_node_releases_its_leases_and_leaves_and_the_other_takes_all_next_round(
    engine: Engine,
) -> None:
    """`stop` (serve's clean stop): a's tables stop, its leases are released at their epoch and
    its row is deleted; b counts it gone and takes both tables at its very next round (not
    after the TTL), each at epoch + 1."""
    clock = Clock()
    host_a, host_b = Host(2), Host(2)
    a, _ = node("a", engine, host_a, clock)
    b, _ = node("b", engine, host_b, clock)
    clock.advance(SETTINGS.renew_seconds)  # a hands one over, b takes it
    assert a.owned() == {"table:h0"} and b.owned() == {"table:h1"}
    a.stop()
    assert a.owned() == frozenset() and host_a.closed[-1] == "table:h0"
    assert [n.name for n in leases.nodes(engine)] == ["b"]
    (h0,) = [lease for lease in leases.leases(engine) if lease.resource == "table:h0"]
    assert h0.owner == "a" and h0.epoch == 1 and h0.expires_in <= 0  # released, epoch kept
    clock.advance(SETTINGS.renew_seconds)  # b's next round: 1 live node, share 2
    assert b.owned() == {"table:h0", "table:h1"} and b.epoch("table:h0") == 2
    a.stopService()  # what serve's MultiService does next: nothing more
    assert [n.name for n in leases.nodes(engine)] == ["b"]


def test_a_node_that_takes_a_lease_as_it_stops_gives_it_back(engine: Engine) -> None:
    """A round in flight when `stop` runs may still take a lease: it is released at once, the
    table is never opened, and the node's row is deleted once that round is back."""
    clock = Clock()
    host = Host(1)
    ledger = SyncLedger(engine)
    a = ClusterNode("a", cast(LedgerService, ledger), host, SETTINGS, clock=clock)
    taking: Deferred[Any] = Deferred()
    real_run = ledger.run

    def run(work: Callable[..., Any], /, *args: Any) -> Deferred[Any]:
        if work is leases.take:  # the take's answer comes back after stop
            result = real_run(work, *args)
            return taking.addCallback(lambda _: result)
        return real_run(work, *args)

    ledger.run = run  # type: ignore[method-assign]
    a.startService()
    stopped = a.stop()
    taking.callback(None)
    assert stopped.called and host.open_now == {} and a.owned() == frozenset()
    assert leases.owners(engine) == {} and leases.nodes(engine) == []
