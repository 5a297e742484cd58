"""The staff's decisions on a tournament actor (tournaments/actor/staff_actions.py), in process: a
real SQLite or PostgreSQL ledger and store, a fake clock, bots that answer after a second (so tables
are in hands when staff act). Each decision is stored with its audit row in one unit; what waits for
a hand boundary waits (T-10); the level clock stands still while paused and a level lasts longer
with added time (T-11); a delay moves the start (T-1); a chip correction keeps chips in play equal
to chips issued; a disqualified player's chips leave play and the player finishes below everyone
knocked out in that hand; a staff cancellation of a running tournament is refunded by the refund job
from the last completed hands (T-18)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.admin.audit import Actor, RecorderAudit
from pokerroom.admin.schema import audit
from pokerroom.ledger import wallet
from pokerroom.protocol.errors import ProtocolError
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director.balancing import MoveReason, SeatMove
from tournaments.director.errors import DirectorError
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.simulation import START, Bots
from tournaments.tables.table import TournamentTable

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=300, action_seconds=30) for i in range(14))
STRUCTURE = Structure("staff", 2000, LEVELS, AnteKind.NONE)
BUY_IN, FEE = 920, 80
DIRECTOR = Actor("dir", "director")


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
    with fresh_pg_schema("staff_actions") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


class SlowBots(Bots):
    """Bots that answer one second after they are asked: a table is in a hand meanwhile."""

    def __init__(self, room: Room, seed: int = 7) -> None:
        super().__init__(random.Random(seed), policy="tight")
        self.room = room
        self.moves: list[SeatMove] = []

    def turn(self, table: TournamentTable, entry: str) -> None:
        """Act a second later, if it is still this player's turn in the same hand."""
        hand_id = table.hand_id

        def later() -> None:
            if table.hand is not None and table.hand_id == hand_id and table.to_act() == entry:
                Bots.turn(self, table, entry)

        self.room.clock.callLater(1.0, later)

    def moved(self, move: SeatMove) -> None:
        """Every move, as the moved player would be told (`tournament_seat`)."""
        self.moves.append(move)


def started(room: Room, players: int = 6, tid: str = "s1", **kw: Any) -> TournamentActor:
    """A freezeout of `players` on 3-seat tables (two tables), running, hands under way."""
    kw.setdefault("max_seats", 3)
    cfg = make_config(
        tid, STRUCTURE, buy_in=BUY_IN, fee=FEE, starts_at=START + 60, between_hands_seconds=2,
        **kw,
    )  # fmt: skip
    bots = SlowBots(room)
    actor = room.actor(cfg, bots)
    for n in range(players):
        room.fund_player(f"p{n}", BUY_IN + FEE)
        room.wait(actor.register(f"p{n}"))
    room.advance(61, actor, step=0.5)
    assert actor.status == "running"
    return actor


def row(action: str, target: str) -> RecorderAudit:
    """An audit row as the admin endpoint makes it."""
    return RecorderAudit(DIRECTOR, action, target, "test", 1)


def audit_rows(room: Room) -> list[Any]:
    with room.engine.connect() as conn:
        return list(conn.execute(sa.select(audit).order_by(audit.c.id)))


def stored(room: Room, tid: str) -> store.TournamentRecord:
    with room.engine.connect() as conn:
        record = store.load_tournament(conn, tid)
    assert record is not None
    return record


def seats(room: Room, tid: str) -> dict[str, tuple[str, int]]:
    with room.engine.connect() as conn:
        return {s.player: (s.table_id, s.stack) for s in store.load_seats(conn, tid)}


def until(room: Room, actor: TournamentActor, test: Any, limit: float = 600) -> None:
    """Advance the clock in half seconds until `test()` holds."""
    end = room.clock.seconds() + limit
    while not test():
        assert room.clock.seconds() < end, "never happened"
        room.advance(0.5, actor, step=0.5)


