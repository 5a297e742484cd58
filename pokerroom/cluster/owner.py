"""The owner's side of routing: the tables this node runs, served to the other nodes.

For each table it owns, the node answers `<p>.table.<id>.cmd` by calling its real table actor
for the player named in the command (chat through its lobby, which checks, keeps and
broadcasts the line), and publishes each broadcast of the table on `<p>.table.<id>.ev` with the
table's sequence number (from 1, per owner and lease epoch) and the audience it is for; a
broadcast whose whole audience is connected here is not published and uses no number. A
message for one player not connected here goes out on `<p>.player.<name>` (hole cards, C-15:
only the node holding that player's session listens). Lobby lines go out on `<p>.lobby` when a
seat is taken or left, after a request that may change the counts, and every
`LOBBY_SECONDS` (so a node that starts late learns them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import structlog
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.lobby_part import RoutedLobby
from pokerroom.cluster.notices import ConnectionNotices
from pokerroom.cluster.payloads import Command, LobbyLine, Private, Reply, TableEvent
from pokerroom.cluster.subjects import Subjects
from pokerroom.errors import CodedError
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.wire import WireObject, as_dict

log = structlog.get_logger("pokerroom.cluster")

#: How often the owner repeats the lobby lines of its tables.
LOBBY_SECONDS = 5.0
#: Requests after which the owner tells the table's lobby line again (counts may change).
COUNTING = frozenset({"observe", "unobserve", "sit", "leave"})
_SEAT_CHANGES = (b'"seat_taken"', b'"seat_left"')


def run_command(lobby: RoutedLobby, table_id: str, cmd: Command) -> Any:
    """Run one player's table request on the local actor; its result (or a Deferred)."""
    actor = lobby.tables.get(table_id)
    if actor is None:
        raise ProtocolError(errors.CLUSTER_UNAVAILABLE, f"table {table_id} is not run here now")
    p, a = cmd.player, cmd.args
    match cmd.op:
        case "observe":
            return actor.observe(p)
        case "unobserve":
            return actor.unobserve(p)
        case "act":
            return actor.act(p, a["action"], a.get("amount"))
        case "sit":
            return actor.sit(p, a.get("seat"), a["buy_in"], bool(a.get("wait_for_big_blind")))
        case "top_up":
            return actor.top_up(p, a["amount"], a.get("key"))
        case "sit_out":
            return actor.sit_out(p)
        case "sit_in":
            return actor.sit_in(p, bool(a.get("post", True)))
        case "leave":
            return actor.leave(p)
        case "chat":
            return lobby.post_chat(p, table_id, a["text"])
        case "reconnected":
            return actor.reconnected(p)
        case "disconnected":
            return actor.disconnected(p)
    raise ProtocolError(errors.UNKNOWN_MESSAGE, f"no table request {cmd.op!r}")


def plain(result: Any) -> Any:
    """A result as plain JSON values (what the client would decode)."""
    if isinstance(result, WireObject | dict) or hasattr(result, "name"):
        try:
            return as_dict(result)
        except (TypeError, ValueError):
            return {}
    return {}


def refusal(exc: BaseException | None, audience: list[str] | None, **context: str) -> Reply:
    """The owner's answer to a refused request: the refusal's stable code, message and details
    (the client gets the very same `error`); a crash is logged and answered `internal_error`."""
    if isinstance(exc, ProtocolError):
        code, message, details = exc.code, exc.message, exc.details
    elif isinstance(exc, CodedError):
        code, message, details = exc.code, exc.message, {}
    else:
        log.error("command_crashed", error=repr(exc), **context)
        code, message, details = errors.INTERNAL_ERROR, "the server failed", {}
    return Reply(ok=False, code=code, message=message, details=details, audience=audience)


