"""The ledger service through database faults and load (docs/ARCHITECTURE.md rule 16).

Real SQLite files; the fault is real too: another connection holds the write lock
(`BEGIN IMMEDIATE`), so the service's writes get "database is locked". Retries wait on a fake
clock (rule 4: deadlines, not ticks); thread results run on the test thread.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from structlog.testing import capture_logs
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.ledger import Busy, LedgerService, LedgerSettings, ServiceUnavailable
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.errors import InsufficientFunds, UnknownAccount
from pokerroom.ledger.faults import Backoff, is_transient
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.transfers import move
from tests.ledger.conftest import QueueReactor

USD = "USD"
SETTINGS = LedgerSettings(read_queue_max=4, log_queue_max=2, retry_seconds=3.0)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A SQLite ledger file at head."""
    file = tmp_path / "ledger.sqlite"
    engine = make_engine(f"sqlite:///{file}")
    upgrade(engine)
    engine.dispose()
    return file


@pytest.fixture
def clock() -> Clock:
    """The fake clock the service waits on between tries."""
    return Clock()


@pytest.fixture
def service(path: Path, reactor: QueueReactor, clock: Clock) -> Iterator[LedgerService]:
    """A started service whose writes give up on a held lock after 20 ms (not 5 s)."""
    engine = make_engine(f"sqlite:///{path}", busy_timeout=0.02)
    svc = LedgerService(reactor, engine, clock=clock, settings=SETTINGS)
    svc.startService()
    try:
        yield svc
    finally:
        svc.stopService()


class WriteLock:
    """Another connection holding the SQLite write lock: the outage of a SQLite room."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.held = False

    def take(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.held = True

    def release(self) -> None:
        if self.held:
            self.conn.execute("ROLLBACK")
            self.held = False


@pytest.fixture
def lock(path: Path) -> Iterator[WriteLock]:
    """A second connection to the ledger file, ready to take the write lock."""
    held = WriteLock(path)
    try:
        yield held
    finally:
        held.release()
        held.conn.close()


def settle(
    reactor: QueueReactor,
    clock: Clock,
    service: LedgerService,
    d: Deferred[Any],
    *,
    step: float = 0.05,
    seconds: float = 30.0,
    between: Callable[[], None] | None = None,
) -> Any:
    """Run thread results here and move the fake clock by `step` until `d` fires."""
    box: list[Any] = []
    d.addBoth(box.append)
    waited = 0.0
    while not box:
        while service.working or not reactor.calls.empty():
            f, args, kwargs = reactor.calls.get(timeout=20)
            f(*args, **kwargs)
        if box:
            break
        assert waited < seconds, "the work neither succeeded nor gave up"
        if between is not None:
            between()
        clock.advance(step)
        waited += step
    result = box[0]
    if hasattr(result, "raiseException"):
        result.raiseException()
    return result


def fund(service: LedgerService, key: str, amount: int) -> Deferred[Any]:
    """A keyed deposit into alice's wallet through the money lane (retried)."""
    return service.move(
        key=key,
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("alice", USD),
        amount=amount,
    )


def test_a_locked_database_is_waited_out_and_the_write_lands_once(
    service: LedgerService, reactor: QueueReactor, clock: Clock, lock: WriteLock
) -> None:
    """ARCH 16: "database is locked" is retried with backoff until the lock goes; the keyed
    write then lands exactly once. The outage is logged once, and its end with its length."""
    lock.take()
    tries: list[float] = []

    def release_after_three_tries() -> None:
        tries.append(clock.seconds())
        if len(tries) == 3:
            lock.release()

    with capture_logs() as logs:
        d = fund(service, "dep-1", 500)
        done = settle(reactor, clock, service, d, between=release_after_three_tries)
    assert not done.replayed and len(tries) >= 3
    assert alice(service) == 500
    events = [entry["event"] for entry in logs]
    assert events.count("database_unavailable") == 1
    assert events.count("database_available") == 1
    back = next(entry for entry in logs if entry["event"] == "database_available")
    assert back["outage_seconds"] > 0 and back["failures"] >= 2
    assert service.available
    assert check_ledger(service.engine).ok


def test_a_write_gives_up_at_its_deadline_with_service_unavailable(
    service: LedgerService, reactor: QueueReactor, clock: Clock, lock: WriteLock
) -> None:
    """A lock that never goes: after retry_seconds (3 s here) the write fails with
    service_unavailable, not a raw database error; nothing moved; tries are spaced by the
    backoff (at most ~1 s apart), not run in a tight loop."""
    lock.take()
    start = clock.seconds()
    with pytest.raises(ServiceUnavailable) as caught:
        settle(reactor, clock, service, fund(service, "dep-2", 500))
    assert caught.value.code == "service_unavailable"
    assert 3.0 <= clock.seconds() - start <= 3.2
    assert not service.available
    assert service.lanes["money"].pending == 0
    lock.release()
    assert alice(service) == 0


def alice(service: LedgerService) -> int:
    """Alice's wallet balance, 0 if it was never opened."""
    try:
        return balance(service.engine, wallet("alice", USD)).balance
    except UnknownAccount:
        return 0


