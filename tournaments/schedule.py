"""The recurring schedule of sit-and-gos and MTTs (`config/tournaments/schedule/`), as a service.

`TournamentScheduler` keeps one sit-and-go of each kind open for registration (a full one
starts and a new one opens, T-1) and opens each scheduled MTT `registration_open_minutes` before
its start. It checks on a `LoopingCall` of the injected reactor (deadlines, not ticks: a late
check still opens what is due). Actors that ended are kept in `finished` for the lobby.

In `pokerroom serve` (`recover=True`) it first recovers the stored tournaments (T-18,
`tournaments.recovery`): running ones resume or are cancelled for outage, registering ones are
kept or cancelled; only then does it open anything (`recovered` fires once done), so a kept
MTT is not opened twice. Cancelled tournaments are refunded by the refund job (`refunds`).
"""

from __future__ import annotations

import difflib
import json
import secrets
import tomllib
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import structlog
from twisted.application.service import Service
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall

from pokerroom.ledger import LedgerService
from pokerroom.resources import default_schedule
from pokerroom.typed_config import (
    ConfigProblems,
    Minutes,
    OneOf,
    build,
    check,
    field_types,
)
from tournaments import recovery
from tournaments.actor import TournamentActor
from tournaments.bounty_book import FORMAT_NAMES, bounty_format
from tournaments.config import FORMATS, OutageSettings, TournamentConfig, make_config
from tournaments.director.bounties import BountyFormat, BountyKind
from tournaments.director.deal_flow import DealSettings
from tournaments.director.deals import DealMethod
from tournaments.director.structure import Structure
from tournaments.floor import Players
from tournaments.satellite import SatelliteTarget
from tournaments.templates import load_structures, read_structure
from tournaments.tickets import TicketOffice

SCHEDULE_FILE = default_schedule()
#: Longest entry name: its tournaments' ids (`<name>-<start ms>`) fit the store's 40 characters.
MAX_NAME = 26
log = structlog.get_logger("tournaments.schedule")


@dataclass(frozen=True, slots=True)
class ScheduleEntry:
    """One recurring tournament: a sit-and-go (`players` set) or an MTT (`every_minutes` set)."""

    name: str
    structure: str
    buy_in: int
    fee: int
    players: int = 0  # sit-and-go: starts when this many registered
    every_minutes: float = 0  # MTT: one every this many minutes...
    at_minute: float = 0  # ...from this minute of the (UTC) day's cycle
    registration_open_minutes: float = 60
    late_registration_levels: int = 0
    fmt: str = "freezeout"
    guarantee: int = 0
    max_seats: int = 9
    between_hands_seconds: float = 3.0
    outage: OutageSettings = field(default_factory=OutageSettings)  # T-18 after a crash
    #: T-14: `bounty = { format = "deferred" | "classic" | "pko", share_bps = 5000 }`.
    bounty: BountyFormat | None = None
    #: T-13: `deals = { max_players = 9, method = "icm" | "chip_chop", left_to_play_for = 0,
    #: answer_seconds = 60 }` allows deals at the final table (absent: no deals).
    deals: DealSettings | None = None
    #: T-8, T-16: `satellite = { target = "<an [[mtt]]'s name>", ticket_valid_days = 30,
    #: any_of_level = false }`: its prizes are seats (tickets) in that MTT's next tournament
    #: starting after this one starts (absent: not a satellite).
    satellite: SatelliteEntry | None = None

    @property
    def sit_and_go(self) -> bool:
        """Starts when full rather than at a time."""
        return self.players > 0


#: Every key of a schedule entry and what it is (docs/SERVER.md lists them with defaults);
#: `format` is the entry's `fmt`; `outage`, `bounty` and `deals` are tables of their own.
ENTRY_KINDS: dict[str, Any] = {
    "name": str,
    "structure": str,
    "buy_in": int,
    "fee": int,
    "players": int,
    "every_minutes": Minutes(),
    "at_minute": Minutes(zero_ok=True),
    "registration_open_minutes": Minutes(zero_ok=True),
    "late_registration_levels": int,
    "format": OneOf(FORMATS),
    "guarantee": int,
    "max_seats": int,
    "between_hands_seconds": float,
    "outage": dict,
    "bounty": dict,
    "deals": dict,
    "satellite": dict,
}
REQUIRED = ("name", "structure", "buy_in", "fee")
SECTIONS = ("sit_and_go", "mtt", "structure")
#: Keys only one kind of entry has: a sit-and-go starts when full, an MTT at its times.
ONLY = {
    "sit_and_go": ("players",),
    "mtt": ("every_minutes", "at_minute", "registration_open_minutes"),
}
BOUNTY_KINDS: dict[str, Any] = {
    "format": OneOf((*FORMAT_NAMES, *(kind.value for kind in BountyKind))),
    "share_bps": int,
}
DEAL_KINDS: dict[str, Any] = {**field_types(DealSettings), "method": DealMethod}


