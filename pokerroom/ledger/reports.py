"""Staff reports: the whole-ledger check, an account's balance, an account's statement."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.accounts import Account, AccountLike, get_account
from pokerroom.ledger.db import read
from pokerroom.ledger.schema import accounts, journal, postings


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What `pokerroom ledger check` found; `ok` only if every list of problems is empty."""

    unbalanced_entries: tuple[tuple[int, int], ...]  # (journal id, sum of its postings)
    short_entries: tuple[int, ...]  # journal ids with fewer than two postings
    mixed_currency_entries: tuple[int, ...]  # journal ids posting to another currency
    balance_mismatches: tuple[tuple[str, int, int], ...]  # (account, cached, sum of postings)
    negative_accounts: tuple[tuple[str, int], ...]  # constrained accounts below zero
    currency_totals: dict[str, int] = field(default_factory=dict)  # must all be 0
    kind_totals: dict[tuple[str, str], int] = field(default_factory=dict)  # (currency, kind)
    entries: int = 0
    postings: int = 0
    accounts: int = 0

    @property
    def ok(self) -> bool:
        """True when money neither appeared, vanished nor went negative (P-2)."""
        return not (
            self.unbalanced_entries
            or self.short_entries
            or self.mixed_currency_entries
            or self.balance_mismatches
            or self.negative_accounts
            or any(self.currency_totals.values())
        )


def _name(row: sa.Row[*tuple[Any, ...]]) -> str:
    return f"{row.kind}:{row.owner}:{row.currency}"


def _check(conn: Connection) -> CheckReport:
    sums = (
        sa.select(postings.c.journal_id, sa.func.sum(postings.c.amount).label("total"))
        .group_by(postings.c.journal_id)
        .having(sa.func.sum(postings.c.amount) != 0)
    )
    unbalanced = tuple((r.journal_id, int(r.total)) for r in conn.execute(sums))
    counts = (
        sa.select(journal.c.id)
        .outerjoin(postings, postings.c.journal_id == journal.c.id)
        .group_by(journal.c.id)
        .having(sa.func.count(postings.c.id) < 2)
    )
    short = tuple(r.id for r in conn.execute(counts))
    mixed_q = (
        sa.select(journal.c.id)
        .distinct()
        .join(postings, postings.c.journal_id == journal.c.id)
        .join(accounts, accounts.c.id == postings.c.account_id)
        .where(accounts.c.currency != journal.c.currency)
    )
    mixed = tuple(r.id for r in conn.execute(mixed_q))
    posted = (
        sa.select(postings.c.account_id, sa.func.sum(postings.c.amount).label("total"))
        .group_by(postings.c.account_id)
        .subquery()
    )
    rows = conn.execute(
        sa.select(accounts, sa.func.coalesce(posted.c.total, 0).label("posted"))
        .outerjoin(posted, posted.c.account_id == accounts.c.id)
        .order_by(accounts.c.id)
    ).all()
    mismatches, negatives = [], []
    currency_totals: dict[str, int] = {}
    kind_totals: dict[tuple[str, str], int] = {}
    for row in rows:
        if row.balance != int(row.posted):
            mismatches.append((_name(row), row.balance, int(row.posted)))
        if row.balance < 0 and row.kind != "external":
            negatives.append((_name(row), row.balance))
        currency_totals[row.currency] = currency_totals.get(row.currency, 0) + row.balance
        key = (row.currency, row.kind)
        kind_totals[key] = kind_totals.get(key, 0) + row.balance
    n_entries = conn.execute(sa.select(sa.func.count()).select_from(journal)).scalar_one()
    n_postings = conn.execute(sa.select(sa.func.count()).select_from(postings)).scalar_one()
    return CheckReport(
        unbalanced,
        short,
        mixed,
        tuple(mismatches),
        tuple(negatives),
        currency_totals,
        kind_totals,
        n_entries,
        n_postings,
        len(rows),
    )


def check_ledger(bind: Engine | Connection) -> CheckReport:
    """Check the whole ledger in one consistent snapshot."""
    return read(bind, _check)


def balance(bind: Engine | Connection, account: AccountLike) -> Account:
    """The account with its cached balance; `unknown_account` if it does not exist."""
    return get_account(bind, account)


@dataclass(frozen=True, slots=True)
class StatementLine:
    """One posting on an account, with the entry it belongs to."""

    posting_id: int
    transfer_id: int
    created_at: datetime | str
    kind: str
    key: str
    reference: str
    amount: int
    balance_after: int
    reverses_id: int | None


@dataclass(frozen=True, slots=True)
class Statement:
    """An account and its latest postings, oldest first."""

    account: Account
    lines: tuple[StatementLine, ...]


def statement(bind: Engine | Connection, account: AccountLike, limit: int = 50) -> Statement:
    """The account's last `limit` postings, oldest first."""

    def work(conn: Connection) -> Statement:
        found = get_account(conn, account)
        query = (
            sa.select(
                postings.c.id,
                postings.c.journal_id,
                journal.c.created_at,
                journal.c.kind,
                journal.c.idempotency_key,
                journal.c.reference,
                postings.c.amount,
                postings.c.balance_after,
                journal.c.reverses_id,
            )
            .join(journal, journal.c.id == postings.c.journal_id)
            .where(postings.c.account_id == found.id)
            .order_by(postings.c.id.desc())
            .limit(limit)
        )
        lines = [StatementLine(*row) for row in conn.execute(query)]
        return Statement(found, tuple(reversed(lines)))

    return read(bind, work)


def total_balance(bind: Engine | Connection, currency: str | None = None) -> int:
    """The sum of every account's balance (of one currency): zero when nothing leaked (P-2)."""
    query = sa.select(sa.func.coalesce(sa.func.sum(accounts.c.balance), 0))
    if currency is not None:
        query = query.where(accounts.c.currency == currency)
    return read(bind, lambda conn: int(conn.execute(query).scalar_one()))
