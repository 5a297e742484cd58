"""Casino requests between two nodes over a real nats-server, in one process
(docs/design/cluster.md, "Casino tables"): a player connected to node A joins and bets at a
casino table node B runs (each request carried to B, its refusal's code back unchanged, B's
events delivered on A); `casino_tables` on A lists B's table with B's line; when the session on
A ends, B hears `casino_leave`; a table no node serves answers `cluster_unavailable`.

The nodes are the real hub, lobby, desk and routing; the table is a stand-in with the surface
the desk uses (the money of a casino table across nodes: tests/cluster/test_casino.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pytest

from pokerroom.casino import events as ev
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.cluster.casino_routing import CasinoRouting
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.casino_desk import CasinoDesk
from tests.cluster.loop import run, until
from tests.cluster.natsproc import NatsServer
from tests.cluster.test_routing import Node, ask, login, make_node, settle

TABLE = "roulette-1"


class StandIn:
    """A casino table with the surface the desk uses."""

    def __init__(self, desk: CasinoDesk) -> None:
        self.config = CasinoTableConfig(TABLE, "roulette", "USD")
        self.table_id = TABLE
        self.desk = desk
        self.phase = "betting"
        self.round = None
        self.players: set[str] = set()
        self.observers: set[str] = set()

    def join(self, player: str) -> None:
        self.players.add(player)
        self.desk.tell([player], ev.TableState(TABLE, True, "welcome"))

    def leave(self, player: str) -> None:
        self.players.discard(player)

    def place(self, player: str, spot: str, stake: int) -> dict[str, int]:
        if stake > 100:
            raise CasinoError("above_maximum", "too much (K-5)")
        return {spot: stake}


@dataclass
class CasinoNode:
    node: Node
    desk: CasinoDesk
    routing: CasinoRouting


def casino_node(node: Node) -> CasinoNode:
    desk = CasinoDesk(node.clock, cast(Any, None), node.hub, "USD")
    desk.prepare()
    routing = CasinoRouting(
        node.routing.bus,
        node.routing.subjects,
        desk,
        node.clock,
        lambda player: node.hub.session_of(player) is not None,
    )
    desk.remote = routing
    node.lobby.casino_desk = desk
    return CasinoNode(node, desk, routing)


@pytest.fixture
def nodes(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> Iterator[tuple[CasinoNode, CasinoNode]]:
    a = casino_node(make_node(loop, nats_server.url, "a", owns=[]))
    b = casino_node(make_node(loop, nats_server.url, "b", owns=[]))
    b.desk.tables[TABLE] = cast(Any, StandIn(b.desk))
    b.routing.took(f"casino:{TABLE}")
    settle(loop, a.node, b.node)
    yield a, b
    for found in (a, b):
        found.routing.stop()
        run(loop, found.node.routing.stop())


def test_a_player_on_a_plays_at_a_casino_table_b_runs(
    loop: asyncio.AbstractEventLoop, nodes: tuple[CasinoNode, CasinoNode]
) -> None:
    """Module docstring: join, an event, a refusal's code, the list, and the leave on logout."""
    a, b = nodes
    conn = login(a.node, "alice")
    table = cast(StandIn, b.desk.tables[TABLE])
    joined = ask(loop, a.node, "alice", type="casino_join", table_id=TABLE)
    assert joined["table"]["table_id"] == TABLE and joined["table"]["phase"] == "betting"
    assert table.players == {"alice"}
    until(loop, lambda: conn.of("casino_table_state"))  # B's event, delivered on A
    assert conn.of("casino_table_state")[0]["reason"] == "welcome"
    draft = ask(loop, a.node, "alice", type="casino_place", table_id=TABLE, spot="red", amount=5)
    assert draft == {"bets": [{"spot": "red", "amount": 5}]}
    with pytest.raises(ProtocolError) as refused:
        ask(loop, a.node, "alice", type="casino_place", table_id=TABLE, spot="red", amount=500)
    assert refused.value.code == "above_maximum"  # the owner's code, unchanged (P-1)
    listed = ask(loop, a.node, "alice", type="casino_tables")
    lines = {line["table_id"]: line for line in listed["tables"]}
    assert set(lines) == set(a.desk.specs)
    assert lines[TABLE]["phase"] == "betting"  # B's line
    assert {lines[t]["phase"] for t in lines if t != TABLE} == {"unavailable"}  # nobody runs
    a.desk.disconnected("alice")  # the session on A ended
    until(loop, lambda: not table.players)  # B heard casino_leave


