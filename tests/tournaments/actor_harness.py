"""A tournament actor on a real SQLite ledger, a fake clock and a seeded RNG (no mocks).

The ledger runs its real thread pool; results come back through `Pump` and run on the test
thread, and `Room.settle` waits for every piece of ledger work to answer before the clock moves,
so every test is deterministic (however loaded the machine).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.ledger import LedgerService, external, make_engine, transfer, upgrade, wallet
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.ledger.reports import check_ledger, total_balance
from tournaments.actor.tournament import TournamentActor
from tournaments.config import TournamentConfig
from tournaments.ops.simulation import START, Bots, Pump

USD = "USD"


class Room:
    """One database, one ledger service, a clock; builds actors."""

    def __init__(self, path: Path, url: str | None = None) -> None:
        self.engine = make_engine(url or f"sqlite:///{path / 'room.sqlite'}")
        upgrade(self.engine)
        self.pump = Pump()
        self.clock = Clock()
        self.clock.advance(START)
        self.ledger = LedgerService(self.pump, self.engine)
        self.ledger.startService()
        self.deposits = 0

    def actor(self, config: TournamentConfig, bots: Bots | None = None) -> TournamentActor:
        """An opened actor; bots (if given) play every seat at once."""
        actor = TournamentActor(config, self.clock, self.ledger, random.Random(5), bots)
        if bots is not None:
            bots.actor = actor
        actor.open()
        return actor

    def fund(self, account: AccountRef, amount: int) -> None:
        """A deposit from outside."""
        self.deposits += 1
        transfer(
            self.engine,
            key=f"deposit:{self.deposits}",
            kind="deposit",
            currency=USD,
            postings={account: amount, external(USD): -amount},
        )

    def fund_player(self, player: str, amount: int = 10_000) -> None:
        self.fund(wallet(player, USD), amount)

    def wait(self, d: Deferred[Any]) -> Any:
        """The result of `d` (ledger answers are run here)."""
        return self.pump.wait(d)

    def failure(self, d: Deferred[Any]) -> Any:
        """The exception `d` failed with."""
        box: list[Any] = []
        d.addErrback(lambda f: box.append(f.value))
        d.addCallback(lambda r: box.append(r))
        while not box:
            f, args, kwargs = self.pump.calls.get(timeout=30)
            f(*args, **kwargs)
        return box[0]

    def settle(self, actor: TournamentActor) -> None:
        """Let every posted transfer land, and every other piece of ledger work answer (a
        ticket read, a refund job's steps, a cash settlement), so that what the test does next
        never races the database thread.

        The signal is `ledger.working`: it goes up on this thread when work is handed to a
        database thread and down on this thread when its answer runs here (from the pump), so
        "0 and nothing queued" means nothing is in a database thread or on its way back. Work
        that waits for the clock (a retry after a transient failure, a batch waiting for
        `batch_max_ms`) is not counted: it needs the clock to move, which settling never does.
        """
        ledger = self.ledger
        while actor.cashier.in_flight or ledger.working or not self.pump.calls.empty():
            f, args, kwargs = self.pump.calls.get(timeout=30)
            f(*args, **kwargs)

    def advance(self, seconds: float, actor: TournamentActor, step: float = 1.0) -> None:
        """Move the clock in steps, letting the ledger answer between steps."""
        target = self.clock.seconds() + seconds
        while self.clock.seconds() < target:
            self.settle(actor)
            self.clock.advance(min(step, target - self.clock.seconds()))
        self.settle(actor)

    def run_to_end(self, actor: TournamentActor, limit: float = 10**7) -> None:
        """Advance timer by timer until the tournament is over."""
        end = self.clock.seconds() + limit
        while actor.status in ("registering", "running") and self.clock.seconds() < end:
            self.settle(actor)
            calls = self.clock.getDelayedCalls()
            assert calls, "nothing scheduled: the tournament is stuck"
            self.clock.advance(max(0.0, calls[0].getTime() - self.clock.seconds()))
        self.settle(actor)
        self.wait(actor.pending())

    def balance(self, account: AccountRef) -> int:
        try:
            return get_account(self.engine, account).balance
        except UnknownAccount:
            return 0

    def pool(self, tid: str) -> int:
        return self.balance(AccountRef(AccountKind.PRIZE_POOL, tid, USD))

    def fees(self) -> int:
        return self.balance(house(AccountKind.HOUSE_FEES, USD))

    def check(self) -> bool:
        return check_ledger(self.engine).ok and total_balance(self.engine, USD) == 0

    def close(self) -> None:
        self.ledger.stopService()
        self.engine.dispose()
