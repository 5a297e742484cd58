"""Casino tables in cluster mode on a real PostgreSQL, the real ledger and a fake clock
(docs/design/cluster.md, "Casino tables").

Two nodes running one casino table at once would corrupt money: the second's start voids the
first's round under way (K-7 recovery), and a stake confirmed after that lands in a void
round's `in_play`, never to come back (L-7); each would pay the progressive jackpot from the
pool it read. So a casino table is the lease `casino:<id>`: one node runs it, every write
fenced. Once another node took the lease, the old owner's next write is refused
(`lease_lost`), moves nothing and stops the table there; the taker's start voids the round it
left (every stake back, once)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from twisted.internet.task import Clock

from pokerroom.casino import events as ev
from pokerroom.casino import money
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.schema import casino_rounds
from pokerroom.cluster import leases
from pokerroom.cluster.casino import MOVED, ClusterCasino
from pokerroom.cluster.fence import LeaseFence
from pokerroom.ledger import make_engine
from pokerroom.ledger.kinds import wallet
from pokerroom.server.casino_desk import CasinoDesk
from tests.casino.table_harness import USD, Casino
from tests.cluster.test_node import SETTINGS as NODE_SETTINGS
from tests.cluster.test_node import Host, node
from tests.postgres import fresh_pg_schema
from tests.serving import migrate

pytestmark = pytest.mark.postgresql
TABLE = "roulette-1"
RESOURCE = f"casino:{TABLE}"
WINDOW = 45  # config/casino/roulette.toml
FUNDS = 100_000


class Hub:
    """The desk's hub: what each player was sent."""

    def __init__(self) -> None:
        self.got: dict[str, list[Any]] = {}

    def send(self, player: str, message: Any) -> None:
        self.got.setdefault(player, []).append(message)

    def states(self, player: str) -> list[tuple[bool, str]]:
        return [
            (m.open, m.reason)
            for m in self.got.get(player, [])
            if type(m).__name__.endswith("State")
        ]


@pytest.fixture
def casino() -> Iterator[Casino]:
    """A room database on a fresh PostgreSQL schema with its ledger (fake clock)."""
    with fresh_pg_schema("cluster_casino") as url:
        room = Casino(url)
        leases.install_fence(room.engine)
        try:
            yield room
        finally:
            room.close()


def desk(casino: Casino) -> tuple[CasinoDesk, Hub]:
    """A node's casino desk with the room's tables prepared (none started)."""
    hub = Hub()
    found = CasinoDesk(casino.clock, RoundStore(casino.ledger), hub, USD)  # type: ignore[arg-type]
    found.prepare(rng=random.Random(7))
    assert TABLE in found.specs
    return found, hub


def expire(casino: Casino, resource: str) -> None:
    """The lease runs out now (its owner stopped renewing)."""
    with casino.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE cluster_leases SET expires_at = clock_timestamp() WHERE resource = :r"),
            {"r": resource},
        )


def status(casino: Casino, round_id: str) -> str:
    with casino.engine.connect() as conn:
        return str(
            conn.execute(
                sa.select(casino_rounds.c.status).where(casino_rounds.c.id == round_id)
            ).scalar_one()
        )


def confirm(casino: Casino, table: Any, player: str, stake: int, key: str) -> Any:
    """Place `stake` on red and confirm it; the answer or the failure's exception."""
    table.place(player, "red", stake)
    box: list[Any] = []
    table.confirm(player, key).addBoth(box.append)
    casino.drain()
    (answer,) = box
    return getattr(answer, "value", answer)


def open_on(casino: Casino, host: ClusterCasino, node: str, lost: list[tuple[str, int]]) -> Any:
    """`node` takes the table's lease and opens the table; the table."""
    epoch = leases.take(casino.engine, RESOURCE, node, 60)
    assert epoch is not None
    fence = LeaseFence(RESOURCE, node, epoch, lambda r, e: lost.append((r, e)))
    casino.wait(host.open(RESOURCE, fence))
    return host.desk.tables[TABLE]


def players(casino: Casino, names: Iterable[str]) -> None:
    casino.fund_house(100_000_000)  # covers the K-12 cap of the players seated
    for name in names:
        casino.fund_player(name, FUNDS)


