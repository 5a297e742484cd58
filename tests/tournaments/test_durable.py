"""T-18 durable tournaments in process (real SQLite and PostgreSQL, a fake clock, real ledger):

- at every moment the recorder has caught up, the stored state is the actor's as of each
  table's last completed hand: seats, stacks (with chips bought since), entries alive, places;
- a result reaches a client only once it is stored (persist, then tell: rule 14);
- a restart resumes a tournament back within `outage.resume_within_minutes`, which plays on
  to the end with chips and money conserved, and cancels one that is not, whose refunds equal
  the independent reference (tests/tournaments/t18_reference.py) to the cent;
- registering tournaments survive a restart, or are cancelled when their start passed long ago;
- the actor's own cancellation is paid by the refund job, exactly once.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.jobs.service import JobService
from pokerroom.ledger import LedgerService
from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.protocol.events import HandEnded, ServerMessage
from pokerroom.protocol.tournament_messages import TournamentCancelled
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.t18_reference import paid, reference
from tournaments import store
from tournaments.actor.durable_writes import WAITING
from tournaments.actor.tournament import TournamentActor
from tournaments.config import OutageSettings, make_config
from tournaments.desk.desk import TournamentDesk
from tournaments.director.entries import can_rebuy
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.schedule import TournamentScheduler
from tournaments.ops.simulation import START, Bots, Pump
from tournaments.results import Result

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=300) for i in range(14))
STRUCTURE = Structure("durable", 1000, LEVELS, AnteKind.NONE)
BUY_IN, FEE = 920, 80


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
    with fresh_pg_schema("durable_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


def config(tid: str = "d1", **kw: Any) -> Any:
    kw.setdefault("starts_at", START + 600)
    kw.setdefault("buy_in", BUY_IN)
    kw.setdefault("fee", FEE)
    return make_config(tid, STRUCTURE, **kw)


# --------------------------------------------------------------------------- what is stored


def stored_seats(room: Room, tid: str) -> dict[str, tuple[str, int, int]]:
    """player -> (table, seat, stack) as stored."""
    return {
        s.player: (s.table_id, s.seat, s.stack)
        for s in room.wait(room.ledger.read(_read, store.load_seats, tid))
    }


def stored_entries(room: Room, tid: str) -> list[store.EntryRecord]:
    return list(room.wait(room.ledger.read(_read, store.load_entries, tid)))


def stored_row(room: Room, tid: str) -> store.TournamentRecord:
    record = room.wait(room.ledger.read(_read, store.load_tournament, tid))
    assert record is not None
    return record


def _read(engine: Any, load: Any, tid: str) -> Any:
    with engine.connect() as conn:
        return load(conn, tid)


def memory_seats(actor: TournamentActor) -> dict[str, tuple[str, int, int]]:
    """player -> (table, seat, stack as of the table's last completed hand) in the actor."""
    return {
        entry: (str(table.table_id), seat, table.kept_stack(entry))
        for table in actor.floor.tables.values()
        for seat, entry in table.seats.items()
    }


def check_stored(room: Room, actor: TournamentActor) -> None:
    """The stored state is the actor's (T-18): seats and stacks, entries alive, places."""
    assert not actor.durable.recorder.behind
    seats = stored_seats(room, actor.tid)
    assert WAITING not in {table for table, _, _ in seats.values()}  # everyone seated by now
    assert seats == memory_seats(actor)
    entries = stored_entries(room, actor.tid)
    alive = {e.player: e.entry_no for e in entries if e.status == store.ALIVE}
    assert alive == actor.alive
    busted = {(e.player, e.entry_no): e.place for e in entries if e.status == store.BUSTED}
    results = {(r.entry, r.entry_no): r.place for r in actor.results}
    assert busted == results


#: No tournament of these tests runs this long on the fake clock: a loop waiting for something
#: that never comes (a dead process's timers keep the clock busy) fails here instead of running
#: for ever.
HORIZON_SECONDS = 3 * 24 * 3600


def advance(room: Room, actor: TournamentActor) -> None:
    """To the next timer, letting the ledger answer first."""
    room.settle(actor)
    assert room.clock.seconds() - START < HORIZON_SECONDS, "3 days on the clock: stuck"
    calls = room.clock.getDelayedCalls()
    assert calls, "nothing scheduled: the tournament is stuck"
    room.clock.advance(max(0.0, min(c.getTime() for c in calls) - room.clock.seconds()))
    room.settle(actor)


# --------------------------------------------------------------------------- the actor stores


def test_every_commit_leaves_a_completed_hand_of_every_table(room: Room) -> None:
    """T-18, T-4, T-5, T-6: a re-entry MTT with late registration and an overlay, checked
    against the store at every timer once the recorder has caught up; at the end the row is
    finished and every entry's place and prize are stored (the prizes add up to the pool)."""
    bots = Bots(random.Random(3))
    cfg = config(
        fmt="reentry", late_registration_levels=1, guarantee=150_000, between_hands_seconds=30
    )
    actor = room.actor(cfg, bots)
    room.fund(house(AccountKind.HOUSE_OVERLAY, USD), 200_000)
    for n in range(30):
        room.fund_player(f"p{n:02d}", 10_000)
        room.wait(actor.register(f"p{n:02d}"))
    record = stored_row(room, actor.tid)
    assert record.status == store.REGISTERING
    assert store.config_json(cfg) == record.config  # the config it runs with
    checks = late = 0
    while actor.status in ("registering", "running"):
        advance(room, actor)
        if actor.status == "running" and actor.state.late_closed is None and late < 3:
            late += 1  # a late registration: waits on the pseudo-table, then is seated (T-5)
            room.fund_player(f"late{late}", 10_000)
            room.wait(actor.register(f"late{late}"))
        if actor.status == "running" and not actor.durable.recorder.behind:
            check_stored(room, actor)
            checks += 1
    room.wait(actor.pending())
    assert checks > 50 and late == 3 and not bots.chip_errors
    assert any(e.entry_no > 1 for e in stored_entries(room, actor.tid))  # re-entries stored
    record = stored_row(room, actor.tid)
    assert record.status == store.FINISHED and record.prizes is not None
    assert not actor.state.guarantee_dropped  # late registration closed by time (T-5)
    assert record.overlay_posted == 150_000 - actor.state.collected > 0
    entries = stored_entries(room, actor.tid)
    rounding = room.balance(house(AccountKind.HOUSE_ROUNDING, USD))
    assert 0 <= rounding < record.prizes.paid_places  # T-7
    assert (
        sum(e.prize for e in entries) == 150_000 - rounding == sum(r.prize for r in actor.results)
    )
    assert sorted(e.place for e in entries if e.place) == sorted(r.place for r in actor.results)
    assert room.pool(actor.tid) == 0 and room.check()


class Telling(Bots):
    """Bots whose messages go through the tournament's hold, like the desk's: each one, when
    delivered, is checked against the store (a result told before it is stored fails)."""

    def __init__(self, room: Room) -> None:
        super().__init__(random.Random(11))
        self.room = room
        self.hold: Any = None
        self.told: list[str] = []
        self.early: list[str] = []

    def hold_with(self, hold: Any) -> None:
        self.hold = hold

    def finished(self, result: Result) -> None:
        super().finished(result)
        self.hold(self._finish_told, result)

    def _finish_told(self, result: Result) -> None:
        assert self.actor is not None
        entries = {(e.player, e.entry_no): e for e in stored_entries(self.room, self.actor.tid)}
        entry = entries[(result.entry, result.entry_no)]
        if entry.place != result.place or (entry.prize != result.prize and result.place != 1):
            self.early.append(f"finish of {result.entry} told before stored")
        self.told.append("finish")

    def table_frames(self) -> Any:
        return Frames(self)


class Frames:
    """A table's frames, checked when delivered: `hand_ended` only once the hand is stored."""

    def __init__(self, bots: Telling) -> None:
        self.bots = bots

    def send(self, player_id: str, message: ServerMessage) -> None:
        self.bots.hold(self._delivered, message)

    def broadcast(self, table_id: str, message: ServerMessage, exclude: Any = None) -> None:
        self.bots.hold(self._delivered, message)

    def _delivered(self, message: ServerMessage) -> None:
        if not isinstance(message, HandEnded):
            return
        bots = self.bots
        assert bots.actor is not None
        tid, table, number = message.hand_id.split(":")
        hands = {
            s.hand_number
            for s in bots.room.wait(bots.room.ledger.read(_read, store.load_seats, tid))
            if s.table_id == table
        }
        # no row left at the table: its players were moved or busted by this very hand
        # (a broken table, T-10), which is stored in the hand's own commit
        if hands and max(hands) < int(number):
            bots.early.append(f"{message.hand_id} told before stored ({hands})")
        bots.told.append("hand_ended")


def test_results_are_told_only_once_stored(room: Room) -> None:
    """Rule 14 / T-18: `hand_ended` and every finish reach the players' side only after the
    hand (and the knockouts, places and prizes it caused) is committed."""
    bots = Telling(room)
    actor = room.actor(config("told", sit_and_go=True, max_entries=12), bots)
    for n in range(12):
        room.fund_player(f"t{n:02d}", 2_000)
        room.wait(actor.register(f"t{n:02d}"))
    room.run_to_end(actor)
    assert actor.status == "finished"
    assert bots.told.count("finish") == 12 and bots.told.count("hand_ended") >= 10
    assert bots.early == []


def test_a_rebuy_between_hands_and_during_a_hand_is_stored_on_the_stack(room: Room) -> None:
    """T-4: rebuy chips paid are on the stored stack at once, whether the player's table is
    between hands or in one (then they join the stack after the hand, C-9)."""
    bots = Bots(random.Random(5))
    actor = room.actor(config("rb", fmt="rebuy"), bots)
    for n in range(6):
        room.fund_player(f"r{n}", 20_000)
        room.wait(actor.register(f"r{n}"))
    while actor.status != "running":
        advance(room, actor)
    bought = 0
    while bought < 4 and actor.status == "running":
        advance(room, actor)
        for player in sorted(actor.alive):
            table = actor.floor.table_of(player)
            if table is None:
                continue
            before = table.kept_stack(player)
            clock = actor.director_clock()
            if not can_rebuy(actor.settings, actor.state, clock, player, before, 10**9):
                continue
            room.wait(actor.rebuy(player))
            bought += 1
            room.wait(actor.pending())
            assert stored_seats(room, actor.tid)[player][2] == before + 1000
            check_stored(room, actor)
            break
    assert bought == 4


# --------------------------------------------------------------------------- restart


class Restart:
    """A second "process" on the same database: a new ledger service and a scheduler that
    recovers the stored tournaments at its start, `later` seconds after the first stopped."""

    def __init__(self, room: Room, later: float, bots: Bots) -> None:
        room.ledger.stopService()  # the first process is gone (its queued writes landed or not)
        self.room = room
        room.pump = Pump()
        room.clock.advance(later)
        room.ledger = LedgerService(room.pump, room.engine)
        room.ledger.startService()
        self.jobs = JobService(room.clock, room.ledger)
        self.scheduler = TournamentScheduler(
            room.clock,
            room.ledger,
            [],
            players=bots,
            recover=True,
            refunds=lambda: self.jobs.run_now("refunds"),
        )
        self.scheduler.startService()
        self.recovery = room.wait(self.scheduler.recovered)


class Staller(Bots):
    """Bots that stop answering once `stalling` is set (their clock runs; C-6)."""

    stalling = False

    def turn(self, table: Any, entry: str) -> None:
        if not self.stalling:
            super().turn(table, entry)


def play_until(room: Room, actor: TournamentActor, test: Any) -> None:
    while actor.status == "running" and not test():
        advance(room, actor)
    assert actor.status == "running"


def crashed_mtt(room: Room, bots: Bots, tid: str, **kw: Any) -> TournamentActor:
    """A freezeout of 27 bots (3 tables) with a 5-minute resume window, started."""
    cfg = config(tid, outage=OutageSettings(resume_within_minutes=5, reconnect_seconds=20), **kw)
    actor = room.actor(cfg, bots)
    for n in range(27):
        room.fund_player(f"{tid}-{n:02d}", 10_000)
        room.wait(actor.register(f"{tid}-{n:02d}"))
    while actor.status != "running":
        advance(room, actor)
    return actor


@pytest.mark.parametrize("phase", ["before_money", "in_the_money"])
def test_back_within_the_window_the_tournament_resumes_and_plays_to_the_end(
    room: Room, phase: str
) -> None:
    """T-18: killed mid-tournament (hands in progress), back after 3 minutes (window 5): every
    player is back at their stored seat with their stored stack, the level clock has the time
    that was left, and it plays to the end: the chips at resume are all the winner's, the
    prizes are the pool, the ledger balances; the decision and why are on the row."""
    bots = Staller(random.Random(7))
    actor = crashed_mtt(room, bots, "res")
    paid_places = actor.paid_places()
    left = paid_places + 1 if phase == "in_the_money" else 20
    play_until(room, actor, lambda: len(actor.alive) <= left)
    if phase == "in_the_money":
        play_until(room, actor, lambda: len(actor.alive) < paid_places)
    bots.stalling = True  # the next player asked does not answer: a hand stays in progress
    while not any(t.hand_running for t in actor.floor.tables.values()):
        advance(room, actor)  # killed with a hand in progress
    room.wait(actor.pending())
    record = stored_row(room, actor.tid)
    seats = stored_seats(room, actor.tid)
    kept = {e: (t, s, c) for e, (t, s, c) in memory_seats(actor).items()}
    assert seats == kept  # the hands in progress are not in it
    level = actor.floor.level()
    ms_left = record.level_ms_left
    bots2 = Bots(random.Random(8))
    restart = Restart(room, 180.0, bots2)
    (choice,) = restart.recovery.choices
    assert choice.action == "resumed" and "within" in choice.why
    again = restart.scheduler.actors[actor.tid]
    bots2.actor = again
    assert stored_row(room, actor.tid).decision == choice.why
    assert stored_row(room, actor.tid).status == store.RUNNING
    assert memory_seats(again) == seats  # reseated where they were (T-10 seats, stacks)
    assert again.alive == actor.alive and again.chips_issued == sum(c for _, _, c in seats.values())
    # the level clock restarts after the reconnect pause with the time left in the level
    room.clock.advance(20)
    status = again.floor.level()
    assert status.index == record.level_index == level.index
    assert ms_left is not None and status.ends_at is not None
    assert abs((status.ends_at - room.clock.seconds()) * 1000 - ms_left) < 2
    room.run_to_end(again)
    assert again.status == "finished" and not bots2.chip_errors
    (winner,) = [r for r in again.results if r.place == 1]
    assert again.chips_issued == sum(c for _, _, c in seats.values())
    entries = stored_entries(room, actor.tid)
    pool = 27 * BUY_IN
    assert sum(e.prize for e in entries) == pool - room.balance(
        AccountRef(AccountKind.HOUSE_ROUNDING, "house", USD)
    )
    assert sorted(e.place for e in entries) == list(range(1, 28))
    assert room.pool(actor.tid) == 0 and room.check()
    assert stored_row(room, actor.tid).status == store.FINISHED
    assert winner.entry in actor.alive


@pytest.mark.parametrize("phase", ["before_money", "in_the_money"])
def test_past_the_window_it_is_cancelled_and_refunded_as_the_rule_says(
    room: Room, phase: str
) -> None:
    """T-18: back after 6 minutes (window 5): cancelled for outage, the refund job pays what
    the independent reference computes from the stored state, to the cent, and nothing else."""
    bots = Bots(random.Random(9))
    actor = crashed_mtt(room, bots, "can")
    paid_places = actor.paid_places()
    if phase == "in_the_money":
        play_until(room, actor, lambda: len(actor.alive) < paid_places)
    else:
        play_until(room, actor, lambda: len(actor.alive) <= 22)
    room.wait(actor.pending())
    expected = reference(room.engine, actor.tid)
    assert expected.phase == phase
    wallets = {p: room.balance(AccountRef(AccountKind.WALLET, p, USD)) for p in actor.state.players}
    restart = Restart(room, 360.0, Bots(random.Random(1)))
    (choice,) = restart.recovery.choices
    assert choice.action == "cancelled" and "past" in choice.why
    room.wait(restart.jobs.run_now("refunds"))  # the run the restart started, or a new one
    record = stored_row(room, actor.tid)
    assert record.status == store.REFUNDED and record.cancel_reason == "outage"
    assert record.decision == choice.why
    got = paid(room.engine, actor.tid)
    assert {p: got.get(p, 0) for p in expected.players()} == {
        p: expected.total(p) for p in expected.players()
    }
    assert set(got) == expected.players()
    for player, before in wallets.items():
        after = room.balance(AccountRef(AccountKind.WALLET, player, USD))
        assert after - before == expected.total(player)
    assert room.pool(actor.tid) == 0 and room.check()
    assert restart.scheduler.actors == {}
    # each refunded player who is connected hears it, by part (the desk, after the job's run)
    hub = Inbox()
    desk = TournamentDesk(hub)
    desk.scheduler = restart.scheduler
    assert room.wait(desk.refunded([actor.tid])) == len(expected.players())
    for player, message in hub.sent:
        assert isinstance(message, TournamentCancelled) and message.tournament_id == actor.tid
        assert "down longer" in message.reason
        assert (message.fee, message.buy_in, message.pool_share, message.bounty) == (
            expected.fee[player],
            0,
            expected.pool[player],
            0,
        )
        assert message.total == expected.total(player)


class Inbox:
    """A hub that keeps what it is asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def send(self, player_id: str, message: Any) -> None:
        self.sent.append((player_id, message))

    def send_all(self, players: Any, message: Any) -> None:
        self.sent.extend((player, message) for player in players)


def test_registering_tournaments_are_kept_or_cancelled_by_their_start(room: Room) -> None:
    """T-18.1: after a restart a sit-and-go and an MTT whose start is ahead are still
    registering with their entries (and then start and play); an MTT whose start passed
    longer ago than its window is cancelled and everyone gets buy-in and fee back."""
    bots = Bots(random.Random(4))
    window = OutageSettings(resume_within_minutes=2, reconnect_seconds=0)
    sng = room.actor(config("sng", sit_and_go=True, max_entries=4, outage=window), bots)
    ahead = room.actor(config("ahead", starts_at=START + 3600, outage=window), bots)
    gone = room.actor(config("gone", starts_at=START + 60, outage=window), bots)
    for actor, count in ((sng, 3), (ahead, 2), (gone, 3)):
        for n in range(count):
            room.fund_player(f"{actor.tid}{n}", 1_000)
            room.wait(actor.register(f"{actor.tid}{n}"))
    restart = Restart(room, 600.0, bots)
    by_id = {c.tournament_id: c for c in restart.recovery.choices}
    assert by_id["sng"].action == by_id["ahead"].action == "kept"
    assert by_id["gone"].action == "cancelled" and "start passed" in by_id["gone"].why
    room.wait(restart.jobs.run_now("refunds"))
    for n in range(3):
        assert room.balance(AccountRef(AccountKind.WALLET, f"gone{n}", USD)) == 1_000
    assert room.pool("gone") == 0
    kept = restart.scheduler.actors["sng"]
    assert sorted(kept.state.players) == ["sng0", "sng1", "sng2"] and kept.status == "registering"
    bots.actor = kept
    room.fund_player("sng3", 1_000)
    room.wait(kept.register("sng3"))  # full: starts (T-1)
    assert kept.status == "running"
    room.run_to_end(kept)
    assert kept.status == "finished" and room.pool("sng") == 0
    ahead2 = restart.scheduler.actors["ahead"]
    assert ahead2.state.entries == 2 and ahead2.status == "registering"
    assert room.check()


def test_a_cancellation_at_the_start_is_paid_by_the_refund_job_once(room: Room) -> None:
    """T-1/T-18.1: too few players: the actor stores the cancellation and the refund job pays
    buy-in and fee under its own keys; a second run pays nothing (no other path pays)."""
    actor = room.actor(config("few"))
    room.fund_player("solo", 1_000)
    room.wait(actor.register("solo"))
    room.advance(601, actor, step=600)
    room.wait(actor.pending())
    assert actor.status == "cancelled"
    assert room.balance(AccountRef(AccountKind.WALLET, "solo", USD)) == 1_000
    record = stored_row(room, "few")
    assert record.status == store.REFUNDED and record.cancel_reason == "too_few_players"
    assert paid(room.engine, "few") == {"solo": 1_000}
    again = room.wait(JobService(room.clock, room.ledger).run_now("refunds"))
    assert again.transfers == 0 and room.check()
    with room.engine.connect() as conn:
        keys = conn.execute(
            sa.text("select idempotency_key from journal where reference = 'tournament:few'")
        ).scalars()
        assert sorted(k.split(":")[2] for k in keys) == ["refund", "refund", "register"]


def test_a_registration_refused_by_the_ledger_leaves_nothing_stored(room: Room) -> None:
    """T-4: the funds check is the ledger's: a refused entry writes no entry or purchase,
    even when it shares its commit with others."""
    actor = room.actor(config("poor"))
    room.fund_player("rich", 1_000)
    answers = [actor.register("rich"), actor.register("poor")]
    room.wait(answers[0])
    assert room.failure(answers[1]).code == "insufficient_funds"
    room.wait(actor.pending())
    assert [e.player for e in stored_entries(room, "poor")] == ["rich"]
    payments = room.wait(room.ledger.read(_read, store.load_payments, "poor"))
    assert [(p.player, p.ledger_key) for p in payments] == [
        ("rich", "tourney:poor:register:rich:1")
    ]
    assert replace(actor.state, serial=0).entries == 1 and room.check()
