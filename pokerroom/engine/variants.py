"""The game variants the engine plays, named by their PHH codes (NT, PO, FT)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Betting(Enum):
    """How bet sizes are limited."""

    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"
    FIXED_LIMIT = "fixed_limit"


@dataclass(frozen=True, slots=True)
class Variant:
    """A poker variant: hole cards, board streets, betting limit and hand evaluation."""

    code: str
    name: str
    hole_cards: int
    betting: Betting
    omaha: bool  # exactly two hole cards and three board cards make the hand
    board_deals: tuple[int, ...] = (0, 3, 1, 1)  # cards dealt to the board before each street


NO_LIMIT_HOLDEM = Variant("NT", "No-limit Texas hold'em", 2, Betting.NO_LIMIT, omaha=False)
POT_LIMIT_OMAHA = Variant("PO", "Pot-limit Omaha", 4, Betting.POT_LIMIT, omaha=True)
FIXED_LIMIT_HOLDEM = Variant("FT", "Fixed-limit Texas hold'em", 2, Betting.FIXED_LIMIT, omaha=False)

VARIANTS: dict[str, Variant] = {
    v.code: v for v in (NO_LIMIT_HOLDEM, POT_LIMIT_OMAHA, FIXED_LIMIT_HOLDEM)
}
