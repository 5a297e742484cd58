"""Casino requests over NATS: a player on any node plays at a casino table another node runs
(docs/design/cluster.md, "Casino tables").

The owner of `casino:<id>` answers `<p>.casino.<id>.cmd` (a `Command`: the request's name as
`op`, its checked fields as `args`) by running it on its desk for that player, and replies with
the answer as plain JSON values or the refusal's code (the client gets the very same `error`).
The table's events reach the player through the hub's relay (their `player` subject). The node
holding the player's session remembers the remote tables they joined or watch, and when the
session ends tells each owner `casino_dropped` (the owner's `casino_leave`: confirmed bets still
settle, K-9). Joins and drops carry when they happened by the sending node's clock (`at`), and
the owner ignores a drop older than the player's last join there, or of a player connected to
the owner itself: the node that closed a replaced session must not undo a join made through the
new one (as for a cash table's C-14 notices). `casino_tables`
lists the tables run here and asks each other owner for its line (`casino_view`; a table no
node answers for is listed with phase `unavailable`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import structlog
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred, gatherResults, maybeDeferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.owner import plain
from pokerroom.cluster.payloads import Command, Reply
from pokerroom.cluster.subjects import Subjects, table_token
from pokerroom.errors import CodedError
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

log = structlog.get_logger("pokerroom.cluster")
CASINO = "casino:"
#: The owner's line of one of its tables, for `casino_tables` asked on another node.
VIEW = "casino_view"
#: A session ended on the sending node: the owner's `casino_leave`, unless it is stale.
DROPPED = "casino_dropped"
#: How long a request waits for the owner; a confirmation or decision moves money.
TIMEOUTS = {"casino_confirm": 30.0, "casino_decide": 30.0}
DEFAULT_SECONDS = 5.0
VIEW_SECONDS = 2.0
UNAVAILABLE = "unavailable"
#: The owner's answer for a table it no longer runs (its subscription outlived the lease a
#: moment): run here, the desk would carry the request to the subject this node still serves.
NOT_HERE = "this casino table is not run on this node now"
_JOINING = frozenset({"casino_join", "casino_observe"})


def casino_cmd(subjects: Subjects, table_id: str) -> str:
    """Requests to the node running a casino table (request/reply)."""
    return f"{subjects.prefix}.casino.{table_token(table_id)}.cmd"


def refusal(exc: BaseException | None, table_id: str, op: str) -> Reply:
    """A refused request's reply: its stable code, message and details; a crash is logged
    and answered `internal_error`."""
    if isinstance(exc, ProtocolError):
        return Reply(ok=False, code=exc.code, message=exc.message, details=exc.details)
    if isinstance(exc, CodedError):
        return Reply(ok=False, code=exc.code, message=exc.message)
    log.error("casino_command_crashed", table_id=table_id, op=op, error=repr(exc))
    return Reply(ok=False, code=errors.INTERNAL_ERROR, message="the server failed")


class Desk(Protocol):
    """The room's casino desk as routing uses it (pokerroom/server/casino_desk.py)."""

    @property
    def specs(self) -> Mapping[str, tuple[CasinoTableConfig, Mapping[str, Any]]]:
        """Every casino table of the room: id -> (config, its game's settings)."""
        ...

    @property
    def tables(self) -> Mapping[str, object]:
        """The casino tables this node runs now."""
        ...

    def run(self, player: str, name: str, args: dict[str, Any]) -> Any:
        """Run one `casino_*` request for `player`: its answer (or a Deferred)."""
        ...

    def line(self, table_id: str) -> dict[str, Any]:
        """The lobby line of a table run here, as plain JSON values."""
        ...


