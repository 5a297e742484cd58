"""`pokerroom serve` runs due jobs itself: a service in the room's tree, on the reactor's clock.

Each job with an interval (`[jobs]` in config/room.toml) runs every interval. Its steps go one
at a time through the ledger's money lane (`LedgerService.run`), so a refund run never holds
the database for long: cash tables' money interleaves with its batches. A run still going when
the next is due is not doubled. The same lock as the CLI's keeps one runner at a time across
processes and servers, so `serve` and a cron job can both be set up.

Stopping (`close`, which the room awaits before it stops the ledger): the timers stop; a run
in progress finishes the step in flight (its transfers count), then gets `Stopping`, and its
last step completes the run row as `stopped` and releases the lock. The next run goes on.

Runs made by other processes (cron, `pokerroom jobs run`, another server) are watched for:
every `[jobs] watch_seconds` one read of `job_runs` (the ledger's read lane) finds the runs
that ended since the last look, and the listeners hear of each as of a run of this process
(the room tells their refunded players, T-18). A run of this process is told once, at its end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import structlog
from twisted.application.service import Service
from twisted.internet.defer import Deferred, DeferredList, fail, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from pokerroom.jobs import runs
from pokerroom.jobs.lock import runner_name
from pokerroom.jobs.refunds import RefundsJob
from pokerroom.jobs.runner import Job, JobContext, JobSettings, RunReport, Stopping, Work, job_run
from pokerroom.ledger import LedgerService

log = structlog.get_logger("pokerroom.jobs")


class _Drive:
    """Drives a run's steps through the ledger's money lane, one step at a time."""

    def __init__(self, ledger: LedgerService, steps: Any) -> None:
        self.ledger = ledger
        self.steps = steps
        self.finished = False
        self.outcome: RunReport | Failure | None = None
        self._waiters: list[Deferred[RunReport]] = []
        self._stopping = False  # asked to stop: `Stopping` goes in instead of the next step

    def start(self) -> None:
        """Submit the first step."""
        self._advance(lambda: next(self.steps))

    def wait(self) -> Deferred[RunReport]:
        """A Deferred that fires with the run's report (or its failure)."""
        if self.outcome is None:
            d: Deferred[RunReport] = Deferred()
            self._waiters.append(d)
            return d
        if isinstance(self.outcome, Failure):
            return fail(self.outcome)
        return succeed(self.outcome)

    def _end(self, outcome: RunReport | Failure) -> None:
        self.finished = True
        self.outcome = outcome
        waiters, self._waiters = self._waiters, []
        for d in waiters:
            if isinstance(outcome, Failure):
                d.errback(outcome)
            else:
                d.callback(outcome)

    def _advance(self, advance: Callable[[], Work]) -> None:
        try:
            work = advance()
        except StopIteration as stop:
            self._end(stop.value)
            return
        except BaseException as exc:
            self._end(Failure(exc))
            return
        if self._stopping:
            self._stopping = False  # once: the run's last step (row, lock) runs next
            self._advance(lambda: self.steps.throw(Stopping()))
            return
        try:
            d: Deferred[Any] = self.ledger.run(work)
        except BaseException as exc:  # the ledger's threads are gone: nothing more can run
            self._end(Failure(exc))
            return
        d.addCallbacks(
            lambda value: self._answer(value, None),
            lambda failure: self._answer(None, failure),
        )

    def _answer(self, value: Any, failure: Failure | None) -> None:
        if failure is None:
            self._advance(lambda: self.steps.send(value))
        else:
            error = failure.value
            assert error is not None
            self._advance(lambda: self.steps.throw(error))

    def stop(self) -> Deferred[RunReport]:
        """Let the step in flight finish (and count), then `Stopping`: the row, the lock."""
        if not self.finished:
            self._stopping = True
        return self.wait()


