"""T-18: what a resumed tournament carries over from before the crash, in process (real SQLite
and PostgreSQL, a fake clock, the real ledger; tests/tournaments/test_durable.py has the rest):

- places given before the crash keep their T-9 order once the field is final (a knockout
  before the crash finishes below every knockout after it; nothing shares a place by accident);
- hand ids are never used twice, across any number of resumes (docs/PROTOCOL.md);
- each table's button and blinds, each player's time bank and sit-out flag, and a staff pause
  are as they were (C-4, C-7, T-12).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerroom.admin.audit import RecorderAudit
from pokerroom.table.positions import ALWAYS_DEALT, plan_hand
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import Room
from tests.tournaments.test_durable import Restart, Staller, advance, config, stored_entries
from tests.tournaments.test_staff_actions import DIRECTOR
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import OutageSettings
from tournaments.ops.simulation import Bots
from tournaments.tables.knockouts import HandResult
from tournaments.tables.table import TournamentTable


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
        #: table -> (the button of its first hand heard, its seats then)
        self.first_buttons: dict[int, tuple[int, dict[int, str]]] = {}

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        self.seen.append(result.hand_id)
        self.first_buttons.setdefault(table.table_id, (result.button, dict(table.seats)))
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
    if isinstance(bots, Watching):
        bots.seen = []  # the dead process's timers still fire on the shared clock: not heard


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


def freezeout(room: Room, bots: Bots, tid: str) -> TournamentActor:
    """A freezeout of 18 (two tables), a 5-minute resume window."""
    cfg = config(
        tid,
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


def resume(room: Room, actor: TournamentActor, bots: Bots) -> TournamentActor:
    """Start the room again 60 s later: the tournament resumes (within its window)."""
    restart = Restart(room, 60.0, bots)
    (choice,) = restart.recovery.choices
    assert choice.action == "resumed"
    again = restart.scheduler.actors[actor.tid]
    bots.actor = again
    return again


def test_hand_ids_are_never_used_twice_across_resumes(room: Room) -> None:
    """docs/PROTOCOL.md: a hand id names one hand forever. Crashed twice with hands in
    progress (their ids were told to the players: void, never to be used again), resumed
    twice: every hand id dealt, completed or void, is distinct; a table's hand count goes on."""
    seen: list[str] = []
    bots = Watching(random.Random(21), seen)
    actor = freezeout(room, bots, "hid")
    void: list[str] = []
    counts: dict[int, int] = {}
    for round_ in (1, 2):
        # A few hands of this life, then the crash: how many an 18-player freezeout of random
        # bots lasts depends on the cards, so a fixed total could come after its end.
        goal = actor.floor.hands + 5
        while actor.floor.hands < goal and actor.status == "running":
            advance(room, actor)
        assert actor.status == "running", "the tournament ended before its crash"
        crash(room, actor, bots)
        void += [t.hand_id for t in actor.floor.tables.values() if t.hand_running]
        counts = {t.table_id: t.hands_played for t in actor.floor.tables.values()}
        bots = Watching(random.Random(21 + round_), seen)
        actor = resume(room, actor, bots)
        for table in actor.floor.tables.values():  # the count goes on from the stored hand
            assert table.hands_played >= counts.get(table.table_id, 1) - 1
    assert void
    room.run_to_end(actor)
    assert actor.status == "finished"
    dealt = seen + void
    assert len(dealt) == len(set(dealt)), sorted(h for h in dealt if dealt.count(h) > 1)
    assert any(h.endswith("r2") for h in seen) and any(h.endswith("r1") for h in seen)


def test_buttons_banks_sit_outs_and_a_pause_stand_through_a_resume(room: Room) -> None:
    """T-18 with C-4/T-12/C-7: after a resume each table's button and blinds move on from its
    last completed hand (not drawn anew: nobody skips the blinds or pays them twice), a time
    bank spent and a sit-out asked before the crash are still so, and a staff pause stands
    (no hand is dealt until the staff resume it)."""
    seen: list[str] = []
    bots = Watching(random.Random(31), seen)
    actor = freezeout(room, bots, "btn")
    while actor.floor.hands < 12:
        advance(room, actor)
    table = next(iter(actor.floor.tables.values()))
    sitter = table.seats[min(table.seats)]
    actor.set_presence(sitter, connected=True, sitting_out=True)
    level = actor.floor.level().index
    actor.floor.banks.bank_ms(sitter, level)
    actor.floor.banks.store(sitter, 1234)  # what was left of the bank after a long think
    hands = table.hands_played
    while table.hands_played < hands + 2:  # stored with the table's next completed hand
        advance(room, actor)
    room.wait(
        actor.staff.pause_play(RecorderAudit(DIRECTOR, "tournament_pause", actor.tid, "t", 1))
    )
    while any(t.hand_running for t in actor.floor.tables.values()):
        advance(room, actor)
    room.wait(actor.pending())
    buttons = {t.table_id: (t.table_state(), t.hands_played) for t in actor.floor.tables.values()}
    seats = {t.table_id: dict(t.seats) for t in actor.floor.tables.values()}
    # the next hand each table would have dealt: its button moves on from the last one
    nexts = {}
    for t in actor.floor.tables.values():
        plan = plan_hand(
            dict.fromkeys(t.seats, ALWAYS_DEALT), t.max_seats, 1, 2, t._button_state, min
        )
        assert plan is not None
        nexts[t.table_id] = (plan.button, plan.big_blind_seat)
    actor.floor.stop()
    actor.stop_watching()
    actor.durable._stop_beat()
    bots2 = Watching(random.Random(32), seen)
    again = resume(room, actor, bots2)
    floor = again.floor
    assert floor.paused  # a staff pause stands through the restart
    assert {t.table_id: (t.table_state(), t.hands_played) for t in floor.tables.values()} == buttons
    assert floor.banks.kept(sitter) == (1234, level)
    assert sitter in floor.presence.asked
    dealt = floor.hands
    room.clock.advance(120)
    room.settle(again)
    assert floor.hands == dealt and not any(t.hand_running for t in floor.tables.values())
    room.wait(
        again.staff.resume_play(RecorderAudit(DIRECTOR, "tournament_resume", again.tid, "t", 2))
    )
    room.run_to_end(again)
    assert again.status == "finished"
    compared = 0
    for table_id, (button, sat) in bots2.first_buttons.items():
        if sat == seats.get(table_id):  # nobody moved in or out: the plan is the same
            assert button == nexts[table_id][0]
            compared += 1
    assert compared
