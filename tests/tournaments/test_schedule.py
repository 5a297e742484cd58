"""The recurring schedule run by `pokerroom serve`: sit-and-gos always open, MTTs on time (T-1)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments.actor_harness import Room
from tournaments.ops.schedule import (
    SatelliteEntry,
    ScheduleEntry,
    TournamentScheduler,
    load_schedule,
    next_start,
    parse_schedule,
)
from tournaments.ops.simulation import START, Bots

SNG = ScheduleEntry("sng-3", "turbo", 100, 10, players=3)
HOURLY = ScheduleEntry(
    "hourly", "turbo", 100, 10, every_minutes=60, at_minute=30, registration_open_minutes=20
)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def test_the_shipped_schedule_loads():
    """config/tournaments/schedule/schedule.toml names known structures and formats."""
    entries = load_schedule()
    assert any(e.sit_and_go for e in entries) and any(not e.sit_and_go for e in entries)


def test_a_bad_entry_is_refused():
    """An MTT needs every_minutes; a sit-and-go needs players."""
    with pytest.raises(ValueError):
        parse_schedule({"mtt": [{"name": "x", "structure": "turbo", "buy_in": 1, "fee": 0}]})


def test_an_entry_name_too_long_for_its_tournament_ids_is_refused():
    """A tournament id `<name>-<start ms>` must fit the store's 40 characters (T-18)."""
    entry = {"structure": "turbo", "buy_in": 1, "fee": 0, "players": 2}
    assert parse_schedule({"sit_and_go": [{"name": "n" * 26, **entry}]})[0].name == "n" * 26
    with pytest.raises(ValueError, match="26 characters at most"):
        parse_schedule({"sit_and_go": [{"name": "n" * 27, **entry}]})


def test_the_outage_settings_of_an_entry():
    """T-18: `outage = { resume_within_minutes, reconnect_seconds }`; defaults 10 and 30."""
    entry = {"name": "e", "structure": "turbo", "buy_in": 1, "fee": 0, "players": 2}
    (default,) = parse_schedule({"sit_and_go": [entry]})
    assert (default.outage.resume_within_minutes, default.outage.reconnect_seconds) == (10, 30)
    outage = {"resume_within_minutes": 0.5, "reconnect_seconds": 5}
    (mine,) = parse_schedule({"sit_and_go": [{**entry, "outage": outage}]})
    assert (mine.outage.resume_within_minutes, mine.outage.reconnect_seconds) == (0.5, 5)
    with pytest.raises(ValueError):
        parse_schedule({"sit_and_go": [{**entry, "outage": {"resume_within": 1}}]})
    with pytest.raises(ValueError):
        parse_schedule({"sit_and_go": [{**entry, "outage": {"reconnect_seconds": -1}}]})


def test_next_start_is_the_next_slot_of_the_cycle():
    """T-1: MTTs start at fixed times; the next one strictly after now."""
    assert START % 3600 == 0
    assert next_start(HOURLY, START) == START + 1800
    assert next_start(HOURLY, START + 1800) == START + 5400
    assert next_start(HOURLY, START + 1799) == START + 1800


def test_scheduler_keeps_a_sit_and_go_open_and_opens_mtts_on_time(room: Room):
    """A full sit-and-go starts and a new one opens; an MTT opens N minutes before its start."""
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG, HOURLY])
    scheduler.startService()
    try:
        names = sorted(scheduler.actors)
        assert len(names) == 1 and names[0].startswith("sng-3-")  # hourly opens at :10
        room.clock.advance(600)
        assert f"hourly-{int(START + 1800)}" in scheduler.actors
        sng = scheduler.actors[names[0]]
        for n in range(3):
            room.fund_player(f"s{n}", 1000)
            room.wait(sng.register(f"s{n}"))
        assert sng.status == "running"
        room.clock.advance(30)
        open_sngs = [
            a for a in scheduler.actors.values() if a.tid.startswith("sng-3-") and a is not sng
        ]
        assert len(open_sngs) == 1 and open_sngs[0].status == "registering"
    finally:
        scheduler.stopService()


