"""The stable error codes of acting at a table, cash or tournament (P-1); docs/PROTOCOL.md.

Betting errors also use the engine's codes (pokerroom.engine.errors): not_your_turn,
below_min_raise, above_pot_limit, not_fixed_limit_size, betting_capped, insufficient_chips,
raise_not_reopened, nothing_to_raise, fold_not_needed.
"""

from __future__ import annotations

INVALID_AMOUNT = "invalid_amount"  # not a positive int (same code as the session's)
NOT_SEATED = "not_seated"  # the request needs a seat at this table
NO_HAND = "no_hand"  # act with no hand running
NOT_IN_HAND = "not_in_hand"  # act by a seated player who was not dealt in
BAD_ACTION = "bad_action"  # not fold, check, call, bet or raise
CANNOT_CHECK = "cannot_check"  # check when facing a bet: call or fold
NOTHING_TO_CALL = "nothing_to_call"  # call with nothing to call: check
TABLE_CLOSED = "table_closed"  # the table stopped (shutdown or a database failure)
NOT_A_CASH_TABLE = "not_a_cash_table"  # sit, top_up, sit_in/out or leave at a tournament table
