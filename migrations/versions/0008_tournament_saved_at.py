"""When a running tournament's state was last written (T-18: the outage is measured from it).

Adds `tournaments.saved_at_ms`. Mirrors tournaments/store.py.

Revision ID: 0008_tournament_saved_at
Revises: 0007_tickets_bounties
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_tournament_saved_at"
down_revision = "0007_tickets_bounties"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column."""
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("saved_at_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("saved_at_ms")
