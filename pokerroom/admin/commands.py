"""The admin command registry: a command is a typed args class, a required role and a function.

Pure (no I/O). `@command(name, Args, role)` registers a handler `fn(ctx, args) -> answer`;
`Args` is a frozen dataclass whose fields are declared with `arg(check, doc)`: a field without
a default is required. `parse(frame)` turns a decoded frame into (command, args) or raises the
player protocol's format errors (`unknown_message`, `missing_field`, `unknown_field`,
`bad_field`, `invalid_amount`, `identity_not_allowed`, `bad_request_id`): the same treatment
as a player's frame (P-1). docs/ADMIN.md is checked against this registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pokerroom.admin.roles import Role
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import check_request_id

#: Keys that would let a request claim who acts: the session knows the staff member.
IDENTITY_KEYS = frozenset({"staff", "as", "user", "by", "acting", "staff_id", "role"})
ENVELOPE_KEYS = frozenset({"type", "id"})

A = TypeVar("A")
Check = Callable[[str, object], Any]


def arg(check: Check, doc: str, kind: str = "string", *, default: Any = dataclasses.MISSING) -> Any:
    """Declare one field of an args class: its validator, docs and kind; no default: required."""
    meta = {"check": check, "doc": doc, "kind": kind}
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class NoArgs:
    """A command without fields."""


@dataclass(frozen=True, slots=True)
class Command(Generic[A]):
    """One admin command: name, typed args class, required role, handler, docs."""

    name: str
    args: type[A]
    role: Role
    run: Callable[[Any, A], Any]
    doc: str
    changes: bool  # writes one audit row when it succeeds

    def parse_args(self, frame: dict[str, Any]) -> A:
        """The checked args of this command from a frame (envelope already checked)."""
        known = {f.name for f in dataclasses.fields(self.args)}  # type: ignore[arg-type]
        extra = frame.keys() - ENVELOPE_KEYS - known
        if extra:
            raise ProtocolError(
                errors.UNKNOWN_FIELD, f"{self.name} has no field {errors.excerpt(min(extra))}"
            )
        values: dict[str, Any] = {}
        for spec in dataclasses.fields(self.args):  # type: ignore[arg-type]
            if spec.name not in frame:
                if spec.default is dataclasses.MISSING:
                    raise ProtocolError(errors.MISSING_FIELD, f"{self.name} needs {spec.name!r}")
                continue
            value = frame[spec.name]
            if value is None and spec.default is None:
                continue  # an optional field may be sent as null
            values[spec.name] = spec.metadata["check"](spec.name, value)
        return self.args(**values)


#: name -> command, in definition order.
COMMANDS: dict[str, Command[Any]] = {}


def command(
    name: str, args: type[A], role: Role, *, changes: bool
) -> Callable[[Callable[[Any, A], Any]], Callable[[Any, A], Any]]:
    """Register the decorated function as the admin command `name` (its docstring is its doc)."""

    def register(fn: Callable[[Any, A], Any]) -> Callable[[Any, A], Any]:
        if name in COMMANDS:
            raise ValueError(f"admin command {name!r} is defined twice")
        paragraph = (fn.__doc__ or "").strip().split("\n\n")[0]
        doc = " ".join(line.strip() for line in paragraph.splitlines())
        COMMANDS[name] = Command(name, args, role, fn, doc, changes)
        return fn

    return register


def parse(frame: dict[str, Any]) -> tuple[int | str, Command[Any], Any]:
    """(request id, command, args) of a decoded frame, or the ProtocolError refusing it."""
    request_id = check_request_id(frame.get("id"))
    kind = frame.get("type")
    found = COMMANDS.get(kind) if isinstance(kind, str) else None
    if found is None:
        raise ProtocolError(
            errors.UNKNOWN_MESSAGE, f"no admin message named {errors.excerpt(kind)}"
        )
    claimed = IDENTITY_KEYS.intersection(frame)
    if claimed:
        raise ProtocolError(
            errors.IDENTITY_NOT_ALLOWED,
            f"{sorted(claimed)[0]!r}: a request acts for the logged-in staff member only",
        )
    return request_id, found, found.parse_args(frame)


def describe(cmd: Command[Any]) -> list[tuple[str, str, bool, str]]:
    """(field, kind, required, doc) of each field of a command: for docs and `--help`."""
    return [
        (
            spec.name,
            spec.metadata["kind"],
            spec.default is dataclasses.MISSING,
            spec.metadata["doc"],
        )
        for spec in dataclasses.fields(cmd.args)
    ]
