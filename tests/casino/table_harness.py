"""A casino table on a real ledger (SQLite or PostgreSQL), a fake clock, a seeded random source.

The room is `tests.ledger_pump.PumpedRoom` (shared with the cash tables' harness): the ledger's
answers run on the test thread in `drain`/`wait`, so every test is deterministic. The `casino`
fixture (tests/casino/conftest.py) gives one on SQLite, then on PostgreSQL.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from itertools import count
from typing import Any

from pokerroom.casino import events as ev
from pokerroom.casino import money, settings, store
from pokerroom.casino.actor import CasinoTable
from pokerroom.casino.blackjack_table import BlackjackTable
from pokerroom.casino.core.blackjack import rules_from
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.games import BlackjackGame, RoundGame, make_game
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.ledger.kinds import AccountRef, wallet
from pokerroom.ledger.reports import check_ledger
from tests.ledger_pump import PumpedRoom

USD = "USD"
WINDOW, DECIDE = 30, 8  # blackjack: config/casino/blackjack.toml
FILLER = cards("2c 3c 4c 5c 6c 7c 8c 2d 3d 4d 5d 6d 7d 8d")


class Inbox:
    """The listener: what each player received."""

    def __init__(self) -> None:
        self.got: dict[str, list[ev.CasinoEvent]] = {}

    def tell(self, players: Iterable[str], event: ev.CasinoEvent) -> None:
        for player in players:
            self.got.setdefault(player, []).append(event)

    def of(self, player: str, kind: type) -> list[Any]:
        return [e for e in self.got.get(player, []) if isinstance(e, kind)]


class Casino(PumpedRoom):
    """One room database, its ledger and casino tables."""

    def __init__(self, url: str, seed: int = 7) -> None:
        super().__init__(url)
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

    def fund(self, ref: AccountRef, amount: int) -> None:
        self.deposit(f"fund:{ref}:{amount}:{next(self.ids)}", ref, amount, USD)

    def fund_player(self, player: str, amount: int = 100_000) -> None:
        self.fund(wallet(player, USD), amount)

    def fund_house(self, amount: int = 10_000_000) -> None:
        self.fund(money.bankroll(USD), amount)

    def ok(self) -> None:
        """The ledger check passes, the balances sum to zero, and every round's in_play holds
        the stakes of its bets while open and nothing after (L-7)."""
        report = check_ledger(self.engine)
        assert report.ok, report
        assert report.currency_totals.get(USD, 0) == 0, report.currency_totals
        assert store.in_play_mismatches(self.engine) == ()


class FixedShoe(BlackjackGame):
    """Blackjack whose every round deals from the same fixed order (no burn, no cut card), with
    the shipped rules but `changes`."""

    def __init__(self, order: str, **changes: Any) -> None:
        rules = rules_from({**settings.game_table("blackjack"), **changes})
        super().__init__(rules, random.Random(1), WINDOW, 10, DECIDE)
        self.order = cards(order) + FILLER

    def open_round(self) -> int:
        self.shoe = Shoe(self.order)
        return self.shoe.start_round()


def table(
    casino: Casino,
    order: str,
    store: RoundStore | None = None,
    config: dict[str, Any] | None = None,
    **changes: Any,
) -> tuple[Any, Inbox]:
    """A started blackjack table `bj1` dealing `order` every round (`FixedShoe`)."""
    inbox = Inbox()
    actor = BlackjackTable(
        CasinoTableConfig("bj1", "blackjack", USD, **(config or {})),
        game=FixedShoe(order, **changes),
        clock=casino.clock,
        store=store or casino.store,
        listener=inbox,
        new_id=lambda t: f"{t}-{next(casino.ids)}",
    )
    casino.voided_at_start = casino.wait(actor.start())
    return actor, inbox


def box_bet(casino: Casino, actor: Any, player: str, box: int, stake: int) -> None:
    """`player` bets `stake` on `box` and confirms it."""
    actor.place(player, f"box:{box}", stake)
    casino.wait(actor.confirm(player, f"{player}-{box}"))


def two_boxes(
    casino: Casino, order: str, store: RoundStore | None = None, **changes: Any
) -> tuple[Any, Inbox]:
    """alice on box 1 and bob on box 2, 100 each from 1,000 in their wallets; the betting
    window has closed and `order` is dealt."""
    actor, inbox = table(casino, order, store, **changes)
    for name in ("alice", "bob"):
        casino.fund_player(name, 1_000)
        casino.join(actor, name)
    box_bet(casino, actor, "alice", 1, 100)
    box_bet(casino, actor, "bob", 2, 100)
    casino.advance(WINDOW)
    return actor, inbox
