"""A casino table on a real ledger (SQLite or PostgreSQL), a fake clock, a seeded random source.

The ledger runs its real thread pools; its answers queue up in `Pump` and run on the test
thread in `drain`/`wait`, so every test is deterministic.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Callable, Iterable
from itertools import count
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.casino import events as ev
from pokerroom.casino import money, settings, store
from pokerroom.casino.actor import CasinoTable
from pokerroom.casino.games import RoundGame, make_game
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import AccountRef, external, wallet
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.service import LedgerService

USD = "USD"


class Pump:
    """The reactor's thread-call side: results from the ledger threads queue up here."""

    def __init__(self) -> None:
        self.calls: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = (
            queue.Queue()
        )

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.calls.put((f, args, kwargs))


class Inbox:
    """The listener: what each player received."""

    def __init__(self) -> None:
        self.got: dict[str, list[ev.CasinoEvent]] = {}

    def tell(self, players: Iterable[str], event: ev.CasinoEvent) -> None:
        for player in players:
            self.got.setdefault(player, []).append(event)

    def of(self, player: str, kind: type) -> list[Any]:
        return [e for e in self.got.get(player, []) if isinstance(e, kind)]


class Casino:
    """One room database, its ledger and casino tables."""

    def __init__(self, url: str, seed: int = 7) -> None:
        self.engine = make_engine(url)
        upgrade(self.engine)
        self.pump = Pump()
        self.clock = Clock()
        self.clock.advance(1_800_000_000)
        self.ledger = LedgerService(self.pump, self.engine)
        self.ledger.startService()
        self.store = RoundStore(self.ledger)
        self.seed = seed
        self.ids = count(1)

    def table(
        self,
        game: str = "roulette",
        table_id: str = "r1",
        store: RoundStore | None = None,
        game_obj: RoundGame | None = None,
        **config: Any,
    ) -> tuple[CasinoTable, Inbox]:
        """A started table with its inbox (round ids `<table>-<n>`)."""
        inbox = Inbox()
        rules = game_obj or make_game(game, settings.game_table(game), random.Random(self.seed))
        actor = CasinoTable(
            CasinoTableConfig(table_id=table_id, game=game, currency=USD, **config),
            game=rules,
            clock=self.clock,
            store=store or self.store,
            listener=inbox,
            new_id=lambda table: f"{table}-{next(self.ids)}",
        )
        self.voided_at_start = self.wait(actor.start())
        return actor, inbox

    def join(self, table: CasinoTable, *players: str) -> None:
        """Players join; an idle table opens its round (its row written) now."""
        for player in players:
            table.join(player)
        self.drain()

    def drain(self) -> None:
        while self.ledger.working or not self.pump.calls.empty():
            f, args, kwargs = self.pump.calls.get(timeout=20.0)
            f(*args, **kwargs)

    def wait(self, d: Deferred[Any] | Any) -> Any:
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
        self.clock.advance(seconds)
        self.drain()

    def fund(self, ref: AccountRef, amount: int) -> None:
        transfers.move(
            self.engine,
            key=f"fund:{ref}:{amount}:{next(self.ids)}",
            kind="deposit",
            currency=USD,
            source=external(USD),
            destination=ref,
            amount=amount,
        )

    def fund_player(self, player: str, amount: int = 100_000) -> None:
        self.fund(wallet(player, USD), amount)

    def fund_house(self, amount: int = 10_000_000) -> None:
        self.fund(money.bankroll(USD), amount)

    def balance(self, ref: AccountRef) -> int:
        try:
            return get_account(self.engine, ref).balance
        except UnknownAccount:
            return 0

    def ok(self) -> None:
        """The ledger check passes, the balances sum to zero, and every round's in_play holds
        the stakes of its bets while open and nothing after (L-7)."""
        report = check_ledger(self.engine)
        assert report.ok, report
        assert report.currency_totals.get(USD, 0) == 0, report.currency_totals
        assert store.in_play_mismatches(self.engine) == ()

    def close(self) -> None:
        self.ledger.stopService()
        self.engine.dispose()
