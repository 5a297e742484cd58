"""Tournaments routed across nodes, in one process on a fake bus and a task.Clock
(docs/design/cluster.md, "Tournaments across nodes"; issue 21 item 3).

Node A runs a sit-and-go (its real desk, actor and ledger); nodes B and C run only their desks
and routing, so every request of a player connected to them goes to A over the bus. A refusal
reaches the client with the owner's code, message and details unchanged (P-1); a keyed
registration whose answer was lost, retried on another node, moves money once (P-2); hole cards
go to their holder's node only, on their own subject, and never in a fan-out (C-15); a player
logging in again on another node gets their tournament table back (C-14) and the deal a restart
voided once (T-18), and their table comes back too to a player whose node's NATS connection came
back or whose tournament has a new owner; a chat line at A's table from B is posted by A and
heard on every node (C-13); and the lobby of every node lists A's tournament. A railbird on C
watches A's table (counted for C-1) and gets its events fanned out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import msgspec
import pytest
from twisted.internet.defer import Deferred, fail, maybeDeferred, succeed

from pokerroom.cluster.bus import decode, encode, unavailable
from pokerroom.cluster.payloads import Command, Fanout, Private
from pokerroom.cluster.routing import ClusterRouting
from pokerroom.cluster.tourney_owner import CHANGE_SECONDS, ENDED_SECONDS
from pokerroom.errors import CodedError
from pokerroom.ledger.kinds import wallet
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import parse_request
from pokerroom.server.accounts import Player
from pokerroom.server.hub import Hub
from pokerroom.server.lobby import Lobby
from tests.cluster.test_routing import Chat, Conn
from tests.tournaments.actor_harness import USD, Room
from tournaments.actor.tournament import TournamentActor
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler
from tournaments.store.deal_pending import PendingDeal

SNG = ScheduleEntry("sng-3", "turbo", 100, 10, players=3)
PRIVATE_TYPES = ("hole_cards", "tournament_action_request")


def _matches(pattern: str, subject: str) -> bool:
    want, got = pattern.split("."), subject.split(".")
    return len(want) == len(got) and all(w in ("*", g) for w, g in zip(want, got, strict=True))


@dataclass
class Net:
    """The NATS of the test: subscriptions, responders, and a log of what was published."""

    subs: list[tuple[str, Callable[[bytes, str | None], None]]] = field(default_factory=list)
    responders: dict[str, Callable[[bytes], Any]] = field(default_factory=dict)
    published: list[tuple[str, bytes]] = field(default_factory=list)
    #: Requests whose answer is lost after the owner ran them (the asker sees a timeout).
    lose_answers: int = 0

    def publish(self, subject: str, payload: bytes) -> None:
        self.published.append((subject, payload))
        for pattern, handler in list(self.subs):
            if _matches(pattern, subject):
                handler(payload, None)

    def request(self, subject: str, payload: bytes) -> Deferred[bytes]:
        responder = self.responders.get(subject)
        if responder is None:
            return fail(unavailable("nobody serves this now"))
        d: Deferred[bytes] = maybeDeferred(responder, payload)
        if self.lose_answers:
            self.lose_answers -= 1

            def lost(_: object) -> bytes:
                raise unavailable("no answer in time")

            d.addCallback(lost)
        return d


class FakeBus:
    """What routing uses of `pokerroom.cluster.bus.Bus`, on `Net`, synchronous."""

    def __init__(self, net: Net) -> None:
        self.net = net
        self.connected = True
        self.on_reconnected: list[Callable[[], None]] = []

    def connect(self) -> Deferred[None]:
        return succeed(None)

    def close(self) -> Deferred[None]:
        return succeed(None)

    def flush(self, timeout: int = 2) -> Deferred[None]:
        return succeed(None)

    def publish_quietly(self, subject: str, payload: bytes) -> None:
        self.net.publish(subject, payload)

    def subscribe(self, subject: str, handler: Callable[[bytes, str | None], None]) -> Any:
        entry = (subject, handler)
        self.net.subs.append(entry)
        return succeed(entry)

    def serve(self, subject: str, responder: Callable[[bytes], Any]) -> Any:
        self.net.responders[subject] = responder
        return succeed(("serve", subject))

    def unsubscribe(self, subscription: Any) -> Deferred[None]:
        if subscription[0] == "serve":
            self.net.responders.pop(subscription[1], None)
        elif subscription in self.net.subs:
            self.net.subs.remove(subscription)
        return succeed(None)

    def request(self, subject: str, payload: bytes, timeout: float = 5.0) -> Deferred[bytes]:
        return self.net.request(subject, payload)


class Playing(Conn):
    """A client connection that answers its action requests (check or call) a moment later."""

    def __init__(self, node: Node, player: str) -> None:
        super().__init__()
        self.node, self.player = node, player

    def send_frame(self, frame: bytes) -> None:
        super().send_frame(frame)
        message = self.frames[-1]
        if message["type"] == "tournament_action_request":
            act = "call" if message["actions"]["call"] else "check"
            tid = message["tournament_id"]
            self.node.room.clock.callLater(0, self._act, tid, act)

    def _act(self, tid: str, action: str) -> None:
        answer = ask(
            self.node, self.player, type="tournament_act", tournament_id=tid, action=action
        )
        if isinstance(answer, Deferred):
            answer.addErrback(lambda f: None)  # not the turn any more: the clock acted


@dataclass
class Node:
    name: str
    room: Room
    hub: Hub
    lobby: Lobby
    desk: TournamentDesk
    routing: ClusterRouting


def make_node(room: Room, net: Net, name: str, scheduler: bool) -> Node:
    hub = Hub(room.clock)
    lobby = Lobby(hub, cast(Any, None), cast(Any, Chat()))
    desk = TournamentDesk(hub)
    lobby.tournament_desk = desk
    desk.watchers = lobby.subscribers
    if scheduler:
        desk.scheduler = TournamentScheduler(room.clock, room.ledger, [SNG], players=desk)
        desk.scheduler.startService()
    routing = ClusterRouting(
        cast(Any, FakeBus(net)), name, "test", lobby, {}, room.clock, desk=desk
    )
    routing.start()
    return Node(name, room, hub, lobby, desk, routing)


def ask(node: Node, player: str, **frame: Any) -> Any:
    request = parse_request({"id": 1, **frame}, 1)
    return node.lobby.handle(Player(player, False), "desktop", request)


def answer_of(room: Room, answer: Any) -> Any:
    return room.wait(answer) if isinstance(answer, Deferred) else answer


def refusal_of(room: Room, answer: Any) -> tuple[str, str, dict[str, Any]]:
    """The error the client would get: code, message, details (P-1)."""
    if not isinstance(answer, Deferred):
        pytest.fail(f"answered {answer!r}")
    error = room.failure(answer)
    if isinstance(error, ProtocolError):
        return error.code, error.message, error.details
    assert isinstance(error, CodedError), error
    return error.code, error.message, {}


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def cluster(room: Room) -> Iterator[tuple[Net, Node, Node, Node, str]]:
    net = Net()
    a = make_node(room, net, "a", scheduler=True)
    b = make_node(room, net, "b", scheduler=False)
    c = make_node(room, net, "c", scheduler=False)
    assert a.desk.scheduler is not None
    (tid,) = a.desk.scheduler.actors
    a.routing.took(f"tournament:{tid}")  # the node took its lease: served from now on
    yield net, a, b, c, tid
    for node in (a, b, c):
        node.routing.stop()
    a.desk.scheduler.stopService()


def actor_of(a: Node, tid: str) -> TournamentActor:
    assert a.desk.scheduler is not None
    return a.desk.scheduler.actors.get(tid) or a.desk.scheduler.finished[tid]


def test_a_refusal_reaches_the_other_node_with_the_owners_code_unchanged(
    room: Room, cluster: tuple[Net, Node, Node, Node, str]
) -> None:
    """P-1 across nodes: the client on B gets the very error A's desk gives; the lobby
    watchers of C hear the registration."""
    net, a, b, c, tid = cluster
    b.hub.attach(Conn(), "ann", False)
    assert [t.tournament_id for t in ask(b, "ann", type="tournament_list").tournaments] == [tid]
    tourneys = b.routing.tourneys
    assert tourneys is not None
    good = tourneys.known[tid]  # a forged line (or one of another version) is dropped as it
    forged = msgspec.structs.replace(  # comes: every node's tournament_list still answers
        good, node="z", tournament_id="forged", summary={**good.summary, "entries": "many"}
    )
    net.publish(b.routing.subjects.tourney_lobby, encode(forged))
    assert "forged" not in tourneys.known
    assert [t.tournament_id for t in ask(b, "ann", type="tournament_list").tournaments] == [tid]
    poor = refusal_of(room, ask(b, "ann", type="tournament_register", tournament_id=tid))
    here = refusal_of(room, ask(a, "ann", type="tournament_register", tournament_id=tid))
    assert poor == here and poor[0] == "insufficient_funds"
    room.fund_player("ann", 1000)
    watcher = Conn()  # the tournament lobby on C, watched
    c.hub.attach(watcher, "wes", False)
    ask(c, "wes", type="lobby_subscribe")
    answer_of(room, ask(b, "ann", type="tournament_register", tournament_id=tid))
    room.clock.advance(CHANGE_SECONDS)  # A's line, changed, goes out
    (update,) = watcher.of("tournament_lobby_update")
    assert update["tournament"]["tournament_id"] == tid and update["tournament"]["entries"] == 1
    late = make_node(room, net, "d", scheduler=False)  # a node that starts now asks for lines
    late.hub.attach(Conn(), "ann", False)
    (line,) = ask(late, "ann", type="tournament_list").tournaments
    assert (line.tournament_id, line.entries) == (tid, 1)
    late.routing.stop()
    twice = refusal_of(room, ask(b, "ann", type="tournament_register", tournament_id=tid))
    assert twice[0] == "already_registered"
    unknown = refusal_of(room, ask(b, "ann", type="tournament_rebuy", tournament_id="nope"))
    assert unknown[0] == "unknown_tournament"  # no node serves it, none ever listed it
    net.responders.clear()  # the owner gone, not yet taken over
    gone = refusal_of(room, ask(b, "ann", type="tournament_status_request", tournament_id=tid))
    assert gone[0] == "cluster_unavailable"


def test_a_keyed_registration_retried_on_another_node_moves_money_once(
    room: Room, cluster: tuple[Net, Node, Node, Node, str]
) -> None:
    """P-2 across nodes: the answer lost on B, the retry on C (no memory of it) is the first
    registration's answer, and the wallet paid one buy-in and fee; after unregistering, the
    key's retry is `request_undone`, as on one server."""
    net, a, b, c, tid = cluster
    room.fund_player("bea", 1000)
    b.hub.attach(Conn(), "bea", False)
    net.lose_answers = 1
    lost = refusal_of(room, ask(b, "bea", type="tournament_register", tournament_id=tid, key="k1"))
    assert lost[0] == "cluster_unavailable"  # A registered her; B never heard
    c.hub.attach(Conn(), "bea", False)  # she logs in on C and retries with the same key
    again = answer_of(room, ask(c, "bea", type="tournament_register", tournament_id=tid, key="k1"))
    assert again == {"entry": 1, "chips": 1500}
    assert room.balance(wallet("bea", USD)) == 1000 - 110
    assert list(actor_of(a, tid).state.players) == ["bea"]
    answer_of(room, ask(c, "bea", type="tournament_unregister", tournament_id=tid))
    undone = refusal_of(
        room, ask(c, "bea", type="tournament_register", tournament_id=tid, key="k1")
    )
    assert undone[0] == "request_undone"  # C's memory asks the owner what is true now
    assert room.balance(wallet("bea", USD)) == 1000
    assert room.check()


