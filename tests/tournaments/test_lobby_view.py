"""The tournament lobby as docs/PROTOCOL.md section 9 promises it (T-1, T-5, T-11), and what is
pushed: `tournament_lobby_update` to lobby watchers, `tournament_status` to registered players
at the start and at each level change and break."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerroom.protocol.catalog import validate
from pokerroom.protocol.events import as_dict
from pokerroom.protocol.messages import parse_request
from tests.tournaments.actor_harness import Room
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler, next_start
from tournaments.templates import structure_from_mapping

LEVEL = 60  # seconds
BREAK = 120  # seconds, after every second level
#: Blinds 10/20, 20/40, 30/60, 50/100; a break after levels 2 and 4 (T-11).
FAST = structure_from_mapping(
    {
        "name": "fast",
        "starting_stack": 3000,
        "level_minutes": 1,
        "levels": [[10, 20], [20, 40], [30, 60], [50, 100], [100, 200]],
        "breaks": {"mode": "after_levels", "every_levels": 2, "minutes": 2},
    }
)
MTT = ScheduleEntry(
    "evening", "fast", 500, 50, every_minutes=60, registration_open_minutes=60,
    late_registration_levels=2,
)  # fmt: skip


class Inbox:
    """The hub's part: what each player receives, as the client decodes it (validated)."""

    def __init__(self) -> None:
        self.inbox: dict[str, list[dict[str, Any]]] = {}

    def send(self, player: str, message: Any) -> None:
        frame = as_dict(message)
        validate(frame)  # every frame matches its declaration
        self.inbox.setdefault(player, []).append(frame)

    def send_all(self, players: Any, message: Any) -> None:
        for player in list(players):
            self.send(player, message)

    def of(self, player: str, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.inbox.get(player, []) if m["type"] == kind]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def ask(desk: TournamentDesk, player: str, frame: dict[str, Any]) -> Any:
    return desk.handle(player, parse_request({"id": 1, **frame}))


def test_a_scheduled_tournament_in_the_lobby_before_and_after_its_start(room: Room) -> None:
    """T-1, T-5, T-11: name, start, late registration and its end, time to the next break;
    the status before the start names the start and the first level; registering answers
    {entry, chips}; watchers and players are told as it goes."""
    hub = Inbox()
    desk = TournamentDesk(hub)
    desk.watchers = {"watcher"}
    scheduler = TournamentScheduler(
        room.clock, room.ledger, [MTT], {"fast": FAST}, players=desk, on_change=desk.changed
    )
    desk.scheduler = scheduler
    now = room.clock.seconds()
    start = next_start(MTT, now)
    scheduler.startService()
    try:
        (line,) = as_dict(ask(desk, "watcher", {"type": "tournament_list"}))["tournaments"]
        assert hub.of("watcher", "tournament_lobby_update")[0]["tournament"] == line  # opened
        tid = line["tournament_id"]
        assert line["name"] == "evening" and line["kind"] == "mtt"
        assert line["starts_at_ms"] == int(start * 1000)
        assert line["registration_open"] is True
        # T-5 "through level 2": ends when level 2 ends, two levels after the start.
        assert line["late_registration_levels"] == 2
        assert line["late_registration_ends_ms"] == int((start + 2 * LEVEL) * 1000)
        assert line["late_registration_closed"] is None
        # T-11: the first break comes after level 2, counted from now.
        assert line["next_break_in"] == round(start - now + 2 * LEVEL)
        status = as_dict(
            ask(desk, "ann", {"type": "tournament_status_request", "tournament_id": tid})
        )
        first = status["status"]
        assert first["type"] == "tournament_status" and first["status"] == "registering"
        assert first["starts_at_ms"] == int(start * 1000)
        assert (first["level"], first["small_blind"], first["big_blind"]) == (1, 10, 20)
        assert first["level_seconds"] == LEVEL and first["next_level_in"] is None

        for number, name in enumerate(("ann", "bea"), start=1):
            room.fund_player(name, 1000)
            answer = room.wait(
                ask(desk, name, {"type": "tournament_register", "tournament_id": tid})
            )
            assert as_dict(answer) == {"entry": 1, "chips": 3000}
            update = hub.of("watcher", "tournament_lobby_update")[-1]["tournament"]
            assert update["entries"] == number
        assert hub.of("ann", "tournament_status") == []  # registrations are lobby news only

        room.advance(start - room.clock.seconds() + 1, scheduler.actors[tid])
        started = hub.of("ann", "tournament_status")
        assert [s["status"] for s in started] == ["running"] and started[0]["level"] == 1
        assert started[0]["next_level_in"] == LEVEL  # pushed at the start itself
        assert hub.of("bea", "tournament_status") == started  # every registered player

        room.advance(LEVEL, scheduler.actors[tid])  # level 2
        room.advance(LEVEL, scheduler.actors[tid])  # the break after level 2
        room.advance(BREAK, scheduler.actors[tid])  # level 3
        pushed = [(s["level"], s["on_break"]) for s in hub.of("ann", "tournament_status")]
        assert pushed == [(1, False), (2, False), (3, True), (3, False)]
        during = as_dict(desk.summary(scheduler.actors[tid]))
        assert during["late_registration_closed"] == "time"  # past level 2
        assert during["registration_open"] is False
        assert during["late_registration_ends_ms"] == int((start + 2 * LEVEL) * 1000)
        assert during["next_break_in"] == round(2 * LEVEL - 1)  # after level 4
    finally:
        scheduler.stopService()
    assert not any("watch_level" in repr(call) for call in room.clock.getDelayedCalls())


