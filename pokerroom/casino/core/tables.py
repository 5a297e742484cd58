"""Reading a game's settings table: pay tables as exact odds, whole numbers, choices (config)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from pokerroom.casino.core import errors
from pokerroom.casino.core.money import parse_odds
from pokerroom.casino.core.results import Limits, limits_from


def pay_table(data: Mapping[str, object], key: str, where: str) -> dict[str, Fraction]:
    """The sub-table `key` of `data` as {pay line: odds}; `bad_config` if missing or wrong."""
    table = data.get(key)
    if not isinstance(table, Mapping) or not table:
        raise errors.CasinoError(errors.BAD_CONFIG, f"{where}.{key} is missing")
    return {str(k): parse_odds(v, f"{where}.{key}.{k}") for k, v in table.items()}


def whole(data: Mapping[str, object], key: str, default: int) -> int:
    """A non-negative whole-number setting."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise errors.CasinoError(errors.BAD_CONFIG, f"{key} = {value!r}: a whole number")
    return value


def choice(data: Mapping[str, object], key: str, default: str, allowed: tuple[str, ...]) -> str:
    """A setting that takes one of `allowed`."""
    value = data.get(key, default)
    if value not in allowed:
        raise errors.CasinoError(errors.BAD_CONFIG, f"{key} = {value!r}: one of {allowed}")
    return str(value)


def flag(data: Mapping[str, object], key: str, default: bool) -> bool:
    """A true/false setting."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise errors.CasinoError(errors.BAD_CONFIG, f"{key} = {value!r}: true or false")
    return value


def limits(data: Mapping[str, object]) -> Limits:
    """The `[limits]` sub-table (K-5); no limits but positivity when absent."""
    table = data.get("limits", {"default": [1, 10**12]})
    if not isinstance(table, Mapping):
        raise errors.CasinoError(errors.BAD_CONFIG, "limits must be a table")
    return limits_from(table)