def test_a_casino_table_nobody_serves_answers_cluster_unavailable(
    loop: asyncio.AbstractEventLoop, nodes: tuple[CasinoNode, CasinoNode]
) -> None:
    """B stopped running the table (lease lost, handed over): a request from A is refused with
    `cluster_unavailable` until the next owner serves it."""
    a, b = nodes
    login(a.node, "alice")
    b.routing.lost(f"casino:{TABLE}")
    settle(loop, a.node, b.node)
    with pytest.raises(ProtocolError) as refused:
        ask(loop, a.node, "alice", type="casino_join", table_id=TABLE)
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE


def test_an_owner_that_no_longer_runs_the_table_answers_and_never_carries_on(
    loop: asyncio.AbstractEventLoop, nodes: tuple[CasinoNode, CasinoNode]
) -> None:
    """B stopped the table (its lease lost) but still answers its subject a moment: a request
    from A is `cluster_unavailable` from B itself, which does not carry it on (its desk would
    send it to the subject B still serves: a request to itself, again and again, until the
    subscription stops)."""
    a, b = nodes
    login(a.node, "alice")
    del b.desk.tables[TABLE]  # stopped here; b.routing still serves casino:roulette-1
    carried: list[str] = []
    handle = b.routing.handle

    def counted(player: str, table_id: str, name: str, args: dict[str, Any]) -> Any:
        carried.append(name)
        return handle(player, table_id, name, args)

    b.routing.handle = counted  # type: ignore[method-assign]
    with pytest.raises(ProtocolError) as refused:
        ask(loop, a.node, "alice", type="casino_join", table_id=TABLE)
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE
    assert "not run on this node" in refused.value.message
    assert carried == []


def test_a_drop_told_by_a_replaced_session_does_not_undo_a_newer_join(
    loop: asyncio.AbstractEventLoop,
    nats_server: NatsServer,
    nodes: tuple[CasinoNode, CasinoNode],
) -> None:
    """alice joined through A (A's clock 10); the session a node C closed for her tells B her
    drop at C's clock 5: stale, she stays. A drop at 20 (after the join) is her leave. A drop
    of a player connected to B itself is stale too (B's desk has her session)."""
    a, b = nodes
    table = cast(StandIn, b.desk.tables[TABLE])
    login(a.node, "alice")
    a.node.clock.advance(10)
    ask(loop, a.node, "alice", type="casino_join", table_id=TABLE)
    c = casino_node(make_node(loop, nats_server.url, "c", owns=[]))
    try:
        c.routing.joined["alice"] = {TABLE}  # her older session on C had joined too
        c.node.clock.advance(5)
        c.routing.disconnected("alice")
        run(loop, c.routing.views([TABLE]))  # answered after the drop (one subject, in order)
        assert table.players == {"alice"}  # stale: the join through A is newer
        c.routing.joined["alice"] = {TABLE}
        c.node.clock.advance(15)
        c.routing.disconnected("alice")
        until(loop, lambda: not table.players)  # at 20: she left
        login(b.node, "bob")
        ask(loop, b.node, "bob", type="casino_join", table_id=TABLE)  # B's own player
        c.routing.joined["bob"] = {TABLE}
        c.routing.disconnected("bob")
        run(loop, c.routing.views([TABLE]))
        assert table.players == {"bob"}  # connected to B: a drop from C changes nothing
    finally:
        c.routing.stop()
        run(loop, c.node.routing.stop())
