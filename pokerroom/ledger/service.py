"""LedgerService: the Twisted face of the ledger; database work runs in its own thread pools.

Work goes down one of three lanes, each a thread pool of its own, so that money never waits
behind reads, logs or chat (docs/ARCHITECTURE.md rule 16):

- **money** (`run`, `write`, `transfer`, `move`, `reverse`, `open_account`, `settle`): hand
  starts and settlements, buy-ins, top-ups, cash-outs, tournament money. Never refused for load.
- **read** (`read`, `balance`, `statement`, `check`): wallets, statements, hand histories. At
  most `read_queue_max` reads wait or run at once; one more fails at once with `Busy`
  (`server_busy`). On SQLite (WAL) these threads read while the one writer writes.
- **log** (`write_log`): chat batches and mutes; bounded like reads (`log_queue_max`).

Retries (rule 16: every retry has an idempotency key, every wait a deadline): a transient
failure (`faults.is_transient`: a lost or refused connection, a serialization failure, a lock
held too long) of work that may run twice — `write`, whose work must be idempotent (every
money write here is, by its ledger key), and `read` — is tried again after a backoff until
`retry_seconds` have passed on the injected clock. After that, and at once for `run` and
`write_log` work, the Deferred fails with `ServiceUnavailable` (`service_unavailable`). An
outage is logged twice, whatever the number of requests: its first failure, and the first
success after it with its length.

Group commit (`settle`; `commit_in_batch`: idempotent work with no transfer, a tournament's
hand records): one writer takes what waits (`batch_max_hands`, `batch_max_ms`) into one
transaction (`batch.write_batch`); each Deferred fires after its commit; retried as `write`.

Every method returns a Deferred that fires, on the reactor thread, with a plain value or a
frozen dataclass (ARCH 7). Nothing here imports the global reactor.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import structlog
from sqlalchemy.engine import Connection, Engine
from twisted.application.service import Service
from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IDelayedCall, IReactorFromThreads, IReactorTime
from twisted.internet.threads import deferToThreadPool
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool

import pokerroom.ledger.accounts as accounts
import pokerroom.ledger.batch as batch
import pokerroom.ledger.migrate as migrate
import pokerroom.ledger.reports as reports
import pokerroom.ledger.transfers as transfers
from pokerroom.ledger.accounts import Account, AccountLike
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.errors import Busy, LedgerError, ServiceUnavailable
from pokerroom.ledger.faults import Backoff, first_line, is_transient
from pokerroom.ledger.kinds import AccountKind, TransferKind
from pokerroom.ledger.reports import CheckReport, Statement
from pokerroom.ledger.transfers import PostingsIn, Transfer

T = TypeVar("T")
log = structlog.get_logger("pokerroom.ledger")

#: Money threads: SQLite allows one writer at a time; PostgreSQL locks rows.
SQLITE_THREADS = 1
POSTGRESQL_THREADS = 4
MONEY, READ, LOG = "money", "read", "log"
Queued = tuple[batch.Pending, Deferred[Any]]  # a batch item and the Deferred to answer


@dataclass(frozen=True, slots=True)
class LedgerSettings:
    """Threads, queue bounds and the retry deadline (`[database]` in config/room.toml)."""

    read_threads: int = 2
    log_threads: int = 1
    read_queue_max: int = 256  # reads waiting or running; one more is refused (server_busy)
    log_queue_max: int = 64  # chat batches and mutes waiting or running
    retry_seconds: float = 5.0  # a retried read or write gives up after this long
    backoff_first_seconds: float = 0.05  # the first wait between tries, doubling ...
    backoff_most_seconds: float = 1.0  # ... up to this
    batch_max_hands: int = 100  # settlements committed together in one transaction, at most
    batch_max_ms: float = 5.0  # how long the first settlement waits for others to join it

    def __post_init__(self) -> None:
        """Refuse settings that cannot work."""
        if min(self.read_threads, self.log_threads, self.read_queue_max, self.log_queue_max) < 1:
            raise ValueError("database threads and queue bounds are at least 1")
        if self.retry_seconds < 0 or self.backoff_first_seconds <= 0:
            raise ValueError("database retry_seconds >= 0 and backoff_first_seconds > 0")
        if self.batch_max_hands < 1 or self.batch_max_ms < 0:
            raise ValueError("database batch_max_hands >= 1 and batch_max_ms >= 0")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> LedgerSettings:
        """Build from the `[database]` TOML table; unknown keys are an error."""
        unknown = set(values) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown database settings: {sorted(unknown)}")
        return cls(**values)


class Lane:
    """One thread pool and its work: accepted and not finished (`pending`), in a thread."""

    def __init__(self, name: str, threads: int, limit: int | None) -> None:
        self.name = name
        self.threads = threads
        self.limit = limit  # None: never refused
        self.pool = ThreadPool(minthreads=threads, maxthreads=threads, name=f"ledger-{name}")
        self.pending = 0  # queued, running, or waiting to be tried again
        self.working = 0  # handed to the pool and not back yet
        self.peak = 0  # the most pending at once
        self.refused = 0  # refused with Busy because `limit` were pending

    def full(self) -> bool:
        """Whether one more piece of work would pass the bound."""
        return self.limit is not None and self.pending >= self.limit


class _Job(Generic[T]):
    """One piece of work on a lane, tried until it succeeds, fails for good or runs out of time."""

    def __init__(
        self,
        service: LedgerService,
        lane: Lane,
        work: Callable[..., T],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        deadline: float | None,
    ) -> None:
        self.service, self.lane = service, lane
        self.work, self.args, self.kwargs = work, args, kwargs
        self.deadline = deadline  # None: one try only
        self.attempt = 0
        self.timer: IDelayedCall | None = None
        self.result: Deferred[T] = Deferred()

    def go(self) -> None:
        self.timer = None
        self.service._waiting.discard(self)
        self.lane.working += 1
        service = self.service
        d = deferToThreadPool(
            service._reactor, self.lane.pool, self.work, service.engine, *self.args, **self.kwargs
        )
        d.addCallbacks(self._succeeded, self._failed)

    def _succeeded(self, value: T) -> None:
        self.lane.working -= 1
        self.service._answered(self.lane)
        self._finish(value)

    def _failed(self, failure: Failure) -> None:
        self.lane.working -= 1
        exc = failure.value
        if exc is None or not is_transient(exc):
            self._finish(failure)  # a real answer: a refusal (insufficient funds, ...) or a bug
            return
        service = self.service
        service._unreachable(self.lane, exc)
        clock = service.clock
        if self.deadline is not None and clock is not None and service.running:
            left = self.deadline - clock.seconds()
            if left > 0:
                wait = min(service.backoff.delay(self.attempt), left)
                self.attempt += 1
                self.timer = clock.callLater(wait, self.go)
                service._waiting.add(self)
                return
        self._finish(Failure(ServiceUnavailable("the database does not answer; try again soon")))

    def cancel(self) -> None:
        """The service stops: give up waiting for the next try."""
        if self.timer is not None and self.timer.active():
            self.timer.cancel()
        self.timer = None
        self._finish(Failure(ServiceUnavailable("the ledger is stopping")))

    def _finish(self, outcome: T | Failure) -> None:
        self.lane.pending -= 1
        if isinstance(outcome, Failure):
            self.result.errback(outcome)
        else:
            self.result.callback(outcome)


class LedgerService(Service):
    """Owns the engine and the ledger's thread pools; starts first and stops last (ARCH 9)."""

    name = "ledger"

    def __init__(
        self,
        reactor: IReactorFromThreads,
        database: Engine | str,
        *,
        threads: int | None = None,
        check_schema: bool = True,
        clock: IReactorTime | None = None,
        settings: LedgerSettings | None = None,
    ) -> None:
        self._reactor = reactor
        self.engine = database if isinstance(database, Engine) else make_engine(database)
        self.settings = settings or LedgerSettings()
        if threads is None:
            sqlite = self.engine.dialect.name == "sqlite"
            threads = SQLITE_THREADS if sqlite else POSTGRESQL_THREADS
        self.threads = threads  # the money lane's threads
        #: Timers for retries: the injected clock, else the reactor if it is one, else none
        #: (then nothing is retried: a transient failure is `service_unavailable` at once).
        if clock is None and IReactorTime.providedBy(reactor):
            clock = reactor  # the same object, seen as a clock
        self.clock: IReactorTime | None = clock
        self.backoff = Backoff(
            self.settings.backoff_first_seconds, self.settings.backoff_most_seconds
        )
        self._check_schema = check_schema
        s = self.settings
        self.lanes = {
            MONEY: Lane(MONEY, threads, None),
            READ: Lane(READ, s.read_threads, s.read_queue_max),
            LOG: Lane(LOG, s.log_threads, s.log_queue_max),
        }
        self._waiting: set[_Job[Any]] = set()
        self._down_since: float | None = None
        self._down_lanes: set[str] = set()  # lanes that failed in this outage
        self._failures = 0
        #: Settlements waiting for the batch writer, each with the Deferred to answer.
        self._queue: list[Queued] = []
        self._queued_at = 0.0  # when the oldest waiting settlement was queued
        self._batch_timer: IDelayedCall | None = None
        self._writing = False  # a batch is in the writer's hands
        self.batches = 0  # batches handed to the writer
        self.batched = 0  # settlements in them

    # ------------------------------------------------------------------ lifecycle

    def startService(self) -> None:
        """Refuse a schema that is not at head, then start the worker threads."""
        if self._check_schema:
            migrate.ensure_at_head(self.engine)  # raises SchemaNotAtHead naming the command
        for lane in self.lanes.values():
            lane.pool.start()
        # Named, not super(): mypy's untyped_calls_exclude does not see through super().
        Service.startService(self)
        log.info(
            "ledger_started",
            dialect=self.engine.dialect.name,
            threads={name: lane.threads for name, lane in self.lanes.items()},
        )

    def stopService(self) -> None:
        """Give up retries, finish queued work, stop the threads, close the connections."""
        Service.stopService(self)
        while self._queue:  # settlements already accepted are written before the threads stop
            self._write_batch()
        for job in list(self._waiting):
            job.cancel()
        self._waiting.clear()
        for lane in self.lanes.values():
            lane.pool.stop()
        self.engine.dispose()
        log.info("ledger_stopped")

    # ------------------------------------------------------------------ state

    @property
    def working(self) -> int:
        """Pieces of work in a thread or queued for one (not those waiting to be retried)."""
        return sum(lane.working for lane in self.lanes.values())

    @property
    def pending(self) -> int:
        """Pieces of work accepted and not finished, retries included."""
        return sum(lane.pending for lane in self.lanes.values())

    @property
    def available(self) -> bool:
        """False from a transient failure until the next success (an outage)."""
        return self._down_since is None

    def _now(self) -> float:
        return self.clock.seconds() if self.clock is not None else time.monotonic()

    def _unreachable(self, lane: Lane, exc: BaseException) -> None:
        self._failures += 1
        self._down_lanes.add(lane.name)
        if self._down_since is None:
            self._down_since = self._now()
            log.warning("database_unavailable", lane=lane.name, error=first_line(exc))

    def _answered(self, lane: Lane) -> None:
        """A success ends the outage if its lane had failed (SQLite reads go on while a lock
        held elsewhere stops the writes: their success says nothing about writing)."""
        if self._down_since is not None and lane.name in self._down_lanes:
            seconds = round(self._now() - self._down_since, 3)
            log.warning("database_available", outage_seconds=seconds, failures=self._failures)
            self._down_since = None
            self._down_lanes.clear()
            self._failures = 0

    # ------------------------------------------------------------------ lanes

    def _submit(
        self,
        lane_name: str,
        retry: bool,
        work: Callable[..., T],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Deferred[T]:
        lane = self.lanes[lane_name]
        if lane.full():
            lane.refused += 1
            busy = Busy(f"the server is busy ({lane.name} queue full); try again shortly")
            return fail(busy)
        lane.pending += 1
        lane.peak = max(lane.peak, lane.pending)
        deadline = None
        if retry and self.clock is not None:
            deadline = self.clock.seconds() + self.settings.retry_seconds
        job = _Job(self, lane, work, args, kwargs, deadline)
        job.go()
        return job.result

    def run(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> Deferred[T]:
        """Run `work(engine, *args, **kwargs)` once in the money lane (not retried)."""
        return self._submit(MONEY, False, work, args, kwargs)

    def write(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> Deferred[T]:
        """Run idempotent `work(engine, ...)` in the money lane, retried through an outage."""
        return self._submit(MONEY, True, work, args, kwargs)

    def read(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> Deferred[T]:
        """Run read-only `work(engine, ...)` in the bounded read lane, retried; or `Busy`."""
        return self._submit(READ, True, work, args, kwargs)

    def write_log(self, work: Callable[..., T], /, *args: Any, **kwargs: Any) -> Deferred[T]:
        """Run `work(engine, ...)` once in the bounded log lane (chat, mutes); or `Busy`."""
        return self._submit(LOG, False, work, args, kwargs)

    # ------------------------------------------------------------------ money

    def transfer(
        self,
        *,
        key: str,
        kind: TransferKind | str,
        currency: str,
        postings: PostingsIn,
        reference: str = "",
        memo: str = "",
    ) -> Deferred[Transfer]:
        """Post a balanced transfer (see `transfers.transfer`); idempotent by `key`."""
        frozen = list(postings.items() if isinstance(postings, Mapping) else postings)
        return self.write(
            transfers.transfer,
            key=key,
            kind=kind,
            currency=currency,
            postings=frozen,
            reference=reference,
            memo=memo,
        )

    def move(
        self,
        *,
        key: str,
        kind: TransferKind | str,
        currency: str,
        source: AccountLike,
        destination: AccountLike,
        amount: int,
        reference: str = "",
        memo: str = "",
    ) -> Deferred[Transfer]:
        """Move `amount` from `source` to `destination` (see `transfers.move`); keyed."""
        return self.write(
            transfers.move,
            key=key,
            kind=kind,
            currency=currency,
            source=source,
            destination=destination,
            amount=amount,
            reference=reference,
            memo=memo,
        )

    def reverse(self, transfer_id: int, *, key: str, memo: str = "") -> Deferred[Transfer]:
        """Post a correction that undoes a transfer (see `transfers.reverse`); keyed."""
        return self.write(transfers.reverse, transfer_id, key=key, memo=memo)

    def open_account(self, kind: AccountKind | str, owner: str, currency: str) -> Deferred[Account]:
        """Get or create an account."""
        return self.write(accounts.open_account, kind, owner, currency)

    def settle(
        self,
        *,
        key: str,
        kind: TransferKind | str,
        currency: str,
        postings: PostingsIn,
        reference: str = "",
        memo: str = "",
        also: batch.Also | None = None,
    ) -> Deferred[Transfer]:
        """Post a balanced transfer by group commit (module doc); answered as `transfer` is.

        `also(conn)`, if given, runs in the same transaction when the transfer is new (not a
        replay): the rest of the unit of work, kept or lost with it. It must not commit.
        """
        try:
            request = transfers.check_request(
                key=key,
                kind=kind,
                currency=currency,
                postings_in=postings,
                reference=reference,
                memo=memo,
            )
        except LedgerError as exc:
            return fail(exc)
        return self._enqueue(batch.Pending(request, also))

    def commit_in_batch(self, work: Callable[[Connection], T]) -> Deferred[T]:
        """Run `work(conn)` in a settlement batch's transaction; its value, once committed."""
        return self._enqueue(batch.Pending(None, work)).addCallback(lambda done: done.value)

    def _enqueue(self, item: batch.Pending) -> Deferred[Any]:
        answer: Deferred[Any] = Deferred()
        self._queued_at = self._queued_at if self._queue else self._now()
        self._queue.append((item, answer))
        self._next_batch()
        return answer

    @property
    def waiting_settlements(self) -> int:
        """Settlements queued for the batch writer and not yet handed to it."""
        return len(self._queue)

    def _next_batch(self) -> None:
        """Hand the waiting settlements to the writer now, or when the oldest has waited long
        enough; never two batches at once."""
        if self._writing or not self._queue:
            return
        s = self.settings
        left = s.batch_max_ms / 1000.0 - (self._now() - self._queued_at)
        if len(self._queue) >= s.batch_max_hands or left <= 0 or self.clock is None:
            self._write_batch()
        elif self._batch_timer is None:
            self._batch_timer = self.clock.callLater(left, self._batch_due)

    def _batch_due(self) -> None:
        self._batch_timer = None
        self._next_batch()

    def _write_batch(self) -> None:
        if self._batch_timer is not None:
            if self._batch_timer.active():
                self._batch_timer.cancel()
            self._batch_timer = None
        n = self.settings.batch_max_hands
        taken, self._queue = self._queue[:n], self._queue[n:]  # the rest waited longer: due
        self._writing = True
        self.batches += 1
        self.batched += len(taken)
        items = [item for item, _ in taken]
        d = self._submit(MONEY, True, batch.write_batch, (items,), {})
        d.addBoth(self._batch_written, taken)

    def _batch_written(self, result: object, taken: list[Queued]) -> None:
        """Answer each settlement of the batch (after its commit), then start the next."""
        self._writing = False
        self._next_batch()
        for item, answer in taken:
            outcome = item.outcome
            if outcome is None:  # never written: the batch gave up (an outage, a stop)
                failure = result if isinstance(result, Failure) else None
                answer.errback(failure or ServiceUnavailable("the settlement was not written"))
            elif isinstance(outcome, Exception):
                answer.errback(Failure(outcome))
            else:
                answer.callback(outcome)

    # ------------------------------------------------------------------ reads

    def balance(self, account: AccountLike) -> Deferred[Account]:
        """An account with its balance."""
        return self.read(reports.balance, account)

    def statement(self, account: AccountLike, limit: int = 50) -> Deferred[Statement]:
        """An account's latest postings."""
        return self.read(reports.statement, account, limit)

    def check(self) -> Deferred[CheckReport]:
        """The whole-ledger check."""
        return self.read(reports.check_ledger)
