"""ClusterTournaments: a node's tournaments, resumed when it takes their lease and stopped when
it loses it (docs/design/cluster.md, "Tournaments").

The resources are the stored tournaments still to run (`registering`, `running`,
`interrupted`), as `tournament:<id>`; the list is read again before each of the node's rounds
(`refresh`). When the node takes `tournament:<id>` at an epoch, `open` runs the start-up
recovery for that one tournament (T-18, `tournaments.ops.recovery.decide_one`) on an engine
fenced by the lease: a running one is interrupted as of its last stored state and resumed
within `outage.resume_within_minutes` (each table from its last completed hand, hands in
progress void), or cancelled for outage and left to the refund job; a registering one is kept
(or cancelled, T-18.1). A tournament that goes on is rebuilt into a new actor
(`recovery.rebuild`) whose cashier and recorder write through the lease's fence, so a node that
lost the lease writes no decision, transfer or hand record. Losing the lease stops the actor at
once and writes nothing (`close`): its state is the database's, as after a crash, for the next
owner to resume. A tournament that ended (or was cancelled) leaves the list, and the node
releases its lease.

A drain or balance holds a tournament (no new hand at any of its tables, the level clock
standing still) and hands it over once no hand runs and no write of it is in flight (`idle`):
the next owner resumes it as after a restart (T-18) from the stored state, which is then every
table's last hand; nothing is void.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.cluster.leases import TOURNAMENT, resource_of
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService
from tournaments.actor.tournament import TournamentActor
from tournaments.config import TournamentConfig
from tournaments.ops import recovery

log = structlog.get_logger("pokerroom.cluster")
PREFIX = f"{TOURNAMENT}:"


class ClusterTournaments:
    """The stored tournaments as a node's resources: resume on take, stop on loss."""

    def __init__(
        self,
        clock: IReactorTime,
        ledger: LedgerService,
        build: Callable[[TournamentConfig], TournamentActor],
        *,
        opened: Callable[[TournamentActor], None] | None = None,
        closed: Callable[[TournamentActor], None] | None = None,
        cancelled: Callable[[], Deferred[Any]] | None = None,
    ) -> None:
        self.clock = clock
        self.ledger = ledger
        self._build = build  # a new actor for a config (the room's scheduler's `_actor`)
        self._opened, self._closed = opened, closed  # the room's desk and scheduler
        self._cancelled = cancelled  # runs the refund job (a tournament cancelled for outage)
        self.ids: list[str] = []  # the tournaments still to run, by id (as last read)
        self.actors: dict[str, TournamentActor] = {}  # resource -> the actor this node runs

    def resources(self) -> list[str]:
        """Every stored tournament still to run, as `tournament:<id>`, by id."""
        return [resource_of(TOURNAMENT, tid) for tid in self.ids]

    def refresh(self) -> Deferred[None]:
        """Read the tournaments still to run again (before each round of the node)."""

        def found(ids: list[str]) -> None:
            self.ids = list(ids)

        return self.ledger.read(recovery.live_ids).addCallback(found)

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """T-18 for this one tournament on the fenced engine, then its actor plays on."""
        tid = resource[len(PREFIX) :]
        now = self.clock.seconds()

        def decide(engine: Engine, tid: str, now_ms: int) -> recovery.Choice | None:
            return recovery.decide_one(fence.engine(engine), tid, now_ms)

        def refused(failure: Failure) -> Failure:
            fence.refused(failure.value)
            return failure

        d: Deferred[recovery.Choice | None] = self.ledger.write(decide, tid, round(now * 1000))
        d.addErrback(refused)

        def decided(choice: recovery.Choice | None) -> None:
            if choice is None:
                log.info("tournament_not_to_run", tournament_id=tid)
                return
            log.info(
                "tournament_recovered", tournament_id=tid, action=choice.action, why=choice.why
            )
            if choice.stored is None:  # cancelled for outage: the refund job pays it
                if self._cancelled is not None:
                    self._cancelled().addErrback(
                        lambda f: log.error("refunds_failed", error=f.getErrorMessage())
                    )
                return
            actor = self._build(choice.stored.config)
            actor.fence_with(fence)
            recovery.rebuild(actor, choice.stored, now)
            self.actors[resource] = actor
            if self._opened is not None:
                self._opened(actor)

        return d.addCallback(decided)

    def close(self, resource: str) -> None:
        """Stop the tournament on this node now and write nothing more (state as stored)."""
        actor = self.actors.pop(resource, None)
        if actor is None:
            return
        actor.give_up()
        if self._closed is not None:
            self._closed(actor)

    def hold(self, resource: str) -> None:
        """Deal no new hand at any of its tables (a drain or balance); the running ones end.
        The level clock stands still meanwhile (the floor's hold, as for a deal, T-13)."""
        actor = self.actors.get(resource)
        if actor is not None and actor.status == "running":
            actor.hold_tables()

    def idle(self, resource: str) -> bool:
        """No hand running at any of its tables and no write in flight (or not open here)."""
        actor = self.actors.get(resource)
        if actor is None or actor.status not in ("registering", "running"):
            return True
        return actor.settled_here()
