"""The staff's controls of a tournament floor: a pause, added time, and work at a hand boundary.

A mixin of `Floor` (docs/ADMIN.md, tournament commands):

- **Pause** (T-11's operator pause): no table deals a new hand, the hands in play finish, and
  the level clock stands still until the resume (the pause is added to `paused_total`).
- **Added time** (`add_time`): the current level lasts that many seconds longer. The level clock
  stands still for that long while play goes on (a *hold*), so no level or break is skipped or
  played twice; the level's end, as shown and as stored, moves at once.
- **Boundary work**: what must wait until a table is between hands (a staff move, a chip
  correction, a disqualification; T-10) runs at once at a table between hands, otherwise right
  after its running hand ends, before that hand's knockouts are placed and before its next
  hand. Boundary work may hand back knockouts (a disqualification), placed with the hand's own.

Neither the pause nor a hold may start on a break (docs/TOURNAMENTS.md: a pause overlapping a
clock break would count twice). Nothing here writes: the actor stores what staff decide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from tournaments.director.structure import BreakMode, LevelStatus, level_at

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.director.eliminations import Knockout
    from tournaments.director.structure import Structure
    from tournaments.tables.knockouts import HandResult
    from tournaments.tables.table import TournamentTable

#: Work at a table's hand boundary: runs with the table, returns knockouts to place (or none).
BoundaryWork = Callable[["TournamentTable"], "list[Knockout]"]


class FloorControls:
    """The pause, added time and boundary work of a `Floor` (see the module docstring)."""

    if TYPE_CHECKING:  # what the mixin uses of its Floor (set in Floor.__init__)
        clock: IReactorTime
        structure: Structure
        started_at: float
        paused_total: float
        running: bool
        tables: dict[int, TournamentTable]
        _status: LevelStatus | None

        def _kick(self, table: TournamentTable) -> None:
            """Deal at `table` soon if it is idle."""

        def _rebalance(self, finished: TournamentTable | None = None) -> None:
            """Apply the balancing moves due now (T-10)."""

        on_knockouts: Callable[[list[Knockout]], None]

    paused_since: float | None = None  # the staff pause began then (None: not paused)
    hold_start: float = 0.0  # added time: the clock stands still from hold_start ...
    hold_end: float = 0.0  # ... to hold_end (no hold when they are equal)
    pending_hold: float = 0.0  # time added during a pause: held from the resume
    _due: dict[int, list[BoundaryWork]] | None = None

    # ------------------------------------------------------------------ the level clock

    @property
    def paused(self) -> bool:
        """A staff pause is on: no table deals a new hand."""
        return self.paused_since is not None

    def clock_held(self, now: float) -> bool:
        """The level clock stands still now (a pause or added time); an ended hold is folded
        into `paused_total` first."""
        if self.hold_end > self.hold_start and now >= self.hold_end:
            self.paused_total += self.hold_end - self.hold_start
            self.hold_start = self.hold_end = 0.0
            self._status = None
        return self.paused_since is not None or self.hold_end > self.hold_start

    def held_level(self, now: float) -> LevelStatus:
        """The level while the clock stands still: as when it stopped, its end (and, on the
        tournament clock, the next break) moved by the time it still stands still."""
        if self.paused_since is not None:
            stopped, shift = now - self.paused_since, self.pending_hold
        else:
            stopped, shift = now - self.hold_start, self.hold_end - now
        status = level_at(self.structure, self.started_at, now, self.paused_total + stopped)
        ends = None if status.ends_at is None else status.ends_at + shift
        next_break = status.next_break_at
        if next_break is not None and self.structure.breaks.mode is not BreakMode.CLOCK:
            next_break += shift
        return replace(status, ends_at=ends, next_break_at=next_break)

    def pause(self) -> None:
        """Stop dealing and the level clock (the hands in play finish)."""
        now = self.clock.seconds()
        self.clock_held(now)
        if self.hold_end > self.hold_start:  # a hold in progress: its rest waits for the resume
            self.paused_total += now - self.hold_start
            self.pending_hold += self.hold_end - now
            self.hold_start = self.hold_end = 0.0
        self.paused_since = now
        self._status = None

    def resume(self) -> None:
        """Deal again; the level clock runs on from where it stopped (time added meanwhile is
        held from now)."""
        since = self.paused_since
        if since is None:
            return
        now = self.clock.seconds()
        self.paused_total += now - since
        self.paused_since = None
        if self.pending_hold:
            self.hold_start, self.hold_end = now, now + self.pending_hold
            self.pending_hold = 0.0
        self._status = None
        if self.running:
            for table in list(self.tables.values()):
                self._kick(table)

    def add_time(self, seconds: float) -> None:
        """The current level lasts `seconds` longer (the clock stands still that long)."""
        now = self.clock.seconds()
        self.clock_held(now)
        if self.paused_since is not None:
            self.pending_hold += seconds
        elif self.hold_end > self.hold_start:
            self.hold_end += seconds
        else:
            self.hold_start, self.hold_end = now, now + seconds
        self._status = None

    # ------------------------------------------------------------------ boundary work

    def when_between_hands(self, table: TournamentTable, work: BoundaryWork) -> None:
        """Run `work` at `table` now if it is between hands, else after its running hand."""
        if not table.hand_running:
            knockouts = work(table)
            if knockouts:
                self.on_knockouts(knockouts)
                if self.running:
                    self._rebalance(table)
            if self.running and table.table_id in self.tables:
                self._kick(table)
            return
        if self._due is None:
            self._due = {}
        self._due.setdefault(table.table_id, []).append(work)

    def at_boundary(self, table: TournamentTable, result: HandResult) -> HandResult:
        """A hand ended at `table`: run the work waiting for it; its knockouts join the hand's."""
        waiting = None if self._due is None else self._due.pop(table.table_id, None)
        if not waiting:
            return result
        extra: list[Knockout] = []
        for work in waiting:
            extra.extend(work(table))
        if not extra:
            return result
        return replace(result, knockouts=(*result.knockouts, *extra))

    def drop_boundary_work(self) -> int:
        """Forget the work still waiting (the tournament stopped); how much there was."""
        waiting = 0 if self._due is None else sum(len(ws) for ws in self._due.values())
        self._due = None
        return waiting
