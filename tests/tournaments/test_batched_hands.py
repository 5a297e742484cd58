"""P-2 group commit, tournaments (issue 20 item 1): the stored seats of a tournament table's last
completed hand go in the ledger's settlement batch, SQLite and PostgreSQL.

- a tournament's hand records share ONE transaction with other tournaments' and with the cash
  tables' settlements (`LedgerService.commit_in_batch`, the recorder's commit);
- a table whose record the database refuses fails alone: the other tables of its tournament,
  the other tournaments and the cash settlements of the batch are committed;
- a tournament whose writes break (a bug) fails alone, and its next writes go through;
- a whole tournament played beside cash settlements: every recorder commit was a batch item,
  the ledger check passes and wallets + escrows + house + pools equal the deposits to the cent.

Persist-then-tell and the T-18 resume through this path are tests/tournaments/test_durable.py's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.ledger import make_engine, upgrade
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, house
from pokerroom.ledger.reports import check_ledger, total_balance
from pokerroom.ledger.service import LedgerSettings
from pokerroom.ledger.transfers import Transfer, move
from tests.ledger.conftest import QueueReactor
from tests.ledger.group_commit import Room
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD
from tests.tournaments.actor_harness import Room as ActorRoom
from tournaments import store
from tournaments.actor.durable_writes import record_seats
from tournaments.actor.recorder import Recorder
from tournaments.config import make_config
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.simulation import START, Bots

RAKE = house(AccountKind.HOUSE_RAKE, USD)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'room.sqlite'}"
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        yield url
        return
    with fresh_pg_schema("batched_hands") as url:
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    try:
        yield eng
    finally:
        eng.dispose()


class Counter:
    """The recorder's count of units in flight."""

    in_flight = 0


def escrow(player: str) -> AccountRef:
    return AccountRef(AccountKind.SEAT_ESCROW, f"c1/{player}", USD)


def open_room(engine: Engine) -> Room:
    """Two funded escrows and the rake account, then a started ledger whose first item waits
    5 ms (on its fake clock) for others: what is queued together is one batch."""
    for n, ref in enumerate((escrow("ann"), escrow("bob"), RAKE)):
        move(engine, key=f"fund:{n}", kind="deposit", currency=USD,
             source=external(USD), destination=ref, amount=10_000)  # fmt: skip
    with engine.begin() as conn:
        for tid in ("ta", "tb"):
            record = store.TournamentRecord(id=tid, template="t", currency=USD, created_at_ms=1)
            store.save_tournament(conn, record=record)
    room = Room(engine, QueueReactor(), LedgerSettings(batch_max_ms=5))
    room.commits = 0
    return room


def seats_op(tid: str, table: str, hand: int, players: list[str]) -> Any:
    """A table's record after hand `hand`: each player with a stack of 1000 + hand."""
    rows = [(n, p, 1, (1000 + hand, None, 0, "")) for n, p in enumerate(players)]
    return partial(record_seats, tournament_id=tid, table_id=table, hand_number=hand, seats=rows)


def cash_hand(room: Room, n: int) -> Deferred[Transfer]:
    """A cash hand's settlement: ann pays bob 100, 5 of it rake."""
    postings = {escrow("ann"): -100, escrow("bob"): 95, RAKE: 5}
    return room.service.settle(
        key=f"hand:c1-{n}", kind="hand_settlement", currency=USD, postings=postings
    )


def stored(engine: Engine) -> dict[tuple[str, str], tuple[int, ...]]:
    """(tournament, table) -> the hand numbers of its stored rows."""
    with engine.connect() as conn:
        found: dict[tuple[str, str], list[int]] = {}
        for r in conn.execute(sa.select(store.tournament_seats)):
            found.setdefault((r.tournament_id, r.table_id), []).append(r.hand_number)
    return {key: tuple(sorted(v)) for key, v in found.items()}


def recorder(room: Room, failures: list[Failure]) -> Recorder:
    rec = Recorder(room.service, Counter())
    rec.failed = failures.append
    return rec


