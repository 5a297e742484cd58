"""What a resumed tournament carries over (T-18): each table's button and blinds, each player's
time bank and sit-out flag with the table's last completed hand; the staff pause; how many
times the tournament resumed (its hand ids after a resume are new).

Adds `tournament_seats.table_state`, `bank_ms`, `bank_level`, `sitting_out` and
`tournaments.paused`, `tournaments.resumes`. Mirrors tournaments/store.py.

Revision ID: 0010_tournament_resume_state
Revises: 0009_staking_deals
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_tournament_resume_state"
down_revision = "0009_staking_deals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns."""
    with op.batch_alter_table("tournament_seats") as batch:
        batch.add_column(sa.Column("table_state", sa.String(40), nullable=False, server_default=""))
        batch.add_column(sa.Column("bank_ms", sa.BigInteger(), nullable=True))
        batch.add_column(
            sa.Column("bank_level", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
        batch.add_column(sa.Column("sitting_out", sa.String(8), nullable=False, server_default=""))
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("resumes", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )


def downgrade() -> None:
    """Drop the columns."""
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("resumes")
        batch.drop_column("paused")
    with op.batch_alter_table("tournament_seats") as batch:
        batch.drop_column("sitting_out")
        batch.drop_column("bank_level")
        batch.drop_column("bank_ms")
        batch.drop_column("table_state")
