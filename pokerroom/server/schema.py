"""Tables of the room server: player accounts, chat lines and chat mutes (C-13).

Mirrored by the migration `0002_players_chat`. Kept in its own MetaData beside the ledger's
(pokerroom.ledger.schema), with the same naming convention.
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.ledger.schema import NAMING

metadata = sa.MetaData(naming_convention=NAMING)

players = sa.Table(
    "players",
    metadata,
    sa.Column("name", sa.String(20), primary_key=True),
    sa.Column("password_hash", sa.String(255), nullable=False),
    sa.Column("is_moderator", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    ),
    sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
)

#: Every chat line, accepted or refused (C-13: the room keeps every line).
chat_lines = sa.Table(
    "chat_lines",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Column("table_id", sa.String(40), nullable=True),
    sa.Column("player", sa.String(20), nullable=False),
    sa.Column("text", sa.String(2000), nullable=False),
    sa.Column("refused", sa.String(40), nullable=True),  # the error code, or NULL if shown
    sa.Index("ix_chat_lines_table_id_at_ms", "table_id", "at_ms"),
    sa.Index("ix_chat_lines_player_at_ms", "player", "at_ms"),
)

#: Mutes: at a table (table_id) or everywhere (NULL), until `until_ms` or for good (NULL).
chat_mutes = sa.Table(
    "chat_mutes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player", sa.String(20), nullable=False),
    sa.Column("table_id", sa.String(40), nullable=True),
    sa.Column("until_ms", sa.BigInteger, nullable=True),
    sa.Column("by_player", sa.String(20), nullable=False),
    sa.Column("reason", sa.String(200), nullable=False, server_default=""),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("lifted_ms", sa.BigInteger, nullable=True),
    sa.Index("ix_chat_mutes_player", "player"),
)
