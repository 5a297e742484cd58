"""The store's one row-mapping helper: a record's fields as column values, and the JSON columns
(a config, a prize table) every concern of the store writes the same way."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from tournaments.director.payouts import PrizeTable


def columns(record: Any, **given: Any) -> dict[str, Any]:
    """A record's fields as column values (shallow), with `given` columns set or replaced."""
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    values.update(given)
    return values


def config_json(value: Any) -> Any:
    """A config (nested frozen dataclasses, enums, tuples) as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: config_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): config_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [config_json(v) for v in value]
    return value


def prizes_json(table: PrizeTable | None) -> dict[str, Any] | None:
    """A prize table as its JSON column (None stays None)."""
    if table is None:
        return None
    return {"pool": table.pool, "amounts": list(table.amounts), "rounding": table.rounding}


def prizes_of(data: Any) -> PrizeTable | None:
    """A prize table from its JSON column."""
    if data is None:
        return None
    return PrizeTable(int(data["pool"]), tuple(int(a) for a in data["amounts"]), data["rounding"])
