"""Routing between two nodes over a real nats-server, in one process: a player connected to
node A opens, sits, plays and chats at a table node B owns; hole cards reach their holder only
(C-15); a sequence gap brings a fresh snapshot; logging in on B replaces the session on A; the
C-1 cap on A counts the tables B runs.

Each node here is the real hub, lobby and routing; the table is a small stand-in actor that
speaks through the hub as the cash actor does (the end-to-end test plays real tables).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec
import pytest
from twisted.internet.defer import Deferred, succeed
from twisted.internet.task import Clock

from pokerroom.cash import CashTableConfig
from pokerroom.cluster.bus import Bus, encode
from pokerroom.cluster.payloads import Command
from pokerroom.cluster.remote_room import RESYNC_RETRY_SECONDS, RESYNC_TRIES, UNKNOWN
from pokerroom.cluster.routing import ClusterRouting
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import ChatLine, Frame, HoleCards, SeatTaken
from pokerroom.protocol.messages import parse_request
from pokerroom.protocol.results import Empty
from pokerroom.server.accounts import Player
from pokerroom.server.hub import Hub
from pokerroom.server.lobby import Lobby
from pokerroom.table.views import TableListener
from tests.cluster.loop import run, until
from tests.cluster.natsproc import NatsServer, require_nats


@dataclass
class Conn:
    """A client connection as the hub sees it: what it was sent, decoded."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    goodbye: str | None = None

    def send(self, message: Frame) -> None:
        self.frames.append(msgspec.json.decode(msgspec.json.encode(message)))

    def send_frame(self, frame: bytes) -> None:
        self.frames.append(msgspec.json.decode(frame))

    def replaced(self) -> None:
        self.goodbye = errors.SESSION_REPLACED

    def close(self, code: str, message: str) -> None:
        self.goodbye = code

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == kind]


class StandIn:
    """A table that speaks through its listener (the hub) like the cash actor."""

    def __init__(self, table_id: str, listener: TableListener) -> None:
        self.config = CashTableConfig(table_id)
        self.table_id = table_id
        self.listener = listener
        self.observers: set[str] = set()
        self.by_player: dict[str, int] = {}
        self.hand_running = False
        self.calls: list[tuple[str, str]] = []

    @property
    def audience(self) -> set[str]:
        return self.observers | set(self.by_player)

    def in_hand(self, player_id: str) -> bool:
        return player_id in self.by_player

    def observe(self, player_id: str) -> dict[str, Any]:
        self.calls.append(("observe", player_id))
        self.observers.add(player_id)
        return {"table_id": self.table_id, "seen_by": player_id}

    def unobserve(self, player_id: str) -> Empty:
        self.observers.discard(player_id)
        return Empty()

    def sit(
        self, player_id: str, seat: int | None, buy_in: int, wait_for_big_blind: bool = False
    ) -> Deferred[dict[str, Any]]:
        self.calls.append(("sit", player_id))
        number = len(self.by_player) if seat is None else seat
        self.by_player[player_id] = number
        event = SeatTaken(table_id=self.table_id, seat=number, player=player_id, stack=buy_in)
        self.listener.broadcast(self.table_id, event, set())
        return succeed({"seat": number, "stack": buy_in})

    def deal(self, hand: str) -> None:
        """Each seated player's cards to them only (C-15), then a public line."""
        for player in sorted(self.by_player):
            cards = HoleCards(table_id=self.table_id, hand_id=hand, cards=[f"{player}-card"])
            self.listener.send(player, cards)
        self.listener.broadcast(
            self.table_id,
            ChatLine(table_id=self.table_id, player="dealer", text=hand, at_ms=0),
            set(),
        )

    def act(self, player_id: str, action: str, amount: int | None = None) -> Empty:
        self.calls.append(("act", player_id))
        if action == "raise":
            raise ProtocolError("not_your_turn", "wait", {"seat": 3})
        return Empty()

    def reconnected(self, player_id: str) -> dict[str, Any]:
        self.calls.append(("reconnected", player_id))
        self.listener.send(player_id, _snapshot_message(self.table_id))
        return {}

    def disconnected(self, player_id: str) -> None:
        self.calls.append(("disconnected", player_id))


