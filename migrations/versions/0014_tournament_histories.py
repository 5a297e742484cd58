"""Tournament hand histories: each completed tournament hand's record, and who played it.

Adds `tournament_hand_histories` (the engine's PHH fields with every hole card and the
tournament's underscore fields, as `cash_hand_histories` keeps a cash hand) and
`tournament_hand_players` (who was dealt in: a player reads only their own hands, C-15).
Mirrors tournaments/store/schema.py.

Revision ID: 0014_tournament_histories
Revises: 0013_deal_in_making
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_tournament_histories"
down_revision = "0013_deal_in_making"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "tournament_hand_histories",
        sa.Column("hand_id", sa.String(80), nullable=False),
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(48), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_hand_histories_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint("hand_id", name="pk_tournament_hand_histories"),
    )
    op.create_table(
        "tournament_hand_players",
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("hand_id", sa.String(80), nullable=False),
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(48), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index(
        "ix_tournament_hand_players_player_ended",
        "tournament_hand_players",
        ["player_id", "ended_at_ms"],
    )


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_index("ix_tournament_hand_players_player_ended", table_name="tournament_hand_players")
    op.drop_table("tournament_hand_players")
    op.drop_table("tournament_hand_histories")
