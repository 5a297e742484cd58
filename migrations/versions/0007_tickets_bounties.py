"""Satellite tickets (T-16, T-3), prize changes (T-15) and bounty state (T-14).

Adds `tournament_tickets` and `tournament_prize_changes`; each entry's bounties won; the
tournament's bounty bubble and settlement count, and the money prize changes added.
Mirrors tournaments/store.py.

Revision ID: 0007_tickets_bounties
Revises: 0006_tournaments_jobs
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_tickets_bounties"
down_revision = "0006_tournaments_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables and add the columns."""
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("bounty_burst", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("bounty_serial", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
        batch.add_column(
            sa.Column("prize_added", sa.BigInteger(), nullable=False, server_default=sa.text("0"))
        )
    with op.batch_alter_table("tournament_entries") as batch:
        batch.add_column(
            sa.Column("bounty_won", sa.BigInteger(), nullable=False, server_default=sa.text("0"))
        )
    op.create_table(
        "tournament_tickets",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("owner", sa.String(40), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("target", sa.String(40), nullable=False, server_default=""),
        sa.Column("any_of_level", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("source", sa.String(40), nullable=False, server_default=""),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("used_in", sa.String(40), nullable=False, server_default=""),
        sa.Column("issued_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_tickets"),
    )
    op.create_index("ix_tournament_tickets_owner", "tournament_tickets", ["owner"])
    op.create_index(
        "ix_tournament_tickets_state_expires", "tournament_tickets", ["state", "expires_at_ms"]
    )
    op.create_index("ix_tournament_tickets_target", "tournament_tickets", ["target"])
    op.create_table(
        "tournament_prize_changes",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("changed_by", sa.String(40), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("old", sa.JSON(), nullable=False),
        sa.Column("new", sa.JSON(), nullable=False),
        sa.Column("added", sa.BigInteger(), nullable=False),
        sa.Column("cash_places", sa.JSON(), nullable=False),
        sa.Column("ledger_key", sa.String(200), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_prize_changes_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "seq", name="pk_tournament_prize_changes"),
        sa.UniqueConstraint("ledger_key", name="uq_tournament_prize_changes_ledger_key"),
    )


def downgrade() -> None:
    """Drop the tables and the columns."""
    op.drop_table("tournament_prize_changes")
    op.drop_index("ix_tournament_tickets_target", table_name="tournament_tickets")
    op.drop_index("ix_tournament_tickets_state_expires", table_name="tournament_tickets")
    op.drop_index("ix_tournament_tickets_owner", table_name="tournament_tickets")
    op.drop_table("tournament_tickets")
    with op.batch_alter_table("tournament_entries") as batch:
        batch.drop_column("bounty_won")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("prize_added")
        batch.drop_column("bounty_serial")
        batch.drop_column("bounty_burst")