def outcome(room: Room, actor: TournamentActor, d: Any) -> Any:
    """What `d` fires with, the clock moving meanwhile (work waiting for a hand's end)."""
    box: list[Any] = []
    d.addBoth(box.append)
    until(room, actor, lambda: bool(box))
    if hasattr(box[0], "value") and isinstance(box[0].value, Exception):
        raise box[0].value
    return box[0]


def in_hand(room: Room, actor: TournamentActor) -> TournamentTable:
    """A table in a hand now (the clock moved until one is)."""
    until(room, actor, lambda: any(t.hand_running for t in actor.floor.tables.values()))
    return next(t for t in actor.floor.tables.values() if t.hand_running)


def test_a_paused_tournament_deals_nothing_and_its_level_clock_stands_still(room: Room) -> None:
    """Pause: the hands in play finish, no table deals another for ten minutes (two levels'
    worth), the level and its time left stand still (shown and stored); resume deals again and
    the clock runs on from there. One audit row each, in the unit of the stored clock."""
    actor = started(room)
    room.advance(20, actor, step=0.5)
    level_before = actor.floor.level()
    pause = row("tournament_pause", actor.tid)
    answer = room.wait(actor.staff.pause_play(pause))
    assert answer["paused"] and pause.audit_id is not None
    until(room, actor, lambda: not any(t.hand_running for t in actor.floor.tables.values()))
    hands = actor.floor.hands
    left = answer["level_ms_left"]
    room.advance(600, actor, step=5)
    assert actor.floor.hands == hands  # not one hand dealt while paused
    level = actor.floor.level()
    assert level.index == level_before.index == 0 and level.ends_at is not None
    assert round((level.ends_at - room.clock.seconds()) * 1000) == left
    assert stored(room, actor.tid).level_ms_left == left
    with pytest.raises(DirectorError) as again:
        actor.staff.pause_play(row("tournament_pause", actor.tid))
    assert again.value.code == "no_change"
    resume = row("tournament_resume", actor.tid)
    room.wait(actor.staff.resume_play(resume))
    room.advance(30, actor, step=0.5)
    assert actor.floor.hands > hands
    assert actor.floor.level().index == 0  # 20 s + 30 s of the 300 s level played
    assert actor.floor.level().ends_at == pytest.approx(room.clock.seconds() + left / 1000 - 30)
    assert [(r.action, r.target) for r in audit_rows(room)] == [
        ("tournament_pause", actor.tid),
        ("tournament_resume", actor.tid),
    ]
    assert actor.chips_in_play() == actor.chips_issued


def test_added_time_makes_the_current_level_longer_and_never_goes_back(room: Room) -> None:
    """Add 120 s ten seconds into level 2: level 2 lasts until 120 s past its old end, the
    blinds never fall back to level 1 (a clock shifted back would), the stored clock says so."""
    actor = started(room)
    until(room, actor, lambda: actor.floor.level().index == 1)
    room.advance(10, actor, step=0.5)
    old_end = actor.floor.level().ends_at
    assert old_end is not None
    added = row("tournament_add_time", actor.tid)
    answer = room.wait(actor.staff.add_level_time(120, added))
    assert answer["level"] == 2
    assert actor.floor.level().ends_at == pytest.approx(old_end + 120)
    stored_left = stored(room, actor.tid).level_ms_left
    assert stored_left == pytest.approx((old_end + 120 - room.clock.seconds()) * 1000, abs=2)
    seen = set()
    while room.clock.seconds() < old_end + 119:
        room.advance(1, actor, step=0.5)
        seen.add(actor.floor.level().index)
    assert seen == {1}
    room.advance(3, actor, step=0.5)
    assert actor.floor.level().index == 2
    assert added.audit_id is not None