class CasinoRouting:
    """The desk's `RemoteCasino` in cluster mode, and the owner's side of casino requests."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        desk: Desk,
        clock: IReactorTime,
        connected: Callable[[str], bool] = lambda player: False,
    ) -> None:
        self.bus, self.subjects, self.desk = bus, subjects, desk
        self.clock = clock
        self.connected = connected  # whether a player's session is on this node
        self.served: dict[str, Deferred[Subscription]] = {}
        #: player connected here -> the tables other nodes run that they joined or watch.
        self.joined: dict[str, set[str]] = {}
        #: (table, player) -> when they last joined or watched a table run here, by the clock
        #: of the node that carried it: a drop told before that is stale.
        self.joined_at: dict[tuple[str, str], float] = {}

    # -- the owner's side ---------------------------------------------------------------------
    def took(self, resource: str) -> None:
        """The node runs `casino:<id>` now (its `on_take`): answer its requests."""
        if resource.startswith(CASINO):
            table_id = resource[len(CASINO) :]
            if table_id not in self.served:
                subject = casino_cmd(self.subjects, table_id)
                d = self.bus.serve(subject, lambda data: self._respond(table_id, data))
                d.addErrback(self._serve_failed, table_id)
                self.served[table_id] = d

    def lost(self, resource: str) -> None:
        """The node stopped running it (its `on_lose`): stop answering."""
        if resource.startswith(CASINO):
            d = self.served.pop(resource[len(CASINO) :], None)
            if d is not None:
                d.addCallback(self.bus.unsubscribe).addErrback(lambda f: None)

    def stop(self) -> None:
        """Stop answering for every table."""
        for table_id in list(self.served):
            self.lost(CASINO + table_id)

    def _serve_failed(self, failure: Failure, table_id: str) -> None:
        log.error("casino_serve_failed", table_id=table_id, error=str(failure.value))

    def _respond(self, table_id: str, data: bytes) -> Deferred[bytes]:
        cmd = decode(data, Command)
        if table_id not in self.desk.tables:  # moved on just now: never carried on from here
            reply = Reply(ok=False, code=errors.CLUSTER_UNAVAILABLE, message=NOT_HERE)
            return succeed(encode(reply))
        args = dict(cmd.args)
        at, key = float(args.pop("at", 0.0)), (table_id, cmd.player)
        op = cmd.op
        if op in _JOINING:
            self.joined_at[key] = max(at, self.joined_at.get(key, at))
        elif op == DROPPED:
            if self.connected(cmd.player) or at < self.joined_at.get(key, at):
                log.info("stale_casino_drop", table_id=table_id, player_id=cmd.player)
                return succeed(encode(Reply(ok=True, result={})))
            self.joined_at.pop(key, None)
            op = "casino_leave"
        if op == VIEW:
            d: Deferred[Any] = maybeDeferred(self.desk.line, table_id)
        else:
            d = maybeDeferred(self.desk.run, cmd.player, op, {**args, "table_id": table_id})

        def done(result: Any) -> bytes:
            return encode(Reply(ok=True, result=result if cmd.op == VIEW else plain(result)))

        def refused(failure: Failure) -> bytes:
            return encode(refusal(failure.value, table_id, cmd.op))

        return d.addCallbacks(done, refused)

    # -- the session's side (the desk's RemoteCasino) -------------------------------------------
    def _call(
        self, table_id: str, op: str, player: str, args: dict[str, Any], timeout: float
    ) -> Deferred[Reply]:
        payload = encode(Command(op=op, player=player, args=args))
        d = self.bus.request(casino_cmd(self.subjects, table_id), payload, timeout)
        return d.addCallback(decode, Reply)

    def handle(self, player: str, table_id: str, name: str, args: dict[str, Any]) -> Deferred[Any]:
        """A request for a table another node runs: its answer, or its refusal's code
        (`cluster_unavailable` if no node answers for it)."""

        def answered(reply: Reply) -> Any:
            if not reply.ok:
                raise ProtocolError(reply.code, reply.message, reply.details)
            if name in _JOINING:
                self.joined.setdefault(player, set()).add(table_id)
            elif name == "casino_leave":
                self.joined.get(player, set()).discard(table_id)
            return reply.result

        timeout = TIMEOUTS.get(name, DEFAULT_SECONDS)
        if name in _JOINING:
            args = {**args, "at": self.clock.seconds()}
        found: Deferred[Any] = self._call(table_id, name, player, args, timeout)
        return found.addCallback(answered)

    def views(self, table_ids: list[str]) -> Deferred[list[Any]]:
        """The owners' lines of these tables; one no node answers for: phase `unavailable`."""

        def one(table_id: str) -> Deferred[Any]:
            def answered(reply: Reply) -> Any:
                if not reply.ok:
                    raise ProtocolError(reply.code, reply.message)
                return reply.result

            def unanswered(failure: Failure) -> dict[str, Any]:
                config = self.desk.specs[table_id][0]
                return {
                    "table_id": table_id,
                    "game": config.game,
                    "currency": config.currency,
                    "phase": UNAVAILABLE,
                    "round_id": None,
                    "closes_ms": None,
                    "players": 0,
                }

            d: Deferred[Any] = self._call(table_id, VIEW, "", {}, VIEW_SECONDS)
            return d.addCallback(answered).addErrback(unanswered)

        lines: Deferred[list[Any]] = gatherResults([one(t) for t in table_ids], consumeErrors=True)
        return lines

    def disconnected(self, player: str) -> None:
        """The player's session here ended: they leave each remote table they had joined."""

        def failed(failure: Failure, table_id: str) -> None:
            log.warning("casino_leave_failed", table_id=table_id, error=str(failure.value))

        at = self.clock.seconds()
        for table_id in sorted(self.joined.pop(player, ())):
            d = self._call(table_id, DROPPED, player, {"at": at}, DEFAULT_SECONDS)
            d.addErrback(failed, table_id)


__all__ = ["CasinoRouting", "casino_cmd", "errors"]
