"""The owner's side of tournament routing: the tournaments this node runs, served to the others
(docs/design/cluster.md, "Tournaments across nodes").

For each tournament whose lease it holds, the node answers `<p>.tourney.<id>.cmd`: a desk
request (`request`: register, unregister, re-enter, rebuy, add-on with their P-2 `key`, status,
staking, deals, acting) is run by its real desk for the player named in the command (the
session's player, ARCH 8); a table request (`observe`, `unobserve`, `act`, `reconnected`,
`disconnected`, at one of its tables) by that table; `chat` there by the lobby (C-13: checked
with who is in the running hand, kept, broadcast to the table's audience on every node);
`restart_told` tells the player the deal a restart voided (T-13, T-18). The answer is the
result as plain JSON values or the refusal's `code`, `message` and `details` (the client gets
the very same `error`), with the table's audience after a table request. A tournament that
ended here is still served (its status and results) for `ENDED_SECONDS`.

Its lobby line (`TourneyLine`: summary, registered players, each open table's audience) goes
out on `<p>.tourneys` when the desk says it changed (at most once per `CHANGE_SECONDS`), and
every `LINE_SECONDS` (so a node that starts late learns it, and moves between its tables show).
Frames for its players go through the hub as on one node: one player's by `Hub.send` (on that
player's subject when they are on another node, C-15), lists by `Hub.send_all` (a fan-out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.notices import ConnectionNotices
from pokerroom.cluster.owner import plain, refusal
from pokerroom.cluster.payloads import Command, LinesAsked, Reply, TourneyLine
from pokerroom.cluster.subjects import Subjects
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import CLIENT_MESSAGES, Request
from pokerroom.protocol.wire import as_dict

if TYPE_CHECKING:
    from pokerroom.protocol.answers import Answer
    from pokerroom.protocol.tournament_messages import TournamentSummary
    from tournaments.actor.tournament import TournamentActor
    from tournaments.tables.table import TournamentTable

log = structlog.get_logger("pokerroom.cluster")

#: How often the owner repeats the lobby lines of its tournaments.
LINE_SECONDS = 5.0
#: A changed line waits this long, so a burst of changes (registrations) sends one.
CHANGE_SECONDS = 0.2
#: How long a tournament that ended here is still served (its status and results asked from
#: other nodes); its line is told once, not repeated.
ENDED_SECONDS = 3600.0
#: The desk requests an owner runs for another node's player.
DESK_PREFIXES = ("tournament_", "stake_", "deal_")
TABLE_OPS = frozenset({"observe", "unobserve", "act", "reconnected", "disconnected", "chat"})
#: A chat line at a table run here: checked, kept and broadcast (the lobby's `post_chat`).
PostChat = Callable[[str, str, str], "Deferred[Any]"]


class TourneyDesk(Protocol):
    """What the owner's side needs of the tournament desk (tournaments.desk.desk)."""

    def handle(self, player: str, request: Request) -> Answer:
        """Run one `tournament_*` request for `player`."""
        ...

    def runs(self, tournament_id: str) -> TournamentActor | None:
        """The tournament's actor if it runs (or ran) here."""
        ...

    def is_open(self, tournament_id: str) -> bool:
        """Whether the tournament runs here and has not ended."""
        ...

    def table(self, table_id: str) -> TournamentTable | None:
        """A table of a tournament run here."""
        ...

    def summary(self, actor: TournamentActor) -> TournamentSummary:
        """A tournament's lobby line."""
        ...

    def restart_told(self, player: str, tournament_id: str | None = None) -> None:
        """The deal a restart voided, to `player` once."""
        ...


class Connected(Protocol):
    """Who is connected to this node (the hub)."""

    def session_of(self, player: str) -> object | None:
        """The player's session here, if any."""
        ...


