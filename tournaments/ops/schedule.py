"""The recurring schedule of sit-and-gos and MTTs (`config/tournaments/schedule/`), as a service.

`TournamentScheduler` keeps one sit-and-go of each kind open for registration (a full one
starts and a new one opens, T-1) and opens each scheduled MTT `registration_open_minutes` before
its start. It checks on a `LoopingCall` of the injected reactor (deadlines, not ticks: a late
check still opens what is due). Actors that ended are kept in `finished` for the lobby.

In `pokerroom serve` (`recover=True`) it first recovers the stored tournaments (T-18,
`tournaments.ops.recovery`): running ones resume or are cancelled for outage, registering ones are
kept or cancelled; only then does it open anything (`recovered` fires once done), so a kept
MTT is not opened twice. Cancelled tournaments are refunded by the refund job (`refunds`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import structlog
from twisted.application.service import Service
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall

from pokerroom.ledger import LedgerService
from tournaments.actor.tickets import TicketOffice
from tournaments.actor.tournament import TournamentActor
from tournaments.config import TournamentConfig, make_config
from tournaments.director.structure import Structure
from tournaments.ops import recovery
from tournaments.ops.schedule_file import SCHEDULE_FILE as SCHEDULE_FILE
from tournaments.ops.schedule_file import SatelliteEntry as SatelliteEntry
from tournaments.ops.schedule_file import Schedule as Schedule
from tournaments.ops.schedule_file import ScheduleEntry as ScheduleEntry
from tournaments.ops.schedule_file import load_schedule as load_schedule
from tournaments.ops.schedule_file import load_schedule_file as load_schedule_file
from tournaments.ops.schedule_file import next_start as next_start
from tournaments.ops.schedule_file import parse_schedule as parse_schedule
from tournaments.satellite_target import SatelliteTarget
from tournaments.tables.floor import Players
from tournaments.templates import load_structures

log = structlog.get_logger("tournaments.schedule")


class TournamentScheduler(Service):
    """Opens the scheduled tournaments and keeps their actors."""

    name = "tournaments"
    CHECK_SECONDS = 30.0

    def __init__(
        self,
        reactor: IReactorTime,
        ledger: LedgerService,
        schedule: Sequence[ScheduleEntry],
        structures: Mapping[str, Structure] | None = None,
        players: Players | None = None,
        currency: str = "USD",
        on_change: Callable[[TournamentActor, str], None] | None = None,
        recover: bool = False,
        refunds: Callable[[], Deferred[Any]] | None = None,
        cluster: bool = False,
    ) -> None:
        self.reactor = reactor
        #: Cluster mode: this service opens and recovers nothing; the node creates the
        #: scheduled tournaments (pokerroom/cluster/schedule.py) and opens those whose lease it
        #: takes (pokerroom/cluster/tournaments.py) with `config_for` and `actor_for`.
        self.cluster = cluster
        #: Told when a tournament opens, starts, changes level, loses players or ends (the
        #: desk's `changed`: `tournament_status` and `tournament_lobby_update`).
        self.on_change = on_change
        self.ledger = ledger
        self.schedule = tuple(schedule)
        self.structures = dict(structures or load_structures())
        self.players = players
        self.currency = currency
        self.rng = secrets.SystemRandom()  # T-1 seat draws, C-15 shuffles
        self.actors: dict[str, TournamentActor] = {}
        self.finished: dict[str, TournamentActor] = {}
        self._loop = LoopingCall(self.check)
        self._loop.clock = reactor
        #: The room's tickets (T-16): satellites issue them, entries use them, players list
        #: them (`tickets`); `check` also expires those due and follows cancelled targets.
        self.tickets = TicketOffice(ledger, reactor, currency)
        self.recover = recover
        #: Runs the refund job now (the room's JobService); cancelled tournaments need it.
        self.refunds = refunds
        #: Fires once the stored tournaments are recovered (at once without `recover`).
        self.recovered: Deferred[recovery.Recovery] = succeed(recovery.Recovery())

    def startService(self) -> None:
        """Check the schedule now and every `CHECK_SECONDS`."""
        # Named, not super(): Twisted's Service is unannotated, and mypy's untyped_calls_exclude
        # (pyproject) matches a call by the base's name but does not see through super().
        Service.startService(self)
        if self.cluster:
            return
        if not self.recover:
            self._loop.start(self.CHECK_SECONDS, now=True)
            return
        self.recovered = self._recover()

        def opening(result: recovery.Recovery) -> recovery.Recovery:
            if self.running:
                self._loop.start(self.CHECK_SECONDS, now=True)
            return result

        self.recovered.addCallback(opening)

    @inlineCallbacks
    def _recover(self) -> Generator[Deferred[Any], Any, recovery.Recovery]:
        """T-18 at start-up: decide each stored tournament, rebuild those that go on."""
        now = self.reactor.seconds()
        found: recovery.Recovery = yield self.ledger.write(recovery.decide, round(now * 1000))
        for tid, error in found.errors:
            log.error("tournament_not_recovered", tournament_id=tid, error=error)
        for choice in found.choices:
            log.info(
                "tournament_recovered",
                tournament_id=choice.tournament_id,
                action=choice.action,
                why=choice.why,
            )
            if choice.stored is None:
                continue
            actor = self._actor(choice.stored.config)
            recovery.rebuild(actor, choice.stored, now)
            self.actors[actor.tid] = actor
            if self.on_change is not None:
                self.on_change(actor, "opened")
        if found.cancelled and self.refunds is not None:
            self.refunds().addErrback(lambda f: log.error("refunds_failed", error=str(f.value)))
        return found

    def stopService(self) -> None:
        """No more openings; every table stops dealing."""
        if self._loop.running:
            self._loop.stop()
        for actor in self.actors.values():
            actor.halt()
        Service.stopService(self)  # named, not super(): see startService

    def check(self) -> None:
        """Open whatever is due: a sit-and-go of each kind, the next MTT of each schedule;
        settle the tickets that are due (expired, or of a cancelled target, T-16)."""
        now = self.reactor.seconds()
        self.tickets.sweep().addErrback(
            lambda f: log.error("ticket_sweep_failed", error=str(f.value))
        )
        self._open_sit_and_goes()
        for entry in self.schedule:
            if entry.sit_and_go:
                continue
            start = next_start(entry, now)
            tid = f"{entry.name}-{int(start)}"
            due = start - entry.registration_open_minutes * 60 <= now
            if due and tid not in self.actors and tid not in self.finished:
                self._open(entry, tid, start)

    def _open_sit_and_goes(self) -> None:
        """One sit-and-go of each kind open for registration: open those missing now."""
        now = self.reactor.seconds()
        for entry in self.schedule:
            if entry.sit_and_go and not any(
                a.status == "registering" and a.tid.startswith(f"{entry.name}-")
                for a in self.actors.values()
            ):
                self._open(entry, self._sit_and_go_id(entry, now), now)

    def _sit_and_go_id(self, entry: ScheduleEntry, now: float) -> str:
        """`<name>-<ms>`, the next free millisecond when one opened in the same one."""
        ms = int(now * 1000)
        while f"{entry.name}-{ms}" in self.actors or f"{entry.name}-{ms}" in self.finished:
            ms += 1
        return f"{entry.name}-{ms}"

    def _changed(self, actor: TournamentActor, why: str) -> None:
        """Tell the desk; a sit-and-go that filled (or was cancelled) is replaced at once, so
        that one of each kind is always open (docs/SERVER.md)."""
        if self.on_change is not None:
            self.on_change(actor, why)
        if actor.config.sit_and_go and why in ("start", "cancelled") and self._loop.running:
            self._open_sit_and_goes()

    def _open(self, entry: ScheduleEntry, tid: str, starts_at: float) -> TournamentActor:
        """Create and open one tournament's actor."""
        actor = self._actor(self.config_for(entry, tid, starts_at))
        self.actors[tid] = actor
        actor.open()
        log.info("tournament_opened", tournament_id=tid, starts_at=starts_at)
        if self.on_change is not None:
            self.on_change(actor, "opened")
        return actor

    def config_for(self, entry: ScheduleEntry, tid: str, starts_at: float) -> TournamentConfig:
        """The config of the tournament `tid` of `entry` starting at `starts_at`, opened now."""
        config = make_config(
            tid,
            self.structures[entry.structure],
            buy_in=entry.buy_in,
            fee=entry.fee,
            starts_at=starts_at,
            opens_at=self.reactor.seconds(),
            fmt=entry.fmt,
            late_registration_levels=entry.late_registration_levels,
            max_entries=entry.players or None,
            guarantee=entry.guarantee,
            sit_and_go=entry.sit_and_go,
            name=entry.name,
            max_seats=entry.max_seats,
            between_hands_seconds=entry.between_hands_seconds,
            outage=entry.outage,
            bounty=entry.bounty,
        )
        if entry.deals is not None:
            config = replace(config, deals=entry.deals)
        if entry.satellite is not None:  # T-16: seats in the target's next tournament
            config = replace(config, satellite=self.satellite_target(entry.satellite, starts_at))
        return config

    def satellite_target(self, spec: SatelliteEntry, starts_at: float) -> SatelliteTarget:
        """The target of a satellite starting at `starts_at`: the next tournament of the MTT
        entry `spec.target` that starts after it (T-16)."""
        target = next(e for e in self.schedule if e.name == spec.target)
        start = next_start(target, starts_at)
        return SatelliteTarget(
            f"{target.name}-{int(start)}",
            target.buy_in,
            target.fee,
            any_of_level=spec.any_of_level,
            ticket_valid_days=spec.ticket_valid_days,
        )

    def actor_for(self, config: TournamentConfig) -> TournamentActor:
        """A new actor for `config` (a cluster node opening a tournament it took)."""
        return self._actor(config)

    def _actor(self, config: TournamentConfig) -> TournamentActor:
        """A new actor for `config`, told through the desk (if any)."""
        players = self.players
        if players is not None and hasattr(players, "for_tournament"):
            players = players.for_tournament(config.tournament_id)  # messages name it
        return TournamentActor(
            config,
            self.reactor,
            self.ledger,
            self.rng,
            players,
            on_end=self._ended,
            on_change=self._changed,
            refunds=self.refunds,
            tickets=self.tickets,
            targets=self.actors.get,  # T-16: a satellite's winners registered in its target
        )

    def _ended(self, actor: TournamentActor) -> None:
        """A tournament ended or was cancelled: keep it for the lobby; tell its players."""
        self.actors.pop(actor.tid, None)
        self.finished[actor.tid] = actor
        ended = getattr(self.players, "ended", None)
        if ended is not None:
            ended(actor)
