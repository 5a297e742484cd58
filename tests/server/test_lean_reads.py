"""The server's epoll reactor dispatches reads without Twisted's per-event log context
(`pokerroom.server.reactor.lean_reads`): data still arrives, in order, and a protocol that
raises still loses its connection alone."""

from __future__ import annotations

import socket
import time

from twisted.internet.epollreactor import EPollReactor
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.internet.task import Clock

from pokerroom.server.reactor import lean_reads


class Collect(Protocol):
    """Keeps what it reads; raises on b"boom"."""

    def __init__(self, seen: list[bytes], lost: list[str]) -> None:
        self.seen, self.lost = seen, lost

    def dataReceived(self, data: bytes) -> None:
        if b"boom" in data:
            raise RuntimeError("boom")
        self.seen.append(data)

    def connectionLost(self, reason: object = None) -> None:
        self.lost.append("lost")


def spin(reactor: EPollReactor, until: object, seconds: float = 5.0) -> None:
    """Run reactor iterations until `until()` is true (a real socket: polling is allowed)."""
    end = time.monotonic() + seconds
    while not until() and time.monotonic() < end:  # type: ignore[operator]
        reactor.iterate(0.01)


def test_reads_reach_the_protocol_and_a_raising_one_is_disconnected_alone() -> None:
    reactor = EPollReactor()  # type: ignore[no-untyped-call]
    assert lean_reads(reactor)
    seen: list[bytes] = []
    lost: list[str] = []
    factory = ServerFactory.forProtocol(lambda: Collect(seen, lost))
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")  # type: ignore[no-untyped-call]
    good = socket.create_connection(("127.0.0.1", port.getHost().port))
    bad = socket.create_connection(("127.0.0.1", port.getHost().port))
    try:
        good.sendall(b"one\n")
        spin(reactor, lambda: seen == [b"one\n"])
        assert seen == [b"one\n"]
        bad.sendall(b"boom\n")
        spin(reactor, lambda: lost == ["lost"])
        assert lost == ["lost"]  # the raising connection only
        good.sendall(b"two\n")
        spin(reactor, lambda: len(seen) == 2)
        assert seen == [b"one\n", b"two\n"] and lost == ["lost"]
    finally:
        good.close()
        bad.close()
        port.stopListening()
        spin(reactor, lambda: len(lost) == 2, 1.0)


def test_other_reactors_are_left_alone() -> None:
    clock = Clock()
    assert not lean_reads(clock)
    assert not hasattr(clock, "doPoll")