def _snapshot_message(table_id: str) -> Frame:
    """The snapshot the owner resends (its content does not matter here: a marked line)."""
    return cast(Frame, ChatLine(table_id=table_id, player="snapshot", text="fresh", at_ms=1))


class Chat:
    """The chat service's `post` (every line accepted) and `load` (counted)."""

    changed: Any = None
    loads = 0

    def load(self) -> Deferred[None]:
        self.loads += 1
        return succeed(None)

    def post(self, player: str, table_id: str, text: str, **_: Any) -> Deferred[ChatLine]:
        return succeed(ChatLine(table_id=table_id, player=player, text=text, at_ms=7))


class Bans:
    """The staff service's bans: what the other nodes asked of it."""

    def __init__(self) -> None:
        self.ban_changed: Any = None
        self.asked: list[tuple[str, str, bool]] = []

    def enforce_ban(self, player: str, *, tell: bool = True) -> list[Deferred[Any]]:
        self.asked.append(("ban", player, tell))
        return [succeed(None)]

    def lift_ban(self, player: str, *, tell: bool = True) -> None:
        self.asked.append(("lift", player, tell))

    def reload_bans(self) -> Deferred[None]:
        self.asked.append(("reload", "", False))
        return succeed(None)


@dataclass
class Node:
    name: str
    hub: Hub
    lobby: Lobby
    routing: ClusterRouting
    clock: Clock
    bans: Bans


def make_node(
    loop: asyncio.AbstractEventLoop, url: str, name: str, owns: list[str], caps: int = 8
) -> Node:
    clock = Clock()
    hub = Hub(clock)
    lobby = Lobby(hub, cast(Any, None), cast(Any, Chat()), caps={"desktop": caps})
    configs = {t: CashTableConfig(t) for t in ("t1", "t2", "t3")}
    bus = Bus(url, name=name, loop=loop, reconnect_seconds=0.05)
    owned = frozenset(f"table:{t}" for t in owns)
    for table_id in owns:
        lobby.add_table(table_id, cast(Any, StandIn(table_id, hub)))
    bans = Bans()
    routing = ClusterRouting(
        bus, name, "test", lobby, configs, clock, owned=lambda: owned, bans=bans
    )
    run(loop, routing.start())
    return Node(name, hub, lobby, routing, clock, bans)


def ask(loop: asyncio.AbstractEventLoop, node: Node, player: str, **frame: Any) -> Any:
    request = parse_request({"id": 1, **frame}, 1)
    answer = node.lobby.handle(Player(player, False), "desktop", request)
    return run(loop, answer) if isinstance(answer, Deferred) else answer


def login(node: Node, player: str) -> Conn:
    conn = Conn()
    node.hub.attach(conn, player, False)
    return conn


@pytest.fixture
def nodes(loop: asyncio.AbstractEventLoop, nats_server: NatsServer) -> Iterator[tuple[Node, Node]]:
    a = make_node(loop, nats_server.url, "a", owns=["t2"], caps=2)
    b = make_node(loop, nats_server.url, "b", owns=["t1"])
    yield a, b
    for node in (a, b):
        run(loop, node.routing.stop())


def settle(loop: asyncio.AbstractEventLoop, *nodes: Node) -> None:
    """Wait until both buses have seen what was sent (subscriptions in place)."""
    for node in nodes:
        run(loop, node.routing.bus.flush())


def tick(clock: Clock, seconds: float) -> bool:
    """Move a node's clock on (inside a wait's test); False."""
    clock.advance(seconds)
    return False


def table_b(b: Node) -> StandIn:
    return cast(StandIn, b.lobby.tables["t1"])


