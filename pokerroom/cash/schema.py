"""The cash tables' schema: hands, seats at hand boundaries, rake shares, hand histories and
their players, C-8 declines and blocks, C-10 rathole and C-4 missed-blind memory.

They live on the ledger's MetaData (one schema source); migration 0003 creates them, and
`pokerroom.cash.store` reads and writes them.
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.ledger.schema import metadata

STARTED, SETTLED, VOID = "started", "settled", "void"

cash_hands = sa.Table(
    "cash_hands",
    metadata,
    sa.Column("id", sa.String(80), primary_key=True),
    sa.Column("table_id", sa.String(40), nullable=False, index=True),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("started_at_ms", sa.BigInteger, nullable=False),
    sa.Column("start_stacks", sa.JSON, nullable=False),  # player -> chips (C-12)
    sa.Column("result", sa.JSON, nullable=True),  # final stacks and rake, before settlement
    sa.Column("ended_at_ms", sa.BigInteger, nullable=True),
)

cash_seats = sa.Table(
    "cash_seats",
    metadata,
    sa.Column("table_id", sa.String(40), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player_id", sa.String(40), nullable=False),
    sa.Column("session", sa.String(40), nullable=False),
    sa.Column("stack", sa.BigInteger, nullable=False),
    sa.Column("sat_at_ms", sa.BigInteger, nullable=False),
    sa.Column("hands_played", sa.Integer, nullable=False),
    sa.Column("timebank_ms", sa.Integer, nullable=False),
    sa.Column("sitting_out", sa.Boolean, nullable=False),
    sa.Column("missed_sb", sa.Boolean, nullable=False),
    sa.Column("missed_bb", sa.Boolean, nullable=False),
)

cash_hand_rake = sa.Table(
    "cash_hand_rake",
    metadata,
    sa.Column("hand_id", sa.String(80), primary_key=True),
    sa.Column("player_id", sa.String(40), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
)

cash_hand_histories = sa.Table(
    "cash_hand_histories",
    metadata,
    sa.Column("hand_id", sa.String(80), primary_key=True),
    sa.Column("table_id", sa.String(40), nullable=False),
    sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    sa.Column("history", sa.JSON, nullable=False),  # PHH fields, every hole card included
)

cash_hand_players = sa.Table(
    "cash_hand_players",
    metadata,
    sa.Column("player_id", sa.String(40), primary_key=True),
    sa.Column("hand_id", sa.String(80), primary_key=True),
    sa.Column("table_id", sa.String(40), nullable=False),
    sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_cash_hand_players_player_ended", "player_id", "ended_at_ms"),
)

cash_declines = sa.Table(
    "cash_declines",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.String(40), nullable=False),
    sa.Column("stakes", sa.String(40), nullable=False),
    sa.Column("table_id", sa.String(40), nullable=False),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_cash_declines_player_stakes", "player_id", "stakes", "at_ms"),
)

cash_blocks = sa.Table(
    "cash_blocks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.String(40), nullable=False),
    sa.Column("stakes", sa.String(40), nullable=False),
    sa.Column("decline_number", sa.Integer, nullable=False),
    sa.Column("until_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_cash_blocks_player_stakes", "player_id", "stakes", "until_ms"),
)

cash_rathole = sa.Table(
    "cash_rathole",
    metadata,
    sa.Column("player_id", sa.String(40), primary_key=True),
    sa.Column("stakes", sa.String(40), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("left_at_ms", sa.BigInteger, nullable=False),
)

cash_missed_blinds = sa.Table(
    "cash_missed_blinds",
    metadata,
    sa.Column("player_id", sa.String(40), primary_key=True),
    sa.Column("table_id", sa.String(40), primary_key=True),
    sa.Column("missed_sb", sa.Boolean, nullable=False),
    sa.Column("missed_bb", sa.Boolean, nullable=False),
    sa.Column("left_at_ms", sa.BigInteger, nullable=False),
)
