"""Entries and purchases (T-2..T-4): one row per entry, one per purchase, and what each
player paid in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.director.registration import Funding
from tournaments.store.rows import columns
from tournaments.store.schema import (
    ALIVE,
    UNREGISTERED,
    StoreError,
    tournament_entries,
    tournament_payments,
)


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """One entry (T-4: a re-entry is a new entry number of the same player)."""

    player: str
    entry_no: int = 1
    status: str = ALIVE
    place: int | None = None
    prize: int = 0  # prizes paid to this entry (they stand, T-18)
    bounty: int = 0  # the entry's current bounty total (T-14)
    bounty_won: int = 0  # bounty money paid to the player while this entry played (T-14)


@dataclass(frozen=True, slots=True)
class Payment:
    """Money one purchase paid in (T-2, T-4): buy-in to the pool, fee to the house, bounty."""

    player: str
    seq: int
    entry_no: int
    kind: str  # entry, reentry, rebuy, addon
    funding: Funding
    buy_in: int
    fee: int
    bounty: int = 0
    chips: int = 0
    ticket_id: str = ""
    ledger_key: str | None = None


@dataclass(frozen=True, slots=True)
class PaidIn:
    """What one player paid into a tournament, by how it was paid (cash, T$, ticket)."""

    player: str
    buy_in: Mapping[Funding, int]
    fee: Mapping[Funding, int]
    bounty: Mapping[Funding, int]

    @property
    def total(self) -> int:
        """Everything the player paid in."""
        return sum(self.buy_in.values()) + sum(self.fee.values()) + sum(self.bounty.values())


# --------------------------------------------------------------------------- entries, payments


def _entry_values(tournament_id: str, entry: EntryRecord) -> dict[str, Any]:
    return columns(entry, tournament_id=tournament_id)


def _payment_values(tournament_id: str, payment: Payment) -> dict[str, Any]:
    return columns(payment, tournament_id=tournament_id, funding=Funding(payment.funding).value)


def add_entries(
    conn: Connection,
    tournament_id: str,
    entries: Sequence[EntryRecord],
    payments: Sequence[Payment] = (),
) -> None:
    """New entries and the purchases that paid for them (T-3, T-4), in one statement each."""
    if entries:
        conn.execute(
            sa.insert(tournament_entries), [_entry_values(tournament_id, e) for e in entries]
        )
    add_payments(conn, tournament_id, payments)


def add_payments(conn: Connection, tournament_id: str, payments: Sequence[Payment]) -> None:
    """Purchases paid in (a rebuy or add-on adds to the entry it was bought for, T-4)."""
    if payments:
        conn.execute(
            sa.insert(tournament_payments), [_payment_values(tournament_id, p) for p in payments]
        )


def update_entry(
    conn: Connection,
    tournament_id: str,
    player: str,
    entry_no: int,
    *,
    status: str | None = None,
    place: int | None = None,
    prize: int | None = None,
    bounty: int | None = None,
) -> None:
    """Change an entry: busted with its place, a prize paid, its bounty total (T-9, T-14)."""
    given = {"status": status, "place": place, "prize": prize, "bounty": bounty}
    values = {k: v for k, v in given.items() if v is not None}
    if not values:
        return
    updated = conn.execute(
        sa.update(tournament_entries)
        .where(
            tournament_entries.c.tournament_id == tournament_id,
            tournament_entries.c.player == player,
            tournament_entries.c.entry_no == entry_no,
        )
        .values(values)
    )
    if updated.rowcount != 1:
        raise StoreError(f"no entry {player!r} #{entry_no} in tournament {tournament_id!r}")


def load_entries(conn: Connection, tournament_id: str) -> tuple[EntryRecord, ...]:
    """Every entry of the tournament, by player and entry number."""
    query = (
        sa.select(tournament_entries)
        .where(tournament_entries.c.tournament_id == tournament_id)
        .order_by(tournament_entries.c.player, tournament_entries.c.entry_no)
    )
    return tuple(
        EntryRecord(r.player, r.entry_no, r.status, r.place, r.prize, r.bounty, r.bounty_won)
        for r in conn.execute(query)
    )


def load_payments(conn: Connection, tournament_id: str) -> tuple[Payment, ...]:
    """Every purchase paid into the tournament, by player and sequence."""
    query = (
        sa.select(tournament_payments)
        .where(tournament_payments.c.tournament_id == tournament_id)
        .order_by(tournament_payments.c.player, tournament_payments.c.seq)
    )
    return tuple(
        Payment(
            r.player,
            r.seq,
            r.entry_no,
            r.kind,
            Funding(r.funding),
            r.buy_in,
            r.fee,
            r.bounty,
            r.chips,
            r.ticket_id,
            r.ledger_key,
        )
        for r in conn.execute(query)
    )


def counted_payments(conn: Connection, tournament_id: str) -> tuple[Payment, ...]:
    """The payments that count as money paid in: not those of players who unregistered (T-3)."""
    gone = {e.player for e in load_entries(conn, tournament_id) if e.status == UNREGISTERED}
    return tuple(p for p in load_payments(conn, tournament_id) if p.player not in gone)


def paid_in(conn: Connection, tournament_id: str) -> dict[str, PaidIn]:
    """Per player, what they paid in by funding (re-entries, rebuys and add-ons count, T-4)."""
    sums: dict[str, tuple[dict[Funding, int], dict[Funding, int], dict[Funding, int]]] = {}
    for p in counted_payments(conn, tournament_id):
        buy_in, fee, bounty = sums.setdefault(p.player, ({}, {}, {}))
        buy_in[p.funding] = buy_in.get(p.funding, 0) + p.buy_in
        fee[p.funding] = fee.get(p.funding, 0) + p.fee
        bounty[p.funding] = bounty.get(p.funding, 0) + p.bounty
    return {player: PaidIn(player, *parts) for player, parts in sums.items()}


def unpaid_keys(conn: Connection, tournament_id: str) -> tuple[str, ...]:
    """Payment ledger keys with no transfer in the journal: money the state says was paid."""
    from pokerroom.ledger.schema import journal

    query = (
        sa.select(tournament_payments.c.ledger_key)
        .select_from(
            tournament_payments.outerjoin(
                journal, journal.c.idempotency_key == tournament_payments.c.ledger_key
            )
        )
        .where(
            tournament_payments.c.tournament_id == tournament_id,
            tournament_payments.c.ledger_key.is_not(None),
            journal.c.id.is_(None),
        )
    )
    return tuple(conn.execute(query).scalars())
