"""The schedule file (`config/tournaments/schedule/`): its sit-and-go, MTT and satellite entries,
checked by type and name, and when each next starts."""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pokerroom.resources import default_schedule
from pokerroom.typed_config import (
    ConfigProblems,
    Minutes,
    OneOf,
    build,
    check,
    field_types,
)
from tournaments.actor.bounty_book import FORMAT_NAMES, bounty_format
from tournaments.config import FORMATS, OutageSettings
from tournaments.director.bounties import BountyFormat, BountyKind
from tournaments.director.deal_flow import DealSettings
from tournaments.director.deals import DealMethod
from tournaments.director.structure import Structure
from tournaments.templates import load_structures, read_structure

SCHEDULE_FILE = default_schedule()
#: Longest entry name: its tournaments' ids (`<name>-<start ms>`) fit the store's 40 characters.
MAX_NAME = 26


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
