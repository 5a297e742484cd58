"""Drop `cluster_outbox`: nothing between nodes needs it (docs/design/cluster.md, "What must
not be lost").

A tournament's tables all run on its owner, so no seat moves between nodes; what other nodes
must learn and must not lose (bans, chat mutes) is already stored in its own table, rung over
NATS and read again by every node after a NATS outage and every `staff_reload_seconds`. The
table was created by 0012_cluster and never written. Mirrors pokerroom/cluster/schema.py.

Revision ID: 0016_drop_cluster_outbox
Revises: 0015_casino_records
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_drop_cluster_outbox"
down_revision = "0015_casino_records"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Drop the never-written outbox."""
    op.drop_index("ix_cluster_outbox_resource_done_at", table_name="cluster_outbox")
    op.drop_table("cluster_outbox")


def downgrade() -> None:
    """Create it again, empty, as 0012_cluster did."""
    op.create_table(
        "cluster_outbox",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("resource", sa.String(120), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_cluster_outbox_resource_done_at", "cluster_outbox", ["resource", "done_at"])
