"""Cluster mode: nodes, leases fenced by epoch, the outbox and resume tokens.

Adds `cluster_nodes`, `cluster_leases`, `cluster_outbox` and `cluster_tokens`. Mirrors
pokerroom/cluster/schema.py (docs/design/cluster.md).

Revision ID: 0012_cluster
Revises: 0011_casino
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_cluster"
down_revision = "0011_casino"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "cluster_nodes",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("address", sa.String(200), nullable=False, server_default=""),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("draining", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "cluster_leases",
        sa.Column("resource", sa.String(120), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_cluster_leases_owner", "cluster_leases", ["owner"])
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
    op.create_table(
        "cluster_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(20), nullable=False),
        sa.Column("is_moderator", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_cluster_tokens_player", "cluster_tokens", ["player"])


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("cluster_tokens")
    op.drop_table("cluster_outbox")
    op.drop_table("cluster_leases")
    op.drop_table("cluster_nodes")