def test_a_commit_whose_answer_was_lost_is_replayed_not_paid_twice(
    service: LedgerService, reactor: QueueReactor, clock: Clock
) -> None:
    """The connection drops right after COMMIT: the retry finds the key and returns the
    first result (P-2), so a retried money write never pays twice."""
    calls: list[int] = []

    def commit_then_lose_the_answer(engine: sa.Engine, **kwargs: Any) -> Any:
        result = move(engine, **kwargs)
        calls.append(result.id)
        if len(calls) == 1:
            lost = sa.exc.OperationalError("COMMIT", {}, Exception("server closed the connection"))
            lost.connection_invalidated = True
            raise lost
        return result

    d = service.write(
        commit_then_lose_the_answer,
        key="dep-3",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("alice", USD),
        amount=700,
    )
    result = settle(reactor, clock, service, d)
    assert len(calls) == 2 and result.replayed and result.id == calls[0]
    assert alice(service) == 700


def test_work_that_may_not_run_twice_is_tried_once(
    service: LedgerService, reactor: QueueReactor, clock: Clock, lock: WriteLock
) -> None:
    """`run` and `write_log` work is not idempotent: one try, then service_unavailable."""
    tries: list[int] = []

    def insert(engine: sa.Engine) -> None:
        tries.append(1)
        with engine.begin() as conn:
            conn.execute(sa.text("create table if not exists notes (x integer)"))

    lock.take()
    with pytest.raises(ServiceUnavailable):
        settle(reactor, clock, service, service.run(insert))
    with pytest.raises(ServiceUnavailable):
        settle(reactor, clock, service, service.write_log(insert))
    assert len(tries) == 2


def test_a_refusal_is_an_answer_not_an_outage(
    service: LedgerService, reactor: QueueReactor, clock: Clock
) -> None:
    """insufficient_funds comes back after one try; the database is not marked out."""
    start = clock.seconds()
    with pytest.raises(InsufficientFunds):
        settle(
            reactor,
            clock,
            service,
            service.move(
                key="too-much",
                kind="buy_in",
                currency=USD,
                source=wallet("alice", USD),
                destination=external(USD),
                amount=1,
            ),
        )
    assert clock.seconds() == start and service.available


def test_reads_are_bounded_and_money_does_not_wait_for_them(
    service: LedgerService, reactor: QueueReactor, clock: Clock
) -> None:
    """ARCH 16: with every read thread stuck, reads queue up to read_queue_max (4 here) and
    the next is refused at once with server_busy; a money write still goes through at once,
    on its own lane; the stuck reads finish afterwards."""
    gate = threading.Event()
    started = threading.Semaphore(0)

    def slow_read(engine: sa.Engine) -> int:
        started.release()
        gate.wait(20)
        return 1

    reads = [service.read(slow_read) for _ in range(SETTINGS.read_queue_max)]
    for _ in range(SETTINGS.read_threads):
        assert started.acquire(timeout=10)  # both read threads are held
    refused: list[Any] = []
    service.read(slow_read).addErrback(refused.append)
    assert [f.value.code for f in refused] == ["server_busy"]
    assert isinstance(refused[0].value, Busy)
    assert service.lanes["read"].pending == SETTINGS.read_queue_max
    assert service.lanes["read"].refused == 1
    deposit = QueueReactor.wait(reactor, fund(service, "dep-4", 300))
    assert deposit.postings[-1].balance_after == 300
    gate.set()
    assert [settle(reactor, clock, service, d) for d in reads] == [1] * SETTINGS.read_queue_max
    assert service.lanes["read"].pending == 0


def test_logs_do_not_hold_up_money(
    service: LedgerService, reactor: QueueReactor, clock: Clock
) -> None:
    """A log write stuck in its lane (chat, mutes) does not delay a money write."""
    gate = threading.Event()
    stuck = service.write_log(lambda engine: gate.wait(20))
    deposit = QueueReactor.wait(reactor, fund(service, "dep-5", 100))
    assert not deposit.replayed
    gate.set()
    settle(reactor, clock, service, stuck)


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (sa.exc.OperationalError("x", {}, sqlite3.OperationalError("database is locked")), True),
        (sa.exc.OperationalError("x", {}, sqlite3.OperationalError("no such table: t")), False),
        (sa.exc.IntegrityError("x", {}, sqlite3.IntegrityError("UNIQUE constraint")), False),
        (sa.exc.TimeoutError("QueuePool limit reached"), True),
        (sa.exc.OperationalError("x", {}, psycopg.OperationalError("connection refused")), True),
        (sa.exc.OperationalError("x", {}, psycopg.errors.AdminShutdown("terminating")), True),
        (sa.exc.IntegrityError("x", {}, psycopg.errors.UniqueViolation("dup")), False),
        (InsufficientFunds("no"), False),
        (ValueError("bug"), False),
    ],
)
def test_which_failures_are_transient(exc: BaseException, transient: bool) -> None:
    """Lock timeouts and lost connections are waited out; refusals and bugs are answers."""
    assert is_transient(exc) is transient


def test_backoff_doubles_up_to_its_cap() -> None:
    """Waits between tries grow from `first` and stop at `most` (no tight loop, no jitter)."""
    waits = [Backoff(first=0.05, most=1.0).delay(n) for n in range(8)]
    assert waits == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
