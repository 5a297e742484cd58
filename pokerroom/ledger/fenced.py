"""Writes fenced by a lease (cluster mode, docs/design/cluster.md): one copy for the stores of
the cash tables (`pokerroom.cash.hand_store`) and the casino tables (`pokerroom.casino.rounds`).

A store handed a `WriteFence` runs each write on the fence's engine (its transactions begin with
the lease check) and each group-commit item behind the check in the batch's transaction; a write
the fence refuses is told to the fence (on the reactor thread) and fails as before. Without a
fence (one server) the writes are the ledger's as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.ledger.service import LedgerService

T = TypeVar("T")


class WriteFence(Protocol):
    """The lease a table's writes are fenced by (pokerroom/cluster/fence.py's LeaseFence)."""

    def engine(self, engine: Engine) -> Engine:
        """`engine` whose write transactions begin with the lease check."""
        ...

    def check(self, conn: Connection) -> None:
        """The lease check in a transaction already open."""
        ...

    def refused(self, error: BaseException | None) -> None:
        """A fenced write failed with `error` (on the reactor thread)."""
        ...


class FencedStore:
    """A table's store: its ledger and, in cluster mode, the fence of its lease."""

    def __init__(self, ledger: LedgerService, fence: WriteFence | None = None) -> None:
        self.ledger = ledger
        self.fence = fence

    def _write(self, work: Callable[..., T], /, *args: Any) -> Deferred[T]:
        """`ledger.write(work, ...)`, on the fence's engine when there is one."""
        fence = self.fence
        if fence is None:
            return self.ledger.write(work, *args)

        def fenced(engine: Engine, *args: Any) -> T:
            return work(fence.engine(engine), *args)

        return self.ledger.write(fenced, *args).addErrback(self._refused)

    def _also(self, work: Callable[[Connection], None]) -> Callable[[Connection], None]:
        """`work` of a group commit, preceded by the lease check in its transaction."""
        fence = self.fence
        if fence is None:
            return work

        def both(conn: Connection) -> None:
            fence.check(conn)
            work(conn)

        return both

    def _refused(self, failure: Failure) -> Failure:
        if self.fence is not None:
            self.fence.refused(failure.value)
        return failure