def run_tourney_command(
    desk: TourneyDesk, tournament_id: str, cmd: Command, post_chat: PostChat | None = None
) -> Any:
    """Run one command of another node's player on this node's desk; the result (or a
    Deferred)."""
    if desk.runs(tournament_id) is None:
        raise ProtocolError(errors.CLUSTER_UNAVAILABLE, f"{tournament_id} is not run here now")
    p, a = cmd.player, cmd.args
    if cmd.op == "request":
        name = str(a.get("name", ""))
        message = CLIENT_MESSAGES.get(name)
        if message is None or not name.startswith(DESK_PREFIXES):
            raise ProtocolError(errors.UNKNOWN_MESSAGE, f"no tournament request {name!r}")
        args = dict(a.get("args", {}))
        if args.get("tournament_id") != tournament_id:
            raise ProtocolError(errors.UNKNOWN_TOURNAMENT, f"not {tournament_id}")
        return desk.handle(p, Request(message=message, id=0, args=args))
    if cmd.op == "restart_told":
        desk.restart_told(p, tournament_id)
        return None
    if cmd.op not in TABLE_OPS:
        raise ProtocolError(errors.UNKNOWN_MESSAGE, f"no tournament command {cmd.op!r}")
    table = _table(desk, tournament_id, str(a.get("table", "")))
    match cmd.op:
        case "observe":
            return table.observe(p)
        case "unobserve":
            return table.unobserve(p)
        case "act":
            return table.act(p, a["action"], a.get("amount"))
        case "reconnected":
            return table.reconnected(p)
        case "chat" if post_chat is not None:
            return post_chat(p, table.wire_id, str(a.get("text", "")))
        case "chat":
            raise ProtocolError(errors.CLUSTER_UNAVAILABLE, "no chat here")
    table.disconnected(p)
    return None


def _table(desk: TourneyDesk, tournament_id: str, table_id: str) -> TournamentTable:
    table = desk.table(table_id)
    if table is None or table.tournament_id != tournament_id:
        raise ProtocolError(errors.UNKNOWN_TABLE, f"no table {errors.excerpt(table_id)}")
    return table