def test_a_tournament_hand_shares_the_commit_of_cash_settlements(engine: Engine) -> None:
    """Two tournaments' hands (one of them two tables, one unit) and two cash settlements
    queued together: one batch, one commit, everything stored, each answered after it."""
    room = open_room(engine)
    try:
        failures: list[Failure] = []
        a, b = recorder(room, failures), recorder(room, failures)
        with a.batch():
            a.write_quietly(seats_op("ta", "1", 1, ["p1", "p2"]))
            a.write_quietly(seats_op("ta", "2", 1, ["p3", "p4"]))
        told = b.write(seats_op("tb", "1", 1, ["q1", "q2"]))
        cash = [cash_hand(room, 1), cash_hand(room, 2)]
        assert stored(engine) == {}  # nothing before the batch
        answers = room.answers([*cash, told])
        room.drain()
        assert all(isinstance(t, Transfer) for t in answers[:2]) and answers[2] == [None]
        assert room.service.batches == 1 and room.commits == 1  # one transaction for all
        assert stored(engine) == {("ta", "1"): (1, 1), ("ta", "2"): (1, 1), ("tb", "1"): (1, 1)}
        assert not a.behind and not b.behind and failures == []
        assert check_ledger(engine).ok
    finally:
        room.stop()


def refuse_table(engine: Engine, table: str) -> None:
    """The database refuses any seat row of `table` (a constraint, not an outage)."""
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE TRIGGER refuse_seats BEFORE INSERT ON tournament_seats "
                f"WHEN NEW.table_id = '{table}' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
            return
        conn.exec_driver_sql(
            "CREATE FUNCTION refuse_seats() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'refused' USING ERRCODE = 'check_violation'; END $$ LANGUAGE plpgsql"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER refuse_seats BEFORE INSERT ON tournament_seats FOR EACH ROW "
            f"WHEN (NEW.table_id = '{table}') EXECUTE FUNCTION refuse_seats()"
        )


def test_a_table_whose_record_is_refused_fails_alone(engine: Engine) -> None:
    """One table's seats break a constraint: only that table's part is out. Its tournament's
    other table (same unit), the other tournament and the cash settlements are committed, in
    the batch's one transaction; the failure reaches the recorder's `failed` (the staff)."""
    refuse_table(engine, "bad")
    room = open_room(engine)
    try:
        failures: list[Failure] = []
        a, b = recorder(room, failures), recorder(room, failures)
        with a.batch():
            a.write_quietly(seats_op("ta", "1", 4, ["p1", "p2"]))
            a.write_quietly(seats_op("ta", "bad", 4, ["p3", "p4"]))
        told = b.write(seats_op("tb", "1", 7, ["q1", "q2"]))
        answers = room.answers([cash_hand(room, 1), told, cash_hand(room, 2)])
        room.drain()
        assert isinstance(answers[0], Transfer) and isinstance(answers[2], Transfer)
        assert answers[1] == [None]
        assert stored(engine) == {("ta", "1"): (4, 4), ("tb", "1"): (7, 7)}
        assert [type(f.value).__name__ for f in failures] == ["IntegrityError"]
        assert room.service.batches == 1 and room.commits == 1
        assert not a.behind
        with engine.connect() as conn:  # both cash hands settled: 2 x 5 rake
            rake = conn.execute(
                sa.text("select balance from accounts where kind = 'house_rake'")
            ).scalar()
        assert rake == 10_010 and check_ledger(engine).ok
    finally:
        room.stop()


def broken(conn: Connection) -> None:
    """A tournament write with a bug."""
    raise RuntimeError("a bug in a tournament write")


def test_a_tournament_whose_writes_break_fails_alone_and_writes_on(engine: Engine) -> None:
    """A write that fails with no refusal (a bug) takes down its tournament's commit only: the
    other tournament and the cash settlement of the batch are committed; the broken
    tournament's next hand is written."""
    room = open_room(engine)
    try:
        failures: list[Failure] = []
        a, b = recorder(room, failures), recorder(room, failures)
        with a.batch():
            a.write_quietly(seats_op("ta", "1", 2, ["p1", "p2"]))
            a.write_quietly(broken)
        told = b.write(seats_op("tb", "1", 2, ["q1", "q2"]))
        answers = room.answers([cash_hand(room, 1), told])
        room.drain()
        assert isinstance(answers[0], Transfer) and answers[1] == [None]
        assert stored(engine) == {("tb", "1"): (2, 2)}  # ta's unit is out, whole
        assert [str(f.value) for f in failures] == ["a bug in a tournament write"] * 2
        again = a.write(seats_op("ta", "1", 3, ["p1", "p2"]))
        assert room.answers([again]) == [[None]]
        assert stored(engine) == {("ta", "1"): (3, 3), ("tb", "1"): (2, 2)}
        assert not a.behind and check_ledger(engine).ok
    finally:
        room.stop()


