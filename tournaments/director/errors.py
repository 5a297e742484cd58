"""Domain errors of the tournament director, each with a stable code (RULES P-1)."""

from __future__ import annotations

from pokerroom.errors import CodedError


class DirectorError(CodedError):
    """A request the director refuses; `code` is stable, `message` is for people."""


# The stable codes, in one place so that the protocol document can list them.
BAD_STRUCTURE = "bad_structure"
BAD_PAYOUT_SETTINGS = "bad_payout_settings"
REGISTRATION_NOT_OPEN = "registration_not_open"
REGISTRATION_CLOSED = "registration_closed"
ALREADY_REGISTERED = "already_registered"
NOT_REGISTERED = "not_registered"
TOURNAMENT_FULL = "tournament_full"
INSUFFICIENT_FUNDS = "insufficient_funds"
UNREGISTER_CLOSED = "unregister_closed"
TICKET_NOT_REFUNDABLE = "ticket_not_refundable"
NOT_ALLOWED = "not_allowed"
PERIOD_CLOSED = "period_closed"
LIMIT_REACHED = "limit_reached"
STILL_IN_PLAY = "still_in_play"
NOT_BUSTED = "not_busted"
STACK_TOO_BIG = "stack_too_big"
NO_SEAT = "no_seat"

ALL_CODES: tuple[str, ...] = tuple(
    value for name, value in sorted(globals().items()) if name.isupper() and isinstance(value, str)
)