def test_the_next_sit_and_go_opens_in_the_same_turn_as_one_fills(room: Room):
    """docs/SERVER.md "one sit-and-go of each kind is always open": the registration that
    fills one opens the next before the clock moves (not at the scheduler's next check), with
    an id of its own although both opened in the same millisecond; so does a cancellation."""
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG])
    scheduler.startService()
    try:
        (first,) = scheduler.actors.values()
        before = room.clock.seconds()
        for n in range(3):
            room.fund_player(f"s{n}", 1000)
            room.wait(first.register(f"s{n}"))
        assert first.status == "running" and room.clock.seconds() == before
        waiting = [a for a in scheduler.actors.values() if a.status == "registering"]
        assert len(waiting) == 1 and waiting[0].tid != first.tid
        assert waiting[0].tid.startswith("sng-3-")
        second = waiting[0]
        room.wait(second.cancel())
        waiting = [a for a in scheduler.actors.values() if a.status == "registering"]
        assert len(waiting) == 1 and waiting[0].tid not in (first.tid, second.tid)
        assert room.clock.seconds() == before
    finally:
        scheduler.stopService()


def test_serve_runs_the_schedule_after_the_ledger(tmp_path: Path):
    """ARCH 9: the scheduler is a child of the room after the ledger, so it stops before it."""
    from twisted.internet.task import Clock

    from pokerroom.server.service import RoomService
    from pokerroom.server.settings import load_settings

    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    room = RoomService(Clock(), url, load_settings(), schedule=load_schedule())
    assert [service.name for service in room] == ["ledger", "accounts", "tournaments", "jobs"]
    room.ledger.engine.dispose()


def test_an_mtt_without_players_is_cancelled_and_leaves_the_lobby(room: Room):
    """T-1: too few entries at the start: cancelled, refunded, and kept among the finished."""
    scheduler = TournamentScheduler(room.clock, room.ledger, [HOURLY])
    scheduler.startService()
    try:
        room.clock.advance(600)
        tid = f"hourly-{int(START + 1800)}"
        assert tid in scheduler.actors
        room.clock.advance(1200)
        cancelled = scheduler.actors.get(tid) or scheduler.finished[tid]
        room.wait(cancelled.pending())  # stored, then refunded by the refund job (T-18.1)
        assert tid not in scheduler.actors and scheduler.finished[tid].status == "cancelled"
    finally:
        scheduler.stopService()


def test_a_scheduled_satellite_gives_tickets_its_winners_use_in_the_target(room: Room):
    """T-16, T-8 on the schedule: a sit-and-go with `satellite = { target = "hourly" }` plays
    down to its seats; each winner gets a ticket for the next `hourly` tournament starting after
    it (buy-in and fee of that entry) and is registered there with it once it is open; a
    winner registered before is given T$ instead (T-16). A target that is not an [[mtt]]
    entry is refused at load, naming the key."""
    sat = ScheduleEntry(
        "sat", "turbo", 110, 0, players=3, satellite=SatelliteEntry("hourly", ticket_valid_days=7)
    )
    bots = Bots(random.Random(4))
    scheduler = TournamentScheduler(room.clock, room.ledger, [sat, HOURLY], players=bots)
    scheduler.startService()
    try:
        room.clock.advance(600)  # the hourly opens (at :10 for :30)
        target = f"hourly-{int(START + 1800)}"
        assert target in scheduler.actors
        (actor,) = [a for a in scheduler.actors.values() if a.tid.startswith("sat-")]
        assert actor.config.satellite is not None
        assert actor.config.satellite.tournament_id == target
        assert actor.config.satellite.seat_value == 110
        for n in range(3):
            room.fund_player(f"q{n}", 1000)
            room.wait(actor.register(f"q{n}"))
        room.run_to_end(actor)
        assert actor.status == "finished"
        winners = sorted(r.entry for r in actor.results if r.place <= 2)
        assert len(winners) == 2  # 330 in the pool: two seats of 110, 110 to third
        hourly = scheduler.actors[target]
        room.advance(5, hourly)  # the tickets landed, then the registrations
        assert not actor.payouts.failures
        for winner in winners:  # registered in the target with their ticket (T-2)
            record = hourly.state.players[winner]
            assert record.funding.value == "ticket" and record.ticket_id
    finally:
        scheduler.stopService()
    with pytest.raises(ValueError, match=r'satellite\.target: "nope"'):
        parse_schedule(
            {
                "sit_and_go": [
                    {
                        "name": "s",
                        "structure": "turbo",
                        "buy_in": 1,
                        "fee": 0,
                        "players": 2,
                        "satellite": {"target": "nope"},
                    }
                ]
            }
        )
