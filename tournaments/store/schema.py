"""The tournament tables (listed in `pokerroom.schema.all_metadata()`), their statuses and
the store's error."""

from __future__ import annotations

import enum

import sqlalchemy as sa

from pokerroom.ledger.schema import NAMING

metadata = sa.MetaData(naming_convention=NAMING)

# Statuses: registering -> running -> finished; running -> interrupted -> running (resumed) or
# -> cancelled -> refunded. A tournament cancelled before it started goes registering -> cancelled.
REGISTERING = "registering"
RUNNING = "running"
FINISHED = "finished"
INTERRUPTED = "interrupted"
CANCELLED = "cancelled"
REFUNDED = "refunded"
STATUSES = (REGISTERING, RUNNING, FINISHED, INTERRUPTED, CANCELLED, REFUNDED)

# Entry statuses.
ALIVE = "alive"  # registered, or playing with chips
BUSTED = "busted"
UNREGISTERED = "unregistered"  # T-3: money already given back; counts for nothing


class CancelReason(enum.StrEnum):
    """Why a tournament was cancelled (T-1, T-18)."""

    OUTAGE = "outage"  # not back within outage.resume_within_minutes
    TOO_FEW_PLAYERS = "too_few_players"  # T-1: fewer than two entries at the start
    STAFF = "staff"  # T-1: the operator cancelled it


tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("template", sa.String(80), nullable=False),
    sa.Column("config", sa.JSON, nullable=False),  # the config it started with
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("cancel_reason", sa.String(20), nullable=True),
    sa.Column("decision", sa.String(500), nullable=False, server_default=""),
    sa.Column("fee_refund", sa.String(16), nullable=False, server_default="live_entry"),
    sa.Column("guarantee", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("guarantee_dropped", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("overlay_posted", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("prizes", sa.JSON, nullable=True),  # the fixed table: {"pool", "amounts", ...}
    sa.Column("level_index", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("level_ms_left", sa.BigInteger, nullable=True),
    sa.Column("created_at_ms", sa.BigInteger, nullable=False),
    sa.Column("started_at_ms", sa.BigInteger, nullable=True),
    sa.Column("stopped_at_ms", sa.BigInteger, nullable=True),  # interrupted, finished, cancelled
    sa.Column("refunded_at_ms", sa.BigInteger, nullable=True),
    # T-14: the bubble has burst (deferred bounties paid), and bounty settlements so far (keys)
    sa.Column("bounty_burst", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("bounty_serial", sa.Integer, nullable=False, server_default=sa.text("0")),
    # T-15: what the house added to the pool by prize changes (T-18 treats it as overlay)
    sa.Column("prize_added", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    # T-18 (migration 0008): when the running tournament's state was last written; after a
    # crash, the outage is measured from it (outage.resume_within_minutes)
    sa.Column("saved_at_ms", sa.BigInteger, nullable=True),
    # T-18 (migration 0010): a staff pause stands through a restart; how many times the
    # tournament resumed (hand ids after a resume carry it: never two hands with one id)
    sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("resumes", sa.Integer, nullable=False, server_default=sa.text("0")),
    # (migration 0013) the deal in the making as JSON, "" when none: a restart voids it and
    # tells its players
    sa.Column("deal_pending", sa.Text, nullable=False, server_default=""),
    sa.Index("ix_tournaments_status", "status"),
)

tournament_entries = sa.Table(
    "tournament_entries",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("entry_no", sa.Integer, primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("place", sa.Integer, nullable=True),
    sa.Column("prize", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("bounty", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("bounty_won", sa.BigInteger, nullable=False, server_default=sa.text("0")),
)

tournament_payments = sa.Table(
    "tournament_payments",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # the player's purchases, 1, 2, ...
    sa.Column("entry_no", sa.Integer, nullable=False),  # the entry the purchase is for
    sa.Column("kind", sa.String(12), nullable=False),  # entry, reentry, rebuy, addon
    sa.Column("funding", sa.String(12), nullable=False),  # cash, tdollars, ticket
    sa.Column("ticket_id", sa.String(80), nullable=False, server_default=""),
    sa.Column("buy_in", sa.BigInteger, nullable=False),  # to the prize pool
    sa.Column("fee", sa.BigInteger, nullable=False),  # to the house
    sa.Column("bounty", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("chips", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("ledger_key", sa.String(200), nullable=True),  # the transfer that paid it
)

tournament_seats = sa.Table(
    "tournament_seats",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("table_id", sa.String(40), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("entry_no", sa.Integer, nullable=False),
    sa.Column("stack", sa.BigInteger, nullable=False),
    sa.Column("hand_number", sa.Integer, nullable=False),  # the table's last completed hand
    # T-18 (migration 0010), as of that hand: the table's button and blinds
    # ("button,small blind,big blind,heads up"; "" before the first hand), the player's time
    # bank (ms, and the level it was last topped up at; null: untouched) and sit-out flag
    # ("asked", "timeout" or "")
    sa.Column("table_state", sa.String(40), nullable=False, server_default=""),
    sa.Column("bank_ms", sa.BigInteger, nullable=True),
    sa.Column("bank_level", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("sitting_out", sa.String(8), nullable=False, server_default=""),
    sa.UniqueConstraint("tournament_id", "player", name="uq_tournament_seats_player"),
)

tournament_refunds = sa.Table(
    "tournament_refunds",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),  # HOUSE_ROW for the house's parts
    sa.Column("component", sa.String(20), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("source", sa.String(200), nullable=False),  # kind:owner:currency
    sa.Column("destinations", sa.JSON, nullable=False),  # [[kind:owner:currency, amount], ...]
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
    sa.Column("planned_at_ms", sa.BigInteger, nullable=False),
    sa.Column("paid_at_ms", sa.BigInteger, nullable=True),
    sa.Column("transfer_id", sa.BigInteger, nullable=True),
    sa.Column("error", sa.String(500), nullable=True),  # the last refusal, for the staff
)

tournament_tickets = sa.Table(
    "tournament_tickets",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("owner", sa.String(40), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("buy_in", sa.BigInteger, nullable=False),
    sa.Column("fee", sa.BigInteger, nullable=False),
    sa.Column("target", sa.String(40), nullable=False, server_default=""),
    sa.Column("any_of_level", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("source", sa.String(40), nullable=False, server_default=""),
    sa.Column("state", sa.String(12), nullable=False),
    sa.Column("used_in", sa.String(40), nullable=False, server_default=""),
    sa.Column("issued_at_ms", sa.BigInteger, nullable=False),
    sa.Column("expires_at_ms", sa.BigInteger, nullable=False),
    sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_tournament_tickets_owner", "owner"),
    sa.Index("ix_tournament_tickets_state_expires", "state", "expires_at_ms"),
    sa.Index("ix_tournament_tickets_target", "target"),
)

tournament_prize_changes = sa.Table(
    "tournament_prize_changes",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("changed_by", sa.String(40), nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Column("old", sa.JSON, nullable=False),  # the prize table before
    sa.Column("new", sa.JSON, nullable=False),  # and after
    sa.Column("added", sa.BigInteger, nullable=False),  # from the house overlay account
    sa.Column("cash_places", sa.JSON, nullable=False),  # seat places paid in cash (T-15)
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
)

tournament_hand_histories = sa.Table(
    "tournament_hand_histories",
    metadata,
    # (migration 0014) each completed hand's record as the cash tables keep theirs
    # (`cash_hand_histories`): PHH fields with every hole card, and the tournament's own
    # underscore fields (docs/HISTORIES.md); written in the unit of the hand's seats (T-18)
    sa.Column("hand_id", sa.String(80), primary_key=True),
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), nullable=False),
    sa.Column("table_id", sa.String(48), nullable=False),  # as clients see it: `<tid>.<n>`
    sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    sa.Column("history", sa.JSON, nullable=False),
)

tournament_hand_players = sa.Table(
    "tournament_hand_players",
    metadata,
    # (migration 0014) who was dealt into each stored hand: a player reads only these (C-15).
    # No primary key: a row is written only with its hand's new record (whose key is unique),
    # and one index fewer is one page fewer to write per player and hand (PERFORMANCE.md)
    sa.Column("player_id", sa.String(40), nullable=False),
    sa.Column("hand_id", sa.String(80), nullable=False),
    sa.Column("tournament_id", sa.String(40), nullable=False),
    sa.Column("table_id", sa.String(48), nullable=False),
    sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_tournament_hand_players_player_ended", "player_id", "ended_at_ms"),
)

#: The `player` of the refund rows that move the rest of the pool to the house (T-7, T-18).
HOUSE_ROW = "house"


class StoreError(Exception):
    """The stored state is missing or cannot be what a tournament was in (never guessed)."""