def test_a_delay_moves_the_start_and_is_stored(room: Room) -> None:
    """T-1: delayed by ten minutes, the tournament is still registering at the old start and
    starts at the new one; the stored config (what a restart reads) has the new start."""
    cfg = make_config("d1", STRUCTURE, buy_in=BUY_IN, fee=FEE, starts_at=START + 60)
    actor = room.actor(cfg, SlowBots(room))
    for n in range(3):
        room.fund_player(f"q{n}", BUY_IN + FEE)
        room.wait(actor.register(f"q{n}"))
    delayed = row("tournament_delay", "d1")
    answer = room.wait(actor.staff.delay(600, delayed))
    assert answer["starts_at_ms"] == round((START + 660) * 1000)
    config = stored(room, "d1").config
    assert config["registration"]["starts_at"] == START + 660
    room.advance(120, actor, step=1)
    assert actor.status == "registering"
    room.advance(560, actor, step=1)
    assert actor.status == "running"
    with pytest.raises(DirectorError):
        actor.staff.delay(60, row("tournament_delay", "d1"))
    assert [r.action for r in audit_rows(room)] == ["tournament_delay"]


def test_a_chip_correction_waits_for_the_hand_and_keeps_the_chip_total(room: Room) -> None:
    """Set during a hand: applied at its end; chips issued move by the difference, so chips in
    play still equal chips issued; the stored stack and the audit row's before/after agree."""
    actor = started(room)
    table = in_hand(room, actor)
    assert table.hand_running
    entry = sorted(table.stacks)[0]
    issued = actor.chips_issued
    fixed = row("tournament_chips", entry)
    answer = actor.staff.correct_chips(entry, 3333, "flo", fixed)
    room.settle(actor)
    assert not answer.called and table.hand_running  # the hand is still running
    changed = outcome(room, actor, answer)
    before = changed["before"]
    assert changed["after"] == 3333 and before != 3333
    assert actor.chips_issued == issued + 3333 - before
    assert actor.chips_in_play() == actor.chips_issued  # pots counted: true mid-hand too
    [audit_row] = audit_rows(room)
    assert (audit_row.before, audit_row.after) == ({"stack": before}, {"stack": 3333})
    assert actor.staff.corrections[0].after == 3333
    until(room, actor, lambda: not table.hand_running and not actor.durable.recorder.behind)
    assert seats(room, actor.tid)[entry][1] == table.kept_stack(entry)


def test_a_move_takes_the_player_to_the_other_table_between_hands(room: Room) -> None:
    """T-10: the player leaves their table at its hand's end and sits at the other one (the
    balancer may later even the tables again); the stored seat follows; `not_seated` and an
    unknown table are refused with nothing written."""
    actor = started(room, players=5, max_seats=4)
    tables = sorted(actor.floor.tables)
    short = min(actor.floor.tables.values(), key=lambda t: t.count)
    source = next(t for t in actor.floor.tables.values() if t is not short)
    entry = sorted(source.stacks)[0]
    with pytest.raises(DirectorError) as unknown:
        actor.staff.move_player(entry, 99, row("tournament_move", entry))
    assert unknown.value.code == "unknown_table"
    with pytest.raises(DirectorError) as nobody:
        actor.staff.move_player("nobody", short.table_id, row("tournament_move", "nobody"))
    assert nobody.value.code == "not_seated"
    moved = row("tournament_move", entry)
    answer = outcome(room, actor, actor.staff.move_player(entry, short.table_id, moved))
    assert answer["player"] == entry and tables == sorted(actor.floor.tables)
    assert moved.audit_id is not None
    [audit_row] = audit_rows(room)
    assert audit_row.after["table"] == short.wire_id
    assert audit_row.before["table"] == source.wire_id
    bots = actor.players
    assert isinstance(bots, SlowBots)
    staff_moves = [m for m in bots.moves if m.reason is MoveReason.STAFF]
    assert [(m.entry, m.from_table, m.to_table) for m in staff_moves] == [
        (entry, source.table_id, short.table_id)
    ]
    until(room, actor, lambda: not actor.durable.recorder.behind)
    here = actor.floor.table_of(entry)
    assert here is not None and seats(room, actor.tid)[entry][0] == str(here.table_id)


