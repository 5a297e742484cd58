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
from tournaments.director.errors import BAD_STRUCTURE, DirectorError
from tournaments.director.structure import AnteKind, BreakMode, BreakSchedule, Level, Structure

#: The structure templates the package ships (`config/tournaments/` of the checkout).
CONFIG_DIR = structures_dir()
LEVEL_KEYS = {"sb", "bb", "ante", "minutes", "action_seconds", "timebank_add_seconds"}


def structure_from_mapping(data: Mapping[str, Any]) -> Structure:
    """Build a `Structure` from a parsed template; raise `bad_structure` on a bad field."""
    try:
        minutes = int(data.get("level_minutes", 10))
        action = int(data.get("action_seconds", 15))
        refill = int(data.get("timebank_add_seconds", 0))
        levels = tuple(_level(raw, minutes, action, refill) for raw in data["levels"])
        raw_breaks = dict(data.get("breaks", {}))
        breaks = BreakSchedule(
            mode=BreakMode(raw_breaks.get("mode", "none")),
            seconds=int(raw_breaks.get("minutes", 5)) * 60,
            every_levels=int(raw_breaks.get("every_levels", 6)),
            minute_of_hour=int(raw_breaks.get("minute_of_hour", 55)),
            min_play_seconds=int(raw_breaks.get("min_play_minutes", 30)) * 60,
            synchronized=bool(raw_breaks.get("synchronized", True)),
        )
        return Structure(
            name=str(data["name"]),
            starting_stack=int(data["starting_stack"]),
            levels=levels,
            ante_kind=AnteKind(data.get("ante", "none")),
            breaks=breaks,
            timebank_start_seconds=int(data.get("timebank_start_seconds", 30)),
            timebank_max_seconds=int(data.get("timebank_max_seconds", 120)),
            disconnect_extra_seconds=int(data.get("disconnect_extra_seconds", 60)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DirectorError(BAD_STRUCTURE, f"bad template: {exc!r}") from None


def _level(raw: Any, minutes: int, action: int, refill: int) -> Level:
    """One level from `[sb, bb, ante]` or `{sb=, bb=, ante=, minutes=, ...}`."""
    if isinstance(raw, list):
        if len(raw) not in (2, 3):
            raise ValueError(f"a level is [sb, bb] or [sb, bb, ante], not {raw!r}")
        raw = dict(zip(("sb", "bb", "ante"), raw, strict=False))
    unknown = set(raw) - LEVEL_KEYS
    if unknown:
        raise ValueError(f"unknown level keys {sorted(unknown)}")
    return Level(
        small_blind=int(raw["sb"]),
        big_blind=int(raw["bb"]),
        ante=int(raw.get("ante", 0)),
        seconds=int(raw.get("minutes", minutes)) * 60,
        action_seconds=int(raw.get("action_seconds", action)),
        timebank_add_seconds=int(raw.get("timebank_add_seconds", refill)),
    )


def load_structure(path: Path) -> Structure:
    """Parse one structure template file."""
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DirectorError(BAD_STRUCTURE, f"{path.name}: {exc}") from None
    return structure_from_mapping(data)


def load_structures(folder: Path = CONFIG_DIR) -> dict[str, Structure]:
    """Every `*.toml` structure template in `folder`, by its `name`."""
    found: dict[str, Structure] = {}
    for path in sorted(folder.glob("*.toml")):
        structure = load_structure(path)
        found[structure.name] = structure
    return found
