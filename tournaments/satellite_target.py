"""The tournament whose seats a satellite awards (T-8, T-16): part of a satellite's config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SatelliteTarget:
    """The tournament whose seats a satellite awards."""

    tournament_id: str
    buy_in: int
    fee: int
    max_entries: int = 1  # entries a player may use in the target (T-16)
    any_of_level: bool = False  # the tickets also pay any tournament of the same buy-in + fee
    ticket_valid_days: int = 30  # a ticket not used by then expires (forfeit)

    @property
    def seat_value(self) -> int:
        """What one seat is worth: the target's buy-in and fee."""
        return self.buy_in + self.fee