def test_hole_cards_reach_their_holder_only_and_a_player_resumes_on_another_node(
    room: Room, cluster: tuple[Net, Node, Node, Node, str]
) -> None:
    """C-15: hole cards and action requests go to one player's subject, for that player only;
    public frames fan out. C-14: logging in again elsewhere brings the table back."""
    net, a, b, c, tid = cluster
    conns: dict[str, Playing] = {}
    for node, player in ((a, "ann"), (b, "bea"), (c, "cid")):
        room.fund_player(player, 1000)
        conns[player] = Playing(node, player)
        node.hub.attach(conns[player], player, False)
        answer_of(room, ask(node, player, type="tournament_register", tournament_id=tid))
    actor = actor_of(a, tid)
    room.advance(30, actor)
    assert actor.status in ("running", "finished")
    assert actor.status == "running"
    carried: set[str] = set()  # the players whose cards went over the bus
    for subject, payload in net.published:
        if subject.endswith(".fanout"):
            fanned = json.loads(decode(payload, Fanout).frame)
            assert fanned["type"] not in PRIVATE_TYPES, fanned
        elif ".player." in subject:
            private = decode(payload, Private)
            assert subject.endswith(f".player.{private.player}")
            if json.loads(private.frame)["type"] == "hole_cards":
                carried.add(private.player)
    assert carried == {"bea", "cid"}  # ann is on the owner: hers never left it
    held: dict[str, dict[str, list[str]]] = {}  # hand -> player -> the cards they were sent
    for player, conn in conns.items():
        for frame in conn.of("hole_cards"):
            assert frame["hand_id"] not in held.get(player, {})
            held.setdefault(frame["hand_id"], {})[player] = frame["cards"]
    assert held, "no hand dealt"
    for hand in held.values():
        cards = [card for dealt in hand.values() for card in dealt]
        assert len(cards) == len(set(cards))  # nobody was sent another's cards
    assert conns["bea"].of("table_started") or conns["bea"].of("hand_started")  # fanned out
    away = {p for t in actor.floor.tables.values() for p in t.presence.disconnected}
    assert not away  # T-12: playing from B and C is being connected, not away
    (table,) = b.lobby.open_tables("bea")  # by A's lobby line (C-1 counts it on B)
    dan = Conn()  # a railbird on C
    c.hub.attach(dan, "dan", False)
    c.lobby.caps["desktop"] = 0
    capped = refusal_of(room, maybeDeferred(ask, c, "dan", type="observe", table_id=table))
    assert capped[0] == "table_cap_reached"
    c.lobby.caps["desktop"] = 1
    watched = answer_of(room, ask(c, "dan", type="observe", table_id=table))
    assert watched.snapshot.table_id == table
    assert c.lobby.open_tables("dan") == [table]  # counted for C-1, by A's answer
    room.advance(5, actor)
    assert dan.of("player_acted")  # the table's events fanned out to C
    before = len(conns["bea"].of("table_snapshot"))
    for listener in b.routing.bus.on_reconnected:  # NATS back on B: frames may have been lost
        listener()
    assert len(conns["bea"].of("table_snapshot")) == before + 1  # a fresh one from A
    tourneys = b.routing.tourneys
    assert tourneys is not None  # the tournament's line from a new owner (a failover)
    last = tourneys.known[tid]
    tables = {t: [p for p in who if p != "dan"] for t, who in last.tables.items()}
    moved = msgspec.structs.replace(last, node="z", tables=tables)  # it knows no railbird
    (owned,) = actor.floor.tables.values()
    owned.observers.discard("dan")
    seen = len(dan.of("table_snapshot"))
    net.publish(b.routing.subjects.tourney_lobby, encode(moved))
    assert len(conns["bea"].of("table_snapshot")) == before + 2  # all it sent, again
    assert "dan" in owned.observers and len(dan.of("table_snapshot")) == seen + 1  # rewatched
    answer_of(room, ask(c, "dan", type="unobserve", table_id=table))
    assert c.lobby.open_tables("dan") == []
    answer_of(room, ask(b, "bea", type="chat", table_id=table, text="gl"))  # posted by A
    for player in ("ann", "bea", "cid"):  # its audience on all three nodes hears it
        assert [f["text"] for f in conns[player].of("chat")] == ["gl"]
    b.hub.evict("bea")
    back = Playing(c, "bea")
    c.hub.attach(back, "bea", False)
    voided = PendingDeal(
        "d1", "chip_chop", "system", ("bea", "cid"), (2000, 1000), (200, 100), 0, 0, 0, 0
    )
    actor.deals.restart.voided(voided)  # T-18: a deal in the making when A restarted
    assert c.lobby.reconnected("bea") == [table]  # C-14 on another node: her table
    room.advance(1, actor)
    assert back.of("table_snapshot")
    c.lobby.reconnected("bea")  # and again: the void deal is told once (T-13, T-18)
    room.advance(1, actor)
    assert [m["outcome"] for m in back.of("deal_result")] == ["restart"]
    room.run_to_end(actor)
    assert room.check()
    a.routing.lost(f"tournament:{tid}")  # an ended tournament releases its lease
    ended = answer_of(room, ask(c, "cid", type="tournament_status_request", tournament_id=tid))
    assert ended["status"]["status"] == "finished"  # still asked of A, for a while
    assert tid not in [t.tournament_id for t in ask(c, "cid", type="tournament_list").tournaments]
    room.clock.advance(ENDED_SECONDS)
    gone = refusal_of(room, ask(c, "cid", type="tournament_status_request", tournament_id=tid))
    assert gone[0] == "cluster_unavailable"


def test_a_drop_notice_older_than_the_players_comeback_is_stale_at_the_owner(
    cluster: tuple[Net, Node, Node, Node, str],
) -> None:
    """C-14, T-12 across nodes (as for cash tables: cluster/notices.py): a player who came back
    through node B at 10 (by its clock) is not marked dropped by node C's notice of 5 that
    arrives later; a drop after the comeback counts."""
    net, a, _, _, tid = cluster
    server = a.routing.tourney_server
    assert server is not None
    respond = net.responders[a.routing.subjects.tourney_cmd(tid)]
    table = f"{tid}.1"
    for op, at in (("reconnected", 10.0), ("disconnected", 5.0)):
        respond(encode(Command(op=op, player="cat", args={"table": table, "at": at})))
    assert server.connected("cat")  # the late, older drop changed nothing
    respond(encode(Command(op="disconnected", player="cat", args={"table": table, "at": 11.0})))
    assert not server.connected("cat")
