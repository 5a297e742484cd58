"""Staff administration: staff accounts, the audit log, approvals, bans and table controls.

Revision ID: 0005_admin
Revises: 0004_cash_histories
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_admin"
down_revision = "0004_cash_histories"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create this revision's tables."""
    op.create_table(
        "staff",
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_login_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_staff"),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("staff", sa.String(20), nullable=False),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(80), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name="pk_audit"),
    )
    op.create_index("ix_audit_at_ms", "audit", ["at_ms"])
    op.create_index("ix_audit_staff_at_ms", "audit", ["staff", "at_ms"])
    op.create_index("ix_audit_target_at_ms", "audit", ["target", "at_ms"])
    op.create_table(
        "staff_approvals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("requested_by", sa.String(20), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(80), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("request_key", sa.String(100), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("decided_by", sa.String(20), nullable=True),
        sa.Column("decided_ms", sa.BigInteger(), nullable=True),
        sa.Column("transfer_id", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_staff_approvals"),
        sa.UniqueConstraint("request_key", name="uq_staff_approvals_request_key"),
    )
    op.create_table(
        "player_bans",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player", sa.String(20), nullable=False),
        sa.Column("since_ms", sa.BigInteger(), nullable=False),
        sa.Column("by_staff", sa.String(20), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("lifted_ms", sa.BigInteger(), nullable=True),
        sa.Column("lifted_by", sa.String(20), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_player_bans"),
    )
    op.create_index("ix_player_bans_player", "player_bans", ["player"])
    op.create_table(
        "table_controls",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("changed_ms", sa.BigInteger(), nullable=False),
        sa.Column("by_staff", sa.String(20), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_table_controls"),
    )


def downgrade() -> None:
    """Drop this revision's tables."""
    op.drop_table("table_controls")
    op.drop_index("ix_player_bans_player", table_name="player_bans")
    op.drop_table("player_bans")
    op.drop_table("staff_approvals")
    op.drop_index("ix_audit_target_at_ms", table_name="audit")
    op.drop_index("ix_audit_staff_at_ms", table_name="audit")
    op.drop_index("ix_audit_at_ms", table_name="audit")
    op.drop_table("audit")
    op.drop_table("staff")