class TableServer:
    """Serves the tables this node owns to the other nodes."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        node: str,
        lobby: RoutedLobby,
        clock: IReactorTime,
        epoch: Callable[[str], int | None] = lambda resource: None,
    ) -> None:
        self.bus, self.subjects, self.node = bus, subjects, node
        self.lobby, self.hub = lobby, lobby.hub
        self.epoch_of = epoch
        self.served: dict[str, Deferred[Subscription]] = {}
        self.seq: dict[str, int] = {}
        self.epochs: dict[str, int] = {}
        #: Drop notices older than the player's comeback at the table are stale (C-14).
        self.notices = ConnectionNotices(lambda player: self.hub.session_of(player) is not None)
        self._lines = LoopingCall(self.publish_lines)
        self._lines.clock = clock

    def start(self) -> None:
        """Repeat the lobby lines every LOBBY_SECONDS."""
        self._lines.start(LOBBY_SECONDS, now=False)

    def stop(self) -> None:
        """Stop serving every table."""
        if self._lines.running:
            self._lines.stop()
        for table_id in list(self.served):
            self.unserve(table_id)

    # -- tables ---------------------------------------------------------------------------------
    def serve(self, table_id: str) -> Deferred[Subscription]:
        """Answer the table's commands from now on (the node took its lease)."""
        self.seq[table_id] = 0
        self.epochs[table_id] = self.epoch_of(f"table:{table_id}") or 0
        d = self.bus.serve(
            self.subjects.table_cmd(table_id), lambda data: self._respond(table_id, data)
        )
        self.served[table_id] = d
        d.addErrback(self._serve_failed, table_id)
        self.publish_line(table_id)
        return d

    def _serve_failed(self, failure: Failure, table_id: str) -> None:
        log.error("serve_failed", table_id=table_id, error=str(failure.value))

    def unserve(self, table_id: str) -> None:
        """Stop answering for the table (the node lost or released its lease)."""
        d = self.served.pop(table_id, None)
        self.seq.pop(table_id, None)
        self.notices.forget(table_id)
        if d is not None:
            d.addCallback(self.bus.unsubscribe).addErrback(lambda f: None)

    # -- commands ---------------------------------------------------------------------------------
    def _respond(self, table_id: str, data: bytes) -> Deferred[bytes]:
        cmd = decode(data, Command)
        if self.notices.stale(table_id, cmd):
            log.info("stale_drop_notice", table_id=table_id, player_id=cmd.player)
            return succeed(encode(Reply(ok=True, result={}, audience=self._audience(table_id))))
        d = maybeDeferred(run_command, self.lobby, table_id, cmd)

        def done(result: Any) -> bytes:
            if cmd.op in COUNTING:
                self.publish_line(table_id)
            return encode(Reply(ok=True, result=plain(result), audience=self._audience(table_id)))

        def refused(failure: Failure) -> bytes:
            audience = self._audience(table_id)
            return encode(refusal(failure.value, audience, table_id=table_id, op=cmd.op))

        return d.addCallbacks(done, refused)

    def _audience(self, table_id: str) -> list[str] | None:
        actor = self.lobby.tables.get(table_id)
        return None if actor is None else sorted(actor.audience)

    # -- the hub's relay: broadcasts and private messages -------------------------------------
    def broadcast(self, table_id: str, frame: bytes, exclude: Iterable[str]) -> None:
        """A broadcast of a served table, for its audience on every node, numbered."""
        if table_id not in self.served:
            return
        head = frame[:32]
        if any(change in head for change in _SEAT_CHANGES):
            self.publish_line(table_id)
        skip = set(exclude)
        audience = [p for p in self.hub.audience_of(table_id) if p not in skip]
        if all(self.hub.session_of(p) is not None for p in audience):
            return  # all of them connected here: nothing to carry (and no number used up)
        seq = self.seq[table_id] = self.seq.get(table_id, 0) + 1
        event = TableEvent(
            table_id=table_id,
            node=self.node,
            epoch=self.epochs.get(table_id, 0),
            seq=seq,
            audience=audience,
            frame=frame,
        )
        self.bus.publish_quietly(self.subjects.table_ev(table_id), encode(event))

    def send(self, player: str, frame: bytes) -> None:
        """A message for one player who is not connected here (C-15: their subject only)."""
        message = Private(player=player, frame=frame)
        self.bus.publish_quietly(self.subjects.player(player), encode(message))

    # -- lobby lines --------------------------------------------------------------------------
    def publish_line(self, table_id: str) -> None:
        """Tell every node the table's lobby line and audience."""
        actor = self.lobby.tables.get(table_id)
        if actor is None or not self.bus.connected:
            return
        line = LobbyLine(
            node=self.node,
            table=as_dict(self.lobby.summary(table_id)),
            audience=sorted(actor.audience),
            epoch=self.epochs.get(table_id, 0),
        )
        self.bus.publish_quietly(self.subjects.lobby, encode(line))

    def publish_lines(self) -> None:
        """Every served table's lobby line."""
        for table_id in list(self.served):
            self.publish_line(table_id)
