"""Running a job: the lock, the `job_runs` row, the job's steps, and two ways to drive them.

A job is a generator of *steps*: blocking units of database work, `work(engine) -> value`,
each its own transaction. The generator decides what to do next from each step's value (or
the exception it raised, thrown back into it); it does no I/O itself. `job_run` wraps a job
with its lock and its run row. Two drivers run the same generator:

- `run_blocking(engine, steps)`: one step after another on this thread (the CLI, cron, tests);
- `pokerroom.jobs.service.JobService`: each step in the ledger's thread pool, between other
  work, on the reactor's clock (`pokerroom serve`).

Stopping (the server stops, or Ctrl-C) throws `Stopping` into the generator at its current step:
the run row is completed as `stopped` and the lock released, in one last step.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from sqlalchemy.engine import Engine

import pokerroom.jobs.lock as locks
import pokerroom.jobs.runs as runs

#: One blocking unit of work on the database.
Work = Callable[[Engine], Any]
#: A job's or a run's steps: yields work, receives each work's value, returns its result.
Steps = Generator[Work, Any, Any]


class Stopping(BaseException):
    """Thrown into a run's steps when the server stops or the operator interrupts it."""


@dataclass(frozen=True, slots=True)
class JobSettings:
    """`[jobs]` in config/room.toml: how often `serve` runs each job, and how it runs them."""

    refunds_interval_seconds: float = 60.0  # 0: `serve` never runs the refund job itself
    #: K-11: how often `serve` voids casino rounds pending past the limit (0: never itself)
    pending_bets_interval_seconds: float = 3600.0
    batch: int = 50  # refund components paid per transaction
    lease_seconds: float = 120.0  # SQLite: a lease not renewed for this long is free
    #: `serve` looks for runs made by other processes (cron, `pokerroom jobs run`) this often,
    #: to tell their refunded players (0: never)
    watch_seconds: float = 5.0

    def __post_init__(self) -> None:
        """Refuse settings that cannot work."""
        intervals = (self.refunds_interval_seconds, self.pending_bets_interval_seconds)
        if min(intervals) < 0 or self.batch < 1 or self.lease_seconds < 1:
            raise ValueError("jobs: intervals >= 0, batch >= 1 and lease_seconds >= 1")
        if self.watch_seconds < 0:
            raise ValueError("jobs: watch_seconds >= 0")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> JobSettings:
        """Build from the `[jobs]` TOML table; unknown keys are an error."""
        unknown = set(values) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown jobs settings: {sorted(unknown)}")
        return cls(**values)

    def interval(self, job: str) -> float:
        """Seconds between two runs of `job` by `serve` (0: never)."""
        return float(getattr(self, f"{job}_interval_seconds", 0.0))


@dataclass(slots=True)
class JobResult:
    """What a run did so far (kept up to date step by step, so a stopped run still tells)."""

    tournaments: list[str] = field(default_factory=list)  # finished by this run
    rounds: list[str] = field(default_factory=list)  # casino rounds voided by this run (K-11)
    amounts: dict[str, int] = field(default_factory=dict)  # currency -> paid to players
    transfers: int = 0  # ledger transfers made by this run
    errors: list[tuple[str, str]] = field(default_factory=list)  # (item, what went wrong)

    def paid(self, currency: str, amount: int) -> None:
        """Count money paid to a player."""
        self.amounts[currency] = self.amounts.get(currency, 0) + amount


@dataclass(slots=True)
class JobContext:
    """What a job's steps may use: the clock, the settings, the result, a progress hook."""

    clock: Callable[[], float]  # seconds; the reactor's in `serve`, time.time in the CLI
    settings: JobSettings = field(default_factory=JobSettings)
    result: JobResult = field(default_factory=JobResult)
    progress: Callable[[str], None] | None = None

    def now_ms(self) -> int:
        """The clock in epoch milliseconds."""
        return int(self.clock() * 1000)

    def say(self, line: str) -> None:
        """Report progress, if anyone listens."""
        if self.progress is not None:
            self.progress(line)


class Job(Protocol):
    """A job: a name and its steps."""

    name: str

    def steps(self, ctx: JobContext) -> Steps:
        """The job's work, as steps (see the module docstring)."""
        ...

    def summary(self, result: JobResult) -> str:
        """What a run did, in a few words for its report: `2 tournament(s) finished`."""
        ...


