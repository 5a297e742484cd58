"""A seat's money at a cash table: which escrow transfers its stack holds (P-2), and how a
money move the ledger refused is answered to the player (P-1)."""

from __future__ import annotations

from dataclasses import dataclass, field

from twisted.python.failure import Failure

import pokerroom.cash.errors as codes
from pokerroom.ledger.errors import Busy, IdempotencyConflict, InsufficientFunds, ServiceUnavailable
from pokerroom.protocol.errors import ProtocolError


def is_amount(value: object) -> bool:
    """A positive whole number of cents (an int, not a bool)."""
    return type(value) is int and value > 0


def ledger_refusal(failure: Failure) -> Failure:
    """Money errors become protocol errors; nothing changed (P-1)."""
    if failure.check(ProtocolError):
        return failure
    if failure.check(InsufficientFunds):
        return Failure(ProtocolError(codes.INSUFFICIENT_FUNDS, "the wallet holds too little"))
    if failure.check(IdempotencyConflict):  # P-2: a client's key reused for other content
        return Failure(ProtocolError(IdempotencyConflict.code, "this key was used for another"))
    if isinstance(failure.value, ServiceUnavailable | Busy):  # an outage or load: try later
        return Failure(ProtocolError(failure.value.code, failure.value.message))
    return Failure(ProtocolError(codes.LEDGER_FAILED, f"the money move failed: {failure.value}"))


@dataclass(slots=True)
class SeatChips:
    """P-2: which of its escrow's transfers a seat's stack holds. Every transfer up to
    `counted_upto` (the buy-in, or the newest when a restart read the stacks from the escrows)
    is in it, and so is each top-up key in `credited` since. A top-up the ledger answers as
    `replayed` is put on the stack only if it is neither: the ledger's own retry found the
    first try committed (its answer lost), or an earlier try of this table failed after its
    commit. In memory only: a restart reads the stacks from the escrows again."""

    counted_upto: int
    credited: set[str] = field(default_factory=set)
