"""Time banks of a tournament's players: a start amount, topped up at each new level (C-7).

The bank follows the player from table to table. It is refilled lazily: when a player's
bank is read at level `n`, every level start since the last read adds its
`timebank_add_seconds`, capped at the structure's maximum (`timebank_at_level_start`).
Players who always act at once never cost anything here.
"""

from __future__ import annotations

from tournaments.director.structure import Structure, timebank_at_level_start


class TimeBanks:
    """Per-entry time banks in milliseconds, refilled per level (C-7)."""

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        self._banks: dict[str, tuple[int, int]] = {}  # entry -> (ms, level index last seen)

    def bank_ms(self, entry: str, level_index: int) -> int:
        """The bank of `entry` at `level_index`, with every level refill since last seen."""
        structure = self.structure
        ms, seen = self._banks.get(entry, (structure.timebank_start_seconds * 1000, 0))
        seconds = ms / 1000
        for index in range(seen + 1, level_index + 1):
            # The bank keeps ms, so `seconds` has a fraction; the director's rule (add, then cap)
            # is typed for whole seconds but is the same for a float.
            level = structure.levels[index]
            seconds = timebank_at_level_start(structure, seconds, level)  # type: ignore[arg-type]
        ms = round(seconds * 1000)
        self._banks[entry] = (ms, max(seen, level_index))
        return ms

    def store(self, entry: str, ms: int) -> None:
        """What is left of the bank after a decision."""
        _, seen = self._banks.get(entry, (0, 0))
        self._banks[entry] = (max(0, ms), seen)

    def kept(self, entry: str) -> tuple[int, int] | None:
        """(ms, level index last seen) of `entry`'s bank as it stands, None if never read
        (what a resume restores, T-18)."""
        return self._banks.get(entry)

    def restore(self, entry: str, ms: int, level_index: int) -> None:
        """T-18: the bank as stored with the player's table's last completed hand."""
        self._banks[entry] = (max(0, ms), level_index)

    def forget(self, entry: str) -> None:
        """A re-entry starts with a fresh bank."""
        self._banks.pop(entry, None)