@dataclass(frozen=True, slots=True)
class RunReport:
    """How a run ended."""

    job: str
    run_id: int | None
    outcome: str
    message: str
    tournaments: tuple[str, ...] = ()
    amounts: Mapping[str, int] = field(default_factory=dict)
    transfers: int = 0
    errors: tuple[tuple[str, str], ...] = ()
    #: What the job did in a few words (`Job.summary`); "" when it did not run (the lock).
    summary: str = ""
    #: Why the run failed or stopped, as the message ends with it; None when it did not.
    error: str | None = None

    @property
    def exit_code(self) -> int:
        """0 when done or turned away by the lock (another runner does it), else 1."""
        return 0 if self.outcome in (runs.OK, runs.SKIPPED) else 1

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON (`jobs run --json`, the admin endpoint's `job_run`)."""
        return {
            "job": self.job,
            "run_id": self.run_id,
            "outcome": self.outcome,
            "message": self.message,
            "summary": self.summary,
            "error": self.error,
            "tournaments": list(self.tournaments),
            "amounts": dict(self.amounts),
            "transfers": self.transfers,
            "errors": [list(e) for e in self.errors],
        }


def _minor(amounts: Mapping[str, int]) -> str:
    """Amounts in minor units, `5837 USD, 400 T$`; "" for none."""
    return ", ".join(f"{amount} {cur}" for cur, amount in sorted(amounts.items()))


def report_line(
    job: str,
    outcome: str,
    summary: str,
    transfers: int,
    amounts: Mapping[str, int],
    error: str | None,
    shown: Callable[[Mapping[str, int]], str],
) -> str:
    """A run's one line, amounts written by `shown`: `refunds: ok; 2 tournament(s) finished,
    3 transfer(s), paid 5837 USD`, then `; <why>` when it failed or stopped."""
    line = (
        f"{job}: {outcome}; {summary}, {transfers} transfer(s), paid {shown(amounts) or 'nothing'}"
    )
    return f"{line}; {error}" if error else line


def job_run(job: Job, runner: str, ctx: JobContext) -> Generator[Work, Any, RunReport]:
    """The whole run of `job` as steps: lock, run row, the job's steps, run row, unlock."""
    lease_ms = int(ctx.settings.lease_seconds * 1000)
    got = yield partial(
        locks.acquire, job=job.name, owner=runner, now_ms=ctx.now_ms(), lease_ms=lease_ms
    )
    if isinstance(got, locks.Holder):
        message = f"{job.name}: another runner holds the lock ({got.describe()}); nothing to do"
        run_id = yield partial(
            runs.record_skipped,
            job=job.name,
            runner=runner,
            now_ms=ctx.now_ms(),
            message=message,
        )
        return RunReport(job.name, run_id, runs.SKIPPED, message)
    held: locks.JobLock = got
    try:
        run_id = yield partial(runs.start_run, job=job.name, runner=runner, now_ms=ctx.now_ms())
    except GeneratorExit:  # abandoned by its driver (a stopped service): no step runs any more;
        raise  # the lock goes with the connection (PostgreSQL) or its lease lapses (SQLite)
    except BaseException:
        yield partial(_release, lock=held)
        raise
    outcome, error = runs.OK, None
    try:
        yield from _leased(job.steps(ctx), held, ctx)
    except Stopping:
        outcome, error = runs.STOPPED, "stopped before the end; the next run goes on"
    except Exception as exc:  # a step the job could not handle: recorded, then reported
        outcome, error = runs.FAILED, _describe(exc)
    result = ctx.result
    if outcome == runs.OK and result.errors:
        outcome = runs.FAILED
        error = "; ".join(f"{item}: {what}" for item, what in result.errors)
    yield partial(
        _finalize,
        run_id=run_id,
        lock=held,
        outcome=outcome,
        now_ms=ctx.now_ms(),
        result=result,
        error=error,
    )
    message = report_line(
        job.name, outcome, job.summary(result), result.transfers, result.amounts, error, _minor
    )
    return RunReport(
        job.name,
        run_id,
        outcome,
        message,
        tuple(result.tournaments),
        dict(result.amounts),
        result.transfers,
        tuple(result.errors),
        job.summary(result),
        error,
    )


def _leased(steps: Steps, held: locks.JobLock, ctx: JobContext) -> Steps:
    """Pass the job's steps through, renewing the lease before any step that needs it.

    `Stopping` and a lost lease end the job here (they are not the job's to handle); any other
    failure of a step is thrown into the job, which decides what it means.
    """
    try:
        work = next(steps)
        while True:
            now_ms = ctx.now_ms()
            if held.due_for_renewal(now_ms):
                work = partial(_renewed, work=work, lock=held, now_ms=now_ms)
            try:
                value = yield work
            except (Stopping, locks.LockLost):
                raise
            except Exception as exc:
                work = steps.throw(exc)
            else:
                work = steps.send(value)
    except StopIteration as stop:
        return stop.value
    finally:
        steps.close()


def _renewed(engine: Engine, work: Work, lock: locks.JobLock, now_ms: int) -> Any:
    """Renew the lease, then do the work (LockLost if the lease was lost)."""
    locks.renew(engine, lock, now_ms)
    return work(engine)


def _release(engine: Engine, lock: locks.JobLock) -> None:
    locks.release(engine, lock)


def _finalize(
    engine: Engine,
    run_id: int,
    lock: locks.JobLock,
    outcome: str,
    now_ms: int,
    result: JobResult,
    error: str | None,
) -> None:
    """Complete the run row, then release the lock (even if the row could not be written)."""
    try:
        runs.finish_run(
            engine,
            run_id,
            outcome,
            now_ms,
            tournaments=result.tournaments,
            amounts=result.amounts,
            transfers=result.transfers,
            error=error,
        )
    finally:
        locks.release(engine, lock)


def _describe(exc: BaseException) -> str:
    """One line for the run row: the exception and where it came from."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    place = f" at {where[0].filename}:{where[0].lineno}" if where else ""
    return f"{type(exc).__name__}: {exc}{place}"


def run_blocking(engine: Engine, steps: Generator[Work, Any, Any]) -> Any:
    """Drive `steps` on this thread; Ctrl-C stops the run cleanly, then is raised again."""
    interrupted = False
    advance: Callable[[], Work] = partial(next, steps)
    while True:
        try:
            work = advance()
        except StopIteration as stop:
            if interrupted:
                raise KeyboardInterrupt from None
            return stop.value
        try:
            value = work(engine)
        except KeyboardInterrupt:
            interrupted = True
            advance = partial(steps.throw, Stopping())
        except Exception as exc:
            advance = partial(steps.throw, exc)
        else:
            advance = partial(steps.send, value)
