"""A finished entry of a tournament: its place, prize and who busted it (T-9, T-14)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Result:
    """One finished entry: place, prize, and who won the pot that busted them (T-9, T-14)."""

    entry: str
    place: int
    prize: int
    busted_by: tuple[str, ...]
    hand_id: str
    tied: int = 1
    batch: int = 0  # knockouts placed together (one hand, or one hand-for-hand round)
    entry_no: int = 1  # which of the player's entries finished (T-4 re-entries)
