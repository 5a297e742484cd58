"""The admin endpoint's own limits, in process on a fake clock: staff logins from a loopback or
unix peer throttled per name (one name's failures never lock another name out), connections
capped in all and per address, and `login_required` before anything else is looked at."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from twisted.internet.address import IPv4Address, IPv6Address, UNIXAddress
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from pokerroom.admin.roles import Role
from pokerroom.admin.service import AdminService
from pokerroom.admin.session import AdminFactory
from pokerroom.protocol.framing import encode_frame
from pokerroom.server.throttle import address_key, is_local
from tests.admin.rooms import PASSWORD, SETTINGS, admin_service, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

LOOPBACK = IPv4Address("TCP", "127.0.0.1", 40000)
REMOTE = IPv4Address("TCP", "203.0.113.9", 40000)
UNIX = UNIXAddress(None)
LIMITS = replace(SETTINGS, login_failures=5, address_failures=20, login_window_minutes=15)


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A room with an admin `adm`, a floor member `flo` and support `ghost0`..`ghost3`."""
    members = {"adm": Role.ADMIN, "flo": Role.FLOOR}
    # known names: a wrong password costs a cheap hash, not the dummy's
    members |= {f"ghost{i}": Role.SUPPORT for i in range(4)}
    with staffed_room(reactor, clock, ledger, members) as built:
        yield built


def service(room: Room, **settings: Any) -> AdminService:
    """An admin service over the room, loaded as at start-up."""
    return admin_service(room, replace(LIMITS, **settings))


