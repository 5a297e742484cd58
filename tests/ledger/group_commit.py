"""A ledger service under test: started on an engine with a fake reactor and clock, counting
the commits, and run until the settlements sent to it are answered."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.ledger.service import LedgerService, LedgerSettings
from pokerroom.ledger.transfers import Transfer
from tests.ledger.conftest import QueueReactor


class Room:
    """A started service on `engine` with its fake reactor and clock, and a commit counter."""

    def __init__(self, engine: sa.Engine, reactor: QueueReactor, settings: LedgerSettings) -> None:
        self.engine, self.reactor, self.clock = engine, reactor, Clock()
        self.service = LedgerService(reactor, engine, clock=self.clock, settings=settings)
        self.commits = 0
        event.listen(engine, "commit", self._committed)
        self.service.startService()

    def _committed(self, conn: sa.Connection) -> None:
        self.commits += 1

    def answers(self, deferreds: list[Deferred[Transfer]], seconds: float = 30.0) -> list[Any]:
        """Run thread results here, moving the fake clock when nothing is in flight, until
        every Deferred has fired; each answer is a Transfer or the exception it failed with."""
        box: dict[int, Any] = {}
        for i, d in enumerate(deferreds):
            d.addCallbacks(
                lambda r, i=i: box.__setitem__(i, r), lambda f, i=i: box.__setitem__(i, f.value)
            )
        waited = 0.0
        while len(box) < len(deferreds):
            while self.service.working or not self.reactor.calls.empty():
                f, args, kwargs = self.reactor.calls.get(timeout=20)
                f(*args, **kwargs)
            if len(box) == len(deferreds):
                break
            assert waited < seconds, "settlements neither answered nor gave up"
            self.clock.advance(0.001)
            waited += 0.001
        return [box[i] for i in range(len(deferreds))]

    def drain(self) -> None:
        """Run until no settlement waits and no batch is being written."""
        while self.service.waiting_settlements or self.service.working:
            while self.service.working or not self.reactor.calls.empty():
                f, args, kwargs = self.reactor.calls.get(timeout=20)
                f(*args, **kwargs)
            self.clock.advance(0.001)

    def stop(self) -> None:
        self.service.stopService()
        event.remove(self.engine, "commit", self._committed)
