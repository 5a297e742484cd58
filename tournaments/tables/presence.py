"""T-12: who sits out, who timed out, who is disconnected, and each drop's grace.

One `Presence` per tournament, shared by its tables, so that it follows a player who is moved
(T-10). A player is dealt in and blinded whatever their presence (T-12); what it changes:

- *asked to sit out* (`tournament_sit_out true`): the table acts for them at once, without
  the clock (fold to a bet, check otherwise), until `tournament_sit_out false`;
- *timed out* (the clock and the bank ran out): shown as sitting out, but later hands give
  them the normal clock; any action of theirs or `tournament_sit_out false` clears it;
- *disconnected*: the clock runs; from the bubble, when it runs out, the player gets the
  structure's `disconnect_extra_seconds` once for each drop, and again at each new level
  while still away (T-12 "once per level"), to come back.

Both kinds of sitting out go to the staff's report of players sitting out together
(`SitOutLog`).
"""

from __future__ import annotations

from tournaments.tables.sitout_log import SitOutLog

ASKED, TIMEOUT = "asked", "timeout"


class Presence:
    """Sitting out, timeouts and connections of one tournament's players (T-12)."""

    def __init__(self, sitouts: SitOutLog | None = None) -> None:
        self.sitouts = sitouts if sitouts is not None else SitOutLog()
        self.asked: set[str] = set()  # asked to sit out: acted for at once
        self.timed_out: set[str] = set()  # the clock ran out: the normal clock still runs
        self.disconnected: set[str] = set()
        self._drops: dict[str, int] = {}  # entry -> how many times they dropped
        self._graced: dict[str, tuple[int, int]] = {}  # entry -> (drop, level) of the last grace

    def sitting_out(self, entry: str) -> bool:
        """Shown as sitting out: asked to, or timed out."""
        return entry in self.asked or entry in self.timed_out

    def sit_out(self, entry: str, table_id: int, now: float, reason: str) -> bool:
        """`entry` sits out (`asked` or `timeout`); True if they were not sitting out before."""
        was = self.sitting_out(entry)
        (self.asked if reason == ASKED else self.timed_out).add(entry)
        if not was:
            self.sitouts.begin(entry, table_id, now)
        return not was

    def sit_in(self, entry: str, now: float) -> bool:
        """`tournament_sit_out false`: both flags go; True if they were sitting out."""
        was = self.sitting_out(entry)
        self.asked.discard(entry)
        self.timed_out.discard(entry)
        if was:
            self.sitouts.end(entry, now)
        return was

    def acted(self, entry: str, now: float) -> bool:
        """Any action clears a timeout's flag (not an asked sit-out); True if it was set."""
        if entry not in self.timed_out:
            return False
        self.timed_out.discard(entry)
        if entry not in self.asked:
            self.sitouts.end(entry, now)
            return True
        return False

    def connection(self, entry: str, connected: bool) -> None:
        """The player's session came or went; each drop earns a new grace (T-12)."""
        if connected:
            self.disconnected.discard(entry)
        elif entry not in self.disconnected:
            self.disconnected.add(entry)
            self._drops[entry] = self._drops.get(entry, 0) + 1

    def grace(self, entry: str, level_index: int, seconds: int) -> int:
        """T-12: `seconds` more for a disconnected player not yet graced in this drop and level."""
        if seconds <= 0 or entry not in self.disconnected:
            return 0
        key = (self._drops.get(entry, 0), level_index)
        if self._graced.get(entry) == key:
            return 0
        self._graced[entry] = key
        return seconds

    def restore(self, entry: str, flag: str, table_id: int, now: float) -> None:
        """T-18: a sit-out flag (`asked` or `timeout`) as stored with the player's table's
        last completed hand."""
        if flag in (ASKED, TIMEOUT):
            self.sit_out(entry, table_id, now, flag)

    def forget(self, entry: str, now: float) -> None:
        """`entry` is out of the tournament: close their sit-out interval."""
        if self.sitting_out(entry):
            self.sitouts.end(entry, now)
        self.asked.discard(entry)
        self.timed_out.discard(entry)
        self.disconnected.discard(entry)
