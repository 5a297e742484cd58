"""Staking (T-17) and deals (T-13): offers, stakes, buyers' parts of payouts, accepted deals.

Adds `tournament_stake_offers`, `tournament_stakes`, `tournament_stake_payouts` and
`tournament_deals`. Mirrors tournaments/stake_store.py.

Revision ID: 0009_staking_deals
Revises: 0008_tournament_saved_at
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_staking_deals"
down_revision = "0008_tournament_saved_at"
branch_labels = None
depends_on = None


def _tournament_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id"], ["tournaments.id"], name=f"fk_{table}_tournament_id_tournaments"
    )


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "tournament_stake_offers",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("offer_id", sa.String(20), nullable=False),
        sa.Column("seller", sa.String(40), nullable=False),
        sa.Column("share_bps", sa.Integer(), nullable=False),
        sa.Column("markup_bps", sa.Integer(), nullable=False),
        sa.Column("sold_bps", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        _tournament_fk("tournament_stake_offers"),
        sa.PrimaryKeyConstraint("tournament_id", "offer_id", name="pk_tournament_stake_offers"),
    )
    op.create_table(
        "tournament_stakes",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("stake_id", sa.String(20), nullable=False),
        sa.Column("offer_id", sa.String(20), nullable=False),
        sa.Column("seller", sa.String(40), nullable=False),
        sa.Column("buyer", sa.String(40), nullable=False),
        sa.Column("share_bps", sa.Integer(), nullable=False),
        sa.Column("markup_bps", sa.Integer(), nullable=False),
        sa.Column("price", sa.BigInteger(), nullable=False),
        sa.Column("client_key", sa.String(200), nullable=False),
        sa.Column("ledger_key", sa.String(200), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("bought_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("settled_at_ms", sa.BigInteger(), nullable=True),
        _tournament_fk("tournament_stakes"),
        sa.PrimaryKeyConstraint("tournament_id", "stake_id", name="pk_tournament_stakes"),
        sa.UniqueConstraint("ledger_key", name="uq_tournament_stakes_ledger_key"),
    )
    op.create_index("ix_tournament_stakes_buyer", "tournament_stakes", ["buyer"])
    op.create_index("ix_tournament_stakes_seller", "tournament_stakes", ["seller"])
    op.create_table(
        "tournament_stake_payouts",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("part_key", sa.String(250), nullable=False),
        sa.Column("seller", sa.String(40), nullable=False),
        sa.Column("buyer", sa.String(40), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(12), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        _tournament_fk("tournament_stake_payouts"),
        sa.PrimaryKeyConstraint("tournament_id", "part_key", name="pk_tournament_stake_payouts"),
    )
    op.create_index("ix_tournament_stake_payouts_buyer", "tournament_stake_payouts", ["buyer"])
    op.create_table(
        "tournament_deals",
        sa.Column("tournament_id", sa.String(40), nullable=False),
        sa.Column("deal_id", sa.String(20), nullable=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("stacks", sa.JSON(), nullable=False),
        sa.Column("amounts", sa.JSON(), nullable=False),
        sa.Column("rounding", sa.BigInteger(), nullable=False),
        sa.Column("left_to_play_for", sa.BigInteger(), nullable=False),
        sa.Column("proposed_by", sa.String(40), nullable=False),
        sa.Column("accepted_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("ledger_key", sa.String(200), nullable=False),
        _tournament_fk("tournament_deals"),
        sa.PrimaryKeyConstraint("tournament_id", "deal_id", name="pk_tournament_deals"),
        sa.UniqueConstraint("ledger_key", name="uq_tournament_deals_ledger_key"),
    )


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("tournament_deals")
    op.drop_index("ix_tournament_stake_payouts_buyer", table_name="tournament_stake_payouts")
    op.drop_table("tournament_stake_payouts")
    op.drop_index("ix_tournament_stakes_seller", table_name="tournament_stakes")
    op.drop_index("ix_tournament_stakes_buyer", table_name="tournament_stakes")
    op.drop_table("tournament_stakes")
    op.drop_table("tournament_stake_offers")
