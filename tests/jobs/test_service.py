"""`serve` runs the refund job itself: on its interval, through the ledger's pool, stopped cleanly.

The real LedgerService runs the steps in its threads; their results come back through a
queue and are run on the test thread (`QueueReactor`), the clock is a `Clock`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from twisted.internet.task import Clock

from pokerroom.jobs import (
    JobContext,
    JobSettings,
    PendingBetsJob,
    RefundsJob,
    job_run,
    run_blocking,
)
from pokerroom.jobs.runs import recent_runs
from pokerroom.jobs.schema import job_locks
from pokerroom.jobs.service import JobService
from pokerroom.ledger import LedgerService
from pokerroom.ledger.db import in_transaction
from tests.jobs.conftest import USD, Room, deltas, ref
from tests.ledger.conftest import QueueReactor
from tournaments import store

EXPECTED = {"A": 1995, "B": 1536, "C": 1306}  # T-18.2, docs example 2 (see test_refund_job)


def case_two(room: Room) -> str:
    t = room.tournament("t1")
    for p in ("A", "B", "C", "D"):
        t.buy(p)
    t.start()
    t.bust("C").buy("C", entry_no=2, kind="reentry").bust("D")
    t.seats("table-1", {"A": 4999, "B": 3001, "C": 2000})
    return t.cancel()


@pytest.fixture
def clock() -> Clock:
    clk = Clock()
    clk.advance(1_900_000_000)
    return clk


@pytest.fixture
def ledger(room: Room, clock: Clock) -> Iterator[LedgerService]:
    reactor = QueueReactor()
    service = LedgerService(reactor, room.engine, clock=clock)  # type: ignore[arg-type]
    service.startService()
    service.pump = reactor  # type: ignore[attr-defined]
    yield service
    if service.running:
        service.stopService()


def test_serve_runs_refunds_every_interval_and_a_second_run_pays_nothing(
    room: Room, ledger: LedgerService, clock: Clock
) -> None:
    """The timer fires after the interval (not at start-up); a later run finds nothing due."""
    tid = case_two(room)
    before = room.balances()
    jobs = JobService(clock, ledger, JobSettings(refunds_interval_seconds=30, batch=3))
    jobs.startService()
    pump: QueueReactor = ledger.pump  # type: ignore[attr-defined]
    try:
        clock.advance(29)
        assert "refunds" not in jobs._running and room.status(tid) == store.CANCELLED
        clock.advance(1)
        report = pump.wait(jobs._running["refunds"].wait())
        assert (report.outcome, report.tournaments, report.transfers) == ("ok", ("t1",), 10)
        moved = deltas(before, room.balances())
        assert {p: moved[ref("wallet", p)] for p in EXPECTED} == EXPECTED
        assert room.status(tid) == store.REFUNDED
        clock.advance(30)
        again = pump.wait(jobs._running["refunds"].wait())
        assert (again.outcome, again.transfers) == ("ok", 0)
        assert [r.outcome for r in recent_runs(room.engine)] == ["ok", "ok"]
        assert deltas(before, room.balances()) == moved
    finally:
        jobs.stopService()
    room.check()


def test_serve_runs_the_pending_bets_job_on_its_own_interval(
    room: Room, ledger: LedgerService, clock: Clock
) -> None:
    """K-11: `serve` runs pending bets every `pending_bets_interval_seconds` beside the refund
    job (here never by itself), through the same runner: a `job_runs` row of its own, its
    report in its own words."""
    settings = JobSettings(refunds_interval_seconds=0, pending_bets_interval_seconds=60)
    jobs = JobService(clock, ledger, settings, [RefundsJob(), PendingBetsJob()])
    jobs.startService()
    pump: QueueReactor = ledger.pump  # type: ignore[attr-defined]
    try:
        clock.advance(59)
        assert jobs._running == {}
        clock.advance(1)
        assert list(jobs._running) == ["pending_bets"]  # the refund job has no timer
        report = pump.wait(jobs._running["pending_bets"].wait())
        assert report.message == "pending_bets: ok; 0 round(s) voided, 0 transfer(s), paid nothing"
        assert [r.job for r in recent_runs(room.engine)] == ["pending_bets"]
    finally:
        jobs.stopService()


def test_stopping_mid_run_ends_the_row_and_frees_the_lock_then_a_rerun_finishes(
    room: Room, ledger: LedgerService, clock: Clock
) -> None:
    """The room stops the jobs before the ledger: the batch in flight finishes and counts, the
    run row says `stopped`, the lock is free, the next run pays the rest and nothing twice."""
    tid = case_two(room)
    before = room.balances()
    jobs = JobService(clock, ledger, JobSettings(refunds_interval_seconds=0, batch=2))
    jobs.startService()
    pump: QueueReactor = ledger.pump  # type: ignore[attr-defined]
    running = jobs.run_now("refunds")
    for _ in range(6):  # lock, run row, due, plan, two batches of two
        f, args, kwargs = pump.calls.get(timeout=30)
        f(*args, **kwargs)
    stopped = jobs.stopService()  # batch 3 is in flight: it finishes and counts
    pump.wait(stopped)
    ledger.stopService()  # the room stops the ledger once the jobs have stopped
    report = pump.wait(running)
    assert report.outcome == "stopped" and report.transfers == 6
    row = recent_runs(room.engine)[0]
    assert (row.outcome, row.transfers, dict(row.amounts)) == ("stopped", 6, dict(report.amounts))
    assert row.ended_at_ms is not None
    with room.engine.connect() as conn:
        assert conn.execute(sa.select(job_locks)).all() == []
    rows = in_transaction(room.engine, lambda c: store.load_refunds(c, tid))
    assert sum(r.paid for r in rows) == 6 and room.status(tid) == store.CANCELLED
    ctx = JobContext(clock.seconds, JobSettings(batch=50))
    rest = run_blocking(room.engine, job_run(RefundsJob(), "cli:1:x", ctx))
    assert (rest.outcome, rest.transfers) == ("ok", len(rows) - 6)
    moved = deltas(before, room.balances())
    assert {p: moved[ref("wallet", p)] for p in EXPECTED} == EXPECTED
    assert moved[ref("house_rounding", "house")] == 3
    assert sum(report.amounts.values()) + sum(rest.amounts.values()) == sum(EXPECTED.values())
    assert set(report.amounts) <= {USD}
    room.check()