@dataclass(frozen=True, slots=True)
class SatelliteEntry:
    """A schedule entry's `satellite` table: the MTT entry whose seats it gives (T-16)."""

    target: str
    ticket_valid_days: int = 30
    any_of_level: bool = False


SATELLITE_KINDS: dict[str, Any] = {"target": str, "ticket_valid_days": int, "any_of_level": bool}


def _deals(**values: Any) -> DealSettings:
    """`deals = {...}`: a deal table allows deals unless it says `allowed = false`."""
    return DealSettings(**{"allowed": True, **values})


def _entry(kind: str, number: int, raw: Any) -> ScheduleEntry:
    """One `[[sit_and_go]]` or `[[mtt]]` table; ConfigProblems naming each bad key."""
    name = raw.get("name") if isinstance(raw, Mapping) else None
    where = f"[[{kind}]] {json.dumps(name) if isinstance(name, str) else f'#{number}'} "
    other = "mtt" if kind == "sit_and_go" else "sit_and_go"
    kinds = {key: value for key, value in ENTRY_KINDS.items() if key not in ONLY[other]}
    required = (*REQUIRED, "players" if kind == "sit_and_go" else "every_minutes")
    values, problems = check(raw, kinds, where, required)
    if not isinstance(raw, Mapping):
        raise ConfigProblems(problems)
    for key in sorted(set(raw) & set(ONLY[other])):  # a key of the other kind: say so
        problems = [line for line in problems if not line.startswith(f"{where}{key}:")]
        problems.append(f"{where}{key}: not a key of [[{kind}]] (a [[{other}]] has it)")
    for key in ("buy_in", "fee", "guarantee", "late_registration_levels"):
        if values.get(key, 0) < 0:
            problems.append(f"{where}{key}: expected 0 or more, got {values[key]}")
    if values.get("players", 2) < 2:
        problems.append(
            f"{where}players: expected an integer of at least 2, got {values['players']}"
        )
    if not 2 <= values.get("max_seats", 9) <= 10:
        problems.append(f"{where}max_seats: expected 2 to 10, got {values['max_seats']}")
    if values.get("between_hands_seconds", 0) < 0:
        problems.append(f"{where}between_hands_seconds: expected 0 or more seconds")
    values["fmt"] = values.pop("format", "freezeout")
    for key, make, table_kinds in (
        ("outage", OutageSettings, field_types(OutageSettings)),
        ("bounty", _bounty, BOUNTY_KINDS),
        ("deals", _deals, DEAL_KINDS),
        ("satellite", SatelliteEntry, SATELLITE_KINDS),
    ):
        if key in values:
            needs: tuple[str, ...] = {"bounty": ("share_bps",), "satellite": ("target",)}.get(
                key, ()
            )
            try:
                values[key] = build(make, values[key], table_kinds, f"{where}{key}.", needs)
            except ConfigProblems as exc:
                problems.extend(exc.problems)
    if problems:
        raise ConfigProblems(problems)
    return ScheduleEntry(**values)


def _bounty(share_bps: int, format: str = "deferred") -> BountyFormat:
    """`bounty = { format = ..., share_bps = N }` (the operator's or the director's name)."""
    return bounty_format(format, share_bps)


