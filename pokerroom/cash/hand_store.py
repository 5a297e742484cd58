"""HandStore: the table's persistence as Deferreds, run in the ledger's thread pools (ARCH 7).

Hands, seats and money go down the ledger's money lane and are retried through an outage
(each write is idempotent: store.py, memory.py); a hand's start and its settlement go through
the ledger's group commit (`LedgerService.commit_in_batch`, `settle`), many tables' hand starts
and settlements in one transaction; hand histories are reads, in the bounded read lane, so that
no history request ever delays a hand (docs/ARCHITECTURE.md rule 16).

In cluster mode the store of a table is handed a `WriteFence` (the node's lease of the table,
docs/design/cluster.md): every write of the table then runs on the fence's engine, whose write
transactions begin with the lease check, and a hand start or settlement in a group commit
runs the check in the batch's transaction; a write refused (`lease_lost`) is reported to the
fence. Without a fence (one process) nothing is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TypeVar

from sqlalchemy.engine import Connection
from twisted.internet.defer import Deferred

import pokerroom.cash.histories as histories
import pokerroom.cash.memory as memory
import pokerroom.cash.store as store
from pokerroom.cash.histories import PHH
from pokerroom.cash.memory import Admission, CashOut
from pokerroom.cash.store import ChipsAdded, HistoryIn, Recovery, SeatRow
from pokerroom.ledger.fenced import FencedStore
from pokerroom.ledger.kinds import TransferKind

T = TypeVar("T")


class HandStore(FencedStore):
    """Hands rows, seats, rake shares and the C-4/C-8/C-10 memory of one room database."""

    def recover(self, table_id: str, currency: str) -> Deferred[Recovery]:
        """C-12: void interrupted hands, finish half-recorded settlements, reload seats."""
        return self._write(store.recover_table, table_id, currency)

    def admission(
        self, player_id: str, stakes: str, table_id: str, now_ms: int
    ) -> Deferred[Admission]:
        """C-8 block, C-10 rathole record and C-4 memory for a player sitting down."""
        return self._write(memory.admission, player_id, stakes, table_id, now_ms)

    def seat_player(
        self, table_id: str, row: SeatRow, currency: str, key: str
    ) -> Deferred[ChipsAdded]:
        """Write the seat and move the buy-in wallet -> escrow; fires with the buy-in."""
        return self._write(store.seat_player, table_id, row, currency, key)

    def add_chips(
        self, table_id: str, player_id: str, currency: str, amount: int, key: str
    ) -> Deferred[ChipsAdded]:
        """A top-up: wallet -> escrow (C-9); `replayed` if `key` had already moved it (P-2)."""
        return self._write(store.add_chips, table_id, player_id, currency, amount, key)

    def start_hand(
        self,
        hand_id: str,
        table_id: str,
        number: int,
        now_ms: int,
        start_stacks: Mapping[str, int],
        seats: list[SeatRow],
    ) -> Deferred[None]:
        """The `started` hands row and the seats, before the first card (C-12): in the ledger's
        group commit with other tables' hand starts and settlements; fires after the commit."""
        work: Callable[[Connection], None] = partial(
            store.start_hand_on,
            hand_id=hand_id,
            table_id=table_id,
            number=number,
            now_ms=now_ms,
            start_stacks=dict(start_stacks),
            seats=list(seats),
        )
        fence = self.fence
        d = self.ledger.commit_in_batch(self._also(work))
        if fence is not None:
            d.addErrback(self._refused)
        return d.addCallback(_nothing)

    def settle_hand(
        self,
        hand_id: str,
        table_id: str,
        currency: str,
        deltas: Mapping[str, int],
        rake: int,
        rake_by_player: Mapping[str, int],
        now_ms: int,
        history: HistoryIn | None = None,
    ) -> Deferred[None]:
        """The hand's one ledger transfer and its `settled` status with its history, in one
        transaction shared with other tables' settlements (the ledger's group commit); fires
        after the commit (C-11, C-12). A hand that moved no chips has no transfer: it is
        written alone."""
        parts = store.settlement(
            hand_id, table_id, currency, deltas, rake, rake_by_player, now_ms, history
        )
        if not parts.lines:
            return self._write(
                store.settle_hand,
                hand_id,
                table_id,
                currency,
                dict(deltas),
                rake,
                dict(rake_by_player),
                now_ms,
                history,
            )
        fence = self.fence
        mark = self._also(parts.mark)
        d = self.ledger.settle(
            key=parts.key,
            kind=TransferKind.HAND_SETTLEMENT,
            currency=currency,
            postings=parts.lines,
            reference=parts.reference,
            memo=parts.memo,
            also=mark,  # skipped when the key was already settled (a replay)
        )
        if fence is not None:
            d.addErrback(self._refused)
        return d.addCallback(_nothing)

    def histories(
        self, player_id: str, table_id: str | None = None, limit: int = 20
    ) -> Deferred[list[str]]:
        """The player's latest finished hands as PHH text, others' hidden cards masked (C-15)."""
        return self.ledger.read(histories.player_histories, player_id, table_id, limit)

    def history_page(
        self,
        player_id: str,
        table_id: str | None = None,
        limit: int = 20,
        before: str | None = None,
        fmt: str = PHH,
    ) -> Deferred[list[tuple[str, str]]]:
        """A page of the player's finished hands older than the cursor `before`, newest first:
        up to `limit` + 1 (cursor, text) pairs in PHH or PokerStars text (`fmt`), others'
        hidden cards left out (C-15); a hand that cannot be written in `fmt` has text ""."""
        return self.ledger.read(
            histories.player_history_page, player_id, table_id, limit, before, fmt
        )

    def cash_out(
        self,
        table_id: str,
        seat: int,
        player_id: str,
        currency: str,
        key: str,
        stakes: str,
        now_ms: int,
        declined: bool,
        missed: tuple[bool, bool],
    ) -> Deferred[CashOut]:
        """Escrow -> wallet and the C-8/C-10/C-4 records of leaving."""
        return self._write(
            memory.cash_out,
            table_id,
            seat,
            player_id,
            currency,
            key,
            stakes,
            now_ms,
            declined,
            missed,
        )


def _nothing(_: object) -> None:
    return None
