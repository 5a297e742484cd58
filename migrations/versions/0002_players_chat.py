"""Room server: players (argon2 hashes), chat lines and chat mutes (C-13).

Revision ID: 0002_players_chat
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_players_chat"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "players",
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("is_moderator", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_players"),
    )
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("player", sa.String(20), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("refused", sa.String(40), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_chat_lines"),
    )
    op.create_index("ix_chat_lines_table_id_at_ms", "chat_lines", ["table_id", "at_ms"])
    op.create_index("ix_chat_lines_player_at_ms", "chat_lines", ["player", "at_ms"])
    op.create_table(
        "chat_mutes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player", sa.String(20), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("until_ms", sa.BigInteger(), nullable=True),
        sa.Column("by_player", sa.String(20), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False, server_default=""),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("lifted_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_chat_mutes"),
    )
    op.create_index("ix_chat_mutes_player", "chat_mutes", ["player"])


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_index("ix_chat_mutes_player", table_name="chat_mutes")
    op.drop_table("chat_mutes")
    op.drop_index("ix_chat_lines_player_at_ms", table_name="chat_lines")
    op.drop_index("ix_chat_lines_table_id_at_ms", table_name="chat_lines")
    op.drop_table("chat_lines")
    op.drop_table("players")
