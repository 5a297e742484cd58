"""The admin service in process, on a fake clock and a real SQLite ledger: the staff login
lock-out and its end, the login deadline, and bans and table holds that survive a restart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.admin.roles import Role
from tests.admin.rooms import PASSWORD, Staff, admin_of, admin_service, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """Hub, lobby, chat and accounts on the fake clock; one table; a floor staff member."""
    with staffed_room(reactor, clock, ledger, {"flo": Role.FLOOR}, tables=["t1"]) as built:
        yield built


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


def test_a_ban_and_its_lift_are_told_to_the_cluster_once_in_force_here(room: Room) -> None:
    """Cluster mode: `ban_changed` hears (player, True) once the ban took effect here and
    (player, False) once lifted; a ban enforced for another node (tell=False) is not told
    again, so nodes do not echo each other."""
    service = admin_of(room)
    told: list[tuple[str, bool, bool]] = []
    service.ban_changed = lambda player, banned: told.append(
        (player, banned, player in service.banned)
    )
    staff = Staff(room, service)
    staff.call("staff_login", name="flo", password=PASSWORD)
    room.client().login("zoe")
    assert staff.call("player_ban", player="zoe", reason="bot")["type"] == "ok"
    assert told == [("zoe", True, True)]
    assert staff.call("player_unban", player="zoe", reason="appeal")["type"] == "ok"
    assert told == [("zoe", True, True), ("zoe", False, False)]
    service.enforce_ban("max", tell=False)  # another node's ban
    service.lift_ban("max", tell=False)
    assert len(told) == 2 and "max" not in service.banned


def test_reload_bans_applies_what_another_node_banned_and_lifted_meanwhile(room: Room) -> None:
    """Cluster mode, NATS back after an outage: a node reads the bans in force and enforces
    the new ones (the player's session here closed with `banned`) and lifts the lifted ones,
    telling no one (the other node already did)."""
    here = admin_service(room)  # this node: it heard nothing
    there = admin_of(room)  # the node where staff acted
    told: list[tuple[str, bool]] = []
    here.ban_changed = lambda player, banned: told.append((player, banned))
    zoe = room.client()
    zoe.login("zoe")
    staff = Staff(room, there)
    staff.call("staff_login", name="flo", password=PASSWORD)
    assert staff.call("player_ban", player="zoe", reason="bot")["type"] == "ok"
    assert "zoe" not in here.banned
    room.reactor.wait(here.reload_bans())
    assert here.banned == {"zoe"} and told == []
    assert staff.call("player_unban", player="zoe", reason="appeal")["type"] == "ok"
    room.reactor.wait(here.reload_bans())
    assert here.banned == set() and told == []


def test_reload_bans_keeps_a_ban_made_here_while_it_read(room: Room) -> None:
    """The periodic reload read the bans before a ban made here was stored: applying that
    older read lifts nothing made since (zoe stays banned here), nor bans again a lift made
    since (max stays lifted)."""
    here = admin_service(room)
    here.enforce_ban("max", tell=False)
    read: Deferred[set[str]] = Deferred()
    real = here.ledger
    here.ledger = cast(Any, type("Held", (), {"read": lambda self, work: read})())
    try:
        reloaded = here.reload_bans()
        here.enforce_ban("zoe", tell=False)  # staff banned her here while the read ran
        here.lift_ban("max", tell=False)
        read.callback({"max"})  # what the read saw: max banned, zoe not yet
    finally:
        here.ledger = real
    assert reloaded.called
    assert here.banned == {"zoe"}
