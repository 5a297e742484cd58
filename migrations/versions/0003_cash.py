"""Cash tables: hands (C-12), seats at hand boundaries, rake shares (C-11), declines and
blocks (C-8), rathole memory (C-10), missed-blind memory (C-4). Mirrors pokerroom/cash/schema.py.

Revision ID: 0003_cash
Revises: 0002_players_chat
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_cash"
down_revision = "0002_players_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "cash_hands",
        sa.Column("id", sa.String(80), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("started_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("start_stacks", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_cash_hands"),
    )
    op.create_index("ix_cash_hands_table_id", "cash_hands", ["table_id"])
    op.create_table(
        "cash_seats",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("session", sa.String(40), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("sat_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("timebank_ms", sa.Integer(), nullable=False),
        sa.Column("sitting_out", sa.Boolean(), nullable=False),
        sa.Column("missed_sb", sa.Boolean(), nullable=False),
        sa.Column("missed_bb", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_cash_seats"),
    )
    op.create_table(
        "cash_hand_rake",
        sa.Column("hand_id", sa.String(80), nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("hand_id", "player_id", name="pk_cash_hand_rake"),
    )
    op.create_table(
        "cash_declines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("stakes", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_cash_declines"),
    )
    op.create_index(
        "ix_cash_declines_player_stakes", "cash_declines", ["player_id", "stakes", "at_ms"]
    )
    op.create_table(
        "cash_blocks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("stakes", sa.String(40), nullable=False),
        sa.Column("decline_number", sa.Integer(), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_cash_blocks"),
    )
    op.create_index(
        "ix_cash_blocks_player_stakes", "cash_blocks", ["player_id", "stakes", "until_ms"]
    )
    op.create_table(
        "cash_rathole",
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("stakes", sa.String(40), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("left_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "stakes", name="pk_cash_rathole"),
    )
    op.create_table(
        "cash_missed_blinds",
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("missed_sb", sa.Boolean(), nullable=False),
        sa.Column("missed_bb", sa.Boolean(), nullable=False),
        sa.Column("left_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "table_id", name="pk_cash_missed_blinds"),
    )


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_table("cash_missed_blinds")
    op.drop_table("cash_rathole")
    op.drop_index("ix_cash_blocks_player_stakes", table_name="cash_blocks")
    op.drop_table("cash_blocks")
    op.drop_index("ix_cash_declines_player_stakes", table_name="cash_declines")
    op.drop_table("cash_declines")
    op.drop_table("cash_hand_rake")
    op.drop_table("cash_seats")
    op.drop_index("ix_cash_hands_table_id", table_name="cash_hands")
    op.drop_table("cash_hands")
