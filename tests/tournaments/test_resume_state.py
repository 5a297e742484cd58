"""T-18: what a resumed tournament carries over from before the crash, in process (real SQLite
and PostgreSQL, a fake clock, the real ledger; tests/tournaments/test_durable.py has the rest):

- places given before the crash keep their T-9 order once the field is final (a knockout
  before the crash finishes below every knockout after it; nothing shares a place by accident);
- hand ids are never used twice, across any number of resumes (docs/PROTOCOL.md);
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import Room
from tests.tournaments.test_durable import Restart, Staller, advance, config, stored_entries
from tournaments import store
from tournaments.actor import TournamentActor
from tournaments.config import OutageSettings
from tournaments.knockouts import HandResult
from tournaments.simulation import Bots
from tournaments.table import TournamentTable


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Room]:
    """The actor's room on a SQLite file, or on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        harness = Room(tmp_path)
        try:
            yield harness
        finally:
            harness.close()
        return
    with fresh_pg_schema("resume_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


class Watching(Staller):
    """Bots that note every hand id they saw end (and can stop answering)."""

    def __init__(self, rng: random.Random, seen: list[str]) -> None:
        super().__init__(rng)
        self.seen = seen

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        self.seen.append(result.hand_id)
        super().hand_ended(table, result)

    def finished(self, result: Any) -> None:
        self.stalling = self.stalling or self.stall_at_a_finish
        super().finished(result)

    stall_at_a_finish = False


def crash(room: Room, actor: TournamentActor, bots: Staller) -> None:
    """Kill the process with a hand in progress (the recorder caught up first)."""
    bots.stalling = True
    while not any(t.hand_running for t in actor.floor.tables.values()):
        advance(room, actor)
    room.wait(actor.pending())
    actor.floor.stop()
    actor.stop_watching()
    actor.durable._stop_beat()


def reentry_mtt(room: Room, bots: Bots, tid: str) -> TournamentActor:
    """A re-entry MTT of 18 (two tables), late registration open for three levels."""
    cfg = config(
        tid,
        fmt="reentry",
        late_registration_levels=3,
        between_hands_seconds=5,
        outage=OutageSettings(resume_within_minutes=5, reconnect_seconds=10),
    )
    actor = room.actor(cfg, bots)
    for n in range(18):
        room.fund_player(f"{tid}-{n:02d}", 10_000)
        room.wait(actor.register(f"{tid}-{n:02d}"))
    while actor.status != "running":
        advance(room, actor)
    return actor


def test_places_before_a_resume_stay_below_the_places_after_it(room: Room) -> None:
    """T-9, T-5, T-18: knocked out before the crash (while the field could still grow), a
    player finishes below everyone knocked out after the resume; places are 1..N with no
    entry sharing a place with a knockout of another hand."""
    seen: list[str] = []
    bots = Watching(random.Random(11), seen)
    actor = reentry_mtt(room, bots, "plc")
    bots.stall_at_a_finish = True  # one knockout batch before the crash
    while not actor.results:
        advance(room, actor)
    assert actor.prizes is None  # the field can still grow: places are not final yet
    crash(room, actor, bots)
    before = {(r.entry, r.entry_no) for r in actor.results}
    bots2 = Watching(random.Random(12), seen)
    restart = Restart(room, 60.0, bots2)
    (choice,) = restart.recovery.choices
    assert choice.action == "resumed"
    again = restart.scheduler.actors[actor.tid]
    bots2.actor = again
    restored = max(r.batch for r in again.results)
    room.run_to_end(again)
    assert again.status == "finished"
    new = [r.batch for r in again.results if (r.entry, r.entry_no) not in before]
    assert min(new) > restored  # a knockout after the resume is never of a batch before it
    entries = [e for e in stored_entries(room, actor.tid) if e.status != store.UNREGISTERED]
    places = {(e.player, e.entry_no): e.place for e in entries}
    assert all(p is not None for p in places.values())
    after = set(places) - before
    worst_after = max(p for k, p in places.items() if k in after and p is not None)
    best_before = min(p for k, p in places.items() if k in before and p is not None)
    assert best_before > worst_after, places
    by_batch = {(r.entry, r.entry_no): r.batch for r in again.results}
    for key, place in places.items():
        sharing = [k for k, p in places.items() if p == place and k != key]
        assert all(by_batch.get(k) == by_batch.get(key) for k in sharing), (key, sharing)
