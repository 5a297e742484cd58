"""Cash hand histories: each settled hand's PHH fields, and who played it (C-15 masking on read).

Revision ID: 0004_cash_histories
Revises: 0003_cash
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_cash_histories"
down_revision = "0003_cash"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "cash_hand_histories",
        sa.Column("hand_id", sa.String(80), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("hand_id", name="pk_cash_hand_histories"),
    )
    op.create_table(
        "cash_hand_players",
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("hand_id", sa.String(80), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "hand_id", name="pk_cash_hand_players"),
    )
    op.create_index(
        "ix_cash_hand_players_player_ended", "cash_hand_players", ["player_id", "ended_at_ms"]
    )


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_index("ix_cash_hand_players_player_ended", table_name="cash_hand_players")
    op.drop_table("cash_hand_players")
    op.drop_table("cash_hand_histories")
