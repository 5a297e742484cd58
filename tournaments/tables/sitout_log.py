"""T-12: who sat out when, across every table of a tournament, for the staff's report.

Tables note when a player starts sitting out (by request, or after a timeout) and when they
come back or leave the table; `report` hands the intervals to the director's
`repeated_sitouts`, which lists the players sitting out together repeatedly.
"""

from __future__ import annotations

from tournaments.director.sitouts import SitOut, SitOutPair, repeated_sitouts


class SitOutLog:
    """Sit-out intervals of one tournament's players."""

    def __init__(self) -> None:
        self.closed: list[SitOut] = []
        self._open: dict[str, tuple[int, float]] = {}  # entry -> (table id, since)

    def begin(self, entry: str, table_id: int, now: float) -> None:
        """`entry` starts sitting out (nothing if already)."""
        self._open.setdefault(entry, (table_id, now))

    def end(self, entry: str, now: float) -> None:
        """`entry` is back, or left the table."""
        started = self._open.pop(entry, None)
        if started is not None:
            self.closed.append(SitOut(entry, started[0], started[1], now))

    def report(
        self, now: float, min_times: int = 3, min_overlap_seconds: float = 30
    ) -> list[SitOutPair]:
        """T-12: pairs sitting out together at least `min_times` times (each time for at least
        `min_overlap_seconds`), open intervals counted to now."""
        current = [SitOut(e, t, since, now) for e, (t, since) in self._open.items()]
        return repeated_sitouts(self.closed + current, min_times, min_overlap_seconds)

    def sitting_out(self) -> list[str]:
        """Who sits out now."""
        return sorted(self._open)
