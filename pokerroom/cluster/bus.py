"""The bus between nodes: a thin wrapper over the maintained `nats-py` client.

nats-py is asyncio-only; a cluster node runs Twisted's asyncio reactor, so the bus's coroutines
run on the reactor's own loop and thread, and every call returns a Twisted `Deferred`
(`Deferred.fromFuture(asyncio.ensure_future(...))`). Handlers of subscriptions are plain
functions called on that thread. The client reconnects by itself (for ever, `reconnect_seconds`
apart); each disconnect and reconnect is logged. A request or publish while NATS is away fails at
once with `ProtocolError("cluster_unavailable")` (never a traceback to a client), and so does a
request nobody answers (`no responders`, or no answer within its timeout). A responder that
fails (a payload it cannot decode, a bug) is logged and answered at once with a `Reply` of code
`cluster_unavailable`, as if no answer had come, instead of leaving the asker to its timeout (up
to 600 s for a staff `table_close`). Payloads are msgspec msgpack (docs/design/cluster.md,
"Routing over NATS").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import msgspec
import nats
import nats.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.python.failure import Failure

from pokerroom.cluster.config import shown
from pokerroom.cluster.payloads import Reply
from pokerroom.protocol.errors import CLUSTER_UNAVAILABLE, ProtocolError

log = structlog.get_logger("pokerroom.cluster.bus")

#: How long a request waits for its answer by default.
REQUEST_SECONDS = 5.0
#: The client PINGs NATS this often (seconds) and drops the connection as stale, to reconnect,
#: once more than `MAX_OUTSTANDING_PINGS` are unanswered: a link that silently discards (no
#: RST, no FIN) is noticed in about (MAX_OUTSTANDING_PINGS + 1) * PING_SECONDS = 3 s instead of
#: nats-py's default 2 min x 3 (docs/design/cluster.md, "Failure cases").
PING_SECONDS = 1
MAX_OUTSTANDING_PINGS = 2

T = TypeVar("T")
#: A subscription's handler: the payload and the reply subject (None for a publish).
Handler = Callable[[bytes, str | None], None]
__all__ = ["CLUSTER_UNAVAILABLE", "Bus", "decode", "encode", "shown", "unavailable"]
#: A responder: the request's payload; its answer, at once or later.
Responder = Callable[[bytes], "bytes | Deferred[bytes]"]

_ENCODER = msgspec.msgpack.Encoder()
#: What a failing responder answers: every request on the bus is answered with a `Reply`.
FAILED = _ENCODER.encode(
    Reply(ok=False, code=CLUSTER_UNAVAILABLE, message="the server running it failed to answer")
)


def encode(value: Any) -> bytes:
    """One payload on the bus: msgspec msgpack of a Struct, dict or list."""
    return _ENCODER.encode(value)


def decode(data: bytes, kind: type[T]) -> T:
    """A payload back as `kind` (a msgspec Struct); `msgspec.ValidationError` if it is not."""
    return msgspec.msgpack.decode(data, type=kind)


def unavailable(why: str) -> ProtocolError:
    """The error a client sees when the cluster could not carry its request."""
    return ProtocolError(CLUSTER_UNAVAILABLE, f"the room's servers cannot reach each other ({why})")


class Bus:
    """One connection to NATS, on the asyncio loop the reactor runs on."""

    def __init__(
        self,
        servers: str | list[str],
        *,
        name: str,
        loop: asyncio.AbstractEventLoop | None = None,
        reconnect_seconds: float = 0.5,
        connect_seconds: float = 2.0,
        connect_attempts: int = 3,
    ) -> None:
        self.servers = [servers] if isinstance(servers, str) else list(servers)
        #: The servers as logs and errors show them (no login: `shown`).
        self.shown_servers = [shown(url) for url in self.servers]
        self.name = name
        self.loop = loop
        self.reconnect_seconds = reconnect_seconds
        self.connect_seconds = connect_seconds
        self.connect_attempts = connect_attempts
        self.nc: Client | None = None
        #: Times the connection came back after being lost (for tests and status).
        self.reconnects = 0
        #: Called on the reactor thread each time the connection is back (what was published
        #: meanwhile is lost: each part asks again for what it needs).
        self.on_reconnected: list[Callable[[], None]] = []
        self._outgoing: deque[tuple[str, bytes]] = deque()
        self._draining = False
        self._drainer: asyncio.Future[None] | None = None
        self.log = log.bind(node=name)

    # -- plumbing ---------------------------------------------------------------------------
    def _run(self, coro: Coroutine[Any, Any, T]) -> Deferred[T]:
        loop = self.loop if self.loop is not None else asyncio.get_event_loop()
        return Deferred.fromFuture(asyncio.ensure_future(coro, loop=loop))

    @property
    def connected(self) -> bool:
        """Whether the connection to NATS is up now."""
        return self.nc is not None and self.nc.is_connected

    def _client(self, reconnecting_ok: bool = False) -> Client:
        if self.nc is None or self.nc.is_closed:
            raise unavailable("not connected")
        if not self.nc.is_connected and not reconnecting_ok:
            raise unavailable("reconnecting to NATS")
        return self.nc

    # -- connection -------------------------------------------------------------------------
    def connect(self) -> Deferred[None]:
        """Connect (failing after `connect_attempts` tries if NATS is not there); once
        connected, reconnect for ever."""
        return self._run(self._connect())

    async def _connect(self) -> None:
        async def disconnected() -> None:
            self.log.warning("nats_disconnected")

        async def reconnected() -> None:
            self.reconnects += 1
            self.log.info("nats_reconnected", reconnects=self.reconnects)
            for listener in list(self.on_reconnected):
                try:
                    listener()
                except Exception as exc:  # one part's bug must not stop the others'
                    self.log.exception("reconnected_listener_failed", error=repr(exc))

        refusal: list[str] = []  # what NATS itself said (a login refused), not a lost socket

        async def error(exc: Exception) -> None:
            self.log.warning("nats_error", error=str(exc) or type(exc).__name__)
            if isinstance(exc, nats.errors.Error) and not self.connected:
                refusal[:] = [str(exc)]

        async def closed() -> None:
            self.log.info("nats_closed")

        try:
            self.nc = await self._first_connect(disconnected, reconnected, error, closed)
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            tries = self.connect_attempts + 1
            raise ConnectionError(
                f"cannot reach NATS at {', '.join(self.shown_servers)} ({tries} tries):"
                f" {_without_secrets(refusal[0] if refusal else str(exc), self.servers)}"
            ) from None
        self.nc.options["max_reconnect_attempts"] = -1  # once connected: reconnect for ever
        self.log.info("nats_connected", servers=self.shown_servers)

    async def _first_connect(self, *callbacks: Callable[..., Awaitable[None]]) -> Client:
        disconnected, reconnected, error, closed = callbacks
        return await nats.connect(
            servers=self.servers,
            name=self.name,
            allow_reconnect=True,
            max_reconnect_attempts=self.connect_attempts,  # the first connect: a few tries
            reconnect_time_wait=self.reconnect_seconds,
            connect_timeout=self.connect_seconds,
            ping_interval=PING_SECONDS,
            max_outstanding_pings=MAX_OUTSTANDING_PINGS,
            disconnected_cb=disconnected,
            reconnected_cb=reconnected,
            error_cb=error,
            closed_cb=closed,
        )

    def close(self) -> Deferred[None]:
        """Drain nothing, close the connection (the node is stopping)."""
        nc, self.nc = self.nc, None
        if nc is None or nc.is_closed:
            return Deferred.fromFuture(self._done())
        return self._run(nc.close())

    def _done(self) -> asyncio.Future[None]:
        loop = self.loop if self.loop is not None else asyncio.get_event_loop()
        future: asyncio.Future[None] = loop.create_future()
        future.set_result(None)
        return future

    # -- messages ---------------------------------------------------------------------------
    def publish(self, subject: str, payload: bytes) -> Deferred[None]:
        """Publish one message; fails with `cluster_unavailable` while NATS is away."""
        try:
            nc = self._client()
        except ProtocolError as exc:
            return _failed(exc)
        return self._run(_publish(nc, subject, payload))

    def publish_quietly(self, subject: str, payload: bytes) -> None:
        """Publish what nobody waits for (events, bells): queued, and sent in order by one
        task per reactor turn, not one task a message; dropped (logged) while NATS is away."""
        if not self.connected:
            self.log.debug("publish_dropped", subject=subject, error="not connected")
            return
        self._outgoing.append((subject, payload))
        if not self._draining:
            self._draining = True
            loop = self.loop if self.loop is not None else asyncio.get_event_loop()
            self._drainer = asyncio.ensure_future(self._drain(), loop=loop)  # kept: not GC'd

    async def _drain(self) -> None:
        try:
            while self._outgoing:
                subject, payload = self._outgoing.popleft()
                nc = self.nc
                if nc is None or not nc.is_connected:
                    self.log.debug("publish_dropped", subject=subject, error="not connected")
                    continue
                try:
                    await nc.publish(subject, payload)
                except (nats.errors.Error, OSError) as exc:
                    self.log.debug("publish_dropped", subject=subject, error=repr(exc))
        finally:
            self._draining = False

    def subscribe(self, subject: str, handler: Handler) -> Deferred[Subscription]:
        """Call `handler(payload, reply)` on the reactor thread for each message on `subject`
        (wildcards allowed); an exception in it is logged, never raised into the client. While
        the client reconnects the subscription is kept and sent once it is back."""

        async def cb(msg: Msg) -> None:
            try:
                handler(msg.data, msg.reply or None)
            except Exception as exc:  # a bug in a handler must not stop the subscription
                self.log.exception("handler_failed", subject=msg.subject, error=repr(exc))

        try:
            nc = self._client(reconnecting_ok=True)
        except ProtocolError as exc:
            return _failed(exc)
        return self._run(nc.subscribe(subject, cb=cb))

    def serve(self, subject: str, responder: Responder) -> Deferred[Subscription]:
        """Answer each request on `subject` with what `responder(payload)` gives (at once or
        as a Deferred); a failing responder is logged and answered `FAILED` (the asker's
        `cluster_unavailable` at once: whether anything was done is not known, as after a
        timeout)."""

        def on_request(payload: bytes, reply: str | None) -> None:
            if reply is None:
                return

            def answer(data: bytes) -> None:
                self.publish_quietly(reply, data)

            def failed(failure: Failure) -> None:
                self.log.error("responder_failed", subject=subject, error=repr(failure.value))
                self.publish_quietly(reply, FAILED)

            maybeDeferred(responder, payload).addCallbacks(answer, failed)

        return self.subscribe(subject, on_request)

    def unsubscribe(self, subscription: Subscription) -> Deferred[None]:
        """Stop a subscription (quietly if the connection is gone)."""
        return self._run(_unsubscribe(subscription))

    def request(
        self, subject: str, payload: bytes, timeout: float = REQUEST_SECONDS
    ) -> Deferred[bytes]:
        """Send a request and wait for one answer's payload; `cluster_unavailable` when NATS is
        away, when nobody serves `subject`, or when no answer comes within `timeout`."""
        try:
            nc = self._client()
        except ProtocolError as exc:
            return _failed(exc)
        return self._run(_request(nc, subject, payload, timeout))

    def flush(self, timeout: int = 2) -> Deferred[None]:
        """Wait until the server has seen everything sent so far (subscriptions included)."""
        try:
            nc = self._client()
        except ProtocolError as exc:
            return _failed(exc)
        return self._run(_flush(nc, timeout))


def _without_secrets(text: str, urls: list[str]) -> str:
    """`text` with every URL of `urls` written as `shown` writes it."""
    for url in urls:
        text = text.replace(url, shown(url))
    return text


def _failed(exc: Exception) -> Deferred[Any]:
    d: Deferred[Any] = Deferred()
    d.errback(Failure(exc))
    return d


async def _publish(nc: Client, subject: str, payload: bytes) -> None:
    try:
        await nc.publish(subject, payload)
    except (nats.errors.Error, OSError) as exc:
        raise unavailable(type(exc).__name__) from None


async def _request(nc: Client, subject: str, payload: bytes, timeout: float) -> bytes:
    try:
        msg = await nc.request(subject, payload, timeout=timeout)
    except nats.errors.NoRespondersError:
        raise unavailable("nobody serves this now") from None
    except (TimeoutError, nats.errors.TimeoutError):
        raise unavailable("no answer in time") from None
    except (nats.errors.Error, OSError) as exc:
        raise unavailable(type(exc).__name__) from None
    return msg.data


async def _flush(nc: Client, timeout: int) -> None:
    try:
        await nc.flush(timeout=timeout)
    except (TimeoutError, nats.errors.Error, OSError) as exc:
        raise unavailable(type(exc).__name__) from None


async def _unsubscribe(subscription: Subscription) -> None:
    with contextlib.suppress(nats.errors.Error):  # the connection is closed: nothing to stop
        await subscription.unsubscribe()


def awaitable(d: Deferred[T], loop: asyncio.AbstractEventLoop) -> Awaitable[T]:
    """A Deferred as an asyncio future of `loop` (tests drive the loop with it)."""
    return d.asFuture(loop)
