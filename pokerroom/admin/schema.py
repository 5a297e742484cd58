"""Tables of staff administration: staff accounts, the audit log, approvals, bans, table controls.

Mirrored by the migration `0005_admin`. Kept in its own MetaData beside the ledger's and the
server's (listed in `pokerroom.schema.all_metadata()`), with the same naming convention.
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.ledger.schema import NAMING

metadata = sa.MetaData(naming_convention=NAMING)

#: Staff accounts, apart from players: a role (support, floor, director, admin), an argon2id hash.
staff = sa.Table(
    "staff",
    metadata,
    sa.Column("name", sa.String(20), primary_key=True),
    sa.Column("role", sa.String(10), nullable=False),
    sa.Column("password_hash", sa.String(255), nullable=False),
    sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("last_login_ms", sa.BigInteger, nullable=True),
)

#: One row per staff action, written in the same transaction as the action's effect.
audit = sa.Table(
    "audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Column("staff", sa.String(20), nullable=False),
    sa.Column("role", sa.String(10), nullable=False),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("target", sa.String(80), nullable=False),
    sa.Column("before", sa.JSON, nullable=True),
    sa.Column("after", sa.JSON, nullable=True),
    sa.Column("reason", sa.String(500), nullable=False, server_default=""),
    sa.Index("ix_audit_at_ms", "at_ms"),
    sa.Index("ix_audit_staff_at_ms", "staff", "at_ms"),
    sa.Index("ix_audit_target_at_ms", "target", "at_ms"),
)

#: Changes that wait for a second admin: wallet corrections above the configured amount.
approvals = sa.Table(
    "staff_approvals",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("requested_by", sa.String(20), nullable=False),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("target", sa.String(80), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("request_key", sa.String(100), nullable=False, unique=True),
    sa.Column("status", sa.String(10), nullable=False),  # pending | done
    sa.Column("decided_by", sa.String(20), nullable=True),
    sa.Column("decided_ms", sa.BigInteger, nullable=True),
    sa.Column("transfer_id", sa.BigInteger, nullable=True),
)

#: Bans: a banned player cannot log in; `lifted_ms` is set when staff lift it.
bans = sa.Table(
    "player_bans",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player", sa.String(20), nullable=False),
    sa.Column("since_ms", sa.BigInteger, nullable=False),
    sa.Column("by_staff", sa.String(20), nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("lifted_ms", sa.BigInteger, nullable=True),
    sa.Column("lifted_by", sa.String(20), nullable=True),
    sa.Index("ix_player_bans_player", "player"),
)

#: Cash tables staff paused or closed (no row: open); applied again after a restart.
table_controls = sa.Table(
    "table_controls",
    metadata,
    sa.Column("table_id", sa.String(40), primary_key=True),
    sa.Column("state", sa.String(10), nullable=False),  # paused | closed
    sa.Column("changed_ms", sa.BigInteger, nullable=False),
    sa.Column("by_staff", sa.String(20), nullable=False),
)