def test_a_disqualified_player_leaves_with_the_chips_and_cannot_enter_again(room: Room) -> None:
    """Disqualified during a hand: at its end the player and every chip of theirs leave play,
    the player is placed last of the players left (no chips ranks below every knockout of that
    hand, T-9), stored busted with no seat; chips in play equal chips issued; a new entry or
    re-entry is refused."""
    actor = started(room, fmt="reentry", late_registration_levels=3)
    table = in_hand(room, actor)
    entry = sorted(table.stacks)[0]
    left = actor.players_left()
    out = row("tournament_disqualify", entry)
    answer = outcome(room, actor, actor.staff.disqualify(entry, out))
    assert answer["place"] == left and answer["chips_removed"] > 0
    assert entry not in actor.alive and entry in actor.staff.disqualified
    room.settle(actor)
    until(room, actor, lambda: not any(t.hand_running for t in actor.floor.tables.values()))
    assert actor.chips_in_play() == actor.chips_issued
    with room.engine.connect() as conn:
        entries = {e.player: e for e in store.load_entries(conn, actor.tid)}
    assert entries[entry].status == store.BUSTED and entries[entry].place == left
    assert entry not in seats(room, actor.tid)
    refused = room.failure(actor.reenter(entry))
    assert refused.code == "not_allowed"
    assert out.audit_id is not None and audit_rows(room)[0].after["status"] == "disqualified"


def test_a_staff_cancellation_of_a_running_tournament_is_refunded_by_the_job(room: Room) -> None:
    """T-1, T-18: cancelled mid-hand, no hand goes on (an action is refused: no_hand), the
    tournament is stored `cancelled` (reason staff) with its audit row, and the refund job
    pays every player back from the last completed hands: all the money paid in comes back
    to wallets and the house, the pool ends empty."""
    actor = started(room)
    table = in_hand(room, actor)
    entry = table.to_act() or sorted(table.stacks)[0]
    cancelled = row("tournament_cancel", actor.tid)
    answer = room.wait(actor.staff.staff_cancel(store.CancelReason.STAFF, "test", cancelled))
    assert answer["status"] == "cancelled"
    with pytest.raises(ProtocolError) as no_hand:
        table.act(entry, "fold")
    assert no_hand.value.code == "no_hand"
    room.wait(actor.pending())
    record = stored(room, actor.tid)
    assert (record.status, record.cancel_reason) == (store.REFUNDED, "staff")
    assert room.pool(actor.tid) == 0
    wallets = sum(room.balance(wallet(f"p{n}", USD)) for n in range(6))
    assert wallets + room.fees() == 6 * (BUY_IN + FEE)
    assert room.check()
    assert [r.action for r in audit_rows(room)] == ["tournament_cancel"]


def test_time_added_during_a_pause_is_held_from_the_resume(room: Room) -> None:
    """Paused with L seconds left in the level, 60 s added, resumed 100 s later: the level
    ends L + 60 s after the resume (neither the pause nor the added time runs the clock), and
    the stored clock says so."""
    actor = started(room)
    room.advance(15, actor, step=0.5)
    paused = room.wait(actor.staff.pause_play(row("tournament_pause", actor.tid)))
    left = paused["level_ms_left"] / 1000
    added = room.wait(actor.staff.add_level_time(60, row("tournament_add_time", actor.tid)))
    assert added["level_ms_left"] == pytest.approx((left + 60) * 1000, abs=1)
    room.advance(100, actor, step=5)
    room.wait(actor.staff.resume_play(row("tournament_resume", actor.tid)))
    resumed_at = room.clock.seconds()
    level = actor.floor.level()
    assert level.index == 0 and level.ends_at == pytest.approx(resumed_at + left + 60)
    assert stored(room, actor.tid).level_ms_left == pytest.approx((left + 60) * 1000, abs=2)
    room.advance(left + 59, actor, step=1)
    assert actor.floor.level().index == 0
    room.advance(2, actor, step=1)
    assert actor.floor.level().index == 1