class Wire:
    """One staff connection from `peer`, made through `factory` (the endpoint's)."""

    _ids = itertools.count(1)

    def __init__(self, room: Room, factory: AdminFactory, peer: Any) -> None:
        self.room = room
        self.transport = StringTransport(peerAddress=peer)
        self.session = factory.buildProtocol(peer)
        self.session.makeConnection(self.transport)

    def frames(self) -> list[dict[str, Any]]:
        """Every frame written so far."""
        return [json.loads(line) for line in self.transport.value().splitlines() if line]

    def send(self, frame: dict[str, Any]) -> dict[str, Any]:
        """A raw frame and its answer (the ledger's thread callbacks run meanwhile)."""
        self.session.dataReceived(encode_frame(frame))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for answer in self.frames():
                if answer.get("id") == frame.get("id") and answer["type"] in ("ok", "error"):
                    return answer
            f, args, kwargs = self.room.reactor.calls.get(timeout=20)
            f(*args, **kwargs)
        raise TimeoutError(frame)

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request and its answer."""
        return self.send({"type": kind, "id": next(self._ids), **fields})

    def login(self, name: str, password: str = PASSWORD) -> str:
        """`ok` or the error code of a staff login."""
        answer = self.call("staff_login", name=name, password=password)
        return "ok" if answer["type"] == "ok" else str(answer["code"])


def login_once(room: Room, factory: AdminFactory, peer: Any, name: str, password: str) -> str:
    """One staff login on a connection of its own, closed afterwards (its place freed)."""
    wire = Wire(room, factory, peer)
    try:
        return wire.login(name, password)
    finally:
        wire.session.connectionLost()


def test_loopback_and_unix_peers_are_local() -> None:
    """What counts as one shared local address: loopback IPs (v4, v6, v4-mapped) and unix."""
    assert all(is_local(a) for a in ("127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"))
    assert is_local("local")  # a unix socket's peer
    assert not any(is_local(a) for a in ("10.0.0.1", "203.0.113.9", "::ffff:10.0.0.1", "x"))
    assert address_key("127.0.0.1", "adm") != address_key("127.0.0.1", "flo")
    assert address_key("203.0.113.9", "adm") == address_key("203.0.113.9", "flo")


@pytest.mark.parametrize("peer", [LOOPBACK, UNIX, IPv6Address("TCP", "::1", 40000)])
def test_wrong_passwords_from_a_local_peer_do_not_lock_out_other_names(
    room: Room, peer: Any
) -> None:
    """Twenty wrong passwords from the loopback address (for four names, five each) lock those
    names only: `adm` with the right password still logs in. The per-name lock stays: five
    wrong passwords for `flo` lock `flo`, even with the right password."""
    admin = service(room)
    factory = AdminFactory(admin)
    for i in range(20):
        assert login_once(room, factory, peer, f"ghost{i % 4}", "wrong password") == (
            "bad_credentials"
        )
    assert login_once(room, factory, peer, "ghost0", PASSWORD) == "too_many_attempts"
    assert login_once(room, factory, peer, "adm", PASSWORD) == "ok"
    for _ in range(5):
        assert login_once(room, factory, peer, "flo", "wrong password") == "bad_credentials"
    assert login_once(room, factory, peer, "flo", PASSWORD) == "too_many_attempts"


def test_wrong_passwords_from_a_remote_address_still_lock_that_address(room: Room) -> None:
    """Per address as before where addresses are people's: twenty failures from one remote
    address lock every name from it; another address is not affected."""
    admin = service(room)
    factory = AdminFactory(admin)
    for i in range(20):
        assert login_once(room, factory, REMOTE, f"ghost{i % 4}", "wrong password") == (
            "bad_credentials"
        )
    assert login_once(room, factory, REMOTE, "adm", PASSWORD) == "too_many_attempts"
    other = IPv4Address("TCP", "198.51.100.7", 40000)
    assert login_once(room, factory, other, "adm", PASSWORD) == "ok"


def test_connections_are_capped_per_address_and_in_all(room: Room) -> None:
    """max_connections_per_address 2 and max_connections 3: a third connection from one
    address, and a fourth in all, get goodbye too_many_connections and are closed; a closed
    connection frees its place."""
    admin = service(room, max_connections=3, max_connections_per_address=2)
    factory = AdminFactory(admin)
    first, second = Wire(room, factory, LOOPBACK), Wire(room, factory, LOOPBACK)
    third = Wire(room, factory, LOOPBACK)
    assert [f["code"] for f in third.frames()] == ["too_many_connections"]
    assert third.transport.disconnecting and not first.transport.disconnecting
    remote = Wire(room, factory, REMOTE)
    assert remote.frames() == [] and not remote.transport.disconnecting
    fourth = Wire(room, factory, IPv4Address("TCP", "198.51.100.7", 1))
    assert [f["code"] for f in fourth.frames()] == ["too_many_connections"]
    assert len(admin.sessions) == 3  # the refused ones hold no place
    first.session.connectionLost()
    assert Wire(room, factory, LOOPBACK).frames() == []
    assert second.login("adm") == "ok"


def test_a_connection_that_holds_its_place_without_logging_in_is_closed(room: Room) -> None:
    """The cap and the login deadline together: 300 connections cannot be held; the two
    admitted ones are closed at login_timeout_seconds and their places are free again."""
    admin = service(room, max_connections_per_address=2)
    factory = AdminFactory(admin)
    wires = [Wire(room, factory, LOOPBACK) for _ in range(300)]
    assert sum(not w.transport.disconnecting for w in wires) == 2
    room.clock.advance(30)
    for wire in wires[:2]:
        assert wire.frames()[-1]["code"] == "login_timeout"
        wire.session.connectionLost()
    assert Wire(room, factory, LOOPBACK).frames() == []


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "wallet_correct"},  # a command, no fields: was missing_field
        {"type": "table_list", "extra": 1},  # a field it does not take: was unknown_field
        {"type": "no_such_command"},  # was unknown_message
        {"type": "approval_approve", "approval_id": "x"},  # a bad field: was bad_field
    ],
)
def test_before_login_every_request_is_login_required(room: Room, frame: dict[str, Any]) -> None:
    """Before staff_login nothing is parsed: no command name or field is revealed."""
    wire = Wire(room, AdminFactory(service(room)), LOOPBACK)
    answer = wire.send({**frame, "id": 7})
    assert (answer["type"], answer["code"]) == ("error", "login_required")
    assert "details" not in answer
    assert wire.call("ping")["type"] == "ok"  # ping is served before login
    assert wire.call("hello", version=1)["code"] == "wrong_port"