def test_a_player_on_a_plays_at_a_table_b_owns_and_sees_only_their_own_cards(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    ann, cat = login(a, "ann"), login(a, "cat")  # on node A
    bob = login(b, "bob")  # on node B, the owner
    settle(loop, a, b)
    observed = ask(loop, a, "ann", type="observe", table_id="t1")
    assert table_b(b).calls[0] == ("observe", "ann")
    assert observed.snapshot == {"table_id": "t1", "seen_by": "ann"}
    assert a.lobby.open_tables("ann") == ["t1"]  # A counts the remote table (C-1)
    ask(loop, a, "cat", type="observe", table_id="t1")
    seated = ask(loop, a, "ann", type="sit", table_id="t1", buy_in=100)
    assert seated == {"seat": 0, "stack": 100}
    ask(loop, b, "bob", type="sit", table_id="t1", buy_in=80)
    until(loop, lambda: len(ann.of("seat_taken")) == 2 and len(cat.of("seat_taken")) == 2)
    assert [f["player"] for f in bob.of("seat_taken")] == ["bob"]  # not watching before

    table_b(b).deal("h1")
    until(loop, lambda: ann.of("chat") and cat.of("chat"))
    assert [f["cards"] for f in ann.of("hole_cards")] == [["ann-card"]]
    assert [f["cards"] for f in bob.of("hole_cards")] == [["bob-card"]]
    assert cat.of("hole_cards") == []  # an observer on A gets no one's cards
    assert bob.of("chat") == ann.of("chat") == cat.of("chat")  # one public line, once each

    assert ask(loop, a, "ann", type="act", table_id="t1", action="check") == {}  # Empty()
    with pytest.raises(ProtocolError) as refused:
        ask(loop, a, "ann", type="act", table_id="t1", action="raise", amount=10)
    assert (refused.value.code, refused.value.details) == ("not_your_turn", {"seat": 3})

    ask(loop, a, "ann", type="chat", table_id="t1", text="hello")  # posted by the owner
    until(loop, lambda: any(f["text"] == "hello" for f in bob.of("chat")))
    until(loop, lambda: any(f["text"] == "hello" for f in ann.of("chat")))


def test_a_gap_in_the_events_brings_a_fresh_snapshot(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    ann = login(a, "ann")
    settle(loop, a, b)
    ask(loop, a, "ann", type="observe", table_id="t1")
    table_b(b).deal("h1")
    until(loop, lambda: ann.of("chat"))
    assert a.routing.remote.gaps == 0
    b.routing.server.seq["t1"] += 3  # three events lost on the way
    table_b(b).deal("h2")
    until(loop, lambda: ("reconnected", "ann") in table_b(b).calls)
    until(loop, lambda: any(f["text"] == "fresh" for f in ann.of("chat")))
    assert a.routing.remote.gaps == 1
    table_b(b).deal("h3")  # numbered on from there: no gap
    until(loop, lambda: any(f["text"] == "h3" for f in ann.of("chat")))
    assert a.routing.remote.gaps == 1


def test_logging_in_on_b_replaces_the_session_on_a(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    old = login(a, "ann")
    other = login(a, "cat")
    settle(loop, a, b)
    b.clock.advance(5)  # the later login
    new = login(b, "ann")
    until(loop, lambda: old.goodbye == errors.SESSION_REPLACED)
    assert a.hub.session_of("ann") is None and b.hub.session_of("ann") is new
    assert new.goodbye is None and other.goodbye is None
    assert a.routing.sessions.replaced == 1
    assert "ann" not in a.routing.sessions.listening  # A no longer takes ann's messages


def test_the_older_login_never_replaces_the_newer(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    a.clock.advance(10)
    newer = login(a, "ann")
    settle(loop, a, b)
    older = login(b, "ann")  # B's clock says 0: a claim older than A's session
    until(loop, lambda: older.goodbye == errors.SESSION_REPLACED)
    assert newer.goodbye is None and a.hub.session_of("ann") is newer


def test_the_cap_on_a_counts_tables_b_runs_and_the_lobby_lists_both(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    login(a, "ann")
    login(a, "cat")
    settle(loop, a, b)
    ask(loop, a, "ann", type="observe", table_id="t1")  # remote
    ask(loop, a, "ann", type="observe", table_id="t2")  # local
    with pytest.raises(ProtocolError) as capped:  # a desktop cap of 2 here
        ask(loop, a, "ann", type="observe", table_id="t3")
    assert capped.value.code == errors.TABLE_CAP_REACHED
    ask(loop, a, "cat", type="sit", table_id="t1", buy_in=50)
    page = ask(loop, a, "ann", type="lobby_list")
    lines = {line.table_id: line for line in page.tables}
    assert sorted(lines) == ["t1", "t2", "t3"]
    until(loop, lambda: a.lobby.summary("t1").players == 1)
    assert a.lobby.summary("t1").observers == 1  # ann (cat sits)


def test_a_table_nobody_serves_answers_cluster_unavailable(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, _ = nodes
    login(a, "ann")
    with pytest.raises(ProtocolError) as caught:
        ask(loop, a, "ann", type="observe", table_id="t3")  # in room.toml, owned by no one
    assert caught.value.code == errors.CLUSTER_UNAVAILABLE
    assert a.lobby.open_tables("ann") == []


def test_a_mute_made_on_a_makes_b_read_the_mutes_again(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    chat_a, chat_b = cast(Chat, a.lobby.chat), cast(Chat, b.lobby.chat)
    settle(loop, a, b)
    assert chat_a.changed is not None
    chat_a.changed()  # what ChatService calls after storing a mute
    until(loop, lambda: chat_b.loads == 1)
    settle(loop, a, b)
    assert chat_a.loads == 0  # its own bell: nothing to read


def test_a_ban_made_on_a_is_enforced_on_b_and_so_is_its_lift(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    settle(loop, a, b)
    a.bans.ban_changed("ann", True)  # what AdminService calls once the ban took effect on a
    until(loop, lambda: b.bans.asked == [("ban", "ann", False)])  # not told on again
    a.bans.ban_changed("ann", False)
    until(loop, lambda: len(b.bans.asked) == 2)
    assert b.bans.asked[1] == ("lift", "ann", False)
    settle(loop, a, b)
    assert a.bans.asked == []


def test_a_broadcast_heard_only_on_the_owner_stays_there_and_numbers_run_on_without_gap(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    bob = login(b, "bob")
    ann = login(a, "ann")
    settle(loop, a, b)
    ask(loop, b, "bob", type="sit", table_id="t1", buy_in=80)
    table_b(b).deal("h1")  # bob alone, on b: nothing goes on the bus
    assert b.routing.server.seq["t1"] == 0 and len(bob.of("chat")) == 1
    ask(loop, a, "ann", type="observe", table_id="t1")
    table_b(b).deal("h2")
    until(loop, lambda: ann.of("chat"))
    assert b.routing.server.seq["t1"] == 1
    table_b(b).deal("h3")
    until(loop, lambda: len(ann.of("chat")) == 2)
    assert a.routing.remote.gaps == 0 and a.routing.remote.last["t1"][2] == 2


def test_a_snapshot_the_owner_could_not_send_yet_is_asked_again(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    """The owner does not serve its table for a moment (after a NATS restart its subscriptions
    come back after the other node's): the resync fails (`cluster_unavailable`) and is asked
    again RESYNC_RETRY_SECONDS later, not only at the quiet table's next event; the tries end."""
    a, b = nodes
    ann = login(a, "ann")
    settle(loop, a, b)
    ask(loop, a, "ann", type="observe", table_id="t1")
    b.routing.server.unserve("t1")
    settle(loop, a, b)
    asked = a.routing.remote.resyncs
    a.routing.remote.resync("t1")
    until(loop, lambda: a.routing.remote.last.get("t1") == UNKNOWN)  # failed: nobody serves
    assert not any(f["text"] == "fresh" for f in ann.of("chat"))
    b.routing.server.serve("t1")
    settle(loop, a, b)
    until(loop, lambda: b.routing.server.served["t1"].called)
    a.clock.advance(RESYNC_RETRY_SECONDS)
    until(loop, lambda: any(f["text"] == "fresh" for f in ann.of("chat")))
    assert a.routing.remote.resyncs == asked + 2
    b.routing.server.unserve("t1")  # never served again: RESYNC_TRIES asks in all, then none
    settle(loop, a, b)
    a.routing.remote.resync("t1")
    for _ in range(RESYNC_TRIES):
        until(loop, lambda: a.routing.remote.last.get("t1") == UNKNOWN)
        del a.routing.remote.last["t1"]
        a.clock.advance(RESYNC_RETRY_SECONDS)
    assert a.routing.remote.resyncs == asked + 2 + RESYNC_TRIES


def test_after_a_nats_restart_each_node_asks_again_for_what_it_may_have_missed(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Events lost while NATS was away, at a table quiet since: the player on A gets a fresh
    snapshot once NATS is back; a log-in on B meanwhile still closes the older session on A."""
    server = NatsServer(require_nats())
    server.start()
    try:
        a = make_node(loop, server.url, "a", owns=["t2"])
        b = make_node(loop, server.url, "b", owns=["t1"])
        ann, cat = login(a, "ann"), login(a, "cat")
        settle(loop, a, b)
        ask(loop, a, "ann", type="observe", table_id="t1")
        server.stop()
        until(loop, lambda: not a.routing.bus.connected and not b.routing.bus.connected)
        table_b(b).deal("lost")  # published nowhere: B is cut off
        b.clock.advance(5)
        login(b, "cat")  # cat logs in on B meanwhile: A cannot hear it yet
        server.start()
        until(loop, lambda: a.routing.bus.reconnects == 1 and b.routing.bus.reconnects == 1, 10)
        # A may ask before B serves t1 again: the snapshot is asked again a second later
        until(
            loop, lambda: tick(a.clock, 0.05) or any(f["text"] == "fresh" for f in ann.of("chat"))
        )
        assert not any(f["text"] == "lost" for f in ann.of("chat"))
        until(loop, lambda: cat.goodbye == errors.SESSION_REPLACED)
        assert ann.goodbye is None
        for node in (a, b):  # mutes and bans made meanwhile elsewhere: read again
            assert ("reload", "", False) in node.bans.asked
            assert cast(Chat, node.lobby.chat).loads == 1
        for node in (a, b):
            run(loop, node.routing.stop())
    finally:
        server.stop()


def test_a_drop_notice_from_a_node_the_player_left_is_stale_at_the_owner(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    """C-14 across nodes: a player who left node A and came back on the owner B, or (later by
    the clocks) through another node, is not marked dropped by A's late notice."""
    a, b = nodes
    table = table_b(b)
    login(b, "ann")  # ann is on the owner now
    settle(loop, a, b)
    remote = a.routing.remote.get("t1")
    assert remote is not None
    run(loop, a.routing.remote.call("t1", "disconnected", "ann", {}, 5.0))
    a.clock.advance(10)
    run(loop, remote.reconnected("cat"))  # cat came back through a node at 10
    late = Command(op="disconnected", player="cat", args={"at": 5.0})  # sent at 5, arrived late
    run(loop, a.routing.bus.request(a.routing.subjects.table_cmd("t1"), encode(late)))
    fresh = Command(op="disconnected", player="cat", args={"at": 11.0})
    run(loop, a.routing.bus.request(a.routing.subjects.table_cmd("t1"), encode(fresh)))
    drops = [call for call in table.calls if call[0] == "disconnected"]
    assert drops == [("disconnected", "cat")]  # only the fresh one


def test_bans_and_mutes_are_read_again_every_staff_reload_seconds(
    loop: asyncio.AbstractEventLoop, nodes: tuple[Node, Node]
) -> None:
    """A ban's or mute's bell lost on NATS without a disconnect (at-most-once delivery) delays
    it on another node by at most `staff_reload_seconds`: each node reads both again then."""
    a, _ = nodes
    assert ("reload", "", False) not in a.bans.asked
    loads = cast(Chat, a.lobby.chat).loads
    a.clock.advance(a.routing.staff_reload_seconds - 0.1)
    assert ("reload", "", False) not in a.bans.asked
    a.clock.advance(0.1)
    assert a.bans.asked.count(("reload", "", False)) == 1
    assert cast(Chat, a.lobby.chat).loads == loads + 1
    a.clock.advance(a.routing.staff_reload_seconds)
    assert a.bans.asked.count(("reload", "", False)) == 2
