"""A deal in the making is stored, so a restart can void it and tell its players (T-13, T-18).

Adds `tournaments.deal_pending`: the open deal proposal as JSON, "" when none. Mirrors
tournaments/store/schema.py.

Revision ID: 0013_deal_in_making
Revises: 0012_cluster
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_deal_in_making"
down_revision = "0012_cluster"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column."""
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("deal_pending", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("deal_pending")
