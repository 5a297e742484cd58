"""Writing a frame straight to a TCP socket when nothing waits in the transport's buffer.

Twisted's `transport.write` only buffers: the bytes leave on a later reactor turn, after
the descriptor is registered for writing (an `epoll_ctl`), reported writable, sent, and
unregistered (another `epoll_ctl`). A room server writes a small frame to each of a
table's players for every action, so that round trip was a good part of its CPU under
load (docs/PERFORMANCE.md, "Server"). `write_now` sends at once when the transport holds
nothing unsent, which keeps the byte order; whatever the socket does not take, and every
write on another kind of transport, goes through `transport.write` as before.

`WriteBatch` goes one step further: the frames a session is sent during one reactor turn
leave in one `send` (`b"".join`), so a player who gets two or five frames for one event costs
one system call, not two or five.
"""

from __future__ import annotations

from typing import Protocol, cast
from weakref import WeakKeyDictionary

from twisted.internet import tcp
from twisted.internet.interfaces import IDelayedCall, IReactorTime, ITransport


def tcp_of(transport: object) -> tcp.Connection | None:
    """The transport if it is a TCP connection (which `write_on` may write to directly)."""
    return transport if isinstance(transport, tcp.Connection) else None


def write_now(transport: ITransport, data: bytes) -> None:
    """Write `data` on `transport`: directly on an idle TCP socket, else buffered by Twisted."""
    write_on(tcp_of(transport), transport, data)


def write_on(connection: tcp.Connection | None, transport: ITransport, data: bytes) -> None:
    """`write_now` for a writer that looked up `tcp_of(transport)` once (a session's outbox):
    straight to the socket when the TCP connection is open and holds no unsent bytes."""
    if (
        connection is None
        or not connection.connected
        or connection.TLS
        or connection.disconnecting
        or connection._writeDisconnected
        or connection._tempDataLen
        or len(connection.dataBuffer) != connection.offset
    ):
        transport.write(data)
        return
    try:
        sent = connection.socket.send(data)
    except BlockingIOError:
        sent = 0
    except OSError:  # reset or closed: Twisted's own write path notices and reports it
        transport.write(data)
        return
    if sent < len(data):
        transport.write(data[sent:])


class Flushable(Protocol):
    """A writer that holds frames for this reactor turn (a session)."""

    def flush(self) -> None:
        """Write what it holds, in one write."""


class WriteBatch:
    """Sessions that hold frames for this reactor turn; each writes them in ONE send.

    A table action sends a small frame to every player of the table, and often two to the same
    player (the `ok` answer and `player_acted`; `player_acted` and the next `action_request`;
    a new hand's `hand_started`, blinds, cards and request). A send on loopback costs the
    server a system call and the receiver's wake-up, which was most of the server's time per
    action (docs/PERFORMANCE.md, "Server"). A session adds itself on its first frame of a turn;
    `flush` (called when a received request has been handled, and by the reactor at the end of
    the turn otherwise) makes every waiting session write what it holds, in order.
    """

    def __init__(self, reactor: IReactorTime) -> None:
        self._reactor = reactor
        self._waiting: list[Flushable] = []
        self._call: IDelayedCall | None = None

    def add(self, writer: Flushable) -> None:
        """`writer` holds frames now; it is flushed within this reactor turn."""
        self._waiting.append(writer)
        if self._call is None:
            self._call = self._reactor.callLater(0, self._turn_ended)

    def flush(self) -> None:
        """Every waiting writer writes now."""
        while self._waiting:
            waiting, self._waiting = self._waiting, []
            for writer in waiting:
                writer.flush()

    def _turn_ended(self) -> None:
        self._call = None
        self.flush()


_batches: WeakKeyDictionary[object, WriteBatch] = WeakKeyDictionary()


def batch_for(transport: object) -> WriteBatch | None:
    """The write batch of the reactor that drives a TCP `transport`; None for any other
    transport (a test's StringTransport), which is written at once as before."""
    if not isinstance(transport, tcp.Connection):
        return None
    reactor = transport.reactor  # typed as its FD set; every reactor is also an IReactorTime
    batch = _batches.get(reactor)
    if batch is None:
        batch = _batches[reactor] = WriteBatch(cast(IReactorTime, reactor))
    return batch