def test_knockouts_are_told_once_per_burst_and_the_end_at_once(room: Room) -> None:
    """Players left (§9): a sit-and-go played to its end tells its players the start, the
    knockouts (one status for busts within `push_seconds`) and the end; the statuses' players
    left only go down."""
    from tests.tournaments.test_desk import SNG, Clients

    clients = Clients(3)
    desk = TournamentDesk(clients)
    clients.desk = desk
    scheduler = TournamentScheduler(
        room.clock, room.ledger, [SNG], players=desk, on_change=desk.changed
    )
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (line,) = clients.request("x", {"type": "tournament_list"})["tournaments"]
        tid = line["tournament_id"]
        actor = scheduler.actors[tid]
        for name in ("ann", "bea", "cid"):
            room.fund_player(name, 1000)
            room.wait(clients.request(name, {"type": "tournament_register", "tournament_id": tid}))
        room.run_to_end(actor)
        statuses = [m for m in clients.inbox["ann"] if m["type"] == "tournament_status"]
        left = [s["players_left"] for s in statuses]
        assert statuses[0]["status"] == "running" and left[0] == 3
        assert statuses[-1]["status"] == "finished"
        assert 2 in left and left == sorted(left, reverse=True)
        assert clients.inbox["bea"].count(statuses[-1]) == 1  # the same, to every player
    finally:
        scheduler.stopService()


def test_a_burst_of_knockouts_is_one_push(room: Room) -> None:
    """Two knockouts within `push_seconds`: one `tournament_status`, `push_seconds` later."""
    hub = Inbox()
    desk = TournamentDesk(hub)
    scheduler = TournamentScheduler(room.clock, room.ledger, [MTT], {"fast": FAST}, players=desk)
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (actor,) = scheduler.actors.values()
        room.fund_player("ann", 1000)
        room.wait(actor.register("ann"))
        desk.changed(actor, "knockout")
        room.clock.advance(desk.push_seconds / 2)
        desk.changed(actor, "knockout")
        assert hub.of("ann", "tournament_status") == []
        room.clock.advance(desk.push_seconds / 2)
        assert len(hub.of("ann", "tournament_status")) == 1
        room.clock.advance(desk.push_seconds * 2)
        assert len(hub.of("ann", "tournament_status")) == 1
        desk.changed(actor, "money")  # the money is told at once
        assert len(hub.of("ann", "tournament_status")) == 2
    finally:
        scheduler.stopService()
