"""Group commit of settlements (`LedgerService.settle`, `batch.write_batch`), SQLite and PostgreSQL.

Many settlements queued at once share transactions; each Deferred fires only after the
commit that holds its transfer (persist, then tell); a replayed key is applied once and
answered as `transfer` answers it; a transfer refused by its funds check, or whose extra work
fails, fails alone while the rest of its batch commits; a randomized run gives exactly the
answers and balances of the same transfers sent one by one (P-2), and the ledger check passes;
an outage in the middle of a batch is waited out and nothing is applied twice (ARCH 16).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from structlog.testing import capture_logs
from twisted.internet.defer import Deferred

from pokerroom.ledger import batch, errors
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, house
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.service import LedgerService, LedgerSettings
from pokerroom.ledger.transfers import Transfer, get_transfer, move, transfer
from pokerroom.server.settings import load_settings
from tests.ledger.conftest import QueueReactor
from tests.ledger.group_commit import Room
from tests.ledger.test_retry import WriteLock

USD = "USD"
SEATS = 6
START = 100_000


def escrow(table: int, seat: int) -> AccountRef:
    """A seat's escrow at a table."""
    return AccountRef(AccountKind.SEAT_ESCROW, f"t{table}/{seat}", USD)


RAKE = house(AccountKind.HOUSE_RAKE, USD)
JACKPOT = house(AccountKind.HOUSE_FEES, USD)


def fund(engine: sa.Engine, tables: int, amount: int = START) -> None:
    """Put `amount` on every seat of `tables` tables (one deposit each, outside any batch)."""
    for t in range(tables):
        for s in range(SEATS):
            move(
                engine,
                key=f"fund:{t}:{s}",
                kind="deposit",
                currency=USD,
                source=external(USD),
                destination=escrow(t, s),
                amount=amount,
            )
    # the house accounts exist before any batch: counted commits are the batches' own
    for ref in (RAKE, JACKPOT):
        move(engine, key=f"open:{ref}", kind="deposit", currency=USD,
             source=external(USD), destination=ref, amount=1)  # fmt: skip


def hand(table: int, n: int, rng: random.Random | None = None) -> list[tuple[AccountRef, int]]:
    """A six-handed hand's postings: five seats pay in, one wins, rake and jackpot (8 lines)."""
    rng = rng or random.Random(table * 1000 + n)
    winner = rng.randrange(SEATS)
    paid = {s: rng.randint(1, 50) for s in range(SEATS) if s != winner}
    pot = sum(paid.values())
    rake, jackpot = pot // 20, pot // 50
    lines = [(escrow(table, s), -a) for s, a in paid.items()]
    lines.append((escrow(table, winner), pot - rake - jackpot))
    lines += [(RAKE, rake or 0), (JACKPOT, jackpot or 0)]
    return [(ref, a) for ref, a in lines if a]


def settle(service: LedgerService, key: str, postings: Any, **extra: Any) -> Deferred[Transfer]:
    """One settlement through the group commit."""
    return service.settle(key=key, kind="hand_settlement", currency=USD, postings=postings, **extra)


@pytest.fixture
def room_factory(engine: sa.Engine, reactor: QueueReactor) -> Iterator[Callable[..., Room]]:
    """Start a Room with the given batch settings; stopped afterwards."""
    rooms: list[Room] = []

    def make(**settings: Any) -> Room:
        room = Room(engine, reactor, LedgerSettings(**settings))
        rooms.append(room)
        return room

    yield make
    for room in rooms:
        room.stop()


def bal(engine: sa.Engine, ref: AccountRef) -> int:
    """The account's balance."""
    return balance(engine, ref).balance


