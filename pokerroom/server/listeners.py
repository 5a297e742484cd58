"""The room's listening sockets: bound before anything starts, opened once the room is ready.

`pokerroom serve` binds the players' TCP port and the staff endpoint first, before the database
is opened and before the ledger, tables and tournaments start, so a taken port fails at once
with one line naming the setting to change (`ListenerError`), and nothing has run. A bound
listener is *held*: the reactor does not accept its connections, which wait in the kernel's
backlog until `HeldListener.open` hands them to the room's factory (docs/SERVER.md, "Start-up
order"). Until then a connection that does get through (a listener that cannot pause) is closed.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any, cast

from twisted.internet.defer import Deferred, DeferredList, succeed
from twisted.internet.endpoints import serverFromString
from twisted.internet.error import CannotListenError
from twisted.internet.interfaces import IListeningPort, IReactorTCP
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.python.failure import Failure

#: Pending connections the kernel may queue: many clients (re)connect at once after a restart,
#: and those that come while the room starts wait there.
LISTEN_BACKLOG = 1024
#: What to change when the players' port is taken, or cannot be bound at all.
PLAYERS_FIX = "set [server] port or --port"
PLAYERS_ADDRESS_FIX = "set [server] host and port or --host and --port"
#: What to change when the staff endpoint cannot be bound.
ADMIN_FIX = "set [admin] endpoint or --admin-endpoint"


class ListenerError(Exception):
    """A listener could not be bound; the message is one line and names what to change."""


def describe_address(listening: IListeningPort) -> str:
    """Where a listener is bound, as a person types it: `127.0.0.1:9998` or a socket path."""
    address = listening.getHost()
    host, port = getattr(address, "host", None), getattr(address, "port", None)
    if host is not None and port is not None:
        return f"{host}:{port}"
    name = getattr(address, "name", None)
    if isinstance(name, bytes):
        return name.decode("utf-8", "replace")
    return str(name if name is not None else address)


class _Relay(ServerFactory):
    """Hands each connection to the room's factory once it is open; refuses it before."""

    def __init__(self) -> None:
        self.target: ServerFactory | None = None

    def buildProtocol(self, addr: Any) -> Protocol | None:
        """The room's protocol, or None (Twisted then closes the connection) while held."""
        if self.target is None:
            return None
        return cast("Protocol | None", self.target.buildProtocol(addr))


class HeldListener:
    """One bound listening socket that accepts nothing until `open`."""

    def __init__(self, port: IListeningPort, relay: _Relay) -> None:
        self.port = port
        self.relay = relay
        self.address = describe_address(port)
        self.closed = False
        self._pause(True)

    def _pause(self, held: bool) -> None:
        """Stop or resume accepting (TCP, unix and TLS ports are file descriptors that can)."""
        switch = getattr(self.port, "stopReading" if held else "startReading", None)
        if switch is not None:
            switch()

    @property
    def is_open(self) -> bool:
        """Whether connections go to the room's factory now."""
        return self.relay.target is not None

    def open(self, factory: ServerFactory) -> None:
        """Accept connections from now on, the waiting ones first, with `factory`."""
        if self.closed:
            raise RuntimeError(f"listener {self.address} is closed")
        self.relay.target = factory
        self._pause(False)

    def close(self) -> Deferred[None]:
        """Stop listening (once); fires when the socket is closed."""
        if self.closed:
            return succeed(None)
        self.closed = True
        return cast("Deferred[None]", self.port.stopListening() or succeed(None))


def _why(exc: CannotListenError) -> str:
    """The operating system's reason, without Twisted's wrapping."""
    reason = exc.socketError
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason)


def _in_use(exc: CannotListenError) -> bool:
    reason = exc.socketError
    return (isinstance(reason, OSError) and reason.errno == errno.EADDRINUSE) or (
        isinstance(reason, str) and "already listening" in reason.lower()
    )


def _refusal(exc: CannotListenError, fix: str, other_fix: str | None = None) -> ListenerError:
    """`port 9998 is in use: FIX`, or the reason it cannot listen: OTHER_FIX (default FIX)."""
    where = f"port {exc.port}" if isinstance(exc.port, int) else str(exc.port)
    if _in_use(exc):
        return ListenerError(f"{where} is in use: {fix}")
    if exc.interface:
        where = f"{where} of {exc.interface}"
    return ListenerError(f"cannot listen on {where}: {_why(exc)}: {other_fix or fix}")


def bind_tcp(reactor: IReactorTCP, port: int, interface: str, *, backlog: int) -> HeldListener:
    """Bind the players' TCP port, held; ListenerError if it is taken or cannot be bound."""
    relay = _Relay()
    try:
        listening = reactor.listenTCP(port, relay, backlog=backlog, interface=interface)
    except CannotListenError as exc:
        raise _refusal(exc, PLAYERS_FIX, PLAYERS_ADDRESS_FIX) from None
    return HeldListener(listening, relay)


def bind_endpoint(reactor: Any, description: str) -> HeldListener:
    """Bind the staff endpoint (a Twisted endpoint string), held; ListenerError if it cannot.

    Every endpoint Twisted ships (tcp, tcp6, unix, ssl, systemd) binds at once; one that would
    bind later is refused rather than waited for."""
    relay = _Relay()
    try:
        # Twisted's endpoint parser carries no annotations.
        endpoint = serverFromString(reactor, description)  # type: ignore[no-untyped-call]
    except Exception as exc:  # ValueError, KeyError, ImportError (ssl without pyOpenSSL)...
        raise ListenerError(f"bad endpoint {description!r} ({exc}): {ADMIN_FIX}") from None
    outcome: list[IListeningPort | Failure] = []
    bound = cast("Deferred[IListeningPort]", endpoint.listen(relay))
    bound.addBoth(outcome.append)
    if not outcome:
        bound.cancel()
        raise ListenerError(f"endpoint {description!r} does not bind at once: {ADMIN_FIX}")
    (result,) = outcome
    if isinstance(result, Failure):
        if isinstance(result.value, CannotListenError):
            raise _refusal(result.value, ADMIN_FIX) from None
        raise ListenerError(f"cannot listen on {description!r}: {result.value}: {ADMIN_FIX}")
    return HeldListener(result, relay)


@dataclass
class RoomListeners:
    """The players' port and the staff endpoint (None: no endpoint), bound and held."""

    players: HeldListener
    admin: HeldListener | None

    def close(self) -> Deferred[Any]:
        """Close both (those already closed are left alone)."""
        closing = [self.players.close()]
        if self.admin is not None:
            closing.append(self.admin.close())
        return DeferredList(closing)


def bind_room(
    reactor: Any, host: str, port: int, admin_endpoint: str, *, backlog: int
) -> RoomListeners:
    """Bind the players' port, then the staff endpoint (if any); ListenerError if either
    cannot be bound, and then neither stays bound."""
    players = bind_tcp(reactor, port, host, backlog=backlog)
    if not admin_endpoint:
        return RoomListeners(players, None)
    try:
        admin = bind_endpoint(reactor, admin_endpoint)
    except ListenerError:
        players.close()
        raise
    return RoomListeners(players, admin)
