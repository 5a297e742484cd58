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
# T-17 staking
STAKE_CLOSED = "stake_closed"  # offers, withdrawals and purchases end at the start
OVERSOLD = "oversold"  # more than is left of an offer, or more than 100 % of one's action offered
MARKUP_TOO_HIGH = "markup_too_high"  # above 1.20
OWN_ACTION = "own_action"  # a seller buying a share of their own action
BAD_STAKE = "bad_stake"  # a share of 0 bps or less, a markup below 1.00, a share costing 0 cents
UNKNOWN_OFFER = "unknown_offer"
# T-13 deals
DEAL_NOT_ALLOWED = "deal_not_allowed"  # off for the tournament, too many players, no final table
NOT_IN_DEAL = "not_in_deal"  # the player is not one of the remaining players of the deal
NO_DEAL = "no_deal"  # no proposal is waiting for answers
DEAL_EXPIRED = "deal_expired"  # the answer came at or after the deadline: silence is a rejection
BAD_DEAL = "bad_deal"  # a custom split not summing to the money dealt, or below the floor
# T-16, T-3 tickets
UNKNOWN_TICKET = "unknown_ticket"  # no such ticket among the player's own
TICKET_NOT_USABLE = "ticket_not_usable"  # used, converted or expired already
TICKET_EXPIRED = "ticket_expired"  # its expiry has passed
WRONG_TICKET = "wrong_ticket"  # for another tournament or buy-in level
# T-15 prize changes
PRIZES_NOT_FIXED = "prizes_not_fixed"  # the prize table is fixed once the pool is final (T-6)
PRIZE_LOWERED = "prize_lowered"  # a change never lowers a prize, nor pays less than a seat
UNBALANCED_PRIZES = "unbalanced_prizes"  # the new table does not pay out exactly the pool
BAD_PRIZES = "bad_prizes"  # a better place paying less, a finished place changed, a bad place

ALL_CODES: tuple[str, ...] = tuple(
    value for name, value in sorted(globals().items()) if name.isupper() and isinstance(value, str)
)
