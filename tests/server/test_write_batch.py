"""A session on a real TCP connection: the frames of one reactor turn leave in one write, in
order, and never after a `goodbye` or ahead of frames the transport still holds."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from twisted.internet import tcp
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock

from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from pokerroom.protocol.session import RoomSession
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Room


class Connection(tcp.Connection):
    """Twisted's TCP connection on a socket we made, driven by a MemoryReactorClock."""

    def getPeer(self) -> IPv4Address:
        """The client's address."""
        return IPv4Address("TCP", "127.0.0.1", self.socket.getpeername()[1])

    def getHost(self) -> IPv4Address:
        """The server's address."""
        return IPv4Address("TCP", "127.0.0.1", self.socket.getsockname()[1])


class Wire:
    """A session on one end of a loopback TCP connection; the test reads the other end."""

    def __init__(self, room: Room) -> None:
        with socket.create_server(("127.0.0.1", 0)) as server:
            self.peer = socket.create_connection(server.getsockname())
            ours, _ = server.accept()
        ours.setblocking(False)
        self.peer.setblocking(False)
        self.reactor = MemoryReactorClock()
        self.session: RoomSession = room.factory.buildProtocol(None)
        self.connection = Connection(ours, self.session, self.reactor)
        self.connection.connected = 1
        self.session.makeConnection(self.connection)

    def received(self) -> bytes:
        """Every byte that reached the client so far (loopback: delivered at once)."""
        data = b""
        while True:
            try:
                chunk = self.peer.recv(65536)
            except BlockingIOError:
                return data
            if not chunk:
                return data
            data += chunk

    def close(self) -> None:
        """Close both ends."""
        self.peer.close()
        self.connection.socket.close()


@pytest.fixture
def wire(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Wire]:
    """A room and one TCP session in it."""
    room = Room(reactor, clock, ledger)
    wire = Wire(room)
    yield wire
    wire.close()
    room.stop()


def test_frames_of_one_turn_leave_together_when_the_turn_ends(wire: Wire) -> None:
    """Frames sent during a turn wait (one reactor call for all of them), then leave in order."""
    wire.session.send_frame(b'{"n":1}\n')
    wire.session.send_frame(b'{"n":2}\n')
    assert wire.received() == b""
    assert len(wire.reactor.getDelayedCalls()) == 1
    wire.reactor.advance(0)
    assert wire.received() == b'{"n":1}\n{"n":2}\n'


def test_an_answer_leaves_as_soon_as_its_request_is_handled(wire: Wire) -> None:
    """A request's answer (and whatever it caused) is written when the read is handled, without
    waiting for the end of the turn (the latency of `act`)."""
    wire.session.dataReceived(b'{"type":"ping","id":1}\n{"type":"ping","id":2}\n')
    frames = [json.loads(line) for line in wire.received().splitlines()]
    assert [(f["type"], f["id"]) for f in frames] == [("ok", 1), ("ok", 2)]


def test_goodbye_comes_after_the_frames_sent_before_it(wire: Wire) -> None:
    """Closing writes what the turn holds first, then `goodbye` (queued behind in Twisted's buffer
    until the socket is writable)."""
    wire.session.send_frame(b'{"n":1}\n')
    wire.session.close(errors.IDLE_TIMEOUT, "nothing heard from the client")
    wire.session.send_frame(b'{"n":2}\n')  # after closing: dropped
    wire.connection.doWrite()
    frames = [json.loads(line) for line in wire.received().splitlines()]
    assert frames[0] == {"n": 1}
    assert [f.get("type") for f in frames[1:]] == ["goodbye"]
    assert frames[1]["code"] == errors.IDLE_TIMEOUT


def test_a_paused_transport_queues_frames_behind_what_it_holds(wire: Wire) -> None:
    """While the transport's buffer is full, frames wait in the session's queue (the turn's
    frames first, as they were sent first) and leave, in order, once it drains."""
    wire.session.send_frame(b'{"n":1}\n')
    wire.session.pauseProducing()
    wire.session.send_frame(b'{"n":2}\n')
    wire.reactor.advance(0)
    assert wire.received() == b""
    wire.session.resumeProducing()
    wire.connection.doWrite()
    assert wire.received() == b'{"n":1}\n{"n":2}\n'
