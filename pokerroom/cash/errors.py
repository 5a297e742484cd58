"""The stable error codes the cash table answers with (P-1); docs/PROTOCOL.md lists them.

The codes of acting at any table (no_hand, cannot_check, ...) are pokerroom.table.errors's,
named here too; betting errors use the engine's codes (pokerroom.engine.errors).
"""

from __future__ import annotations

from pokerroom.table.errors import (
    BAD_ACTION as BAD_ACTION,
)
from pokerroom.table.errors import (
    CANNOT_CHECK as CANNOT_CHECK,
)
from pokerroom.table.errors import (
    INVALID_AMOUNT as INVALID_AMOUNT,
)
from pokerroom.table.errors import (
    NO_HAND as NO_HAND,
)
from pokerroom.table.errors import (
    NOT_A_CASH_TABLE as NOT_A_CASH_TABLE,
)
from pokerroom.table.errors import (
    NOT_IN_HAND as NOT_IN_HAND,
)
from pokerroom.table.errors import (
    NOT_SEATED as NOT_SEATED,
)
from pokerroom.table.errors import (
    NOTHING_TO_CALL as NOTHING_TO_CALL,
)
from pokerroom.table.errors import (
    TABLE_CLOSED as TABLE_CLOSED,
)

UNKNOWN_SEAT = "unknown_seat"  # no such seat number at this table
SEAT_TAKEN = "seat_taken"  # someone sits there
TABLE_FULL = "table_full"  # no free seat
ALREADY_SEATED = "already_seated"  # the player already sits (or is sitting down) here
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
LEDGER_FAILED = "ledger_failed"  # the money move failed; nothing changed
