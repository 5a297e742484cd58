"""One staff connection on the admin endpoint: framing, staff login, role checks, dispatch.

The same wire as the player protocol (docs/PROTOCOL.md sections 1 and 2; docs/ADMIN.md): JSON
lines of at most 64 KiB (`pokerroom.protocol.framing`), every request answered with `ok` or
`error` carrying a stable code (P-1), a refused request changing nothing. A frame that is not
a JSON object is answered `bad_frame` with `id: null`; an oversize frame gets `goodbye`
`frame_too_large` and the connection closes. Requests run one at a time, in order. Before
`staff_login` only `ping` is served: any other request is `login_required` before its form is
looked at (so nothing tells a stranger which commands and fields exist), and player messages
(`hello`, `login`, ...) are refused with `wrong_port`. Connections are capped in all and per
source address (`[admin] max_connections`, `max_connections_per_address`): one past a cap
gets `goodbye` `too_many_connections` and is closed. Failed logins are throttled per name and
per address (the players' throttle, with `[admin]` limits); from a loopback or unix peer,
where every staff member has the same address, the address's count is kept per name
(`throttle.address_key`), so one name's failures never lock another name out. Every request
after login re-reads the staff account: a disabled one is refused (`staff_disabled`) and
closed, a role change applies at once.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Generator
from typing import TYPE_CHECKING, Any
from typing import Protocol as Interface

import structlog
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred
from twisted.internet.interfaces import IDelayedCall
from twisted.internet.protocol import Protocol, ServerFactory, connectionDone
from twisted.python.failure import Failure

from pokerroom.admin import errors as codes
from pokerroom.admin.commands import COMMANDS, parse
from pokerroom.admin.context import AdminRoom, Context
from pokerroom.admin.roles import check_role
from pokerroom.admin.staff import StaffMember, find_staff, touch_login
from pokerroom.errors import CodedError
from pokerroom.protocol import errors
from pokerroom.protocol.connection import ConnectionGate, peer_host
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import ServerMessage, error_message, goodbye, ok
from pokerroom.protocol.fields import normalize_name, text
from pokerroom.protocol.framing import MAX_FRAME, FrameDecoder, encode_frame
from pokerroom.protocol.messages import check_request_id
from pokerroom.server.throttle import address_key

if TYPE_CHECKING:
    from pokerroom.server.throttle import HashPool, LoginThrottle

log = structlog.get_logger("pokerroom.admin")
_ids = itertools.count(1)
ADMIN_PROTOCOL_VERSION = 1
#: Player messages: refused here with `wrong_port` (players connect to the room's port).
PLAYER_MESSAGES = frozenset({"hello", "register", "login", "resume", "logout"})
_NAME = text(64)
_PASSWORD = text(1024)


class StaffRoom(AdminRoom, Interface):
    """What a staff connection needs of the room besides what its commands use: the login
    throttle and hashing, the open sessions (`AdminService` provides it)."""

    hashing: HashPool
    throttle: LoginThrottle
    sessions: set[AdminSession]

    def dummy_hash(self) -> str:
        """A hash to verify against for an unknown staff name (the same work as a known one)."""

    def route(self, ctx: Context, args: Any) -> Deferred[Any] | None:
        """Cluster mode: a command on a table another node runs, carried there (its answer);
        None: it runs here."""


def refusal(failure: Failure) -> ProtocolError:
    """The error a staff client sees for any failure (stable codes of every layer kept)."""
    exc = failure.value
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, CodedError):  # ledger errors: insufficient_funds, idempotency_conflict
        return ProtocolError(exc.code, exc.message)
    log.error("admin_request_crashed", error=repr(exc), traceback=failure.getTraceback())
    return ProtocolError(errors.INTERNAL_ERROR, "the server failed; nothing was changed")


class AdminSession(Protocol):
    """The protocol of one staff connection."""

    def __init__(self, room: StaffRoom, gate: ConnectionGate | None = None) -> None:
        self.room = room
        self.gate = gate
        self._admitted = False
        self.session_id = next(_ids)
        self.staff: StaffMember | None = None
        self.address = "local"
        self._decoder = FrameDecoder(MAX_FRAME)
        self._queue: deque[dict[str, Any] | ProtocolError] = deque()
        self._busy = False
        self._closing = False
        self._last_in = 0.0
        self._deadline: IDelayedCall | None = None
        self._idle: IDelayedCall | None = None
        self.log = log.bind(admin_session=self.session_id)

    # -- connection ---------------------------------------------------------------------------
    def connectionMade(self) -> None:
        """Start the login deadline and the idle check."""
        assert self.transport is not None
        self.address = peer_host(self.transport.getPeer())
        refusal = self.gate.admit(self.address) if self.gate is not None else None
        if refusal is not None:
            self.log.info("admin_connection_refused", peer=self.address, reason=refusal)
            self.close(errors.TOO_MANY_CONNECTIONS, refusal)
            return
        self._admitted = True
        self.room.sessions.add(self)
        clock, settings = self.room.clock, self.room.settings
        self._last_in = clock.seconds()
        self._deadline = clock.callLater(settings.login_timeout_seconds, self._login_deadline)
        self._idle = clock.callLater(settings.idle_timeout_seconds / 3, self._idle_check)
        self.log.info("admin_connected", peer=self.address)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        """Stop the timers."""
        self._closing = True
        for timer in (self._deadline, self._idle):
            if timer is not None and timer.active():
                timer.cancel()
        self._queue.clear()
        self.room.sessions.discard(self)
        if self._admitted and self.gate is not None:
            self._admitted = False
            self.gate.release(self.address)
        self.log.info("admin_disconnected")

    def dataReceived(self, data: bytes) -> None:
        """Reassemble frames; run them one at a time, in order."""
        if self._closing:
            return
        try:
            frames = self._decoder.feed(data)
        except ProtocolError as exc:  # frame_too_large: the rest of the stream cannot be trusted
            self.close(exc.code, exc.message)
            return
        if frames:
            self._last_in = self.room.clock.seconds()
        if len(self._queue) + len(frames) > self.room.settings.max_pending_requests:
            self.close(errors.TOO_MANY_REQUESTS, "too many requests waiting for an answer")
            return
        self._queue.extend(frames)
        self._next()

    # -- requests -------------------------------------------------------------------------------
    def _next(self) -> None:
        while self._queue and not self._busy and not self._closing:
            frame = self._queue.popleft()
            if isinstance(frame, ProtocolError):
                self.send(error_message(frame, None))
                continue
            try:
                request_id = check_request_id(frame.get("id"))
            except ProtocolError as exc:
                self.send(error_message(exc, None))
                continue
            self._busy = True
            d = maybeDeferred(self._dispatch, frame)
            d.addCallbacks(
                self._ok,
                self._refused,
                callbackArgs=(request_id, str(frame.get("type"))),
                errbackArgs=(request_id,),
            )
            d.addBoth(self._done)

    def _ok(self, result: dict[str, Any], request_id: int | str, kind: str) -> None:
        try:
            self.send(ok(request_id, kind, result))
        except (TypeError, ValueError):  # not JSON-able or larger than a frame: still answer
            self.log.error("admin_answer_too_large", request=kind)
            failure = ProtocolError(errors.INTERNAL_ERROR, "the answer did not fit in a frame")
            self.send(error_message(failure, request_id))

    def _refused(self, failure: Failure, request_id: int | str) -> None:
        error = refusal(failure)
        self.send(error_message(error, request_id))
        if error.code == codes.STAFF_DISABLED:
            self.close(codes.STAFF_DISABLED, "this staff account is disabled")

    def _done(self, _: object) -> None:
        self._busy = False
        self._next()

    def _dispatch(self, frame: dict[str, Any]) -> Any:
        kind = frame.get("type")
        if kind == "ping":
            self._only_envelope(frame)
            return {"server_time_ms": int(self.room.clock.seconds() * 1000)}
        if kind in PLAYER_MESSAGES:
            raise ProtocolError(
                codes.WRONG_PORT, "this is the staff endpoint; players connect to the room's port"
            )
        if kind == "staff_login":
            return self._login(frame)
        if self.staff is None:  # before its form: no command names or fields to a stranger
            raise ProtocolError(errors.LOGIN_REQUIRED, "log in with staff_login first")
        request_id, cmd, args = parse(frame)
        del request_id
        staff = self.staff

        def checked(found: tuple[StaffMember, str] | None) -> Any:
            member = found[0] if found is not None and not found[0].disabled else None
            if member is not None:
                self.staff = member
            check_role(member.role if member else None, cmd.role, f"{cmd.name} ")
            assert member is not None
            self.log.info("admin_request", staff=member.name, request=cmd.name)
            ctx = Context(self.room, member.name, member.role, cmd)
            routed = self.room.route(ctx, args)  # cluster mode: a table another node runs
            return cmd.run(ctx, args) if routed is None else routed

        return self.room.ledger.read(find_staff, staff.name).addCallback(checked)

    def _only_envelope(self, frame: dict[str, Any]) -> None:
        extra = frame.keys() - {"type", "id"}
        if extra:
            raise ProtocolError(
                errors.UNKNOWN_FIELD, f"ping has no field {errors.excerpt(min(extra))}"
            )

    # -- login -------------------------------------------------------------------------------
    def _login(self, frame: dict[str, Any]) -> Deferred[dict[str, Any]]:
        if self.staff is not None:
            raise ProtocolError(errors.ALREADY_LOGGED_IN, "this session is logged in")
        extra = frame.keys() - {"type", "id", "name", "password"}
        if extra:
            raise ProtocolError(
                errors.UNKNOWN_FIELD, f"staff_login has no field {errors.excerpt(min(extra))}"
            )
        for key in ("name", "password"):
            if key not in frame:
                raise ProtocolError(errors.MISSING_FIELD, f"staff_login needs {key!r}")
        typed = _NAME("name", frame["name"])
        password = _PASSWORD("password", frame["password"])
        name = normalize_name(typed)
        clock = self.room.clock
        where = address_key(self.address, name)
        attempt = self.room.throttle.begin(name, where, clock.seconds())
        d = self._check_login(name, password)

        def ended(result: Any) -> Any:
            """Tell the throttle how the login ended: only a wrong name or password counts."""
            failed = isinstance(result, Failure) and (
                isinstance(result.value, ProtocolError)
                and result.value.code == errors.BAD_CREDENTIALS
            )
            self.room.throttle.end(attempt, clock.seconds(), failed=failed)
            return result

        return d.addBoth(ended)

    @inlineCallbacks
    def _check_login(
        self, name: str | None, password: str
    ) -> Generator[Deferred[Any], Any, dict[str, Any]]:
        """Verify the password (an unknown name costs the same hash); log the staff member in."""
        found: tuple[StaffMember, str] | None = None
        if name is not None:
            found = yield self.room.ledger.read(find_staff, name)
        stored = found[1] if found is not None else self.room.dummy_hash()
        ok = yield self.room.hashing.submit(self.address, _verify, stored, password)
        if not ok or found is None or found[0].disabled:
            raise ProtocolError(errors.BAD_CREDENTIALS, "unknown name or wrong password")
        member = found[0]
        yield self.room.ledger.run(touch_login, member.name, int(self.room.clock.seconds() * 1000))
        if self._closing:
            raise ProtocolError(errors.INTERNAL_ERROR, "the connection closed during login")
        self.staff = member
        self.log = self.log.bind(staff=member.name)
        self.log.info("staff_logged_in", role=member.role.label)
        self._cancel_login_deadline()
        return {
            "staff": member.name,
            "role": member.role.label,
            "protocol_version": ADMIN_PROTOCOL_VERSION,
            "commands": sorted(c.name for c in COMMANDS.values() if member.role.allows(c.role)),
        }

    # -- output and timers -------------------------------------------------------------------
    def send(self, message: ServerMessage) -> None:
        """Write one message."""
        if self._closing or self.transport is None:
            return
        self.transport.write(encode_frame(message))

    def close(self, code: str, message: str) -> None:
        """Send `goodbye` and close."""
        if self._closing or self.transport is None:
            return
        self.transport.write(encode_frame(goodbye(code, message)))
        self._closing = True
        self.transport.loseConnection()

    def _cancel_login_deadline(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def _login_deadline(self) -> None:
        if self.staff is None:
            seconds = self.room.settings.login_timeout_seconds
            self.close(errors.LOGIN_TIMEOUT, f"log in within {seconds:g} s")

    def _idle_check(self) -> None:
        clock, settings = self.room.clock, self.room.settings
        if clock.seconds() - self._last_in >= settings.idle_timeout_seconds:
            self.close(errors.IDLE_TIMEOUT, "nothing heard from the client")
            return
        if not self._closing:
            self._idle = clock.callLater(settings.idle_timeout_seconds / 3, self._idle_check)


def _verify(stored: str, password: str) -> bool:
    """argon2 verification in a hashing thread; False for a wrong password or a bad hash."""
    try:
        return PasswordHasher().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


class AdminFactory(ServerFactory):
    """Builds an AdminSession per staff connection; counts them against the `[admin]` caps."""

    def __init__(self, room: StaffRoom) -> None:
        self.room = room
        settings = room.settings
        self.gate = ConnectionGate(settings.max_connections, settings.max_connections_per_address)

    def buildProtocol(self, addr: object) -> AdminSession:
        """A new session for a new connection (admitted, or refused, when it is made)."""
        session = AdminSession(self.room, self.gate)
        session.factory = self
        return session
