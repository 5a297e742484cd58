"""Stable codes of a casino table's refusals (beside the core's, `core.errors`).

A command refused raises `CasinoError(code, message)` and changes nothing (P-1).
"""

from __future__ import annotations

NOT_AT_TABLE = "not_at_table"  # the player has not joined this table
BETTING_CLOSED = "betting_closed"  # no betting window is open (K-2)
NO_DRAFT = "no_draft"  # confirm with no unconfirmed chip (K-3)
TABLE_CLOSED = "table_closed"  # closed by staff or after a void (K-7)
INSUFFICIENT_FUNDS = "insufficient_funds"  # the wallet does not cover the stakes (K-4)
KEY_REUSED = "idempotency_conflict"  # the key was used for another request (P-2)
MISSING_KEY = "missing_key"  # a money request without a key (P-2)
UNAVAILABLE = "service_unavailable"  # the ledger could not take the bet (K-5: refused)
NO_ROUND = "no_round"  # no round to void
BOX_TAKEN = "box_taken"  # blackjack: another player confirmed a bet on this box this round
DECISION_PENDING = "decision_pending"  # blackjack: a decision's stake is being posted

ALL_CODES: tuple[str, ...] = (
    NOT_AT_TABLE,
    BETTING_CLOSED,
    NO_DRAFT,
    TABLE_CLOSED,
    INSUFFICIENT_FUNDS,
    KEY_REUSED,
    MISSING_KEY,
    UNAVAILABLE,
    NO_ROUND,
    BOX_TAKEN,
    DECISION_PENDING,
)
