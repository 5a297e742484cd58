"""LedgerService: the Twisted face of the ledger; all database work runs in its own thread pool.

Every method returns a Deferred that fires, on the reactor thread, with a plain value or a
frozen dataclass (ARCH 7). The reactor is injected; nothing here imports the global one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Concatenate, ParamSpec, TypeVar

import structlog
from sqlalchemy.engine import Engine
from twisted.application.service import Service
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorFromThreads
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from pokerroom.ledger import accounts, migrate, reports, transfers
from pokerroom.ledger.accounts import Account, AccountLike
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, TransferKind
from pokerroom.ledger.reports import CheckReport, Statement
from pokerroom.ledger.transfers import PostingsIn, Transfer

T = TypeVar("T")
P = ParamSpec("P")
log = structlog.get_logger("pokerroom.ledger")

#: Worker threads: SQLite allows one writer at a time; PostgreSQL locks rows.
SQLITE_THREADS = 1
POSTGRESQL_THREADS = 4


class LedgerService(Service):
    """Owns the engine and the ledger thread pool; starts first and stops last (ARCH 9)."""

    name = "ledger"

    def __init__(
        self,
        reactor: IReactorFromThreads,
        database: Engine | str,
        *,
        threads: int | None = None,
        check_schema: bool = True,
    ) -> None:
        self._reactor = reactor
        self.engine = database if isinstance(database, Engine) else make_engine(database)
        if threads is None:
            sqlite = self.engine.dialect.name == "sqlite"
            threads = SQLITE_THREADS if sqlite else POSTGRESQL_THREADS
        self.threads = threads
        self._check_schema = check_schema
        self._pool = ThreadPool(minthreads=threads, maxthreads=threads, name="ledger")

    def startService(self) -> None:
        """Refuse a schema that is not at head, then start the worker threads."""
        if self._check_schema:
            migrate.ensure_at_head(self.engine)  # raises SchemaNotAtHead naming the command
        self._pool.start()
        # Named, not super(): Twisted's Service is unannotated, and mypy's untyped_calls_exclude
        # (pyproject) matches a call by the base's name but does not see through super().
        Service.startService(self)
        log.info("ledger_started", dialect=self.engine.dialect.name, threads=self.threads)

    def stopService(self) -> None:
        """Finish queued work, stop the threads, close the connections."""
        Service.stopService(self)  # named, not super(): see startService
        self._pool.stop()
        self.engine.dispose()
        log.info("ledger_stopped")

    def run(
        self, work: Callable[Concatenate[Engine, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> Deferred[T]:
        """Run `work(engine, *args, **kwargs)` in the ledger thread pool."""
        return deferToThreadPool(self._reactor, self._pool, work, self.engine, *args, **kwargs)

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
        """Post a balanced transfer (see `transfers.transfer`)."""
        frozen = list(postings.items() if isinstance(postings, Mapping) else postings)
        return self.run(
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
        """Move `amount` from `source` to `destination` (see `transfers.move`)."""
        return self.run(
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
        """Post a correction that undoes a transfer (see `transfers.reverse`)."""
        return self.run(transfers.reverse, transfer_id, key=key, memo=memo)

    def open_account(self, kind: AccountKind | str, owner: str, currency: str) -> Deferred[Account]:
        """Get or create an account."""
        return self.run(accounts.open_account, kind, owner, currency)

    def balance(self, account: AccountLike) -> Deferred[Account]:
        """An account with its balance."""
        return self.run(reports.balance, account)

    def statement(self, account: AccountLike, limit: int = 50) -> Deferred[Statement]:
        """An account's latest postings."""
        return self.run(reports.statement, account, limit)

    def check(self) -> Deferred[CheckReport]:
        """The whole-ledger check."""
        return self.run(reports.check_ledger)
