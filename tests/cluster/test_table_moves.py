"""Observers keep a table open when it moves between nodes (docs/design/cluster.md, "Tables
that move"), over a real nats-server, in one process: node A runs t1 with three observers, one
connected to each of A, B and C; A hands t1 over (drain, balance, failover: A's actor and its
observers are gone) and B takes it with a new actor that has none. Each observer is brought
back at B by the node holding their session (A and C when they hear B's first lobby line, B at
once when it takes the table) and gets B's snapshot; a player who closed the table before the
move is not brought back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from functools import partial
from typing import Any, cast

import pytest

from tests.cluster.loop import run, until
from tests.cluster.natsproc import NatsServer
from tests.cluster.test_routing import Node, StandIn, ask, login, make_node, settle


@pytest.fixture
def nodes(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> Iterator[tuple[Node, Node, Node]]:
    a = make_node(loop, nats_server.url, "a", owns=["t1"])
    b = make_node(loop, nats_server.url, "b", owns=[])
    c = make_node(loop, nats_server.url, "c", owns=[])
    yield a, b, c
    for node in (a, b, c):
        run(loop, node.routing.stop())


def snapshots(conn: Any) -> list[dict[str, Any]]:
    """The snapshot marker the stand-in's `reconnected` sends (tests/cluster/test_routing.py)."""
    return [f for f in conn.of("chat") if f.get("player") == "snapshot"]


def test_observers_on_every_node_watch_a_table_again_at_its_next_owner(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node, Node]
) -> None:
    """Module docstring."""
    a, b, c = nodes
    conns = {name: login(node, name) for name, node in (("oa", a), ("ob", b), ("oc", c))}
    gone = login(c, "gone")
    for name, node in (("oa", a), ("ob", b), ("oc", c), ("gone", c)):
        ask(loop, node, name, type="observe", table_id="t1")
    ask(loop, c, "gone", type="unobserve", table_id="t1")  # closed it before the move
    old = cast(StandIn, a.lobby.tables["t1"])
    assert old.observers == {"oa", "ob", "oc"}
    a.routing.server.publish_line("t1")  # every node knows A's audience of t1
    until(loop, lambda: b.routing.remote.tables["t1"].audience == {"oa", "ob", "oc"})
    until(loop, lambda: c.routing.remote.tables["t1"].audience == {"oa", "ob", "oc"})

    a.routing.left("t1", old.audience)  # A stops t1 (what the room's lobby removal tells)
    del a.lobby.tables["t1"]
    a.routing.lost("table:t1")
    new = StandIn("t1", b.hub)  # B's actor: no observer (they were A's, in memory)
    b.lobby.add_table("t1", cast(Any, new))
    b.routing.took("table:t1")  # serves t1 and tells its lobby line
    settle(loop, a, b, c)
    try:
        until(loop, lambda: new.observers == {"oa", "ob", "oc"})
    finally:
        print(
            "DBG", new.observers, new.calls, [n.routing.remote.watchers.__dict__ for n in (a, b, c)]
        )
    for conn in conns.values():
        until(loop, partial(snapshots, conn))  # B's snapshot, on every node
    assert ("reconnected", "oc") in new.calls and ("reconnected", "oa") in new.calls
    assert "gone" not in new.observers and not snapshots(gone)
    rewatched = [node.routing.remote.watchers.rewatched for node in (a, b, c)]
    assert rewatched == [1, 1, 1]
