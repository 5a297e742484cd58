"""Domain errors of the engine, each with a stable code (RULES P-1)."""

from __future__ import annotations

from pokerroom.errors import CodedError


class EngineError(CodedError):
    """An illegal request to the engine; `code` is stable, `message` is for people."""


# The stable codes, in one place so that the protocol document can list them.
NOT_YOUR_TURN = "not_your_turn"
HAND_OVER = "hand_over"
NOT_BETTING = "not_betting"
NOT_DEALING = "not_dealing"
NOT_SHOWDOWN = "not_showdown"
UNKNOWN_PLAYER = "unknown_player"
INVALID_AMOUNT = "invalid_amount"
BELOW_MIN_RAISE = "below_min_raise"
ABOVE_POT_LIMIT = "above_pot_limit"
NOT_FIXED_LIMIT_SIZE = "not_fixed_limit_size"
BETTING_CAPPED = "betting_capped"
RAISE_NOT_REOPENED = "raise_not_reopened"
NOTHING_TO_RAISE = "nothing_to_raise"
INSUFFICIENT_CHIPS = "insufficient_chips"
FOLD_NOT_NEEDED = "fold_not_needed"
BAD_CARDS = "bad_cards"
CARD_ALREADY_DEALT = "card_already_dealt"
WRONG_CARD_COUNT = "wrong_card_count"
ALREADY_SHOWN = "already_shown"
BAD_CONFIG = "bad_config"
UNSUPPORTED_VARIANT = "unsupported_variant"
BAD_HISTORY = "bad_history"
BAD_ACTION = "bad_action"
INCOMPLETE_HAND = "incomplete_hand"

ALL_CODES: tuple[str, ...] = tuple(
    value for name, value in sorted(globals().items()) if name.isupper() and isinstance(value, str)
)