def test_one_node_runs_a_casino_table_and_the_old_owner_is_fenced(casino: Casino) -> None:
    """Module docstring: b cannot take a held table; once a's lease ran out b takes it, voids
    a's round (alice's stake back), and every write a attempts after is refused and moves
    nothing: bob's confirmation (lease_lost, a stops the table), a's settlement and void."""
    players(casino, ("alice", "bob"))
    desk_a, hub_a = desk(casino)
    lost_a: list[tuple[str, int]] = []
    host_a = ClusterCasino(casino.ledger, desk_a)
    assert host_a.resources() == sorted(f"casino:{t}" for t in desk_a.specs)
    table_a = open_on(casino, host_a, "a", lost_a)
    assert leases.take(casino.engine, RESOURCE, "b", 60) is None  # a holds it
    casino.join(table_a, "alice", "bob")
    round_id = table_a.round.round_id
    assert confirm(casino, table_a, "alice", 100, "a1").staked == 100
    assert casino.balance(wallet("alice", USD)) == FUNDS - 100

    expire(casino, RESOURCE)  # a is paused past its lease; b takes the table
    desk_b, _ = desk(casino)
    host_b = ClusterCasino(casino.ledger, desk_b)
    table_b = open_on(casino, host_b, "b", [])
    assert status(casino, round_id) == "void"  # K-7 at b's start: alice's stake back
    assert casino.balance(wallet("alice", USD)) == FUNDS
    assert table_b.round is None  # nobody at b's table yet: idle

    refused = confirm(casino, table_a, "bob", 300, "b1")  # a resumes: fenced out
    assert refused.code == "service_unavailable"  # what bob hears; the fence refused it:
    assert lost_a == [(RESOURCE, 1)]  # the node hears it and stops the table (node.fenced_out)
    assert casino.balance(wallet("bob", USD)) == FUNDS  # nothing moved
    host_a.close(RESOURCE)
    assert TABLE not in desk_a.tables and table_a.phase == "stopped"
    assert hub_a.states("alice")[-1] == (False, MOVED)  # told: join again
    casino.advance(WINDOW * 2)  # a's stopped table draws and settles nothing
    assert status(casino, round_id) == "void"
    assert casino.balance(wallet("alice", USD)) == FUNDS
    casino.ok()


def test_the_settlement_of_a_fenced_out_owner_is_refused(casino: Casino) -> None:
    """a's lease is taken while its round is in its window: at the close a's settlement is
    refused (lease_lost; not one cent paid), its void too; b voids the round once."""
    players(casino, ("alice",))
    desk_a, _ = desk(casino)
    lost: list[tuple[str, int]] = []
    table_a = open_on(casino, ClusterCasino(casino.ledger, desk_a), "a", lost)
    casino.join(table_a, "alice")
    round_id = table_a.round.round_id
    confirm(casino, table_a, "alice", 1_000, "a1")
    expire(casino, RESOURCE)
    assert leases.take(casino.engine, RESOURCE, "b", 60) == 2  # b holds it, not started yet
    casino.advance(WINDOW)  # a's window closes: draw, settle (refused), void (refused)
    assert (RESOURCE, 1) in lost
    assert status(casino, round_id) == "open"  # a wrote nothing
    assert casino.balance(wallet("alice", USD)) == FUNDS - 1_000
    assert casino.balance(money.in_play(round_id, USD)) == 1_000
    fence = LeaseFence(RESOURCE, "b", 2, lambda r, e: None)
    desk_b, _ = desk(casino)
    host_b = ClusterCasino(casino.ledger, desk_b)
    casino.wait(host_b.open(RESOURCE, fence))  # b's start: the round void, the stake back
    assert status(casino, round_id) == "void"
    assert casino.balance(wallet("alice", USD)) == FUNDS
    casino.ok()


def test_a_drain_hands_the_table_over_after_its_round(casino: Casino) -> None:
    """hold: the round under way settles, no new one opens; idle only then; closing it tells
    the players `table_moved` (they join again, at the next owner)."""
    players(casino, ("alice",))
    desk_a, hub = desk(casino)
    host = ClusterCasino(casino.ledger, desk_a)
    table = open_on(casino, host, "a", [])
    casino.join(table, "alice")
    round_id = table.round.round_id
    confirm(casino, table, "alice", 100, "a1")
    host.hold(RESOURCE)
    assert not host.idle(RESOURCE)  # its round is under way
    casino.advance(WINDOW)
    assert status(casino, round_id) == "settled"
    assert host.idle(RESOURCE) and table.round is None
    casino.advance(table.config.between_s * 3)
    assert table.round is None  # no new round opened
    host.close(RESOURCE)
    assert hub.states("alice")[-1] == (False, MOVED)
    assert not [m for m in hub.got["alice"] if isinstance(m, ev.TableState)]  # protocol msgs
    casino.ok()


def test_two_nodes_split_the_cash_and_the_casino_tables_each_evenly() -> None:
    """Casino tables are balanced apart (node.APART): with 4 cash and 2 casino tables, the
    first node takes all 6; once a second joins each runs 2 cash tables and 1 casino table
    (one count for all would have handed over the 3 highest names: every cash table but one)."""
    with fresh_pg_schema("cluster_pools") as url:
        migrate(url)
        engine = make_engine(url)
        try:
            clock = Clock()
            host_a, host_b = Host(4), Host(4)
            for host in (host_a, host_b):
                host.names += ["casino:baccarat-1", "casino:roulette-1"]
            a, _ = node("a", engine, host_a, clock)
            assert a.owned() == frozenset(host_a.names)
            b, _ = node("b", engine, host_b, clock)
            clock.advance(NODE_SETTINGS.renew_seconds)  # a hands over its surplus of each
            clock.advance(NODE_SETTINGS.renew_seconds)  # b takes them
            for found in (a, b):
                kinds = sorted(r.partition(":")[0] for r in found.owned())
                assert kinds == ["casino", "table", "table"], found.owned()
        finally:
            engine.dispose()
