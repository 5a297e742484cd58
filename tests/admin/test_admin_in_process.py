"""The admin service in process, on a fake clock and a real SQLite ledger: the staff login
lock-out and its end, the login deadline, and bans and table holds that survive a restart."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from argon2 import PasswordHasher
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from pokerroom.admin.roles import Role
from pokerroom.admin.service import AdminService
from pokerroom.admin.settings import AdminSettings
from pokerroom.admin.staff import add_staff
from pokerroom.protocol.framing import encode_frame
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

PASSWORD = "staff password 1"
SETTINGS = AdminSettings(
    endpoint="tcp:0", login_failures=3, login_window_minutes=10, login_timeout_seconds=30
)


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """Hub, lobby, chat and accounts on the fake clock; one table; a floor staff member."""
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    add_staff(ledger.engine, "flo", Role.FLOOR, cheap.hash(PASSWORD), 0)
    built = Room(reactor, clock, ledger)
    built.add_table("t1")
    try:
        yield built
    finally:
        built.stop()


def admin_of(room: Room) -> AdminService:
    """An admin service over the room's parts, loaded as at start-up (not listening)."""
    service = AdminService(
        room.reactor,
        SETTINGS,
        ledger=room.ledger,
        lobby=room.lobby,
        hub=room.hub,
        chat=room.chat,
        hashing=room.accounts.hashing,
        currency="USD",
        clock=room.clock,
    )
    room.reactor.wait(service.load())
    room.accounts.banned = service.banned
    return service


class Staff:
    """One staff connection on a StringTransport."""

    _ids = itertools.count(1)

    def __init__(self, room: Room, service: AdminService) -> None:
        self.room = room
        self.transport = StringTransport()
        self.session = service_factory(service).buildProtocol(None)
        self.session.makeConnection(self.transport)

    def frames(self) -> list[dict[str, Any]]:
        """Every frame written so far."""
        return [json.loads(line) for line in self.transport.value().splitlines() if line]

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request and its answer (running the ledger's thread callbacks meanwhile)."""
        request_id = next(self._ids)
        self.session.dataReceived(encode_frame({"type": kind, "id": request_id, **fields}))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for frame in self.frames():
                if frame.get("id") == request_id:
                    return frame
            f, args, kwargs = self.room.reactor.calls.get(timeout=20)
            f(*args, **kwargs)
        raise TimeoutError(kind)


def service_factory(service: AdminService) -> Any:
    """The factory the endpoint would use."""
    from pokerroom.admin.session import AdminFactory

    return AdminFactory(service)


def test_three_failed_logins_lock_the_name_until_the_window_passes(room: Room) -> None:
    """Staff login throttling on the injected clock: locked (too_many_attempts, until_ms at
    the window's end) even for the right password; open again once the window has passed."""
    service = admin_of(room)
    staff = Staff(room, service)
    for _ in range(3):
        assert staff.call("staff_login", name="flo", password="wrong one!")["code"] == (
            "bad_credentials"
        )
    locked = staff.call("staff_login", name="flo", password=PASSWORD)
    assert locked["code"] == "too_many_attempts"
    assert locked["details"]["until_ms"] == int((room.clock.seconds() + 600) * 1000)
    room.clock.advance(599)  # (the first connection is closed by its login deadline by now)
    later = Staff(room, service)
    assert later.call("staff_login", name="flo", password=PASSWORD)["code"] == "too_many_attempts"
    room.clock.advance(2)
    last = Staff(room, service)
    assert last.call("staff_login", name="flo", password=PASSWORD)["result"]["role"] == "floor"


def test_a_connection_that_does_not_log_in_is_closed_at_the_deadline(room: Room) -> None:
    """login_timeout_seconds on the injected clock: goodbye login_timeout, then closed."""
    staff = Staff(room, admin_of(room))
    room.clock.advance(29)
    assert staff.frames() == [] and not staff.transport.disconnecting
    room.clock.advance(1)
    assert [f["code"] for f in staff.frames() if f["type"] == "goodbye"] == ["login_timeout"]
    assert staff.transport.disconnecting


def test_holds_and_bans_are_applied_again_after_a_restart(room: Room) -> None:
    """A paused table stays paused and a ban stays in force in a new admin service (a
    restart): both are stored with their audit row, and loaded before players connect."""
    service = admin_of(room)
    staff = Staff(room, service)
    staff.call("staff_login", name="flo", password=PASSWORD)
    player = room.client()
    player.login("zoe")
    assert staff.call("table_pause", table_id="t1")["type"] == "ok"
    assert staff.call("player_ban", player="zoe", reason="bot")["type"] == "ok"
    actor = room.lobby.tables["t1"]
    actor.release()  # forget it in memory, as a restart would
    room.accounts.banned = frozenset()
    again = admin_of(room)
    assert again.table_states == {"t1": "paused"} and actor.staff_hold == "paused"
    assert again.banned == {"zoe"}
    fresh = room.client()
    fresh.ok("hello", version=1, client="desktop")
    assert fresh.error("login", name="zoe", password="correct horse") == "banned"
