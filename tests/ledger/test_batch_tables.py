"""The cash tables' settlements through the group commit (`HandStore.settle_hand`), and a real
PostgreSQL backend killed in the middle of a batch.

A hand's settlement is its transfer plus its `settled` status, rake shares and history, one
unit (C-11, C-12, rule 14): in a batch that unit still commits or rolls back whole, several
tables' hands share one transaction, and a hand settled again is a replay that writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from twisted.internet.defer import Deferred

from pokerroom.cash import store
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.store import escrow
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, external, house, wallet
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.service import LedgerSettings
from pokerroom.ledger.transfers import Transfer, get_transfer, move
from tests.ledger.conftest import QueueReactor
from tests.ledger.group_commit import Room
from tests.postgres import fresh_pg_schema

USD = "USD"
TABLES = 6
STARTS = 4  # next hands started in the same batch as the six settlements (it holds ten)


def seat(n: int, player: str, stack: int = 1_000) -> store.SeatRow:
    """A seat row with an everyday state."""
    return store.SeatRow(n, player, f"s-{player}", stack, 0, 0, 30_000, False, False, False)


def count(engine: sa.Engine, table: str, **where: str) -> int:
    """Rows of the table named `table` matching `where` (by name: where the cash tables are
    declared is the cash package's business)."""
    query = sa.select(sa.func.count()).select_from(sa.table(table, *map(sa.column, where)))
    for column, value in where.items():
        query = query.where(sa.column(column) == value)
    with engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def seat_tables(engine: sa.Engine) -> None:
    """Two players seated at each table with 1,000 and a started hand `t<i>-1`; the house's
    rake account open (so that the commits counted are the settlements' own)."""
    move(engine, key="open:rake", kind="deposit", currency=USD, source=external(USD),
         destination=house(AccountKind.HOUSE_RAKE, USD), amount=1)  # fmt: skip
    for t in range(TABLES):
        table = f"t{t}"
        players = (f"a{t}", f"b{t}")
        for n, player in enumerate(players):
            move(
                engine,
                key=f"dep:{player}",
                kind="deposit",
                currency=USD,
                source=external(USD),
                destination=wallet(player, USD),
                amount=5_000,
            )
            store.seat_player(engine, table, seat(n, player), USD, f"buyin:{table}:{player}")
        seats = [seat(0, players[0]), seat(1, players[1])]
        start = dict.fromkeys(players, 1_000)
        store.start_hand(engine, f"{table}-1", table, 1, 5, start, seats)


@pytest.fixture
def writer(engine: sa.Engine) -> Iterator[Room]:
    """Six tables with a hand in play, and a ledger whose batches hold up to 10 hands."""
    seat_tables(engine)
    w = Room(engine, QueueReactor(), LedgerSettings(batch_max_hands=10, batch_max_ms=5.0))
    try:
        yield w
    finally:
        w.stop()


def settle_all(hands: HandStore, rake: int = 2) -> list[Deferred[None]]:
    """Every table's hand settles at once: a wins 18 after rake, b loses 20."""
    return [
        hands.settle_hand(
            f"t{t}-1",
            f"t{t}",
            USD,
            {f"a{t}": 20 - rake, f"b{t}": -20},
            rake,
            {f"b{t}": rake} if rake else {},
            9,
            (f"t{t}", (f"a{t}", f"b{t}"), {"variant": "NT", "actions": ["d dh p1 AsKs"]}),
        )
        for t in range(TABLES)
    ]


def test_six_tables_settle_in_one_transaction_each_hand_whole(
    writer: Room, engine: sa.Engine
) -> None:
    """C-11 C-12: six tables' settlements queued at once commit together (one commit, not
    six), each with its transfer, `settled` status, rake share and history; settling them all
    again (a retried settlement) writes nothing more (P-2)."""
    hands = HandStore(writer.service)
    before = writer.commits
    assert writer.answers(settle_all(hands)) == [None] * TABLES
    assert writer.commits - before == 1
    for t in range(TABLES):
        assert count(engine, "cash_hands", id=f"t{t}-1", status="settled") == 1
        assert balance(engine, escrow(f"t{t}", f"a{t}", USD)).balance == 1_018
        assert balance(engine, escrow(f"t{t}", f"b{t}", USD)).balance == 980
        stored = get_transfer(engine, key=store.settlement_key(f"t{t}-1"))
        assert stored is not None and stored.transfer.reference == f"hand:t{t}-1"
    assert count(engine, "cash_hand_histories") == TABLES
    assert count(engine, "cash_hand_players") == 2 * TABLES
    assert count(engine, "cash_hand_rake") == TABLES
    assert balance(engine, house(AccountKind.HOUSE_RAKE, USD)).balance == 2 * TABLES + 1
    again = writer.answers(settle_all(hands))
    assert again == [None] * TABLES
    assert count(engine, "cash_hand_histories") == TABLES
    assert balance(engine, house(AccountKind.HOUSE_RAKE, USD)).balance == 2 * TABLES + 1
    assert check_ledger(engine).ok


def test_hand_starts_share_the_settlements_commit_and_run_twice_change_nothing(
    writer: Room, engine: sa.Engine
) -> None:
    """C-12: six tables settle their hand and four next hands start (`started` row and seats)
    in ONE commit (the batch holds ten); each start fires after it with its row stored; a
    start sent again (a retry after a lost answer) keeps the stored row, rewrites the seats."""
    hands = HandStore(writer.service)

    def starts() -> list[Deferred[None]]:
        return [
            hands.start_hand(
                f"t{t}-2", f"t{t}", 2, 11, {f"a{t}": 1_018, f"b{t}": 980},
                [seat(0, f"a{t}", 1_018), seat(1, f"b{t}", 980)],
            )
            for t in range(STARTS)
        ]  # fmt: skip

    before = writer.commits
    assert writer.answers([*settle_all(hands), *starts()]) == [None] * (TABLES + STARTS)
    assert writer.commits - before == 1
    assert count(engine, "cash_hands", status="started") == STARTS
    assert count(engine, "cash_hands", status="settled") == TABLES
    with engine.connect() as conn:
        stacks = conn.execute(
            sa.text("SELECT table_id, player_id, stack FROM cash_seats ORDER BY table_id, seat")
        ).all()
        row = conn.execute(
            sa.text("SELECT number, started_at_ms, start_stacks FROM cash_hands WHERE id = 't0-2'")
        ).one()
    assert [s for _, _, s in stacks] == [1_018, 980] * STARTS + [1_000, 1_000] * (TABLES - STARTS)
    assert (row.number, row.started_at_ms) == (2, 11)
    stored = row.start_stacks  # PostgreSQL's driver parses JSON; SQLite's gives the text
    assert (json.loads(stored) if isinstance(stored, str) else stored) == {"a0": 1_018, "b0": 980}
    assert writer.answers(starts()) == [None] * STARTS  # again: nothing new, no error
    assert count(engine, "cash_hands") == TABLES + STARTS
    assert count(engine, "cash_seats") == 2 * TABLES


def test_a_hand_whose_unit_fails_leaves_no_money_moved_and_the_others_commit(
    writer: Room, engine: sa.Engine
) -> None:
    """A hand whose history row cannot be written (a row for it is already there: the key is
    taken) fails alone with that error; its transfer is not kept and it stays `started`, since
    the unit is one transaction; the six other tables' hands are settled."""
    store.start_hand(engine, "t0-2", "t0", 2, 7, {"a0": 1_000, "b0": 1_000},
                     [seat(0, "a0"), seat(1, "b0")])  # fmt: skip
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO cash_hand_histories (hand_id, table_id, ended_at_ms, history)"
            " VALUES ('t0-2', 't0', 1, '{}')"
        )
    hands = HandStore(writer.service)
    ds = settle_all(hands)
    ds.insert(
        3,
        hands.settle_hand(
            "t0-2", "t0", USD, {"a0": 5, "b0": -5}, 0, {}, 9,
            ("t0", ("a0", "b0"), {"variant": "NT", "actions": []}),
        ),
    )  # fmt: skip
    answers = writer.answers(ds)
    assert isinstance(answers.pop(3), sa.exc.IntegrityError)
    assert answers == [None] * TABLES
    assert get_transfer(engine, key=store.settlement_key("t0-2")) is None
    assert count(engine, "cash_hands", id="t0-2", status="started") == 1
    assert balance(engine, escrow("t0", "a0", USD)).balance == 1_018
    assert check_ledger(engine).ok


