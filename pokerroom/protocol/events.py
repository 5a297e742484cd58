"""Server-to-client messages: answers, session notices, lobby updates and table events.

Pure declarations, used to document the protocol (docs/PROTOCOL.md is checked against them)
and to build the session's own frames. Table events are produced by the cash-table actor
(pokerroom.cash) as plain dicts with `type` and `table_id`; each table event carries only what
its receiver may see (C-15): `hole_cards` goes to the holder alone, and no frame names another
player's hidden cards before `hand_shown`.
"""

from __future__ import annotations

from typing import Any

from pokerroom.protocol.fields import Field
from pokerroom.protocol.messages import SERVER, SERVER_MESSAGES, Message


def _fields(*specs: tuple[str, str, str]) -> tuple[Field, ...]:
    return tuple(Field(name, kind, doc) for name, kind, doc in specs)


class ServerMessage(Message):
    """Base of server-to-client messages: nothing answers them."""

    direction = SERVER
    answer = ""


# -- answers and session notices ------------------------------------------------------------
class Ok(ServerMessage):
    """The answer to a request that succeeded; `id` is the request's id."""

    name = "ok"
    fields = _fields(
        ("id", "int|string", "the request's id"),
        ("re", "string", "the request's type"),
        ("result", "object", "what the request returned (per message; may be empty)"),
    )


class Error(ServerMessage):
    """The answer to a refused request; nothing changed (P-1). `id` is null when the frame
    was unreadable. `details` (optional) holds machine-readable extras, e.g. `until_ms`."""

    name = "error"
    fields = _fields(
        ("id", "int|string|null", "the request's id, or null"),
        ("code", "string", "a stable error code (see Error codes)"),
        ("message", "string", "for people"),
        ("details", "object", "optional extras"),
    )


class Keepalive(ServerMessage):
    """Sent after `heartbeat_seconds` without traffic to the client. Answer with `ping`;
    a client silent for `idle_timeout_seconds` is disconnected (idle_timeout)."""

    name = "keepalive"
    fields = _fields(("server_time_ms", "int", "server clock, ms since the epoch"))


class Goodbye(ServerMessage):
    """Last frame before the server closes the connection: frame_too_large, slow_reader,
    idle_timeout, session_replaced or server_shutdown. Resume with `resume` if allowed."""

    name = "goodbye"
    fields = _fields(("code", "string", "why"), ("message", "string", "for people"))


class LobbyUpdate(ServerMessage):
    """To lobby subscribers: one table's summary changed (players seated, hands dealt)."""

    name = "lobby_update"
    fields = _fields(("table", "object", "a table summary, as in lobby_list"))


# -- table events (sent by the table actor; see PROTOCOL.md for every field) ----------------
_TABLE = ("table_id", "string", "the table")


def _table_event(name: str, doc: str, *specs: tuple[str, str, str]) -> type[ServerMessage]:
    cls = type(
        "".join(part.title() for part in name.split("_")),
        (ServerMessage,),
        {"name": name, "__doc__": doc, "fields": _fields(_TABLE, *specs)},
    )
    return cls  # registered by __init_subclass__


TABLE_EVENTS: dict[str, type[ServerMessage]] = {
    cls.name: cls
    for cls in (
        _table_event(
            "table_snapshot",
            "The whole table as the receiver may see it (C-15): "
            "after observe/sit, and on reconnect (C-14).",
            ("snapshot", "object", "seats, stacks, button, hand in progress"),
        ),
        _table_event(
            "seat_taken",
            "A player sat down.",
            ("seat", "int", "seat"),
            ("player", "string", "who"),
            ("stack", "int", "chips"),
        ),
        _table_event(
            "seat_left", "A player stood up.", ("seat", "int", "seat"), ("player", "string", "who")
        ),
        _table_event(
            "player_sat_out",
            "A player sits out (C-3).",
            ("seat", "int", "seat"),
            ("player", "string", "who"),
        ),
        _table_event(
            "player_sat_in",
            "A player is back (C-3, C-4).",
            ("seat", "int", "seat"),
            ("player", "string", "who"),
        ),
        _table_event(
            "hand_started",
            "A hand begins.",
            ("hand_id", "string", "hand"),
            ("button", "int", "button seat"),
            ("blinds", "array", "small, big"),
            ("seats", "array", "dealt-in seats with stacks"),
        ),
        _table_event(
            "blind_posted",
            "A blind or an entry/missed-blind post (C-2, C-4).",
            ("seat", "int", "seat"),
            ("amount", "int", "cents"),
            ("kind", "string", "small | big | entry | dead"),
        ),
        _table_event(
            "hole_cards",
            "The receiver's own hole cards (to the holder only, C-15).",
            ("hand_id", "string", "hand"),
            ("cards", "array", 'e.g. ["As", "Kd"]'),
        ),
        _table_event(
            "action_request",
            "To the player to act: legal actions and the clock (C-6, C-7).",
            ("actions", "object", "legal actions and bounds"),
            ("deadline_ms", "int", "when the action clock runs out"),
            ("timebank_ms", "int", "time bank left"),
        ),
        _table_event(
            "timebank_started",
            "The action clock ran out; the time bank runs (C-7).",
            ("seat", "int", "seat"),
            ("timebank_ms", "int", "time left"),
        ),
        _table_event(
            "player_acted",
            "A betting action (incl. timeouts, C-6).",
            ("seat", "int", "seat"),
            ("action", "string", "what"),
            ("amount", "int|null", "to-total"),
        ),
        _table_event(
            "board_dealt",
            "Community cards.",
            ("street", "int", "1 flop, 2 turn, 3 river"),
            ("cards", "array", "the new cards"),
        ),
        _table_event(
            "pot_returned",
            "An uncalled bet goes back.",
            ("seat", "int", "seat"),
            ("amount", "int", "cents"),
        ),
        _table_event(
            "hand_shown",
            "A player shows their cards at showdown.",
            ("seat", "int", "seat"),
            ("cards", "array", "cards"),
        ),
        _table_event("hand_mucked", "A player mucks (cards stay hidden).", ("seat", "int", "seat")),
        _table_event(
            "pot_awarded",
            "A pot or side pot is won (C-5, C-11).",
            ("pot", "int", "pot index, 0 = main"),
            ("seats", "array", "winners"),
            ("rake", "int", "cents raked from this pot"),
            ("shares", "array", "[{seat, amount}]"),
            ("amount", "int", "cents"),
        ),
        _table_event(
            "hand_ended",
            "The hand is over.",
            ("stacks", "object", "seat -> chips"),
            ("rake", "int", "cents"),
        ),
    )
}


class ChatLine(ServerMessage):
    """A chat line at a table (C-13), to everyone who has the table open."""

    name = "chat"
    fields = _fields(
        _TABLE,
        ("player", "string", "who wrote"),
        ("text", "string", "the line"),
        ("at_ms", "int", "server time"),
    )


def server_messages() -> list[type[Message]]:
    """Every server message, in definition order."""
    return list(SERVER_MESSAGES.values())


def ok(
    request_id: int | str | None, re: str, result: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The `ok` frame answering request `request_id` of type `re`."""
    return {"type": "ok", "id": request_id, "re": re, "result": result or {}}


def goodbye(code: str, message: str) -> dict[str, Any]:
    """The `goodbye` frame."""
    return {"type": "goodbye", "code": code, "message": message}
