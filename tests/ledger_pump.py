"""A room database with a started LedgerService whose answers run on the test thread.

The ledger runs its real thread pools; what they hand back to the reactor queues up in `Pump`
and runs in `drain`/`wait`, so every test is deterministic. The cash tables' `Harness`
(tests/cash/conftest.py) and the casino tables' `Casino` (tests/casino/table_harness.py) are
this room with their own tables.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import external
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.service import LedgerService
from tests.ledger.conftest import QueueReactor

EPOCH_S = 1_800_000_000  # a realistic epoch for ms timestamps on the fake clock


class PumpedRoom:
    """The migrated database at `url`, a fake clock and a started ledger (module doc);
    `retries`: the ledger retries transient failures on the fake clock."""

    ledger_type: type[LedgerService] = LedgerService

    def __init__(self, url: str, *, retries: bool = False) -> None:
        self.url = url
        self.engine = make_engine(url)
        upgrade(self.engine)
        self.pump = QueueReactor()  # the ledger threads' results queue up here
        self.clock = Clock()
        self.clock.advance(EPOCH_S)
        self.ledger = self.ledger_type(
            self.pump, self.engine, clock=self.clock if retries else None
        )
        self.ledger.startService()

    def drain(self, timeout: float = 20.0) -> None:
        """Run ledger results on this thread until no ledger work is in flight."""
        while self.ledger.working or not self.pump.calls.empty():
            f, args, kwargs = self.pump.calls.get(timeout=timeout)
            f(*args, **kwargs)

    def wait(self, d: Deferred[Any] | Any) -> Any:
        """The result of a Deferred (or a plain value), raising its failure."""
        if not isinstance(d, Deferred):
            return d
        box: list[Any] = []
        d.addBoth(box.append)
        while not box:
            f, args, kwargs = self.pump.calls.get(timeout=20.0)
            f(*args, **kwargs)
        self.drain()
        result = box[0]
        if hasattr(result, "raiseException"):
            result.raiseException()
        return result

    def advance(self, seconds: float) -> None:
        """Move the fake clock and let the ledger answer."""
        self.clock.advance(seconds)
        self.drain()

    def deposit(self, key: str, ref: Any, amount: int, currency: str) -> None:
        """Money from outside into an account."""
        transfers.move(
            self.engine,
            key=key,
            kind="deposit",
            currency=currency,
            source=external(currency),
            destination=ref,
            amount=amount,
        )

    def balance(self, ref: Any) -> int:
        """An account's balance (0 if never opened)."""
        try:
            return get_account(self.engine, ref).balance
        except UnknownAccount:
            return 0

    def close(self) -> None:
        """Stop the ledger and let the database go."""
        self.ledger.stopService()
        self.engine.dispose()