def test_settlements_queued_at_once_share_few_transactions(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """60 hands from 3 tables queued at once commit in ceil(60/16) transactions, not 60;
    every one is applied with 8 postings and the balances are those of the hands."""
    fund(engine, 3)
    room = room_factory(batch_max_hands=16, batch_max_ms=5.0)
    sent = [(t, n) for n in range(20) for t in range(3)]
    expected = {escrow(t, s): START for t in range(3) for s in range(SEATS)}
    for t, n in sent:
        for ref, amount in hand(t, n):
            if ref in expected:
                expected[ref] += amount
    before = room.commits
    ds = [settle(room.service, f"hand:{t}:{n}", hand(t, n)) for t, n in sent]
    answers = room.answers(ds)
    assert all(isinstance(a, Transfer) and not a.replayed for a in answers), answers
    assert len({a.id for a in answers}) == 60
    assert room.commits - before == 4  # 16 + 16 + 16 + 12
    assert room.service.batches == 4 and room.service.batched == 60
    assert {len(a.postings) for a in answers} == {8}
    assert all(bal(engine, ref) == amount for ref, amount in expected.items())
    assert check_ledger(engine).ok


def test_an_idle_writer_waits_at_most_batch_max_ms_and_never_writes_two_batches_at_once(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """Below batch_max_hands the first settlement waits batch_max_ms (on the clock) for
    others; with 0 ms it goes at once and what comes meanwhile fills the next batch."""
    fund(engine, 1)
    room = room_factory(batch_max_hands=100, batch_max_ms=5.0)
    first = [settle(room.service, f"a:{n}", hand(0, n)) for n in range(3)]
    assert room.service.batches == 0 and room.service.waiting_settlements == 3
    room.clock.advance(0.004)
    assert room.service.batches == 0
    room.clock.advance(0.0011)
    assert room.service.batches == 1 and room.service.waiting_settlements == 0
    room.answers(first)
    quick = room_factory(batch_max_hands=100, batch_max_ms=0.0)
    ds = [settle(quick.service, f"b:{n}", hand(0, n)) for n in range(5)]
    assert quick.service.batches == 1 and quick.service.waiting_settlements == 4
    assert all(isinstance(a, Transfer) for a in quick.answers(ds))
    assert quick.service.batches == 2  # the four that came while the first was written


class RecordingReactor(QueueReactor):
    """Counts thread results delivered to the reactor, with the commits made before each."""

    def __init__(self) -> None:
        super().__init__()
        self.commits = 0
        self.deliveries: list[int] = []  # commits made before each delivery

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.deliveries.append(self.commits)
        super().callFromThread(f, *args, **kwargs)


def test_every_answer_comes_after_the_commit_of_its_batch(engine: sa.Engine, db_url: str) -> None:
    """Persist, then tell: each batch's result reaches the reactor only after a commit of its
    own (delivery i comes after commit i), and when a settlement's Deferred fires, another
    connection already sees its transfer and the balances it left."""
    fund(engine, 2)
    reactor = RecordingReactor()

    def committed(conn: sa.Connection) -> None:
        reactor.commits += 1

    event.listen(engine, "commit", committed)
    room = Room(engine, reactor, LedgerSettings(batch_max_hands=8, batch_max_ms=0.0))
    other = make_engine(db_url)
    seen: list[str] = []

    def check_visible(result: Transfer) -> Transfer:
        stored = get_transfer(other, key=result.key)
        assert stored is not None, f"{result.key} answered before it was committed"
        seen.append(result.key)
        return result

    try:
        ds = [settle(room.service, f"v:{t}:{n}", hand(t, n)) for n in range(15) for t in range(2)]
        for d in ds:
            d.addCallback(check_visible)
        answers = room.answers(ds)
        assert all(isinstance(a, Transfer) for a in answers), answers
        assert len(seen) == 30
        assert reactor.deliveries, "no batch result was delivered"
        for i, commits_before in enumerate(reactor.deliveries):
            assert commits_before >= i + 1, reactor.deliveries
        assert room.service.batches >= 4  # 1 at once, then up to 8 while each is written
    finally:
        room.stop()
        event.remove(engine, "commit", committed)
        other.dispose()


def test_a_replayed_key_inside_and_across_batches_is_applied_once_and_answered_as_transfer(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """P-2: a key sent twice in one batch, and again in a later one, moves money once; the
    repeats answer `replayed` with the first transfer, exactly as `transfer` answers a repeat;
    the same key with other content is idempotency_conflict, alone, in either case."""
    fund(engine, 1)
    room = room_factory(batch_max_hands=50, batch_max_ms=5.0)
    a, b = hand(0, 1), hand(0, 2)
    first = [
        settle(room.service, "k:a", a),
        settle(room.service, "k:b", b),
        settle(room.service, "k:a", a),  # the same hand again in the same batch
        settle(room.service, "k:b", hand(0, 3)),  # the same key with other content
    ]
    one, two, again, clash = room.answers(first)
    assert room.service.batches == 1
    assert not one.replayed and not two.replayed
    assert again.replayed and again.id == one.id and again.postings == one.postings
    assert isinstance(clash, errors.IdempotencyConflict)
    assert clash.code == "idempotency_conflict"
    later = room.answers([settle(room.service, "k:a", a), settle(room.service, "k:b", a)])
    assert room.service.batches == 2
    assert later[0] == again
    assert isinstance(later[1], errors.IdempotencyConflict)
    # The per-transfer API answers the same repeat with the same value.
    direct = transfer(engine, key="k:a", kind="hand_settlement", currency=USD, postings=a)
    assert direct == again
    with pytest.raises(errors.IdempotencyConflict) as conflict:
        transfer(engine, key="k:b", kind="hand_settlement", currency=USD, postings=a)
    assert str(conflict.value) == str(later[1])
    for ref, amount in dict(a).items():
        if ref.kind is AccountKind.SEAT_ESCROW:
            assert bal(engine, ref) == START + amount + dict(b).get(ref, 0)
    report = check_ledger(engine)
    assert report.ok and report.entries == SEATS + 2 + 2


def test_one_transfer_short_of_funds_fails_alone_and_its_batch_commits(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """A batch of ten where the fifth overdraws a seat: that one fails with its own
    insufficient_funds (account, balance, needed), the nine others commit in one transaction
    (the refused one rolled back the first try), and funds are checked in arrival order:
    money paid into a seat earlier in the batch can be taken out later in it."""
    fund(engine, 1, amount=1_000)
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    seat0, seat1 = escrow(0, 0), escrow(0, 1)
    ds = []
    for n in range(10):
        if n == 4:
            postings = [(seat0, -5_000), (seat1, 5_000)]  # more than seat 0 holds
        elif n == 6:
            postings = [(seat1, -1_500), (seat0, 1_500)]  # possible only after n == 5
        elif n == 5:
            postings = [(escrow(0, 2), -900), (seat1, 900)]
        else:
            postings = [(escrow(0, 3 + n % 3), -10), (escrow(0, 2), 10)]
        ds.append(settle(room.service, f"f:{n}", postings))
    before = room.commits
    answers = room.answers(ds)
    assert room.commits - before == 1
    short = answers[4]
    assert isinstance(short, errors.InsufficientFunds)
    assert (short.code, short.account, short.balance, short.needed) == (
        "insufficient_funds",
        f"seat_escrow:t0/0:{USD}",
        1_000,
        5_000,
    )
    assert all(isinstance(a, Transfer) for i, a in enumerate(answers) if i != 4), answers
    assert bal(engine, seat0) == 2_500 and bal(engine, seat1) == 400
    assert get_transfer(engine, key="f:4") is None
    assert check_ledger(engine).ok


def test_transfers_are_checked_in_arrival_order(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """The drain queued before the deposit it needs fails; the batch's net is not what counts."""
    fund(engine, 1, amount=100)
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    seat0, seat1 = escrow(0, 0), escrow(0, 1)
    drain = settle(room.service, "o:1", [(seat0, -150), (seat1, 150)])
    feed = settle(room.service, "o:2", [(seat1, -100), (seat0, 100)])
    refused, fed = room.answers([drain, feed])
    assert isinstance(refused, errors.InsufficientFunds) and isinstance(fed, Transfer)
    assert bal(engine, seat0) == 200 and bal(engine, seat1) == 0


def test_extra_work_that_fails_takes_only_its_own_transfer_down(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """`also` work runs in the settlement's transaction: when one hand's breaks a constraint,
    the batch is split until that hand fails alone with its own error and none of its money
    moved; the others commit with their extra rows."""
    fund(engine, 1)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE hand_notes (hand VARCHAR(20) PRIMARY KEY)")

    def note(name: str) -> batch.Also:
        def work(conn: sa.Connection) -> None:
            conn.exec_driver_sql(
                "INSERT INTO hand_notes (hand) VALUES ('taken')"
                if name == "x:5"
                else f"INSERT INTO hand_notes (hand) VALUES ('{name}')"
            )

        return work

    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO hand_notes (hand) VALUES ('taken')")
    room = room_factory(batch_max_hands=8, batch_max_ms=5.0)
    ds = [settle(room.service, f"x:{n}", hand(0, n), also=note(f"x:{n}")) for n in range(8)]
    answers = room.answers(ds)
    assert isinstance(answers[5], sa.exc.IntegrityError)
    assert all(isinstance(a, Transfer) for i, a in enumerate(answers) if i != 5), answers
    assert get_transfer(engine, key="x:5") is None
    with engine.connect() as conn:
        notes = {r[0] for r in conn.exec_driver_sql("SELECT hand FROM hand_notes")}
    assert notes == {"taken"} | {f"x:{n}" for n in range(8) if n != 5}
    # a replayed settlement does not run its extra work again
    again = room.answers([settle(room.service, "x:1", hand(0, 1), also=note("x:5"))])
    assert again[0].replayed
    assert check_ledger(engine).ok


def test_a_randomized_run_answers_as_one_by_one_and_conserves_money(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """Seeded: 300 settlements over 4 tables in batches of random size, with overdraws,
    replayed keys (same content) and reused keys (other content). Every answer, and every
    balance, is what the same requests sent one by one in the same order would give (a plain
    model of P-2), and the ledger check passes."""
    rng = random.Random(20)
    fund(engine, 4, amount=300)
    room = room_factory(batch_max_hands=25, batch_max_ms=2.0)
    balances = {escrow(t, s): 300 for t in range(4) for s in range(SEATS)}
    balances[RAKE] = balances[JACKPOT] = 1
    sent: dict[str, list[tuple[AccountRef, int]]] = {}
    expected: list[str] = []
    ds: list[Deferred[Transfer]] = []
    for n in range(300):
        roll = rng.random()
        if sent and roll < 0.1:
            key = rng.choice(list(sent))
            postings = sent[key]  # a replay
        elif sent and roll < 0.13:
            key = rng.choice(list(sent))
            postings = hand(rng.randrange(4), 10_000 + n, rng)  # the key with other content
        else:
            key = f"r:{n}"
            postings = hand(rng.randrange(4), n, rng)
            if rng.random() < 0.2:  # a big pot some seat cannot cover
                t = rng.randrange(4)
                postings = [(escrow(t, 0), -rng.randint(100, 900)), (escrow(t, 1), 0)]
                postings[1] = (escrow(t, 1), -postings[0][1])
        if key in sent:
            expected.append("replay" if sent[key] == postings else "conflict")
        elif all(balances[r] + a >= 0 for r, a in postings):
            for r, a in postings:
                balances[r] += a
            sent[key] = postings
            expected.append("new")
        else:
            expected.append("short")
        ds.append(settle(room.service, key, postings))
        if rng.random() < 0.05:
            room.drain()  # let the batches go by before the next ones
    answers = room.answers(ds)
    got = []
    for a in answers:
        if isinstance(a, Transfer):
            got.append("replay" if a.replayed else "new")
        elif isinstance(a, errors.IdempotencyConflict):
            got.append("conflict")
        elif isinstance(a, errors.InsufficientFunds):
            got.append("short")
        else:
            got.append(repr(a))
    assert got == expected
    assert room.service.batches < 300 // 3
    for ref, amount in balances.items():
        assert bal(engine, ref) == amount, ref
    report = check_ledger(engine)
    assert report.ok and report.currency_totals == {USD: 0}


def lose_the_first_commit_answer(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the first batch transaction commit, then fail as a dropped connection does (its
    answer lost); the list it returns grows by one per batch transaction run."""
    real = batch.in_transaction
    calls: list[int] = []

    def commit_then_lose_the_answer(eng: sa.Engine, work: Any, **kw: Any) -> Any:
        result = real(eng, work, **kw)
        calls.append(1)
        if len(calls) == 1:
            lost = sa.exc.OperationalError("COMMIT", {}, Exception("server closed the connection"))
            lost.connection_invalidated = True
            raise lost
        return result

    monkeypatch.setattr(batch, "in_transaction", commit_then_lose_the_answer)
    return calls


def test_a_commit_whose_answer_was_lost_is_retried_and_applied_once(
    engine: sa.Engine, room_factory: Callable[..., Room], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection drops right after a batch's COMMIT: the batch is tried again after the
    backoff, finds every key stored, and answers each with its first transfer; no money moved
    twice (ARCH 16, P-2)."""
    fund(engine, 1)
    calls = lose_the_first_commit_answer(monkeypatch)
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    with capture_logs() as logs:
        answers = room.answers([settle(room.service, f"l:{n}", hand(0, n)) for n in range(6)])
    assert len(calls) == 2 and room.service.batches == 1
    assert all(isinstance(a, Transfer) and a.replayed for a in answers), answers
    events = [entry["event"] for entry in logs]
    assert events.count("database_unavailable") == 1 and events.count("database_available") == 1
    report = check_ledger(engine)
    assert report.ok and report.entries == SEATS + 2 + 6


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    """A SQLite ledger file at head."""
    file = tmp_path / "ledger.sqlite"
    eng = make_engine(f"sqlite:///{file}")
    upgrade(eng)
    eng.dispose()
    return file


def test_a_locked_sqlite_database_mid_run_is_waited_out(
    sqlite_file: Path, reactor: QueueReactor
) -> None:
    """Another connection takes SQLite's write lock while settlements wait: the batch fails
    with "database is locked", is tried again on the clock's backoff, and lands once when the
    lock goes; the outage is logged once, and its end."""
    engine = make_engine(f"sqlite:///{sqlite_file}", busy_timeout=0.02)
    fund(engine, 1)
    lock = WriteLock(sqlite_file)
    room = Room(
        engine, reactor, LedgerSettings(batch_max_hands=10, batch_max_ms=5.0, retry_seconds=3)
    )
    try:
        done = room.answers([settle(room.service, f"s:{n}", hand(0, n)) for n in range(3)])
        lock.take()
        ds = [settle(room.service, f"s:{n}", hand(0, n)) for n in range(3, 9)]
        tries = 0
        with capture_logs() as logs:
            while room.service.available or tries < 3:
                while room.service.working or not reactor.calls.empty():
                    f, args, kwargs = reactor.calls.get(timeout=20)
                    f(*args, **kwargs)
                room.clock.advance(0.05)
                tries += 1
                assert tries < 100
            lock.release()
            answers = room.answers(ds)
        assert all(isinstance(a, Transfer) and not a.replayed for a in answers + done)
        events = [entry["event"] for entry in logs]
        assert events.count("database_unavailable") == 1
        assert events.count("database_available") == 1
        report = check_ledger(engine)
        assert report.ok and report.entries == SEATS + 2 + 9
    finally:
        lock.release()
        lock.conn.close()
        room.stop()
        engine.dispose()


def test_a_batch_gives_up_at_its_deadline_with_service_unavailable(
    sqlite_file: Path, reactor: QueueReactor
) -> None:
    """A lock that never goes: every settlement of the batch fails with service_unavailable
    after retry_seconds; nothing moved."""
    engine = make_engine(f"sqlite:///{sqlite_file}", busy_timeout=0.02)
    fund(engine, 1)
    lock = WriteLock(sqlite_file)
    room = Room(
        engine, reactor, LedgerSettings(batch_max_hands=10, batch_max_ms=5.0, retry_seconds=1)
    )
    try:
        lock.take()
        answers = room.answers([settle(room.service, f"g:{n}", hand(0, n)) for n in range(4)])
        assert all(isinstance(a, errors.ServiceUnavailable) for a in answers), answers
        lock.release()
        assert get_transfer(engine, key="g:0") is None
    finally:
        lock.release()
        lock.conn.close()
        room.stop()
        engine.dispose()


def test_bad_requests_are_refused_before_any_batch(
    engine: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """An unbalanced or malformed settlement fails at once, as `transfer` fails it."""
    room = room_factory()
    bad = settle(room.service, "u:1", [(escrow(0, 0), -5), (escrow(0, 1), 4)])
    assert isinstance(room.answers([bad])[0], errors.Unbalanced)
    assert room.service.batches == 0


@pytest.mark.parametrize(
    ("values", "ok"),
    [({"batch_max_hands": 0}, False), ({"batch_max_ms": -1}, False), ({"batch_max_ms": 0}, True)],
)
def test_batch_settings_are_checked(values: dict[str, Any], ok: bool) -> None:
    """At least one hand per batch; a wait of 0 ms or more."""
    if ok:
        assert LedgerSettings(**values).batch_max_ms == 0
    else:
        with pytest.raises(ValueError, match="batch_max"):
            LedgerSettings(**values)


def test_the_shipped_room_toml_sets_the_batch() -> None:
    """config/room.toml [database] carries batch_max_hands and batch_max_ms, typed."""
    database = load_settings().database
    assert (database.batch_max_hands, database.batch_max_ms) == (100, 5.0)


def test_a_batch_larger_than_one_sqlite_statement_is_still_one_transaction(
    engine: sa.Engine, room_factory: Callable[..., Room], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite binds a bounded number of values per statement: the journal rows and account ids
    go in chunks (here 4 rows, 5 ids) inside the one transaction; replays are still found."""
    monkeypatch.setattr(batch, "SQLITE_ROWS", 4)
    monkeypatch.setattr(batch, "SQLITE_IDS", 5)
    fund(engine, 2)
    room = room_factory(batch_max_hands=30, batch_max_ms=5.0)
    first = room.answers([settle(room.service, f"c:{n}", hand(n % 2, n)) for n in range(6)])
    before = room.commits
    keys = [f"c:{n}" for n in range(6, 30)] + ["c:1", "c:4"]
    ds = [settle(room.service, k, hand(int(k[2:]) % 2, int(k[2:]))) for k in keys]
    answers = room.answers(ds)
    assert room.commits - before == 1
    assert [a.replayed for a in answers] == [False] * 24 + [True, True]
    assert (answers[-2].id, answers[-1].id) == (first[1].id, first[4].id)
    assert check_ledger(engine).ok
