"""`job_runs`: one row per run of a job, written at its start and completed at its end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.jobs.schema import job_runs
from pokerroom.ledger.db import in_transaction, read

RUNNING = "running"  # started; with no end after the run is over: the runner was killed
OK = "ok"  # every due item done
FAILED = "failed"  # something was refused or broke: `error` says what; the next run retries
STOPPED = "stopped"  # the server stopped during the run; the next run goes on
SKIPPED = "skipped"  # another runner held the lock; nothing done
OUTCOMES = (RUNNING, OK, FAILED, STOPPED, SKIPPED)


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run as stored."""

    id: int
    job: str
    runner: str
    started_at_ms: int
    ended_at_ms: int | None
    outcome: str
    tournaments: tuple[str, ...]
    amounts: Mapping[str, int]
    transfers: int
    error: str | None


def start_run(engine: Engine, job: str, runner: str, now_ms: int) -> int:
    """A new `running` row; its id."""

    def work(conn: Connection) -> int:
        query = sa.insert(job_runs).values(
            job=job,
            runner=runner,
            started_at_ms=now_ms,
            outcome=RUNNING,
            tournaments=[],
            amounts={},
            transfers=0,
        )
        key = conn.execute(query).inserted_primary_key
        assert key is not None
        return int(key[0])

    return in_transaction(engine, work)


def finish_run(
    engine: Engine,
    run_id: int,
    outcome: str,
    now_ms: int,
    *,
    tournaments: Sequence[str] = (),
    amounts: Mapping[str, int] | None = None,
    transfers: int = 0,
    error: str | None = None,
) -> None:
    """Complete the row: end, outcome, what was done, the error if any."""
    values = {
        "ended_at_ms": now_ms,
        "outcome": outcome,
        "tournaments": list(tournaments),
        "amounts": dict(amounts or {}),
        "transfers": transfers,
        "error": None if error is None else error[:2000],
    }

    def work(conn: Connection) -> None:
        conn.execute(sa.update(job_runs).where(job_runs.c.id == run_id).values(values))

    in_transaction(engine, work)


def record_skipped(engine: Engine, job: str, runner: str, now_ms: int, message: str) -> int:
    """A run that found the lock held: a `skipped` row, begun and ended at once."""
    run_id = start_run(engine, job, runner, now_ms)
    finish_run(engine, run_id, SKIPPED, now_ms, error=message)
    return run_id


def runs_to_watch(
    engine: Engine, after: int | None, since_ms: int, limit: int = 100
) -> tuple[int, tuple[RunRow, ...]]:
    """A watcher's next look: the runs with an id above `after`, oldest first; with `after`
    None (the first look), above the last run started before `since_ms`. Returns the `after`
    used with the runs."""
    if after is None:
        before = sa.select(sa.func.max(job_runs.c.id)).where(job_runs.c.started_at_ms < since_ms)
        after = int(read(engine, lambda conn: conn.execute(before).scalar()) or 0)
    query = sa.select(job_runs).where(job_runs.c.id > after).order_by(job_runs.c.id).limit(limit)
    return after, _rows(engine, query)


def recent_runs(engine: Engine, limit: int = 20, job: str | None = None) -> tuple[RunRow, ...]:
    """The latest runs, newest first."""
    query = sa.select(job_runs).order_by(job_runs.c.id.desc()).limit(limit)
    if job is not None:
        query = query.where(job_runs.c.job == job)
    return _rows(engine, query)


def _rows(engine: Engine, query: sa.Select[Any]) -> tuple[RunRow, ...]:
    """The runs `query` selects."""

    def work(conn: Connection) -> tuple[RunRow, ...]:
        return tuple(
            RunRow(
                r.id,
                r.job,
                r.runner,
                r.started_at_ms,
                r.ended_at_ms,
                r.outcome,
                tuple(r.tournaments),
                {str(k): int(v) for k, v in r.amounts.items()},
                r.transfers,
                r.error,
            )
            for r in conn.execute(query)
        )

    return read(engine, work)