def parse_schedule(data: Mapping[str, Any]) -> list[ScheduleEntry]:
    """Schedule entries from a parsed TOML document; ConfigProblems (a ValueError) has one line
    per problem, naming the entry and the key."""
    problems: list[str] = []
    for section in data:
        if section not in SECTIONS:
            close = difflib.get_close_matches(section, SECTIONS, n=1)
            hint = f"did you mean [[{close[0]}]]?" if close else "known: " + ", ".join(SECTIONS)
            problems.append(f"[[{section}]]: unknown section ({hint})")
    entries = []
    for kind in ("sit_and_go", "mtt"):
        tables = data.get(kind, [])
        if not isinstance(tables, list):
            problems.append(f"[[{kind}]]: expected a list of tables ([[{kind}]] headers)")
            continue
        for number, raw in enumerate(tables, 1):
            try:
                entries.append(_entry(kind, number, raw))
            except ConfigProblems as exc:
                problems.extend(exc.problems)
    seen: set[str] = set()
    for entry in entries:
        kind = "sit_and_go" if entry.sit_and_go else "mtt"
        if len(entry.name) > MAX_NAME:  # a tournament id is "<name>-<13 digits>", in 40 characters
            problems.append(
                f"[[{kind}]] {json.dumps(entry.name)} name: {MAX_NAME} characters at most"
            )
        if entry.name in seen:
            problems.append(f"[[{kind}]] {json.dumps(entry.name)} name: two entries have it")
        seen.add(entry.name)
    mtts = {entry.name for entry in entries if not entry.sit_and_go}
    for entry in entries:
        if entry.satellite is not None and entry.satellite.target not in mtts:
            kind = "sit_and_go" if entry.sit_and_go else "mtt"
            problems.append(
                f"[[{kind}]] {json.dumps(entry.name)} satellite.target: "
                f"{json.dumps(entry.satellite.target)} is not the name of an [[mtt]] entry"
            )
    if problems:
        raise ConfigProblems(problems)
    return entries


@dataclass(frozen=True, slots=True)
class Schedule:
    """A schedule file: its entries and the blind structures they may use (the built-in
    templates of config/tournaments/, and the file's own `[[structure]]` tables)."""

    entries: tuple[ScheduleEntry, ...]
    structures: Mapping[str, Structure]


def load_schedule_file(path: Path = SCHEDULE_FILE) -> Schedule:
    """Read a schedule file; ConfigProblems (a ValueError) with one line per problem, each
    starting with the file (a missing file is an error too).

    Each `[[structure]]` table is a blind-structure template (as config/tournaments/*.toml);
    each entry's `structure` must name a built-in template or one of these.
    """
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ConfigProblems(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigProblems(f"{path}: {exc}") from None
    problems: list[str] = []
    try:
        entries = parse_schedule(data)
    except ConfigProblems as exc:
        problems.extend(exc.problems)
        entries = []
    structures = dict(load_structures())
    raw_structures = data.get("structure", [])
    if not isinstance(raw_structures, list):
        problems.append("[[structure]]: expected a list of tables ([[structure]] headers)")
        raw_structures = []
    broken: set[Any] = set()
    for number, raw in enumerate(raw_structures, 1):
        name = raw.get("name") if isinstance(raw, Mapping) else None
        where = f"[[structure]] {json.dumps(name) if isinstance(name, str) else f'#{number}'} "
        try:
            structure = read_structure(raw, where)
        except ConfigProblems as exc:
            problems.extend(exc.problems)
            broken.add(name)  # said once: not again for each entry that uses it
            continue
        structures[structure.name] = structure
    for entry in entries:
        if entry.structure not in structures and entry.structure not in broken:
            kind = "sit_and_go" if entry.sit_and_go else "mtt"
            problems.append(
                f"[[{kind}]] {json.dumps(entry.name)} structure: unknown structure "
                f"{json.dumps(entry.structure)} (known: {', '.join(sorted(structures))})"
            )
    if problems:
        raise ConfigProblems(problems).within(f"{path}: ")
    return Schedule(tuple(entries), structures)


def load_schedule(path: Path = SCHEDULE_FILE) -> list[ScheduleEntry]:
    """The schedule file's entries, or nothing when it does not exist."""
    if not path.exists():
        return []
    try:
        return parse_schedule(tomllib.loads(path.read_text()))
    except ConfigProblems as exc:
        raise exc.within(f"{path}: ") from None


def next_start(entry: ScheduleEntry, now: float) -> float:
    """The first start of a scheduled MTT strictly after `now` (cycles from midnight UTC)."""
    period = entry.every_minutes * 60
    day = now - now % 86_400
    first = day + entry.at_minute * 60
    if now < first:
        first -= -(-(first - now) // period) * period
    steps = (now - first) // period + 1
    return first + steps * period


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
    ) -> None:
        self.reactor = reactor
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
            if actor._start_call is not None and actor._start_call.active():
                actor._start_call.cancel()
            actor.floor.stop()
            actor.stop_watching()
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
        actor = self._actor(config)
        self.actors[tid] = actor
        actor.open()
        log.info("tournament_opened", tournament_id=tid, starts_at=starts_at)
        if self.on_change is not None:
            self.on_change(actor, "opened")
        return actor

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
