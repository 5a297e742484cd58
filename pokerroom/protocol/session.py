"""One session per TCP connection: frames, handshake, login, dispatch, keepalive, back-pressure.

The session frames and checks requests and hands them to the lobby with the logged-in player's
id; it never takes an identity from a message (docs/ARCHITECTURE.md rule 8). Requests are
started in the order they arrive; each gets `ok` or `error` (P-1) when it is done, so answers
to slow requests (a `leave` waits for the hand to end) may come after later ones. Outbound
frames go straight to the transport until it pauses us (its buffer is full); on a TCP
connection the frames of one reactor turn leave in one write (`WriteBatch`: after each request
is handled, else at the end of the turn). While paused they wait in a queue, and a client whose
queue passes `outbound_queue_max` frames or `outbound_queue_max_bytes` bytes is cut off
(slow_reader): the session's `Outbox` (`pokerroom.protocol.outbox`). Its limits and the
connection caps are `pokerroom.protocol.connection`'s. Inbound, each read is charged to the
connection's budget of frames and bytes per second (`pokerroom.protocol.inbound`) before it is
decoded; past the budget the session stops reading from the socket for a while, and cuts off a
client that keeps flooding (inbound_flood). The limits that keep one client from holding the
room's memory or threads (connection caps, the login deadline, the login throttle) are
described in docs/SECURITY.md.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import TYPE_CHECKING, Any, cast

import structlog
from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import (
    IConsumer,
    IDelayedCall,
    IPushProducer,
    IReactorTime,
    ITCPTransport,
)
from twisted.internet.protocol import Protocol, ServerFactory, connectionDone
from twisted.python.failure import Failure
from zope.interface import implementer

from pokerroom.errors import CodedError
from pokerroom.protocol import errors
from pokerroom.protocol.answers import Answer, Result
from pokerroom.protocol.connection import ConnectionGate, SessionSettings, peer_host
from pokerroom.protocol.direct import batch_for
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import Frame, Keepalive, error_message, goodbye, ok
from pokerroom.protocol.fields import normalize_name
from pokerroom.protocol.framing import MAX_FRAME, NEWLINE, FrameDecoder, encode_frame
from pokerroom.protocol.messages import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Request,
    check_request_id,
    parse_request,
)
from pokerroom.protocol.outbox import Outbox
from pokerroom.protocol.results import Empty, Greeting, LoggedIn, Pong
from pokerroom.server.throttle import Attempt, LoginThrottle

if TYPE_CHECKING:
    from pokerroom.server.accounts import Player, PlayerAccounts
    from pokerroom.server.hub import Hub, Token
    from pokerroom.server.lobby import Lobby

log = structlog.get_logger("pokerroom.session")
_ids = itertools.count(1)
SERVER_NAME = "pokerroom"


def error_of(failure: Failure) -> ProtocolError:
    """Turn any failure into the ProtocolError the client sees (codes of every layer kept)."""
    exc = failure.value
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, CodedError):  # EngineError, LedgerError, DirectorError keep their codes
        return ProtocolError(exc.code, exc.message)
    log.error("request_crashed", error=repr(exc), traceback=failure.getTraceback())
    return ProtocolError(errors.INTERNAL_ERROR, "the server failed; nothing was changed")


def _resumed_player(record: Token | None) -> Player:
    """The player a resume token names; `bad_token` if it is unknown, used or expired."""
    if record is None:
        raise ProtocolError(errors.BAD_TOKEN, "the token is unknown, used or expired")
    from pokerroom.server.accounts import Player

    return Player(record.player, record.is_moderator)


@implementer(IPushProducer)  # the transport pauses and resumes our writes (back-pressure)
class RoomSession(Protocol):
    """The protocol of one client connection."""

    def __init__(
        self,
        hub: Hub,
        lobby: Lobby,
        accounts: PlayerAccounts,
        clock: IReactorTime,
        settings: SessionSettings,
        *,
        gate: ConnectionGate | None = None,
        throttle: LoginThrottle | None = None,
    ) -> None:
        self.hub, self.lobby, self.accounts = hub, lobby, accounts
        self.clock, self.settings = clock, settings
        self.gate = gate
        self.throttle = LoginThrottle() if throttle is None else throttle
        self.session_id = next(_ids)
        self.client_kind: str | None = None
        self.player: Player | None = None
        self.address = "local"
        self._admitted = False
        self._logging_in = False  # a register/login/resume is running: a second one is refused
        self._deadline: IDelayedCall | None = None
        self._decoder = FrameDecoder(MAX_FRAME)
        self._pending: deque[dict[str, Any] | ProtocolError] = deque()
        self._in_flight = 0
        self._closing = False
        #: What this connection sends, and what waits while the transport is full.
        self._out = Outbox(
            clock,
            max_frames=settings.outbound_queue_max,
            max_bytes=settings.outbound_queue_max_bytes,
            slow_reader=self._slow_reader,
        )
        self._last_in = 0.0
        self._timer: IDelayedCall | None = None
        self._budget = settings.inbound_budget(clock.seconds())
        self._unpause: IDelayedCall | None = None  # while set, the socket is not read
        self.log = log.bind(session_id=self.session_id)

    # -- connection -----------------------------------------------------------------------
    def connectionMade(self) -> None:
        """Admit the connection (caps), register for back-pressure, start the timers."""
        transport = self.transport
        assert transport is not None  # makeConnection sets it before calling us
        self.address = peer_host(transport.getPeer())
        refusal = self.gate.admit(self.address) if self.gate is not None else None
        if refusal is not None:
            self.log.info("connection_refused", peer=self.address, reason=refusal)
            transport.write(encode_frame(goodbye(errors.TOO_MANY_CONNECTIONS, refusal)))
            self._closing = self._out.closed = True
            transport.loseConnection()
            return
        self._admitted = True
        # Protocol.transport is typed ITransport; a TCP transport (and the tests' StringTransport)
        # is also the IConsumer that takes us as its streaming producer.
        cast(IConsumer, transport).registerProducer(self, True)
        self._out.open(transport, batch_for(transport))
        if hasattr(transport, "setTcpNoDelay"):  # small frames: no Nagle delay
            cast(ITCPTransport, transport).setTcpNoDelay(True)
        self._last_in = self.clock.seconds()
        self._schedule()
        self._arm_deadline()
        self.log.info("connected", peer=str(transport.getPeer()))

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        """Stop timers; tell the lobby the player dropped (seats are kept, C-14)."""
        self._closing = self._out.closed = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._cancel_deadline()
        if self._unpause is not None and self._unpause.active():
            self._unpause.cancel()
        self._unpause = None
        if self._admitted and self.gate is not None:
            self._admitted = False
            self.gate.release(self.address)
        self._out.stop()
        self._out.drop_held()
        if self.player is not None and self.hub.detach(self, self.player.name):
            self.lobby.disconnected(self.player.name)
        self.log.info("disconnected")

    def dataReceived(self, data: bytes) -> None:
        """Charge the read to the inbound budget, reassemble frames, handle them in order."""
        if self._closing:
            return
        wait = self._budget.charge(data.count(NEWLINE), len(data), self.clock.seconds())
        if wait and not self._hold_reading(wait):
            return
        try:
            frames = self._decoder.feed(data)
        except ProtocolError as exc:  # frame_too_large: the stream cannot be trusted
            self.close(exc.code, exc.message)
            return
        if frames:  # only a complete frame shows the client is alive: bytes alone do not
            self._last_in = self.clock.seconds()
        if self._in_flight + len(frames) > self.settings.max_pending_requests:
            self.close(errors.TOO_MANY_REQUESTS, "too many requests waiting for an answer")
            return
        self._pending.extend(frames)
        self._next()
        if self._out.writes is not None:  # the answers and the events they caused leave now
            self._out.writes.flush()

    def _hold_reading(self, seconds: float) -> bool:
        """Past the inbound budget: do not read the socket for `seconds` (this read is still
        handled). False if the connection was closed instead, for flooding again and again."""
        assert self.transport is not None
        if self._unpause is not None:  # data the transport delivered although paused
            if self._unpause.getTime() < self.clock.seconds() + seconds:
                self._unpause.reset(seconds)
            return True
        if self._budget.paused(self.clock.seconds()):
            self.log.warning("inbound_flood", pauses=self.settings.inbound_pauses_max)
            self.close(errors.INBOUND_FLOOD, "you sent too much, too fast, again and again")
            return False
        self.log.debug("reading_paused", seconds=round(seconds, 3))
        cast(IPushProducer, self.transport).pauseProducing()
        self._unpause = self.clock.callLater(seconds, self._resume_reading)
        return True

    def _resume_reading(self) -> None:
        self._unpause = None
        if not self._closing and self.transport is not None:
            cast(IPushProducer, self.transport).resumeProducing()

    # -- requests ---------------------------------------------------------------------------
    def _next(self) -> None:
        while self._pending and not self._closing:
            frame = self._pending.popleft()
            if isinstance(frame, ProtocolError):
                self.send(error_message(frame, None))
                continue
            try:
                request_id = check_request_id(frame.get("id"))
            except ProtocolError as exc:
                self.send(error_message(exc, None))
                continue
            self._in_flight += 1
            try:
                result = self._dispatch(frame, request_id)
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
                self._answer_ok,
                self._answer_error,
                callbackArgs=(request_id, frame),
                errbackArgs=(request_id,),
            )
            result.addBoth(self._done)

    def _answer_ok(
        self, result: Result | None, request_id: int | str, frame: dict[str, Any]
    ) -> None:
        try:
            self.send(ok(request_id, frame["type"], result))
        except (TypeError, ValueError):  # not JSON-able or larger than a frame: answer (P-1)
            self.log.error("answer_too_large", request=frame["type"])
            failure = ProtocolError(errors.INTERNAL_ERROR, "the answer did not fit in a frame")
            self.send(error_message(failure, request_id))
        if frame["type"] in ("register", "login", "resume") and self.player is not None:
            self.lobby.reconnected(self.player.name)  # C-14: snapshots follow the answer

    def _answer_error(self, failure: Failure, request_id: int | str) -> None:
        error = error_of(failure)
        try:
            self.send(error_message(error, request_id))
        except (TypeError, ValueError):  # details too large or not JSON-able: still answer (P-1)
            self.log.error("error_too_large", code=error.code)
            self.send(
                error_message(ProtocolError(error.code, "the request was refused"), request_id)
            )

    def _done(self, _: object) -> None:
        self._in_flight -= 1

    def _dispatch(self, frame: dict[str, Any], request_id: int | str) -> Answer:
        request = parse_request(frame, request_id)
        name = request.message.name
        if name == "ping":
            return Pong(server_time_ms=int(self.clock.seconds() * 1000))
        if name == "hello":
            return self._hello(request)
        if self.client_kind is None:
            raise ProtocolError(errors.HELLO_REQUIRED, "send hello first")
        if request.message.before_login:
            if self.player is not None or self._logging_in:  # also one sent right behind another
                raise ProtocolError(errors.ALREADY_LOGGED_IN, "this session is logged in")
            self._logging_in = True
            try:
                d = self._login(request)
            except BaseException:
                self._logging_in = False
                raise
            return d.addBoth(self._login_ended)
        if self.player is None:
            raise ProtocolError(errors.LOGIN_REQUIRED, f"{name} needs a login")
        if name == "logout":
            return self._logout()
        return self.lobby.handle(self.player, self.client_kind, request)

    def _hello(self, request: Request) -> Greeting:
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
        return Greeting(
            protocol_version=PROTOCOL_VERSION,
            server=SERVER_NAME,
            heartbeat_seconds=self.settings.heartbeat_seconds,
            idle_timeout_seconds=self.settings.idle_timeout_seconds,
            max_frame=MAX_FRAME,
            table_cap=self.lobby.table_cap(self.client_kind),
        )

    def _login_ended(self, result: Any) -> Any:
        self._logging_in = False
        return result

    def _login(self, request: Request) -> Deferred[LoggedIn]:
        args = request.args
        if request.name == "register":
            d = self.accounts.register(args["name"], args["password"], self.address)
        elif request.name == "login":  # throttled per name and address (docs/SECURITY.md)
            name = normalize_name(args["name"])
            attempt = self.throttle.begin(name, self.address, self.clock.seconds())
            d = self.accounts.login(args["name"], args["password"], self.address)
            d.addBoth(self._attempt_ended, attempt)
        else:  # in cluster mode the token may be another node's: the store answers later
            d = self.hub.redeem_later(args["token"]).addCallback(_resumed_player)
        return d.addCallback(self._logged_in)

    def _attempt_ended(self, result: Any, attempt: Attempt) -> Any:
        """Tell the throttle how a login ended: only a wrong name or password counts."""
        failed = (
            isinstance(result, Failure)
            and isinstance(result.value, ProtocolError)
            and result.value.code == errors.BAD_CREDENTIALS
        )
        self.throttle.end(attempt, self.clock.seconds(), failed=failed)
        return result

    def _logged_in(self, player: Player) -> LoggedIn:
        if self._closing:
            raise ProtocolError(errors.INTERNAL_ERROR, "the connection closed during login")
        self._cancel_deadline()
        self.player = player
        self.log = self.log.bind(player_id=player.name)
        token = self.hub.attach(self, player.name, player.is_moderator)
        tables = self.lobby.open_tables(player.name)
        self.log.info("logged_in", tables=len(tables))
        return LoggedIn(
            player_id=player.name, token=token, moderator=player.is_moderator, tables=tables
        )

    def _logout(self) -> Empty:
        assert self.player is not None
        if self.hub.detach(self, self.player.name, logout=True):
            self.lobby.disconnected(self.player.name)
        self.log.info("logged_out")
        self.player = None
        self._arm_deadline()  # logged out: log in again within the deadline, or be closed
        return Empty()

    # -- outbound -------------------------------------------------------------------------------
    def send(self, message: Frame) -> None:
        """Write one message now, or queue it while the transport is paused."""
        if self._closing or self.transport is None:
            return
        self.send_frame(encode_frame(message))

    def send_frame(self, frame: bytes) -> None:
        """Write one encoded frame (a broadcast is encoded once for all its receivers); on TCP
        it joins the frames of this reactor turn, written together by `flush`."""
        if self._closing or self.transport is None:
            return
        self._out.send(frame)

    def flush(self) -> None:
        """Write the frames held for this turn, in order, in one write."""
        self._out.flush()

    def _slow_reader(self, frames: int, size: int) -> None:
        """The client does not read its messages: cut it off (its queue is dropped)."""
        self.log.warning("slow_reader", queued=frames, bytes=size)
        self.close(errors.SLOW_READER, "you did not read your messages; disconnected", True)

    def pauseProducing(self) -> None:
        """The transport's buffer is full: queue from now on (frames held for this turn first,
        to keep the order)."""
        self._out.pause()

    def resumeProducing(self) -> None:
        """The transport drained: write what waited, in order."""
        self._out.resume()

    def stopProducing(self) -> None:
        """The transport is going away."""
        self._out.stop()

    def replaced(self) -> None:
        """Another connection logged in as this player."""
        self.player = None  # this session speaks for no one any more
        self.close(errors.SESSION_REPLACED, "you logged in on another connection")

    def close(self, code: str, message: str, abort: bool = False) -> None:
        """Send `goodbye` (unless aborting a reader that does not read) and close."""
        if self._closing or self.transport is None:
            return
        if not abort:
            self.flush()  # what was sent before goes before the goodbye
            self.transport.write(encode_frame(goodbye(code, message)))
        self._out.drop_held()
        self._closing = self._out.closed = True
        self.log.info("closing", code=code)
        if abort and hasattr(self.transport, "abortConnection"):
            self.transport.abortConnection()
        else:
            self.transport.loseConnection()

    # -- timers -------------------------------------------------------------------------------
    def _arm_deadline(self) -> None:
        """Log in within `hello_timeout_seconds`; traffic does not move the deadline."""
        self._cancel_deadline()
        if self.settings.hello_timeout_seconds > 0:
            self._deadline = self.clock.callLater(
                self.settings.hello_timeout_seconds, self._deadline_passed
            )

    def _cancel_deadline(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def _deadline_passed(self) -> None:
        self._deadline = None
        if self.player is None:
            seconds = self.settings.hello_timeout_seconds
            self.close(errors.LOGIN_TIMEOUT, f"send hello and log in within {seconds:g} s")

    def _schedule(self) -> None:
        self._timer = self.clock.callLater(self.settings.heartbeat_seconds / 3, self._tick)

    def _tick(self) -> None:
        now = self.clock.seconds()
        if now - self._last_in >= self.settings.idle_timeout_seconds:
            self.close(errors.IDLE_TIMEOUT, "nothing heard from the client")
            return
        if now - self._out.last_out >= self.settings.heartbeat_seconds:
            self.send(Keepalive(server_time_ms=int(now * 1000)))
        if not self._closing:
            self._schedule()


class RoomFactory(ServerFactory):
    """Builds a RoomSession per connection."""

    def __init__(
        self,
        hub: Hub,
        lobby: Lobby,
        accounts: PlayerAccounts,
        clock: IReactorTime,
        settings: SessionSettings | None = None,
        throttle: LoginThrottle | None = None,
    ) -> None:
        self.hub, self.lobby, self.accounts, self.clock = hub, lobby, accounts, clock
        self.settings = settings or SessionSettings()
        self.throttle = LoginThrottle() if throttle is None else throttle
        self.gate = ConnectionGate(
            self.settings.max_connections, self.settings.max_connections_per_address
        )

    def buildProtocol(self, addr: object) -> RoomSession:
        """A new session for a new connection."""
        session = RoomSession(
            self.hub,
            self.lobby,
            self.accounts,
            self.clock,
            self.settings,
            gate=self.gate,
            throttle=self.throttle,
        )
        session.factory = self
        return session
