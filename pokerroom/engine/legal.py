"""The legal action set offered to the player whose turn it is."""

from __future__ import annotations

from typing import NamedTuple


class LegalActions(NamedTuple):
    """What the acting player may do: fold, check/call `call_amount`, or raise within bounds."""

    player: int
    can_fold: bool
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None

    @property
    def can_raise(self) -> bool:
        """Whether any bet or raise is allowed."""
        return self.min_raise_to is not None
