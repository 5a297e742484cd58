"""Durable tournaments and scheduled jobs: tournaments, entries, purchases, seats as of each
table's last completed hand, T-18 refund plans; job runs and the SQLite job lease.
Mirrors tournaments/store.py and pokerroom/jobs/schema.py.

Revision ID: 0006_tournaments_jobs
Revises: 0005_admin
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_tournaments_jobs"
down_revision = "0005_admin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("template", sa.String(80), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("cancel_reason", sa.String(20), nullable=True),
        sa.Column("decision", sa.String(500), nullable=False, server_default=""),
        sa.Column("fee_refund", sa.String(16), nullable=False, server_default="live_entry"),
        sa.Column("guarantee", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("guarantee_dropped", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("overlay_posted", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("prizes", sa.JSON(), nullable=True),
        sa.Column("level_index", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("level_ms_left", sa.BigInteger(), nullable=True),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("started_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("stopped_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("refunded_at_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("entry_no", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("prize", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("bounty", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_entries_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "player", "entry_no", name="pk_tournament_entries"
        ),
    )
    op.create_table(
        "tournament_payments",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("entry_no", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("funding", sa.String(12), nullable=False),
        sa.Column("ticket_id", sa.String(80), nullable=False, server_default=""),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("bounty", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("chips", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("ledger_key", sa.String(200), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_payments_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "player", "seq", name="pk_tournament_payments"),
    )
    op.create_table(
        "tournament_seats",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("entry_no", sa.Integer(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_seats_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "table_id", "seat", name="pk_tournament_seats"),
        sa.UniqueConstraint("tournament_id", "player", name="uq_tournament_seats_player"),
    )
    op.create_table(
        "tournament_refunds",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("component", sa.String(20), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("destinations", sa.JSON(), nullable=False),
        sa.Column("ledger_key", sa.String(200), nullable=False),
        sa.Column("planned_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("paid_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("transfer_id", sa.BigInteger(), nullable=True),
        sa.Column("error", sa.String(500), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_refunds_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "player", "component", name="pk_tournament_refunds"
        ),
        sa.UniqueConstraint("ledger_key", name="uq_tournament_refunds_ledger_key"),
    )
    op.create_table(
        "job_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("job", sa.String(40), nullable=False),
        sa.Column("runner", sa.String(120), nullable=False),
        sa.Column("started_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("tournaments", sa.JSON(), nullable=False),
        sa.Column("amounts", sa.JSON(), nullable=False),
        sa.Column("transfers", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("error", sa.String(2000), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_job_runs"),
    )
    op.create_index("ix_job_runs_job_id", "job_runs", ["job", "id"])
    op.create_table(
        "job_locks",
        sa.Column("job", sa.String(40), nullable=False),
        sa.Column("owner", sa.String(120), nullable=False),
        sa.Column("taken_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("job", name="pk_job_locks"),
    )


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_table("job_locks")
    op.drop_index("ix_job_runs_job_id", table_name="job_runs")
    op.drop_table("job_runs")
    op.drop_table("tournament_refunds")
    op.drop_table("tournament_seats")
    op.drop_table("tournament_payments")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
