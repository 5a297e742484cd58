"""The casino tables' rows (migrations 0011_casino and 0015_casino_records mirror this).

casino_rounds  one row per round (K-1): its table, game, currency, status (`open` until it
               settles or is voided, L-3, L-5), when betting opened, when the round was due to
               be drawn (the interruption time of K-11 if it never is), its outcome and summary
               (what players see once it ended) and its `audit` record (RNG-9, JSON written
               with the settlement, never sent to players: shoe, burned cards, positions, the
               cards dealt in order, blackjack decisions with their times, pool and cap).
casino_bets    one row per confirmed bet (K-3), written in the placement's transaction (L-2),
               with the time the table accepted it (`confirmed_ms`, RNG-9).
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

OPEN = "open"
SETTLED = "settled"
VOID = "void"

casino_rounds = sa.Table(
    "casino_rounds",
    metadata,
    sa.Column("id", sa.String(80), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False, index=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("opened_ms", sa.BigInteger(), nullable=False),
    sa.Column("due_ms", sa.BigInteger(), nullable=False),
    sa.Column("ended_ms", sa.BigInteger(), nullable=True),
    sa.Column("outcome", sa.Text(), nullable=False, server_default=""),
    sa.Column("summary", sa.Text(), nullable=False, server_default=""),
    sa.Column("reason", sa.String(200), nullable=False, server_default=""),
    sa.Column("audit", sa.Text(), nullable=False, server_default=""),
)

casino_bets = sa.Table(
    "casino_bets",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("round_id", sa.String(80), nullable=False, index=True),
    sa.Column("player", sa.String(64), nullable=False, index=True),
    sa.Column("spot", sa.String(64), nullable=False),
    sa.Column("stake", sa.BigInteger(), nullable=False),
    sa.Column("transfer_key", sa.String(200), nullable=False),
    sa.Column("confirmed_ms", sa.BigInteger(), nullable=False, server_default="0"),
    sa.CheckConstraint("stake > 0", name="ck_casino_bets_stake_positive"),
)
