"""The admin service in process: a Room on the fake clock with staff members (cheap password
hashes), an admin service over its parts, and one staff connection on a StringTransport."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from pokerroom.admin.roles import Role
from pokerroom.admin.service import AdminService
from pokerroom.admin.session import AdminFactory
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
#: Password hashes that cost next to nothing (the staff's are made with it).
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def add_members(engine: Engine, members: dict[str, Role]) -> None:
    """Staff accounts `name: role`, each with PASSWORD."""
    for name, role in members.items():
        add_staff(engine, name, role, CHEAP.hash(PASSWORD), 0)


@contextmanager
def staffed_room(
    reactor: QueueReactor,
    clock: Clock,
    ledger: CountingLedger,
    members: dict[str, Role],
    tables: Iterable[str] = (),
) -> Iterator[Room]:
    """A Room with these staff members and tables, stopped when the block ends."""
    add_members(ledger.engine, members)
    built = Room(reactor, clock, ledger)
    for table in tables:
        built.add_table(table)
    try:
        yield built
    finally:
        built.stop()


def admin_service(room: Room, settings: AdminSettings = SETTINGS, **parts: Any) -> AdminService:
    """An admin service over the room's parts (and any `parts` more), loaded as at start-up."""
    service = AdminService(
        room.reactor,
        settings,
        ledger=room.ledger,
        lobby=room.lobby,
        hub=room.hub,
        chat=room.chat,
        hashing=room.accounts.hashing,
        currency="USD",
        clock=room.clock,
        **parts,
    )
    room.reactor.wait(service.load())
    return service


def admin_of(room: Room) -> AdminService:
    """An admin service over the room's parts, loaded as at start-up (not listening); the
    room's accounts see its bans."""
    service = admin_service(room)
    room.accounts.banned = service.banned
    return service


class Staff:
    """One staff connection on a StringTransport."""

    _ids = itertools.count(1)

    def __init__(self, room: Room, service: AdminService) -> None:
        self.room = room
        self.transport = StringTransport()
        self.session = AdminFactory(service).buildProtocol(None)
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


def logged_in(room: Room, admin: AdminService, name: str) -> Staff:
    """A staff connection logged in as `name`."""
    staff = Staff(room, admin)
    assert staff.call("staff_login", name=name, password=PASSWORD)["type"] == "ok"
    return staff
