"""The stable error codes the cash table answers with (P-1); docs/PROTOCOL.md lists them.

Betting errors also use the engine's codes (pokerroom.engine.errors): not_your_turn,
below_min_raise, above_pot_limit, not_fixed_limit_size, betting_capped, insufficient_chips,
raise_not_reopened, nothing_to_raise, fold_not_needed.
"""

from __future__ import annotations

INVALID_AMOUNT = "invalid_amount"  # not a positive int of cents (same code as the session's)
UNKNOWN_SEAT = "unknown_seat"  # no such seat number at this table
SEAT_TAKEN = "seat_taken"  # someone sits there
TABLE_FULL = "table_full"  # no free seat
ALREADY_SEATED = "already_seated"  # the player already sits (or is sitting down) here
NOT_SEATED = "not_seated"  # the request needs a seat at this table
STILL_SEATED = "still_seated"  # unobserve while seated: leave first
BUY_IN_OUT_OF_RANGE = "buy_in_out_of_range"  # C-9: outside [min, max]; details min, max
RATHOLE_MINIMUM = "rathole_minimum"  # C-10: must bring at least what was taken; details minimum
BLOCKED = "blocked"  # C-8: hit-and-run block at this blind level; details until_ms
INSUFFICIENT_FUNDS = "insufficient_funds"  # the wallet holds less than the buy-in
ABOVE_TABLE_MAX = "above_table_max"  # C-9: a top-up past the table maximum; details max_add
ALREADY_SITTING_OUT = "already_sitting_out"  # C-3
NOT_SITTING_OUT = "not_sitting_out"  # C-3
NO_CHIPS = "no_chips"  # sit_in with an empty stack: top up first
LEAVING = "leaving"  # the player already asked to leave
NO_HAND = "no_hand"  # act with no hand running
NOT_IN_HAND = "not_in_hand"  # act by a seated player who was not dealt in
BAD_ACTION = "bad_action"  # not fold, check, call, bet or raise
CANNOT_CHECK = "cannot_check"  # check when facing a bet: call or fold
NOTHING_TO_CALL = "nothing_to_call"  # call with nothing to call: check
TABLE_CLOSED = "table_closed"  # the table stopped (shutdown or a database failure)
LEDGER_FAILED = "ledger_failed"  # the money move failed; nothing changed
