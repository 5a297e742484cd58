"""The write path of one transfer: three statements, the funds check inside the UPDATE (P-2).

1. INSERT the journal entry (its unique idempotency key makes a concurrent twin wait or fail);
2. one UPDATE of every account it touches, guarded so that no non-external account goes
   below zero, returning the new balances (on PostgreSQL the rows are first locked in id
   order, so two transfers never wait on each other in a cycle);
3. INSERT the postings with the balance each leaves behind.
If the UPDATE did not touch every account, the transaction is rolled back and the reason
(unknown account, insufficient funds) is read and raised as a LedgerError.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.ledger.errors import CurrencyMismatch, InsufficientFunds, UnknownAccount
from pokerroom.ledger.kinds import NEGATIVE_ALLOWED, AccountRef
from pokerroom.ledger.schema import accounts, journal, postings

_NEGATIVE_OK = sorted(kind.value for kind in NEGATIVE_ALLOWED)
_COLUMNS = (accounts.c.id, accounts.c.kind, accounts.c.owner, accounts.c.currency)
INSERT_ENTRY = sa.insert(journal).returning(journal.c.id)
INSERT_POSTINGS = sa.insert(postings)


class StaleIds(Exception):
    """A cached account id no longer names the account it was cached for."""


@dataclass(frozen=True, slots=True)
class Entry:
    """What the write path needs to know about one transfer."""

    key: str
    kind: str
    currency: str
    reference: str
    memo: str
    reverses_id: int | None
    lines: tuple[tuple[int, int], ...]  # (account id, amount), in the caller's order
    refs: Mapping[int, AccountRef]  # ids that came from a ref, to detect stale cache entries
    content_hash: str


@cache
def _apply_deltas(n: int, dialect: str) -> sa.Update:
    """UPDATE n accounts by (id, delta) pairs, guarded, RETURNING the new rows; built once."""
    ids = [sa.bindparam(f"a{i}", type_=sa.Integer) for i in range(n)]
    delta = sa.case(
        *((accounts.c.id == ids[i], sa.bindparam(f"d{i}", type_=sa.BigInteger)) for i in range(n))
    )
    if dialect == "postgresql":
        locked = (
            sa.select(accounts.c.id)
            .where(accounts.c.id.in_(ids))
            .order_by(accounts.c.id)
            .with_for_update()
            .subquery("locked")
        )
        target = accounts.c.id == locked.c.id
    else:  # SQLite: BEGIN IMMEDIATE already holds the database's write lock
        target = accounts.c.id.in_(ids)
    zero: sa.ColumnClause[int] = sa.literal_column("0")
    may_go_negative = [accounts.c.kind == sa.literal_column(f"'{k}'") for k in _NEGATIVE_OK]
    enough = sa.or_(*may_go_negative, accounts.c.balance + delta >= zero)
    return (
        sa.update(accounts)
        .where(target, enough)
        .values(balance=accounts.c.balance + delta)
        .returning(*_COLUMNS, accounts.c.balance)
    )


@cache
def _read_accounts(n: int) -> sa.Select[*tuple[Any, ...]]:
    """SELECT n accounts by id; used only to explain a refused transfer."""
    ids = [sa.bindparam(f"a{i}", type_=sa.Integer) for i in range(n)]
    return sa.select(*_COLUMNS, accounts.c.balance).where(accounts.c.id.in_(ids))


def _name(row: sa.Row[*tuple[Any, ...]]) -> str:
    return f"{row.kind}:{row.owner}:{row.currency}"


def write_entry(conn: Connection, entry: Entry) -> tuple[int, list[tuple[int, str, int, int]]]:
    """Write one transfer in the open transaction; (journal id, [(id, name, amount, after)])."""
    journal_id = conn.execute(
        INSERT_ENTRY,
        {
            "idempotency_key": entry.key,
            "kind": entry.kind,
            "currency": entry.currency,
            "reference": entry.reference,
            "memo": entry.memo,
            "reverses_id": entry.reverses_id,
            "content_hash": entry.content_hash,
        },
    ).scalar_one()
    params: dict[str, int] = {}
    for i, (account_id, amount) in enumerate(entry.lines):
        params[f"a{i}"] = account_id
        params[f"d{i}"] = amount
    n = len(entry.lines)
    rows = conn.execute(_apply_deltas(n, conn.dialect.name), params).all()
    by_id = {}
    for account_id, kind, owner, currency, balance in rows:
        ref = entry.refs.get(account_id)
        if ref is not None and (kind, owner) != (ref.kind.value, ref.owner):
            raise StaleIds()
        if currency != entry.currency:
            raise CurrencyMismatch(f"account {kind}:{owner}:{currency} is not in {entry.currency}")
        by_id[account_id] = (f"{kind}:{owner}:{currency}", balance)
    if len(by_id) != n:
        _explain_refusal(conn, entry, by_id.keys())
    lines = [(a, by_id[a][0], amount, by_id[a][1]) for a, amount in entry.lines]
    conn.execute(
        INSERT_POSTINGS,
        [
            {"journal_id": journal_id, "account_id": a, "amount": amt, "balance_after": after}
            for a, _, amt, after in lines
        ],
    )
    return journal_id, lines


def _explain_refusal(conn: Connection, entry: Entry, updated: Collection[int]) -> None:
    """Raise the reason the guarded UPDATE skipped an account; the caller's tx rolls back."""
    ids = [a for a, _ in entry.lines]
    rows = conn.execute(_read_accounts(len(ids)), {f"a{i}": a for i, a in enumerate(ids)})
    found = {row.id: row for row in rows}
    for account_id, ref in entry.refs.items():
        row = found.get(account_id)
        if row is None or (row.kind, row.owner) != (ref.kind.value, ref.owner):
            raise StaleIds()
    for account_id, amount in entry.lines:
        if account_id in updated:
            continue
        row = found.get(account_id)
        if row is None:
            raise UnknownAccount(f"no account {account_id}")
        if row.currency != entry.currency:
            raise CurrencyMismatch(f"account {_name(row)} is not in {entry.currency}")
        raise InsufficientFunds(
            f"{_name(row)} holds {row.balance}, needs {-amount}", _name(row), row.balance, -amount
        )
    raise AssertionError("guarded update skipped no account")
