"""Tables of cluster mode: nodes, leases (owner and epoch) and resume tokens.

Mirrored by the migrations `0012_cluster` and `0016_drop_cluster_outbox`. Times that decide
ownership are the database's (`clock_timestamp()`), never a node's clock
(docs/design/cluster.md).
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.ledger.schema import NAMING

metadata = sa.MetaData(naming_convention=NAMING)

#: One row a node: where players reach it, its last heartbeat, whether it is draining.
cluster_nodes = sa.Table(
    "cluster_nodes",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("address", sa.String(200), nullable=False, server_default=""),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("draining", sa.Boolean, nullable=False, server_default=sa.false()),
)

#: Who owns a table (`table:<id>`) or a tournament (`tournament:<id>`), fenced by `epoch`.
cluster_leases = sa.Table(
    "cluster_leases",
    metadata,
    sa.Column("resource", sa.String(120), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("epoch", sa.BigInteger, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_cluster_leases_owner", "owner"),
)

#: Resume tokens every node accepts: the token's hash, its player, when it stops working.
cluster_tokens = sa.Table(
    "cluster_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("player", sa.String(20), nullable=False),
    sa.Column("is_moderator", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("node", sa.String(64), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_cluster_tokens_player", "player"),
)
