"""Ledger: accounts, journal, postings; journal and postings append-only (P-2).

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
APPEND_ONLY = ("journal", "postings")


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("kind", "owner", "currency", name="uq_accounts_kind_owner_currency"),
        sa.CheckConstraint(
            "kind = 'external' OR balance >= 0", name=op.f("ck_accounts_balance_nonnegative")
        ),
    )
    op.create_table(
        "journal",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("reference", sa.String(200), nullable=False, server_default=""),
        sa.Column("memo", sa.String(500), nullable=False, server_default=""),
        sa.Column("reverses_id", BigId, nullable=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("id", name="pk_journal"),
        sa.UniqueConstraint("idempotency_key", name="uq_journal_idempotency_key"),
        sa.UniqueConstraint("reverses_id", name="uq_journal_reverses_id"),
        sa.ForeignKeyConstraint(
            ["reverses_id"], ["journal.id"], name="fk_journal_reverses_id_journal"
        ),
    )
    op.create_index("ix_journal_reference", "journal", ["reference"])
    op.create_table(
        "postings",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("journal_id", BigId, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_postings"),
        sa.ForeignKeyConstraint(
            ["journal_id"], ["journal.id"], name="fk_postings_journal_id_journal"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_postings_account_id_accounts"
        ),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_postings_amount_nonzero")),
    )
    op.create_index("ix_postings_journal_id", "postings", ["journal_id"])
    op.create_index("ix_postings_account_id_id", "postings", ["account_id", "id"])
    _create_append_only_triggers()


def downgrade() -> None:
    """Drop this revision's tables."""
    _drop_append_only_triggers()
    op.drop_index("ix_postings_account_id_id", table_name="postings")
    op.drop_index("ix_postings_journal_id", table_name="postings")
    op.drop_table("postings")
    op.drop_index("ix_journal_reference", table_name="journal")
    op.drop_table("journal")
    op.drop_table("accounts")


def _create_append_only_triggers() -> None:
    """Refuse UPDATE and DELETE on journal and postings at the database level (P-2)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN RAISE EXCEPTION 'ledger table % is append-only', TG_TABLE_NAME; END $$"
        )
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER trg_{table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()"
            )
        return
    for table in APPEND_ONLY:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER trg_{table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'ledger table {table} is append-only'); END"
            )


def _drop_append_only_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER trg_{table}_append_only ON {table}")
        op.execute("DROP FUNCTION ledger_append_only()")
        return
    for table in APPEND_ONLY:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_no_{action}")
