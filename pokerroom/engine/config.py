"""The fixed terms of one hand: variant, stacks, forced bets, limits and rake."""

from __future__ import annotations

from dataclasses import dataclass

import pokerroom.engine.errors as errors
from pokerroom.engine.variants import Betting, Variant


def _is_amount(value: object) -> bool:
    """True for a non-negative int that is not a bool (money and chips are ints)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class HandConfig:
    """Everything fixed before the first card of a hand.

    Players are indexed in position order: index 0 sits first to the left of the
    button and acts first after the flop; heads-up, index 0 is the big blind and
    index 1 the button, who posts the small blind (the PHH convention).
    `blinds_or_straddles[i]` is player i's live positional blind; `live_posts`
    and `dead_posts` are the entry and missed-blind posts of C-2 and C-4.
    """

    variant: Variant
    starting_stacks: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    antes: tuple[int, ...] = ()
    min_bet: int = 0
    small_bet: int = 0
    big_bet: int = 0
    max_bets_per_street: int | None = 4
    live_posts: tuple[int, ...] = ()
    dead_posts: tuple[int, ...] = ()
    rake_bps: int = 0
    rake_cap: int = 0
    rake_without_flop: bool = False
    ante_trimming: bool = False  # PHH: antes are live and trimmed to the second-largest

    def __post_init__(self) -> None:
        n = len(self.starting_stacks)
        if n < 2:
            raise errors.EngineError(errors.BAD_CONFIG, "a hand needs at least two players")
        if n * self.variant.hole_cards + sum(self.variant.board_deals) > 52:
            raise errors.EngineError(errors.BAD_CONFIG, "too many players for one deck")
        for name in ("blinds_or_straddles", "antes", "live_posts", "dead_posts"):
            values = getattr(self, name)
            # Only the positional blinds are required (zeros where none); the rest may be empty.
            if (values or name == "blinds_or_straddles") and len(values) != n:
                raise errors.EngineError(
                    errors.BAD_CONFIG, f"{name} must have one entry per player"
                )
            if not all(_is_amount(v) for v in values):
                raise errors.EngineError(errors.BAD_CONFIG, f"{name} must be non-negative ints")
        if not all(_is_amount(s) and s > 0 for s in self.starting_stacks):
            raise errors.EngineError(
                errors.BAD_CONFIG, "every starting stack must be a positive int"
            )
        for name in ("min_bet", "small_bet", "big_bet", "rake_bps", "rake_cap"):
            if not _is_amount(getattr(self, name)):
                raise errors.EngineError(errors.BAD_CONFIG, f"{name} must be a non-negative int")
        if self.variant.betting is Betting.FIXED_LIMIT:
            if self.small_bet <= 0 or self.big_bet <= 0:
                raise errors.EngineError(
                    errors.BAD_CONFIG, "fixed limit needs small_bet and big_bet"
                )
        elif self.min_bet <= 0:
            raise errors.EngineError(errors.BAD_CONFIG, "no-limit and pot-limit need min_bet")
        if self.rake_bps > 10_000:
            raise errors.EngineError(errors.BAD_CONFIG, "rake cannot exceed 100 %")

    @property
    def player_count(self) -> int:
        """How many players are dealt in."""
        return len(self.starting_stacks)
