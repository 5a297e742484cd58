"""The casino settings: one TOML file per game in `config/casino/` (shipped as package data).

The pure core reads mappings; this module reads the files (I/O stays out of the core).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerroom.resources import defaults_dir

#: game -> (file, top-level table)
FILES: dict[str, tuple[str, str]] = {
    "casino": ("casino.toml", "casino"),
    "baccarat": ("baccarat.toml", "baccarat"),
    "progressive": ("progressive.toml", "progressive"),
    "dragon_tiger": ("dragon_tiger.toml", "dragon_tiger"),
    "roulette": ("roulette.toml", "roulette"),
    "sicbo": ("sicbo.toml", "sicbo"),
    "blackjack": ("blackjack.toml", "blackjack"),
}


def casino_dir() -> Path:
    """The shipped `config/casino/` folder."""
    return defaults_dir() / "casino"


def game_table(game: str, folder: Path | None = None) -> Mapping[str, Any]:
    """The settings table of `game` read from `folder` (default: the shipped one)."""
    file_name, table = FILES[game]
    data = tomllib.loads(((folder or casino_dir()) / file_name).read_text(encoding="utf-8"))
    section = data.get(table)
    if not isinstance(section, dict):
        raise ValueError(f"{file_name}: no [{table}] table")
    return section


@dataclass(frozen=True, slots=True)
class CommonSettings:
    """K-11, K-12, K-13: amounts in minor units of their named currencies."""

    max_win_per_round: int
    max_win_currency: str
    large_win_review_threshold: int
    large_win_currency: str
    pending_bet_days: int


def common(folder: Path | None = None) -> CommonSettings:
    """The settings every casino table shares (config/casino/casino.toml)."""
    data = game_table("casino", folder)
    return CommonSettings(
        max_win_per_round=int(data["max_win_per_round"]),
        max_win_currency=str(data["max_win_currency"]),
        large_win_review_threshold=int(data["large_win_review_threshold"]),
        large_win_currency=str(data["large_win_currency"]),
        pending_bet_days=int(data["pending_bet_days"]),
    )
