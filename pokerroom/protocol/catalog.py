"""Every protocol message, declared: importing this module registers the player protocol's
messages (`events`), the typed `ok` results (`results`), the tournament messages, the
staking and deal messages and the casino messages, and checks a received frame against them
(`validate`: the bots and the tests check every frame they receive).
"""

from __future__ import annotations

from typing import Any

import msgspec

import pokerroom.protocol.casino_messages
import pokerroom.protocol.results
import pokerroom.protocol.staking_messages
import pokerroom.protocol.tournament_messages  # noqa: F401  (the four register their types)
from pokerroom.protocol.events import Ok
from pokerroom.protocol.wire import RESULTS, SERVER_TYPES, ServerMessage


class FrameMismatch(ValueError):
    """A received frame does not match its declaration: unknown type, missing, extra or
    wrongly typed field."""


def validate(frame: dict[str, Any]) -> ServerMessage:
    """Check a decoded frame against its declaration; the typed message, or FrameMismatch.

    An `ok` frame's `result` is also checked against the declared result of its request `re`.
    """
    kind = frame.get("type")
    declared = SERVER_TYPES.get(kind) if isinstance(kind, str) else None
    if declared is None:
        raise FrameMismatch(f"no server message is called {kind!r}")
    try:
        typed = msgspec.convert(frame, declared)  # by its class: a union is not cached
    except msgspec.ValidationError as exc:
        raise FrameMismatch(f"{kind!r}: {exc}") from None
    if isinstance(typed, Ok):
        if not isinstance(typed.result, dict):
            raise FrameMismatch(f"ok for {typed.re!r}: result is not an object")
        result = RESULTS.get(typed.re)
        if result is not None:
            try:
                msgspec.convert(typed.result, result)
            except msgspec.ValidationError as exc:
                raise FrameMismatch(f"ok for {typed.re!r}: {exc}") from None
    return typed
