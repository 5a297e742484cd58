"""The base of every server message and of the objects inside messages, and their registry.

A server message is a frozen `msgspec.Struct` tagged by its `type` (`ServerMessage`), an object
inside one a `WireObject`; `@message` registers a message class under its tag and
`@result_of(...)` declares a class as the `ok` result of requests. The messages themselves are
declared above this module: `events` (the player protocol), `results` (typed `ok` results),
`tournament_messages` and `staking_messages`; `catalog` imports them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeAlias, TypeVar

import msgspec

from pokerroom.protocol.framing import encode_frame

#: tag -> message class, every server message (events, tournament and staking messages).
SERVER_TYPES: dict[str, type[ServerMessage]] = {}
#: Request name -> the type of its `ok` result (pokerroom.protocol.results).
RESULTS: dict[str, type[WireObject]] = {}

_ENCODER = msgspec.json.Encoder()  # for as_dict

#: What may be sent: a typed message only (a hand-built dict does not type-check).
Frame: TypeAlias = "ServerMessage"


class WireObject(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An object inside a message (or an `ok` result): fixed fields, unknown ones refused."""


class ServerMessage(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"
):
    """Base of server-to-client messages; the class's tag is the frame's `type`."""

    #: The message name (`type`), set by `@message`.
    name: ClassVar[str] = ""

    def to_frame(self) -> bytes:
        """This message as one encoded frame (a JSON line)."""
        return encode(self)


M = TypeVar("M", bound=type[ServerMessage])
R = TypeVar("R", bound=type[WireObject])


def message(cls: M) -> M:
    """Register a server message class under its tag (its `type`)."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str) and tag not in SERVER_TYPES, tag
    cls.name = tag
    SERVER_TYPES[tag] = cls
    return cls


def result_of(*requests: str) -> Callable[[R], R]:
    """Declare `cls` as the `ok` result of the named requests."""

    def register(cls: R) -> R:
        for request in requests:
            assert request not in RESULTS, request
            RESULTS[request] = cls
        return cls

    return register


def encode(value: ServerMessage) -> bytes:
    """One frame: compact JSON, UTF-8, newline-terminated; ValueError above MAX_FRAME."""
    return encode_frame(value)


def frame_type(value: ServerMessage) -> str:
    """The `type` of a message (its tag)."""
    return value.name


def as_dict(value: ServerMessage | WireObject | dict[str, Any]) -> dict[str, Any]:
    """The message as the client decodes it: plain JSON values, `type` included."""
    built = msgspec.json.decode(_ENCODER.encode(value))  # nested structs become dicts too
    assert isinstance(built, dict)
    return built


def server_messages() -> list[type[ServerMessage]]:
    """Every server message, in definition order (import `catalog` for all of them)."""
    return list(SERVER_TYPES.values())


def fields_of(cls: type[msgspec.Struct]) -> dict[str, bool]:
    """A message's or object's fields: name -> required (the `type` tag is not a field)."""
    return {f.name: f.required for f in msgspec.structs.fields(cls)}