# --------------------------------------------------------------------------- a whole tournament

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=120) for i in range(14))
STRUCTURE = Structure("batched", 1000, LEVELS, AnteKind.NONE)


@pytest.fixture
def actor_room(db_url: str, tmp_path: Path) -> Iterator[ActorRoom]:
    room = ActorRoom(tmp_path, db_url)
    try:
        yield room
    finally:
        room.close()


def test_a_tournament_beside_cash_tables_is_all_in_batches_and_conserves_money(
    actor_room: ActorRoom,
) -> None:
    """A 12-player sit-and-go played to the end while a cash table settles a hand at every
    timer: every recorder commit is an item of the ledger's batches (with the cash hands),
    the stored state is final, and the money adds up to the deposits to the cent (P-2)."""
    room = actor_room
    rng = random.Random(7)
    cfg = make_config(
        "sng", STRUCTURE, sit_and_go=True, max_entries=12, buy_in=900, fee=100,
        starts_at=START + 600, between_hands_seconds=5,
    )  # fmt: skip
    actor = room.actor(cfg, Bots(random.Random(3)))
    for n in range(12):
        room.fund_player(f"s{n:02d}", 2_000)
        room.wait(actor.register(f"s{n:02d}"))
    players = ("ann", "bob")
    for p in players:
        room.fund(escrow(p), 5_000)
    stacks = dict.fromkeys(players, 5_000)
    deposits = 12 * 2_000 + 2 * 5_000
    hands = 0

    def cash_hand() -> None:
        nonlocal hands
        loser, winner = rng.sample(players, 2)
        pot = rng.randint(1, min(400, stacks[loser]))
        rake = pot // 20
        stacks[loser] -= pot
        stacks[winner] += pot - rake
        hands += 1
        room.ledger.settle(
            key=f"hand:c1-{hands}", kind="hand_settlement", currency=USD,
            postings=[(escrow(loser), -pot), (escrow(winner), pot - rake)]
            + ([(RAKE, rake)] if rake else []),
        )  # fmt: skip

    while actor.status in ("registering", "running"):
        room.settle(actor)  # the writer is idle: the next settlement is written alone ...
        calls = room.clock.getDelayedCalls()
        assert calls and room.clock.seconds() - START < 3 * 24 * 3600, "stuck"
        cash_hand()
        # ... and the tournament's hands ended by this timer, with the next cash hand, wait
        # for it and share the next batch (the harness settles deterministically)
        room.clock.advance(max(0.0, min(c.getTime() for c in calls) - room.clock.seconds()))
        cash_hand()
    room.run_to_end(actor)
    while room.ledger.waiting_settlements or room.ledger.working:
        f, args, kwargs = room.pump.calls.get(timeout=30)
        f(*args, **kwargs)
    recorder = actor.durable.recorder
    assert actor.status == "finished" and hands >= 10 and actor.durable.failures == []
    assert room.ledger.batched == recorder.commits + hands  # the recorder's commits: batch items
    assert room.ledger.batches < room.ledger.batched  # and they were shared
    assert {r.place for r in actor.results} == set(range(1, 13))
    engine = room.engine
    assert check_ledger(engine).ok and total_balance(engine, USD) == 0
    with engine.connect() as conn:
        held = dict(
            conn.execute(
                sa.text(
                    "select kind, sum(balance) from accounts where kind <> 'external' group by kind"
                )
            ).all()
        )
    assert sum(held.values()) == deposits  # wallets + escrows + house + pools
    assert held.get("prize_pool", 0) == 0 and held["house_fees"] == 12 * 100
    assert held["seat_escrow"] == sum(stacks.values())
    assert held.get("house_rake", 0) == 10_000 - sum(stacks.values())
