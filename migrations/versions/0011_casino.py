"""Casino tables: rounds and their confirmed bets (K-1, K-3, L-2, L-3, L-5).

Adds `casino_rounds` and `casino_bets`. Mirrors pokerroom/casino/schema.py.

Revision ID: 0011_casino
Revises: 0010_tournament_resume_state
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_casino"
down_revision = "0010_tournament_resume_state"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "casino_rounds",
        sa.Column("id", sa.String(80), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("opened_ms", sa.BigInteger(), nullable=False),
        sa.Column("due_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_ms", sa.BigInteger(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=False, server_default=""),
        sa.Column("summary", sa.Text(), nullable=False, server_default=""),
        sa.Column("reason", sa.String(200), nullable=False, server_default=""),
    )
    op.create_index("ix_casino_rounds_table_id", "casino_rounds", ["table_id"])
    op.create_index("ix_casino_rounds_status", "casino_rounds", ["status"])
    op.create_table(
        "casino_bets",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.String(80), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("spot", sa.String(64), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("transfer_key", sa.String(200), nullable=False),
        sa.CheckConstraint("stake > 0", name="ck_casino_bets_stake_positive"),
    )
    op.create_index("ix_casino_bets_round_id", "casino_bets", ["round_id"])
    op.create_index("ix_casino_bets_player", "casino_bets", ["player"])


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("casino_bets")
    op.drop_table("casino_rounds")
