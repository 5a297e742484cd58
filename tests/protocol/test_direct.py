"""write_now: a frame goes straight to an idle TCP socket, and never overtakes buffered bytes."""

from __future__ import annotations

import socket

from twisted.internet import tcp
from twisted.internet.protocol import Protocol
from twisted.internet.testing import MemoryReactor, StringTransport

from pokerroom.protocol.direct import write_now


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
