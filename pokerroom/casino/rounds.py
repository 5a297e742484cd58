"""RoundStore: a casino table's persistence as Deferreds, run in the ledger's thread pools.

Placements and settlements go through the ledger's group commit (`LedgerService.settle`)
with their rows in the same transaction (`also=`); round rows, voids and recovery down the
money lane (retried: each is idempotent); histories and balances down the read lane.

In cluster mode a table's store is handed a `WriteFence` (the node's lease `casino:<id>`,
docs/design/cluster.md, "Casino tables"): every write of the table runs on the fence's engine,
whose write transactions begin with the lease check, and a placement or settlement in a group
commit runs the check in the batch's transaction; a write refused (`lease_lost`) is reported to
the fence (the node stops the table). Without a fence (one process) nothing is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred

from pokerroom.casino import money, store
from pokerroom.casino.store import HistoryRound, RoundRow, Voided
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.fenced import FencedStore
from pokerroom.ledger.kinds import AccountRef, TransferKind
from pokerroom.ledger.transfers import Transfer

T = TypeVar("T")


class RoundStore(FencedStore):
    """Rounds and bets of the casino tables of one room database (fenced in cluster mode)."""

    def recover(self, table_id: str, now_ms: int) -> Deferred[tuple[Voided, ...]]:
        """Void the table's rounds left open by a crash (K-7)."""
        return self._write(store.recover_table, table_id, now_ms)

    def open_round(self, row: RoundRow) -> Deferred[None]:
        """The round's row, before any bet (K-1)."""
        return self._write(store.open_round, row)

    def place(
        self,
        round_id: str,
        player: str,
        currency: str,
        bets: Sequence[tuple[str, int]],
        key: str,
        confirmed_ms: int,
    ) -> Deferred[Transfer]:
        """wallet → the round's in_play, keyed by the client's key, with the bet rows and their
        confirmation time (L-2, RNG-9)."""
        amount = sum(stake for _, stake in bets)
        ledger_key = money.bet_key(player, key)
        posted = self.ledger.settle(
            key=ledger_key,
            kind=TransferKind.CASINO_BET,
            currency=currency,
            postings=list(money.placement(round_id, player, currency, amount).items()),
            reference=round_id,
            also=self._also(
                partial(
                    store.add_bets,
                    round_id=round_id,
                    player=player,
                    bets=list(bets),
                    key=ledger_key,
                    confirmed_ms=confirmed_ms,
                )
            ),
        )
        return posted if self.fence is None else posted.addErrback(self._refused)

    def settle(
        self,
        round_id: str,
        currency: str,
        legs: Mapping[AccountRef, int],
        outcome: dict[str, Any],
        summary: dict[str, Any],
        now_ms: int,
        audit: dict[str, Any] | None = None,
    ) -> Deferred[None]:
        """The round's one transaction with its record (L-3, L-7, RNG-9)."""
        record: Callable[[Connection], None] = partial(
            store.mark_settled,
            round_id=round_id,
            outcome=outcome,
            summary=summary,
            now_ms=now_ms,
            audit=audit,
        )
        if not legs:  # no bet: nothing moves, the record is still kept
            return self._write(_record_only, record)
        posted = self.ledger.settle(
            key=money.round_key(round_id),
            kind=TransferKind.CASINO_SETTLEMENT,
            currency=currency,
            postings=list(legs.items()),
            reference=round_id,
            also=self._also(record),
        )
        if self.fence is not None:
            posted.addErrback(self._refused)
        return posted.addCallback(lambda _: None)

    def void(
        self, round_id: str, reason: str, now_ms: int, progress: dict[str, Any] | None = None
    ) -> Deferred[Voided]:
        """Void one round: every stake back (K-7, L-5), or BJ-19 from a blackjack `progress`."""
        return self._write(store.void_round, round_id, reason, now_ms, progress)

    def progress(self, round_id: str, record: dict[str, Any]) -> Deferred[None]:
        """Record a blackjack round's progress on its open row (BJ-19)."""
        return self._write(store.save_progress, round_id, record)

    def history(self, player: str, limit: int = 20) -> Deferred[tuple[HistoryRound, ...]]:
        """A player's latest rounds."""
        return self.ledger.read(store.history, player, limit)

    def balance(self, ref: AccountRef) -> Deferred[int]:
        """An account's balance, 0 if it was never opened."""
        return self.ledger.read(_balance_or_zero, ref)


def _record_only(engine: Engine, record: Callable[[Connection], None]) -> None:
    in_transaction(engine, record)


def _balance_or_zero(engine: Engine, ref: AccountRef) -> int:
    try:
        return get_account(engine, ref).balance
    except UnknownAccount:
        return 0
