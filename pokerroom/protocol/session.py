"""One session per TCP connection: frames, handshake, login, dispatch, keepalive, back-pressure.

The session frames and checks requests and hands them to the lobby with the logged-in
player's id; it never takes an identity from a message (ARCHITECTURE rule 8). Requests are
started in the order they arrive; each gets `ok` or `error` (P-1) when it is done, so
answers to slow requests (a `leave` waits for the hand to end) may come after later ones.
Outbound frames go straight to the transport until it pauses us (its buffer is full): then
they wait in a queue, and a client whose queue passes `outbound_queue_max` is cut off (slow_reader).
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.protocol import Factory, Protocol
from twisted.python.failure import Failure

from pokerroom.errors import CodedError
from pokerroom.protocol import errors
from pokerroom.protocol.direct import write_now
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import goodbye, ok
from pokerroom.protocol.framing import MAX_FRAME, FrameDecoder, encode_frame
from pokerroom.protocol.messages import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Request,
    check_request_id,
    parse_request,
)

if TYPE_CHECKING:
    from pokerroom.server.accounts import Player, PlayerAccounts
    from pokerroom.server.hub import Hub
    from pokerroom.server.lobby import Lobby

log = structlog.get_logger("pokerroom.session")
_ids = itertools.count(1)
SERVER_NAME = "pokerroom"


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """Per-connection limits (`[session]` in config/room.toml)."""

    heartbeat_seconds: float = 30.0
    idle_timeout_seconds: float = 90.0
    outbound_queue_max: int = 2000
    max_pending_requests: int = 64


def error_of(failure: Failure) -> ProtocolError:
    """Turn any failure into the ProtocolError the client sees (codes of every layer kept)."""
    exc = failure.value
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, CodedError):  # EngineError, LedgerError, DirectorError keep their codes
        return ProtocolError(exc.code, exc.message)
    log.error("request_crashed", error=repr(exc), traceback=failure.getTraceback())
    return ProtocolError(errors.INTERNAL_ERROR, "the server failed; nothing was changed")


class RoomSession(Protocol):
    """The protocol of one client connection."""

    def __init__(
        self,
        hub: Hub,
        lobby: Lobby,
        accounts: PlayerAccounts,
        clock: IReactorTime,
        settings: SessionSettings,
    ) -> None:
        self.hub, self.lobby, self.accounts = hub, lobby, accounts
        self.clock, self.settings = clock, settings
        self.session_id = next(_ids)
        self.client_kind: str | None = None
        self.player: Player | None = None
        self._decoder = FrameDecoder(MAX_FRAME)
        self._pending: deque[dict[str, Any] | ProtocolError] = deque()
        self._in_flight = 0
        self._closing = False
        self._paused = False
        self._outbox: deque[bytes] = deque()
        self._last_in = self._last_out = 0.0
        self._timer: IDelayedCall | None = None
        self.log = log.bind(session_id=self.session_id)

    # -- connection -----------------------------------------------------------------------
    def connectionMade(self) -> None:
        """Register for back-pressure and start the keepalive timer."""
        self.transport.registerProducer(self, True)  # type: ignore[union-attr]
        if hasattr(self.transport, "setTcpNoDelay"):  # small frames: no Nagle delay
            self.transport.setTcpNoDelay(True)
        self._last_in = self._last_out = self.clock.seconds()
        self._schedule()
        self.log.info("connected", peer=str(self.transport.getPeer()))  # type: ignore[union-attr]

    def connectionLost(self, reason: Failure = None) -> None:  # type: ignore[assignment]
        """Stop timers; tell the lobby the player dropped (seats are kept, C-14)."""
        self._closing = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._outbox.clear()
        if self.player is not None and self.hub.detach(self, self.player.name):
            self.lobby.disconnected(self.player.name)
        self.log.info("disconnected")

    def dataReceived(self, data: bytes) -> None:
        """Reassemble frames and queue them for handling in order."""
        if self._closing:
            return
        self._last_in = self.clock.seconds()
        try:
            frames = self._decoder.feed(data)
        except ProtocolError as exc:  # frame_too_large: the stream cannot be trusted
            self.close(exc.code, exc.message)
            return
        if self._in_flight + len(frames) > self.settings.max_pending_requests:
            self.close(errors.TOO_MANY_REQUESTS, "too many requests waiting for an answer")
            return
        self._pending.extend(frames)
        self._next()

    # -- requests ---------------------------------------------------------------------------
    def _next(self) -> None:
        while self._pending and not self._closing:
            frame = self._pending.popleft()
            if isinstance(frame, ProtocolError):
                self.send(frame.to_message(None))
                continue
            try:
                request_id = check_request_id(frame.get("id"))
            except ProtocolError as exc:
                self.send(exc.to_message(None))
                continue
            self._in_flight += 1
            try:
                result = self._dispatch(frame)
            except BaseException:  # as maybeDeferred would: the error becomes the answer
                result = fail()
            if isinstance(result, Failure):
                result = fail(result)
            if not isinstance(result, Deferred):  # answered at once (an `act`): no Deferred
                try:
                    self._answer_ok(result, request_id, frame)
                finally:
                    self._in_flight -= 1
                continue
            result.addCallbacks(
                self._answer_ok, self._answer_error, (request_id, frame), None, (request_id,)
            )
            result.addBoth(self._done)

    def _answer_ok(self, result: dict[str, Any] | None, request_id: object, frame: dict) -> None:
        try:
            self.send(ok(request_id, frame["type"], result))  # type: ignore[arg-type]
        except (TypeError, ValueError):  # not JSON-able or larger than a frame: answer (P-1)
            self.log.error("answer_too_large", request=frame["type"])
            failure = ProtocolError(errors.INTERNAL_ERROR, "the answer did not fit in a frame")
            self.send(failure.to_message(request_id))
        if frame["type"] in ("register", "login", "resume") and self.player is not None:
            self.lobby.reconnected(self.player.name)  # C-14: snapshots follow the answer

    def _answer_error(self, failure: Failure, request_id: object) -> None:
        self.send(error_of(failure).to_message(request_id))

    def _done(self, _: object) -> None:
        self._in_flight -= 1

    def _dispatch(self, frame: dict[str, Any]) -> Any:
        request = parse_request(frame)
        if request.name == "ping":
            return {"server_time_ms": int(self.clock.seconds() * 1000)}
        if request.name == "hello":
            return self._hello(request)
        if self.client_kind is None:
            raise ProtocolError(errors.HELLO_REQUIRED, "send hello first")
        if request.message.before_login:
            if self.player is not None:
                raise ProtocolError(errors.ALREADY_LOGGED_IN, "this session is logged in")
            return self._login(request)
        if self.player is None:
            raise ProtocolError(errors.LOGIN_REQUIRED, f"{request.name} needs a login")
        if request.name == "logout":
            return self._logout()
        return self.lobby.handle(self.player, self.client_kind, request)

    def _hello(self, request: Request) -> dict[str, Any]:
        if self.client_kind is not None:
            raise ProtocolError(errors.ALREADY_GREETED, "hello was already sent")
        version = request.args["version"]
        if version not in SUPPORTED_VERSIONS:
            raise ProtocolError(
                errors.UNSUPPORTED_VERSION,
                f"protocol version {version} is not spoken here; use one of {SUPPORTED_VERSIONS}",
            )
        self.client_kind = request.args["client"]
        self.log = self.log.bind(client=self.client_kind)
        return {
            "protocol_version": PROTOCOL_VERSION,
            "server": SERVER_NAME,
            "heartbeat_seconds": self.settings.heartbeat_seconds,
            "idle_timeout_seconds": self.settings.idle_timeout_seconds,
            "max_frame": MAX_FRAME,
            "table_cap": self.lobby.table_cap(self.client_kind),
        }

    def _login(self, request: Request) -> Deferred[dict[str, Any]]:
        args = request.args
        if request.name == "register":
            d = self.accounts.register(args["name"], args["password"])
        elif request.name == "login":
            d = self.accounts.login(args["name"], args["password"])
        else:
            record = self.hub.redeem(args["token"])
            if record is None:
                raise ProtocolError(errors.BAD_TOKEN, "the token is unknown, used or expired")
            from pokerroom.server.accounts import Player

            d = Deferred()
            d.callback(Player(record.player, record.is_moderator))
        return d.addCallback(self._logged_in)

    def _logged_in(self, player: Player) -> dict[str, Any]:
        if self._closing:
            raise ProtocolError(errors.INTERNAL_ERROR, "the connection closed during login")
        self.player = player
        self.log = self.log.bind(player_id=player.name)
        token = self.hub.attach(self, player.name, player.is_moderator)
        tables = self.lobby.open_tables(player.name)
        self.log.info("logged_in", tables=len(tables))
        return {
            "player_id": player.name,
            "token": token,
            "moderator": player.is_moderator,
            "tables": tables,
        }

    def _logout(self) -> dict[str, Any]:
        assert self.player is not None
        if self.hub.detach(self, self.player.name, logout=True):
            self.lobby.disconnected(self.player.name)
        self.log.info("logged_out")
        self.player = None
        return {}

    # -- outbound -------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        """Write one message now, or queue it while the transport is paused."""
        if self._closing or self.transport is None:
            return
        self.send_frame(encode_frame(message))

    def send_frame(self, frame: bytes) -> None:
        """Write one encoded frame (a broadcast is encoded once for all its receivers)."""
        if self._closing or self.transport is None:
            return
        self._last_out = self.clock.seconds()
        if not self._paused:
            write_now(self.transport, frame)
            return
        self._outbox.append(frame)
        if len(self._outbox) > self.settings.outbound_queue_max:
            self.log.warning("slow_reader", queued=len(self._outbox))
            self._outbox.clear()
            self.close(errors.SLOW_READER, "you did not read your messages; disconnected", True)

    def pauseProducing(self) -> None:
        """The transport's buffer is full: queue from now on."""
        self._paused = True

    def resumeProducing(self) -> None:
        """The transport drained: write what waited, in order."""
        self._paused = False
        while self._outbox and not self._paused and self.transport is not None:
            self.transport.write(self._outbox.popleft())

    def stopProducing(self) -> None:
        """The transport is going away."""
        self._outbox.clear()

    def replaced(self) -> None:
        """Another connection logged in as this player."""
        self.player = None  # this session speaks for no one any more
        self.close(errors.SESSION_REPLACED, "you logged in on another connection")

    def close(self, code: str, message: str, abort: bool = False) -> None:
        """Send `goodbye` (unless aborting a reader that does not read) and close."""
        if self._closing or self.transport is None:
            return
        if not abort:
            self.transport.write(encode_frame(goodbye(code, message)))
        self._closing = True
        self.log.info("closing", code=code)
        if abort and hasattr(self.transport, "abortConnection"):
            self.transport.abortConnection()
        else:
            self.transport.loseConnection()

    # -- keepalive ----------------------------------------------------------------------------
    def _schedule(self) -> None:
        self._timer = self.clock.callLater(self.settings.heartbeat_seconds / 3, self._tick)

    def _tick(self) -> None:
        now = self.clock.seconds()
        if now - self._last_in >= self.settings.idle_timeout_seconds:
            self.close(errors.IDLE_TIMEOUT, "nothing heard from the client")
            return
        if now - self._last_out >= self.settings.heartbeat_seconds:
            self.send({"type": "keepalive", "server_time_ms": int(now * 1000)})
        if not self._closing:
            self._schedule()


class RoomFactory(Factory):
    """Builds a RoomSession per connection."""

    def __init__(
        self,
        hub: Hub,
        lobby: Lobby,
        accounts: PlayerAccounts,
        clock: IReactorTime,
        settings: SessionSettings | None = None,
    ) -> None:
        self.hub, self.lobby, self.accounts, self.clock = hub, lobby, accounts, clock
        self.settings = settings or SessionSettings()

    def buildProtocol(self, addr: object) -> RoomSession:
        """A new session for a new connection."""
        session = RoomSession(self.hub, self.lobby, self.accounts, self.clock, self.settings)
        session.factory = self
        return session
