"""Load blind-structure templates from TOML (`config/tournaments/*.toml`) into `Structure`.

This is the impure edge of the director: it reads files. The director itself only ever
sees the frozen `Structure` built here.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pokerroom.resources import structures_dir
from pokerroom.typed_config import ConfigProblems, Minutes, check, shown
from tournaments.director.errors import BAD_STRUCTURE, DirectorError
from tournaments.director.structure import AnteKind, BreakMode, BreakSchedule, Level, Structure

#: The structure templates the package ships (`config/tournaments/` of the checkout).
CONFIG_DIR = structures_dir()
#: Every key of a template and what it is (docs/SERVER.md lists them with their defaults).
#: Minutes may be fractions: a level or break lasts that many minutes rounded to whole seconds.
STRUCTURE_KINDS: dict[str, Any] = {
    "name": str,
    "starting_stack": int,
    "level_minutes": Minutes(),
    "ante": AnteKind,
    "action_seconds": int,
    "timebank_start_seconds": int,
    "timebank_add_seconds": int,
    "timebank_max_seconds": int,
    "disconnect_extra_seconds": int,
    "levels": list,
    "breaks": dict,
}
LEVEL_KINDS: dict[str, Any] = {
    "sb": int,
    "bb": int,
    "ante": int,
    "minutes": Minutes(),
    "action_seconds": int,
    "timebank_add_seconds": int,
}
LEVEL_KEYS = set(LEVEL_KINDS)
BREAK_KINDS: dict[str, Any] = {
    "mode": BreakMode,
    "minutes": Minutes(),
    "every_levels": int,
    "minute_of_hour": int,
    "min_play_minutes": Minutes(zero_ok=True),
    "synchronized": bool,
}


def _seconds(minutes: float) -> int:
    """Minutes as whole seconds (at least one)."""
    return max(1, round(minutes * 60))


def read_structure(data: Any, where: str = "") -> Structure:
    """Build a `Structure` from a parsed template; ConfigProblems with one line per bad key
    (`where` starts each line: `[[structure]] "blitz" `)."""
    values, problems = check(data, STRUCTURE_KINDS, where, ("name", "starting_stack", "levels"))
    minutes = values.get("level_minutes", 10)
    action = values.get("action_seconds", 15)
    refill = values.get("timebank_add_seconds", 0)
    levels = []
    for number, raw in enumerate(values.get("levels", []), 1):
        at = f"{where}level {number}"
        if isinstance(raw, list):
            if len(raw) not in (2, 3):
                problems.append(f"{at}: expected [sb, bb] or [sb, bb, ante], got {shown(raw)}")
                continue
            raw = dict(zip(("sb", "bb", "ante"), raw, strict=False))
        level, wrong = check(raw, LEVEL_KINDS, f"{at} ", ("sb", "bb"))
        problems.extend(wrong)
        if not wrong:
            levels.append(
                Level(
                    small_blind=level["sb"],
                    big_blind=level["bb"],
                    ante=level.get("ante", 0),
                    seconds=_seconds(level.get("minutes", minutes)),
                    action_seconds=level.get("action_seconds", action),
                    timebank_add_seconds=level.get("timebank_add_seconds", refill),
                )
            )
    raw_breaks, wrong = check(values.get("breaks", {}), BREAK_KINDS, f"{where}breaks.")
    problems.extend(wrong)
    if problems:
        raise ConfigProblems(problems)
    try:
        return Structure(
            name=values["name"],
            starting_stack=values["starting_stack"],
            levels=tuple(levels),
            ante_kind=values.get("ante", AnteKind.NONE),
            breaks=BreakSchedule(
                mode=raw_breaks.get("mode", BreakMode.NONE),
                seconds=_seconds(raw_breaks.get("minutes", 5)),
                every_levels=raw_breaks.get("every_levels", 6),
                minute_of_hour=raw_breaks.get("minute_of_hour", 55),
                min_play_seconds=round(raw_breaks.get("min_play_minutes", 30) * 60),
                synchronized=raw_breaks.get("synchronized", True),
            ),
            timebank_start_seconds=values.get("timebank_start_seconds", 30),
            timebank_max_seconds=values.get("timebank_max_seconds", 120),
            disconnect_extra_seconds=values.get("disconnect_extra_seconds", 60),
        )
    except DirectorError as exc:  # the structure's own checks (blinds that go down, say)
        prefix = f"{where.rstrip()}: " if where else ""
        raise ConfigProblems(f"{prefix}{exc.message}") from None


def structure_from_mapping(data: Mapping[str, Any]) -> Structure:
    """Build a `Structure` from a parsed template; raise `bad_structure` on a bad field (its
    message: one line per problem, `;`-separated)."""
    try:
        return read_structure(data)
    except ConfigProblems as exc:
        raise DirectorError(BAD_STRUCTURE, "; ".join(exc.problems)) from None


def load_structure(path: Path) -> Structure:
    """Parse one structure template file."""
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DirectorError(BAD_STRUCTURE, f"{path.name}: {exc}") from None
    try:
        return read_structure(data)
    except ConfigProblems as exc:
        raise DirectorError(BAD_STRUCTURE, f"{path.name}: " + "; ".join(exc.problems)) from None


def load_structures(folder: Path = CONFIG_DIR) -> dict[str, Structure]:
    """Every `*.toml` structure template in `folder`, by its `name`."""
    found: dict[str, Structure] = {}
    for path in sorted(folder.glob("*.toml")):
        structure = load_structure(path)
        found[structure.name] = structure
    return found