class TourneyServer:
    """Serves the tournaments this node runs to the other nodes."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        node: str,
        desk: TourneyDesk,
        hub: Connected,
        clock: IReactorTime,
        post_chat: PostChat | None = None,
    ) -> None:
        self.bus, self.subjects, self.node = bus, subjects, node
        self.post_chat = post_chat
        self.desk, self.hub, self.clock = desk, hub, clock
        self.served: dict[str, Deferred[Subscription]] = {}
        #: Players of other nodes heard from (a request, an action) and not told dropped since.
        self.elsewhere: set[str] = set()
        #: Drop notices older than the player's comeback at the tournament are stale (C-14).
        self.notices = ConnectionNotices(lambda player: self.hub.session_of(player) is not None)
        self._changed: set[str] = set()
        self._later: IDelayedCall | None = None
        self._ended: dict[str, IDelayedCall] = {}
        self._lines = LoopingCall(self.publish_lines)
        self._lines.clock = clock

    def start(self) -> Deferred[Subscription]:
        """Repeat the lobby lines every LINE_SECONDS, and when a node that starts asks."""
        self._lines.start(LINE_SECONDS, now=False)
        return self.bus.subscribe(self.subjects.tourney_lines_asked, self._asked)

    def _asked(self, data: bytes, reply: str | None) -> None:
        if decode(data, LinesAsked).node != self.node:
            self.publish_lines()

    def stop(self) -> None:
        """Stop serving every tournament."""
        if self._lines.running:
            self._lines.stop()
        if self._later is not None and self._later.active():
            self._later.cancel()
        for later in self._ended.values():
            if later.active():
                later.cancel()
        for tid in list(self.served):
            self.unserve(tid)

    def serve(self, tournament_id: str) -> Deferred[Subscription]:
        """Answer the tournament's commands from now on (the node took its lease)."""
        subject = self.subjects.tourney_cmd(tournament_id)
        d = self.bus.serve(subject, lambda data: self._respond(tournament_id, data))
        d.addErrback(self._serve_failed, tournament_id)
        self.served[tournament_id] = d
        self.publish_line(tournament_id)
        return d

    def _serve_failed(self, failure: Failure, tournament_id: str) -> None:
        log.error("serve_failed", tournament_id=tournament_id, error=str(failure.value))

    def lost(self, tournament_id: str) -> None:
        """The node stopped acting on the tournament's lease: a tournament that ended here is
        still served (status, results); one another node is to run is not."""
        if self.desk.runs(tournament_id) is not None and not self.desk.is_open(tournament_id):
            self.publish_line(tournament_id)
            if tournament_id not in self._ended:
                later = self.clock.callLater(ENDED_SECONDS, self.unserve, tournament_id)
                self._ended[tournament_id] = later
            return
        self.unserve(tournament_id)

    def unserve(self, tournament_id: str) -> None:
        """Stop answering for the tournament."""
        d = self.served.pop(tournament_id, None)
        self._changed.discard(tournament_id)
        self.notices.forget(tournament_id)
        later = self._ended.pop(tournament_id, None)
        if later is not None and later.active():
            later.cancel()
        if d is not None:
            d.addCallback(self.bus.unsubscribe).addErrback(lambda f: None)

    # -- commands ---------------------------------------------------------------------------------
    def connected(self, player: str) -> bool:
        """T-12: whether the player is connected here, or to the node that last asked for them
        (and did not tell they dropped since)."""
        return self.hub.session_of(player) is not None or player in self.elsewhere

    def _respond(self, tournament_id: str, data: bytes) -> Deferred[bytes]:
        cmd = decode(data, Command)
        table_id = str(cmd.args.get("table", "")) if cmd.op in TABLE_OPS else ""
        if self.notices.stale(tournament_id, cmd):
            cmd = Command(op="noop", player=cmd.player)  # C-14: came back since, here or not
        elif cmd.op == "disconnected":
            self.elsewhere.discard(cmd.player)
        else:
            self.elsewhere.add(cmd.player)
        d = maybeDeferred(self._run, tournament_id, cmd)

        def done(result: Any) -> bytes:
            return encode(Reply(ok=True, result=plain(result), audience=self._audience(table_id)))

        def refused(failure: Failure) -> bytes:
            reply = refusal(
                failure.value,
                self._audience(table_id),
                tournament_id=tournament_id,
                op=cmd.op,
            )
            return encode(reply)

        return d.addCallbacks(done, refused)

    def _run(self, tournament_id: str, cmd: Command) -> Any:
        if cmd.op == "noop":
            return None
        return run_tourney_command(self.desk, tournament_id, cmd, self.post_chat)

    def _audience(self, table_id: str) -> list[str] | None:
        table = self.desk.table(table_id) if table_id else None
        return None if table is None else sorted(table.audience)

    # -- lobby lines ------------------------------------------------------------------------------
    def changed(self, tournament_id: str) -> None:
        """The desk says the tournament's line changed: tell it soon (once for a burst)."""
        if tournament_id not in self.served:
            return
        self._changed.add(tournament_id)
        if self._later is None or not self._later.active():
            self._later = self.clock.callLater(CHANGE_SECONDS, self._publish_changed)

    def _publish_changed(self) -> None:
        changed, self._changed = sorted(self._changed), set()
        for tid in changed:
            self.publish_line(tid)

    def publish_line(self, tournament_id: str) -> None:
        """Tell every node the tournament's lobby line and its tables' audiences."""
        actor = self.desk.runs(tournament_id)
        if actor is None:
            self.unserve(tournament_id)
            return
        if not self.bus.connected:
            return
        is_open = self.desk.is_open(tournament_id)
        tables = {
            t.wire_id: sorted(t.audience)
            for t in actor.floor.tables.values()
            if is_open and not t.closed
        }
        line = TourneyLine(
            node=self.node,
            tournament_id=tournament_id,
            open=is_open,
            summary=as_dict(self.desk.summary(actor)),
            players=sorted(actor.state.players),
            tables=tables,
        )
        self.bus.publish_quietly(self.subjects.tourney_lobby, encode(line))

    def publish_lines(self) -> None:
        """Every served tournament's lobby line (those still open)."""
        for tid in list(self.served):
            if self.desk.is_open(tid):
                self.publish_line(tid)
