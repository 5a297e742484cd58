"""write_now: a frame goes straight to an idle TCP socket, and never overtakes buffered bytes;
WriteBatch: the frames of one reactor turn are flushed together, in order."""

from __future__ import annotations

import socket
from collections.abc import Callable

from twisted.internet import tcp
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactor, MemoryReactorClock, StringTransport

from pokerroom.protocol.direct import WriteBatch, batch_for, write_now


def _pair() -> tuple[tcp.Connection, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    theirs.settimeout(1.0)
    connection = tcp.Connection(ours, Protocol(), MemoryReactor())
    connection.connected = 1
    return connection, theirs


def test_idle_socket_gets_the_frame_at_once() -> None:
    """Nothing buffered: the bytes are on the wire without a reactor turn."""
    connection, peer = _pair()
    write_now(connection, b'{"type":"ping"}\n')
    assert peer.recv(100) == b'{"type":"ping"}\n'
    assert not connection._tempDataLen and not connection.dataBuffer


def test_buffered_bytes_keep_their_order() -> None:
    """While Twisted holds unsent bytes, a new frame queues behind them instead of jumping ahead."""
    connection, peer = _pair()
    connection.write(b"first\n")  # buffered until the reactor reports the socket writable
    write_now(connection, b"second\n")
    peer.setblocking(False)
    try:
        early = peer.recv(100)
    except BlockingIOError:
        early = b""
    assert early == b""
    assert connection._tempDataBuffer == [b"first\n", b"second\n"]


def test_other_transports_use_write() -> None:
    """A transport that is not a TCP connection (tests, TLS wrappers) gets a plain write."""
    transport = StringTransport()
    write_now(transport, b"x\n")
    assert transport.value() == b"x\n"


class Writer:
    """A writer that notes when it was flushed (a session holds frames the same way)."""

    def __init__(self, name: str, log: list[str], then: Callable[[], None] | None = None) -> None:
        self.name, self.log, self.then = name, log, then

    def flush(self) -> None:
        """Note the flush; run `then` once (a flush that makes more frames)."""
        self.log.append(self.name)
        then, self.then = self.then, None
        if then is not None:
            then()


def test_a_batch_waits_for_the_end_of_the_turn_with_one_call() -> None:
    """Writers added during a turn are flushed once, in order, when the turn ends; however
    many there are, the reactor holds one call."""
    clock, flushed = Clock(), list[str]()
    batch = WriteBatch(clock)
    batch.add(Writer("a", flushed))
    batch.add(Writer("b", flushed))
    assert flushed == [] and len(clock.getDelayedCalls()) == 1
    clock.advance(0)
    assert flushed == ["a", "b"] and clock.getDelayedCalls() == []


def test_an_early_flush_leaves_nothing_for_the_end_of_the_turn() -> None:
    """`flush` (a request handled) writes at once; the turn's call then flushes only writers
    added since, and no second call is scheduled meanwhile."""
    clock, flushed = Clock(), list[str]()
    batch = WriteBatch(clock)
    batch.add(Writer("a", flushed))
    batch.flush()
    assert flushed == ["a"]
    batch.add(Writer("late", flushed))
    assert len(clock.getDelayedCalls()) == 1
    clock.advance(0)
    assert flushed == ["a", "late"]
    clock.advance(0)
    assert flushed == ["a", "late"]


def test_frames_made_while_flushing_are_flushed_too() -> None:
    """A flush that causes frames for another writer (a write error closing a session, say)
    does not leave them for a later turn."""
    clock, flushed = Clock(), list[str]()
    batch = WriteBatch(clock)
    batch.add(Writer("a", flushed, then=lambda: batch.add(Writer("b", flushed))))
    batch.flush()
    assert flushed == ["a", "b"]


def test_tcp_connections_of_one_reactor_share_a_batch() -> None:
    """One batch per reactor; a transport that is not a TCP connection writes at once."""
    reactor, elsewhere = MemoryReactorClock(), MemoryReactorClock()
    with socket.socket() as a, socket.socket() as b, socket.socket() as c:
        first = tcp.Connection(a, Protocol(), reactor)
        second = tcp.Connection(b, Protocol(), reactor)
        other = tcp.Connection(c, Protocol(), elsewhere)
        shared = batch_for(first)
        assert shared is not None and batch_for(second) is shared
        assert batch_for(other) is not None and batch_for(other) is not shared
    assert batch_for(StringTransport()) is None
