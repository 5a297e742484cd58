"""The ledger's tables: the single source of truth that migrations mirror.

accounts  one row per (kind, owner, currency); `balance` caches the sum of its postings.
journal   one row per transfer; append-only; `idempotency_key` is unique (P-2).
postings  two or more rows per journal entry, summing to zero; append-only.
"""

from __future__ import annotations

import sqlalchemy as sa

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING)

#: 64-bit ids on PostgreSQL; SQLite needs INTEGER for its rowid alias.
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

#: Name of the CHECK that keeps every non-external account at or above zero.
NONNEGATIVE_CHECK = "ck_accounts_balance_nonnegative"

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("owner", sa.String(128), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("balance", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    ),
    sa.UniqueConstraint("kind", "owner", "currency", name="uq_accounts_kind_owner_currency"),
    sa.CheckConstraint("kind = 'external' OR balance >= 0", name="balance_nonnegative"),
)

journal = sa.Table(
    "journal",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("idempotency_key", sa.String(200), nullable=False, unique=True),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("reference", sa.String(200), nullable=False, server_default=""),
    sa.Column("memo", sa.String(500), nullable=False, server_default=""),
    sa.Column("reverses_id", BigId, sa.ForeignKey("journal.id"), nullable=True, unique=True),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    ),
    sa.Index("ix_journal_reference", "reference"),
)

postings = sa.Table(
    "postings",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("journal_id", BigId, sa.ForeignKey("journal.id"), nullable=False, index=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("balance_after", sa.BigInteger, nullable=False),
    sa.CheckConstraint("amount <> 0", name="amount_nonzero"),
    sa.Index("ix_postings_account_id_id", "account_id", "id"),
)
