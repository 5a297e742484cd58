"""Refusals of the casino core, each with a stable code (P-1; docs/CASINO_RULES.md K-5, R-5)."""

from __future__ import annotations

from pokerroom.errors import CodedError


class CasinoError(CodedError):
    """An illegal bet or decision: `code` is stable for clients and logs, `message` for people."""


# The stable codes, in one place so that the protocol document can list them.
UNKNOWN_SPOT = "unknown_spot"  # no such bet on this table (R-5, B-16)
SPOT_CLOSED = "spot_closed"  # a spot the table does not offer now (B-14 after round 35, B-12)
INVALID_STAKE = "invalid_stake"  # a stake that is not a positive whole number of minor units
BELOW_MINIMUM = "below_minimum"  # K-5
ABOVE_MAXIMUM = "above_maximum"  # K-5
BAD_CARDS = "bad_cards"  # a card that cannot be read or a shoe that is not a set of decks
SHOE_EXHAUSTED = "shoe_exhausted"  # a card needed past the last card of the shoe
SHOE_FINISHED = "shoe_finished"  # a round started after the cut-card round (B-18, K-21)
BAD_OUTCOME = "bad_outcome"  # an outcome that cannot occur (a pocket off the wheel, a die of 7)
BAD_CONFIG = "bad_config"  # a pay table or setting the core cannot use
NOT_YOUR_TURN = "not_your_turn"  # blackjack: another box or hand decides now (BJ-9)
WRONG_PHASE = "wrong_phase"  # blackjack: the decision is not offered in this phase
NOT_ALLOWED = "not_allowed"  # blackjack: the decision is not allowed on this hand (BJ-10..13)
UNKNOWN_BOX = "unknown_box"  # blackjack: no such box in the round
ROUND_OVER = "round_over"  # blackjack: the round has no decision left

ALL_CODES: tuple[str, ...] = tuple(
    value for name, value in sorted(globals().items()) if name.isupper() and isinstance(value, str)
)
