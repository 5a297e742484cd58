"""ClusterSchedule: the recurring tournaments created by exactly one node of the cluster.

The schedule is one resource, `schedule:tournaments`, spread like the others: the node holding
its lease checks the schedule every `CHECK_SECONDS` and creates what is due as stored rows only
(`tournaments.ops.schedule_rows.open_due`, on an engine fenced by that lease): each MTT
`registration_open_minutes` before its start (id `<name>-<start>`), and one sit-and-go of each
kind whenever none of that kind is registering. It runs no actor: whichever node takes a new
tournament's lease opens it (ClusterTournaments). It also settles the tickets that are due
(T-16), as the one-process scheduler's check does. Losing the lease stops the checks; a write
refused by the fence (`lease_lost`) stops them at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import structlog
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from pokerroom.cluster.leases import resource_of
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService
from tournaments.actor.tickets import TicketOffice
from tournaments.config import TournamentConfig
from tournaments.ops.schedule_file import ScheduleEntry, next_start
from tournaments.ops.schedule_rows import Due, open_due

log = structlog.get_logger("pokerroom.cluster")
SCHEDULE = "schedule"
RESOURCE = resource_of(SCHEDULE, "tournaments")


class Scheduling(Protocol):
    """What the schedule host needs of the room's TournamentScheduler."""

    schedule: tuple[ScheduleEntry, ...]
    tickets: TicketOffice

    def config_for(self, entry: ScheduleEntry, tid: str, starts_at: float) -> TournamentConfig:
        """The config of tournament `tid` of `entry` starting at `starts_at`."""
        ...


def due_now(scheduling: Scheduling, now: float) -> list[Due]:
    """What the schedule wants at `now`: each MTT whose registration is open, and a new
    sit-and-go of each kind (written only if none of its kind is registering)."""
    due: list[Due] = []
    for entry in scheduling.schedule:
        if entry.sit_and_go:
            tid = f"{entry.name}-{int(now * 1000)}"
            due.append(Due(scheduling.config_for(entry, tid, now), True))
            continue
        start = next_start(entry, now)
        if start - entry.registration_open_minutes * 60 <= now:
            tid = f"{entry.name}-{int(start)}"
            due.append(Due(scheduling.config_for(entry, tid, start), False))
    return due


class ClusterSchedule:
    """The schedule as one resource: its holder creates the scheduled tournaments."""

    CHECK_SECONDS = 5.0

    def __init__(self, clock: IReactorTime, ledger: LedgerService, scheduling: Scheduling) -> None:
        self.clock = clock
        self.ledger = ledger
        self.scheduling = scheduling
        self.fence: WriteFence | None = None
        self.created: list[str] = []  # the ids this node created (for tests and logs)
        self._loop: LoopingCall | None = None
        self._checking = False

    def resources(self) -> list[str]:
        """`schedule:tournaments`, when the room has a schedule."""
        return [RESOURCE] if self.scheduling.schedule else []

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """Check the schedule now and every `CHECK_SECONDS`, fenced by the lease."""
        self.fence = fence
        self._loop = LoopingCall(self.check)
        self._loop.clock = self.clock
        self._loop.start(self.CHECK_SECONDS, now=True)
        return succeed(None)

    def check(self) -> Deferred[Any] | None:
        """Create what is due (one fenced transaction) and settle the tickets due."""
        fence = self.fence
        if fence is None or self._checking:
            return None
        self._checking = True
        now = self.clock.seconds()

        def fenced(engine: Engine, due: Sequence[Due], now_ms: int) -> list[str]:
            return open_due(fence.engine(engine), due, now_ms)

        d: Deferred[list[str]] = self.ledger.write(
            fenced, due_now(self.scheduling, now), round(now * 1000)
        )
        d.addCallbacks(self._created, self._refused, errbackArgs=(fence,))
        d.addBoth(self._checked)
        self.scheduling.tickets.sweep().addErrback(
            lambda f: log.error("ticket_sweep_failed", error=str(f.value))
        )
        return d

    def _created(self, ids: list[str]) -> None:
        for tid in ids:
            log.info("tournament_created", tournament_id=tid)
        self.created.extend(ids)

    def _refused(self, failure: Failure, fence: WriteFence) -> None:
        log.error("schedule_check_failed", error=failure.getErrorMessage())
        fence.refused(failure.value)  # lease_lost: the node stops the schedule here

    def _checked(self, _: object) -> None:
        self._checking = False

    def close(self, resource: str) -> None:
        """Stop checking (another node holds the schedule now)."""
        self.fence = None
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None

    def hold(self, resource: str) -> None:
        """Nothing to hold: the schedule is handed over between checks."""

    def idle(self, resource: str) -> bool:
        """No check in flight."""
        return not self._checking