def test_a_hand_that_moved_nothing_is_settled_alone(writer: Room, engine: sa.Engine) -> None:
    """No chips changed hands and no rake: no transfer, so no batch; the hand is settled."""
    hands = HandStore(writer.service)
    d = hands.settle_hand("t1-1", "t1", USD, {"a1": 0, "b1": 0}, 0, {}, 9, None)
    assert writer.answers([d]) == [None]
    assert writer.service.batches == 0
    assert count(engine, "cash_hands", id="t1-1", status="settled") == 1


@pytest.mark.postgresql
def test_a_postgresql_backend_killed_in_the_middle_of_a_batch_is_waited_out() -> None:
    """ARCH 16 P-2: the server ends the batch's connection (pg_terminate_backend) after the
    batch wrote its rows and before COMMIT: the transaction is lost, the batch is tried again
    after the backoff on a new connection, and every settlement lands once, answered as new."""
    with fresh_pg_schema("batch_kill") as url:
        engine = make_engine(url)
        upgrade(engine)
        killer = make_engine(url)
        try:
            for p in ("a", "b"):
                move(
                    engine,
                    key=f"dep:{p}",
                    kind="deposit",
                    currency=USD,
                    source=external(USD),
                    destination=wallet(p, USD),
                    amount=1_000,
                )
            w = Room(engine, QueueReactor(), LedgerSettings(batch_max_hands=10, batch_max_ms=5.0))
            kills: list[int] = []

            def kill_my_backend(conn: sa.Connection) -> None:
                if not kills:
                    pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
                    with killer.connect() as other:
                        other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
                    kills.append(pid)

            try:
                ds = [
                    w.service.settle(
                        key=f"k:{n}",
                        kind="hand_settlement",
                        currency=USD,
                        postings=[(wallet("a", USD), -10), (wallet("b", USD), 10)],
                        also=kill_my_backend if n == 3 else None,
                    )
                    for n in range(6)
                ]
                answers = w.answers(ds)
            finally:
                w.stop()
            assert len(kills) == 1
            assert all(isinstance(a, Transfer) and not a.replayed for a in answers), answers
            assert balance(engine, wallet("a", USD)).balance == 940
            assert check_ledger(engine).ok
        finally:
            killer.dispose()
            engine.dispose()