class JobService(Service):
    """Runs each due job on its interval, one run of a job at a time."""

    name = "jobs"

    def __init__(
        self,
        clock: IReactorTime,
        ledger: LedgerService,
        settings: JobSettings | None = None,
        jobs: Sequence[Job] | None = None,
    ) -> None:
        self.clock = clock
        self.ledger = ledger
        self.settings = settings or JobSettings()
        self.jobs: dict[str, Job] = {job.name: job for job in (jobs or [RefundsJob()])}
        self.runner = runner_name()
        self.reports: list[RunReport] = []  # the latest runs of this process, newest last
        #: Told of every run that ended (the room tells refunded players, T-18).
        self.listeners: list[Callable[[RunReport], object]] = []
        self._loops: list[LoopingCall] = []
        self._running: dict[str, _Drive] = {}
        self._seen: int | None = None  # every run up to this id was looked at (watch)
        self._told: set[int] = set()  # runs above `_seen` already looked at
        self._watching = False
        self._since_ms = 0  # the service's start (the first look's horizon)

    def startService(self) -> None:
        """Start one timer per job that has an interval; the first run after one interval."""
        Service.startService(self)
        for name in self.jobs:
            interval = self.settings.interval(name)
            if interval > 0:
                loop = LoopingCall(self._due, name)
                loop.clock = self.clock
                loop.start(interval, now=False)
                self._loops.append(loop)
        if self.settings.watch_seconds > 0:
            watch = LoopingCall(self.watch)
            watch.clock = self.clock
            self._since_ms = round(self.clock.seconds() * 1000)
            watch.start(self.settings.watch_seconds, now=False)
            self._loops.append(watch)

    def watch(self) -> Deferred[int]:
        """Look for runs other processes ended since the last look (the first look: since
        the service started); tell the listeners of each. Fires with the runs told."""
        if self._watching:
            return succeed(0)
        self._watching = True
        d = self.ledger.read(runs.runs_to_watch, self._seen, self._since_ms)
        d.addCallback(self._watched)

        def done(result: Any) -> Any:
            self._watching = False
            if isinstance(result, Failure):
                log.error("job_watch_failed", error=str(result.value))
                return 0
            return result

        return d.addBoth(done)

    def _watched(self, looked: tuple[int, Sequence[runs.RunRow]]) -> int:
        self._seen, found = looked
        told = 0
        contiguous = True
        for row in found:
            if row.ended_at_ms is None:  # still going: looked at again once it ended
                contiguous = False
                continue
            if contiguous:
                self._seen = row.id
            if row.id in self._told:
                continue
            self._told.add(row.id)
            if row.runner == self.runner or row.job not in self.jobs:
                continue  # this process's runs are told at their end
            if row.outcome == runs.SKIPPED or not row.tournaments:
                continue
            report = RunReport(
                row.job,
                row.id,
                row.outcome,
                f"{row.job}: run by {row.runner}",
                row.tournaments,
                row.amounts,
                row.transfers,
            )
            told += 1
            for listener in self.listeners:
                try:
                    listener(report)
                except Exception as exc:  # a listener's failure is not the watch's
                    log.error("job_listener_failed", job=row.job, error=str(exc))
        seen = self._seen or 0
        self._told = {n for n in self._told if n > seen}
        return told

    def _due(self, name: str) -> None:
        """A timer fired: run the job unless a run of it is still going."""
        if name not in self._running:
            self.run_now(name).addErrback(lambda _: None)  # logged by run_now

    def run_now(self, name: str) -> Deferred[RunReport]:
        """Run `name` now (or join the run already going); fires with its report."""
        going = self._running.get(name)
        if going is not None:
            return going.wait()
        ctx = JobContext(self.clock.seconds, self.settings)
        drive = _Drive(self.ledger, job_run(self.jobs[name], self.runner, ctx))
        self._running[name] = drive

        def ended(report: RunReport) -> RunReport:
            self._running.pop(name, None)
            self.reports = [*self.reports[-19:], report]
            quiet = report.outcome in ("ok", "skipped") and not report.transfers
            emit = log.debug if quiet else log.info
            emit("job_run", job=name, outcome=report.outcome, message=report.message)
            for listener in self.listeners:
                try:
                    listener(report)
                except Exception as exc:  # a listener's failure is not the run's
                    log.error("job_listener_failed", job=name, error=str(exc))
            return report

        def broke(failure: Failure) -> Failure:
            self._running.pop(name, None)
            log.error("job_run_failed", job=name, error=str(failure.value))
            return failure

        result = drive.wait()
        result.addCallbacks(ended, broke)
        drive.start()
        return result

    def stopService(self) -> Deferred[Any]:
        """Stop the timers; a run in progress ends after its current step (row, lock)."""
        Service.stopService(self)
        return self.close()

    def close(self) -> Deferred[Any]:
        """Stop the timers and end the runs in progress; fires once their last step ran.

        The room calls this before it stops the ledger (whose threads run that last step).
        """
        for loop in self._loops:
            if loop.running:
                loop.stop()
        self._loops = []
        stopping = [drive.stop() for drive in list(self._running.values())]
        return DeferredList(stopping, consumeErrors=True)
