"""Room-wide memory in the database: blocks, rathole and missed-blind records (C-4, C-8, C-10).

Blocking functions for the ledger's thread pool (docs/ARCHITECTURE.md rule 7), like store.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.cash.declines import DECLINE_WINDOW_SECONDS, decline_block_minutes
from pokerroom.cash.schema import cash_blocks, cash_declines, cash_missed_blinds, cash_rathole
from pokerroom.cash.store import delete_seat, escrow
from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import TransferKind, wallet


@dataclass(frozen=True, slots=True)
class Admission:
    """What C-8, C-10 and C-4 say about a player sitting down (ms timestamps)."""

    blocked_until_ms: int | None
    rathole_amount: int | None
    rathole_left_at_ms: int | None
    missed_sb: bool
    missed_bb: bool
    missed_left_at_ms: int | None


def admission(engine: Engine, player_id: str, stakes: str, table_id: str, now_ms: int) -> Admission:
    """The latest block, rathole record and missed-blind memory for a player sitting down."""

    def work(conn: Connection) -> Admission:
        until = conn.execute(
            sa.select(sa.func.max(cash_blocks.c.until_ms)).where(
                cash_blocks.c.player_id == player_id, cash_blocks.c.stakes == stakes
            )
        ).scalar()
        hole = conn.execute(
            sa.select(cash_rathole).where(
                cash_rathole.c.player_id == player_id, cash_rathole.c.stakes == stakes
            )
        ).first()
        missed = conn.execute(
            sa.select(cash_missed_blinds).where(
                cash_missed_blinds.c.player_id == player_id,
                cash_missed_blinds.c.table_id == table_id,
            )
        ).first()
        return Admission(
            blocked_until_ms=until if until is not None and until > now_ms else None,
            rathole_amount=hole.amount if hole else None,
            rathole_left_at_ms=hole.left_at_ms if hole else None,
            missed_sb=bool(missed and missed.missed_sb),
            missed_bb=bool(missed and missed.missed_bb),
            missed_left_at_ms=missed.left_at_ms if missed else None,
        )

    return read(engine, work)


@dataclass(frozen=True, slots=True)
class CashOut:
    """A finished leave: what went back to the wallet, and any C-8 decline and block."""

    amount: int
    decline_number: int  # 0 when leaving was not a decline
    blocked_until_ms: int | None


def cash_out(
    engine: Engine,
    table_id: str,
    seat: int,
    player_id: str,
    currency: str,
    key: str,
    stakes: str,
    now_ms: int,
    declined: bool,
    missed: tuple[bool, bool],
) -> CashOut:
    """Leave: escrow -> wallet, then forget the seat and record C-8, C-10 and C-4 memory.

    Idempotent (the ledger service retries it through an outage): a second run finds the
    keyed move of the first and records what it moved; the records are replaced, and the
    decline of this leave (its `now_ms`) is counted once.
    """
    ref = escrow(table_id, player_id, currency)
    earlier = transfers.get_transfer(engine, key=key)
    if earlier is not None:  # a run before this one moved the money; its answer was lost
        amount = max(p.amount for p in earlier.transfer.postings)
    else:
        try:
            amount = get_account(engine, ref).balance
        except UnknownAccount:
            amount = 0
    if amount > 0 and earlier is None:
        transfers.move(
            engine,
            key=key,
            kind=TransferKind.CASH_OUT,
            currency=currency,
            source=ref,
            destination=wallet(player_id, currency),
            amount=amount,
            reference=f"table:{table_id}",
        )

    def work(conn: Connection) -> CashOut:
        delete_seat(conn, table_id, seat)
        mine = {"player_id": player_id, "stakes": stakes}
        _replace(conn, cash_rathole, mine, {"amount": amount, "left_at_ms": now_ms})
        where = {"player_id": player_id, "table_id": table_id}
        owed = {"missed_sb": missed[0], "missed_bb": missed[1], "left_at_ms": now_ms}
        _replace(conn, cash_missed_blinds, where, owed if any(missed) else None)
        if not declined:
            return CashOut(amount, 0, None)
        return _record_decline(conn, player_id, stakes, table_id, now_ms, amount)

    return in_transaction(engine, work)


def _replace(
    conn: Connection, table: sa.Table, key: Mapping[str, Any], values: Mapping[str, Any] | None
) -> None:
    """Delete the row with this key, then insert the new values (if any): a portable upsert."""
    conn.execute(sa.delete(table).where(*(table.c[k] == v for k, v in key.items())))
    if values is not None:
        conn.execute(sa.insert(table), {**key, **values})


def _record_decline(
    conn: Connection, player_id: str, stakes: str, table_id: str, now_ms: int, amount: int
) -> CashOut:
    """C-8: record the decline, count the window's declines, block for the n-th.

    A decline (and its block) already recorded for this leave is not recorded twice.
    """
    mine = {"player_id": player_id, "stakes": stakes, "table_id": table_id, "at_ms": now_ms}
    if not _stored(conn, cash_declines, mine):
        conn.execute(sa.insert(cash_declines), mine)
    since = now_ms - DECLINE_WINDOW_SECONDS * 1000
    n = conn.execute(
        sa.select(sa.func.count())
        .select_from(cash_declines)
        .where(
            cash_declines.c.player_id == player_id,
            cash_declines.c.stakes == stakes,
            cash_declines.c.at_ms > since,
        )
    ).scalar_one()
    minutes = decline_block_minutes(n)
    until = now_ms + minutes * 60_000 if minutes else None
    block = {"player_id": player_id, "stakes": stakes, "decline_number": n, "until_ms": until}
    if until is not None and not _stored(conn, cash_blocks, block):
        conn.execute(sa.insert(cash_blocks), block)
    return CashOut(amount, n, until)


def _stored(conn: Connection, table: sa.Table, values: Mapping[str, Any]) -> bool:
    """Whether a row with exactly these values exists (written by an earlier run)."""
    where = [table.c[k] == v for k, v in values.items()]
    return (
        conn.execute(sa.select(sa.literal(1)).select_from(table).where(*where)).first() is not None
    )
