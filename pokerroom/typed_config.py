"""Configuration values checked against their types, one line per problem.

`check` converts a TOML table to the types its keys must have (msgspec does the conversion) and
says what is wrong with each key in one line: `[server] port: expected an integer, got "abc"`,
`[chat] rate_line: unknown key (did you mean rate_lines?)`. The room settings
(`pokerroom.server.settings`), the tournament schedule and the blind-structure templates use it.
"""

from __future__ import annotations

import difflib
import enum
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import msgspec

from pokerroom.errors import CodedError


class ConfigProblems(ValueError):
    """What is wrong with a configuration: one line per problem."""

    def __init__(self, problems: Sequence[str] | str) -> None:
        self.problems = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("\n".join(self.problems))

    def within(self, prefix: str) -> ConfigProblems:
        """The same problems, each line starting with `prefix` (a file name, say)."""
        return type(self)([f"{prefix}{line}" for line in self.problems])


@dataclass(frozen=True, slots=True)
class OneOf:
    """A key whose value is one of these strings."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Minutes:
    """A positive number of minutes (fractions allowed), used as whole seconds (rounded)."""

    zero_ok: bool = False


def field_types(cls: type, leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """The init fields of a dataclass and their types."""
    hints = typing.get_type_hints(cls)
    skip = set(leave_out)
    return {f.name: hints[f.name] for f in fields(cls) if f.init and f.name not in skip}


_NAMES: dict[Any, tuple[str, str]] = {
    bool: ("true or false", "true or false values"),
    int: ("an integer", "integers"),
    float: ("a number", "numbers"),
    str: ("a string", "strings"),
}


def describe(kind: Any, plural: bool = False) -> str:
    """What a value of `kind` is, in words: `an integer`, `a list of strings`, `one of "a", "b"`."""
    if kind in _NAMES:
        return _NAMES[kind][1 if plural else 0]
    if isinstance(kind, Minutes):
        return "a number of minutes" + (" (0 or more)" if kind.zero_ok else " above 0")
    if isinstance(kind, OneOf):
        return "one of " + ", ".join(json.dumps(value) for value in kind.values)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return describe(OneOf(tuple(str(member.value) for member in kind)))
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        named = [describe(arg, plural) for arg in args if arg is not type(None)]
        return " or ".join(named)
    if origin in (tuple, list, Sequence):
        return "a list of " + describe(args[0], plural=True)
    if origin in (dict, Mapping) or kind in (dict, Mapping):
        return "tables" if plural else "a table"
    return getattr(kind, "__name__", str(kind))


def shown(value: Any) -> str:
    """A value as the configuration file writes it, shortened to one short line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        text = json.dumps(value)
    elif isinstance(value, Mapping):
        return "a table"
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def convert(value: Any, kind: Any) -> Any:
    """`value` as a `kind`; msgspec.ValidationError when it is not one."""
    if isinstance(kind, OneOf):
        if not isinstance(value, str) or value not in kind.values:
            raise msgspec.ValidationError(f"not one of {kind.values}")
        return value
    if isinstance(kind, Minutes):
        minutes = msgspec.convert(value, float)
        if minutes < 0 or (minutes == 0 and not kind.zero_ok) or minutes != minutes:
            raise msgspec.ValidationError("not a number of minutes")
        return minutes
    return msgspec.convert(value, kind)


def unknown_key(where: str, key: str, known: Iterable[str]) -> str:
    """The line for a key nobody reads: the closest known key, else every known one."""
    names = sorted(known)
    close = (
        difflib.get_close_matches(key, names, n=1)
        or [name for name in names if name.startswith(key) or key.startswith(name)][:1]
    )
    hint = f"did you mean {close[0]}?" if close else "known: " + ", ".join(names)
    return f"{where}{key}: unknown key ({hint})"


def check(
    values: Any,
    kinds: Mapping[str, Any],
    where: str,
    required: Iterable[str] = (),
) -> tuple[dict[str, Any], list[str]]:
    """`values` converted key by key to `kinds`, and one line per wrong, unknown or missing key.

    `where` starts every line and names the table (`"[server] "`, `'[[mtt]] "daily" deals.'`).
    """
    if not isinstance(values, Mapping):
        return {}, [f"{where.rstrip(' .')}: expected a table, got {shown(values)}"]
    converted: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in values.items():
        if key not in kinds:
            problems.append(unknown_key(where, key, kinds))
            continue
        try:
            converted[key] = convert(value, kinds[key])
        except msgspec.ValidationError:
            problems.append(f"{where}{key}: expected {describe(kinds[key])}, got {shown(value)}")
    for key in required:
        if key not in values:
            problems.append(f"{where}{key}: missing (expected {describe(kinds[key])})")
    return converted, problems


def message(exc: Exception) -> str:
    """The words of an error raised by a settings class (a coded error without its code)."""
    return exc.message if isinstance(exc, CodedError) else str(exc)


def build(
    make: Callable[..., Any],
    values: Any,
    kinds: Mapping[str, Any],
    where: str,
    required: Iterable[str] = (),
) -> Any:
    """`make(**values)` once every key has its type; ConfigProblems naming each bad key, or the
    table when `make` itself refuses the values (its own one-line reason)."""
    converted, problems = check(values, kinds, where, required)
    if problems:
        raise ConfigProblems(problems)
    try:
        return make(**converted)
    except (TypeError, ValueError, CodedError) as exc:
        raise ConfigProblems(f"{where.rstrip(' .')}: {message(exc)}") from None
