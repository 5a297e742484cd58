"""The argument fields every admin command module shares: a table, a player, a reason."""

from __future__ import annotations

from pokerroom.admin.commands import arg
from pokerroom.ledger.transfers import MAX_AMOUNT
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError

KEY_RE = f.TABLE_ID_RE


def signed_amount(name: str, value: object) -> int:
    """A non-zero whole number of cents, at most 10^12 either way; else `invalid_amount`."""
    if not f.is_int(value) or value == 0 or abs(value) > min(f.MAX_AMOUNT, MAX_AMOUNT):
        raise ProtocolError(
            errors.INVALID_AMOUNT,
            f"{name} must be a non-zero whole number of cents, got {errors.excerpt(value)}",
        )
    return value


TABLE = arg(f.pattern(f.TABLE_ID_RE), "the table, as the lobby lists it")
PLAYER = arg(f.player_name, "the player's name")
REASON = arg(f.text(500), "why: kept in the audit row (required)")
NOTE = arg(f.text(500), "why: kept in the audit row", default="")
