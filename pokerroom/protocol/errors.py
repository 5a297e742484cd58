"""ProtocolError and the stable error codes a client can rely on (RULES P-1).

Every refused request is answered with `{"type": "error", "id": ..., "code": ..., "message": ...}`.
`code` never changes meaning once released; `message` is for people and may change.
The table actor (pokerroom.cash) raises ProtocolError with its own codes and with the engine's
codes (pokerroom.engine.errors); docs/PROTOCOL.md lists all of them.
"""

from __future__ import annotations

import reprlib
from typing import Any

from pokerroom.errors import CodedError

#: Longest excerpt of a client's value that an error message may quote (P-1).
EXCERPT_CHARS = 60
#: Longest `message` an error frame carries; longer ones are cut (P-1: always answerable).
MAX_MESSAGE_CHARS = 500

_EXCERPT = reprlib.Repr()
_EXCERPT.maxlevel = 2
_EXCERPT.maxstring = 40
_EXCERPT.maxother = 40
_EXCERPT.maxlong = 40
_EXCERPT.maxlist = _EXCERPT.maxtuple = _EXCERPT.maxset = _EXCERPT.maxdict = 4


def excerpt(value: object) -> str:
    """A short, escaped excerpt of a client's value for an error message (never the whole)."""
    text = _EXCERPT.repr(value)
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 3] + "..."


class ProtocolError(CodedError):
    """A refused request: `code` is stable, `message` is readable; nothing was changed (P-1)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(code, message)
        self.details = dict(details or {})


# -- framing and message shape ------------------------------------------------------------
BAD_FRAME = "bad_frame"  # not UTF-8, not JSON, or not a JSON object
FRAME_TOO_LARGE = "frame_too_large"  # a frame longer than 64 KiB; the connection is closed
UNKNOWN_MESSAGE = "unknown_message"  # `type` names no client message
MISSING_FIELD = "missing_field"  # a required field is absent
UNKNOWN_FIELD = "unknown_field"  # a field the message does not have
BAD_FIELD = "bad_field"  # a field has the wrong type or an invalid value
INVALID_AMOUNT = "invalid_amount"  # an amount is negative, zero where not allowed, or not an int
IDENTITY_NOT_ALLOWED = "identity_not_allowed"  # a field tried to name the acting player
BAD_REQUEST_ID = "bad_request_id"  # `id` missing or not a short string / int
TOO_MANY_REQUESTS = "too_many_requests"  # more than 64 requests waiting; the connection closes
TOO_MANY_CONNECTIONS = "too_many_connections"  # the room or this address is at its connection cap
LOGIN_TIMEOUT = "login_timeout"  # not logged in within hello_timeout_seconds of connecting

# -- handshake and accounts ---------------------------------------------------------------
HELLO_REQUIRED = "hello_required"  # the first message must be `hello`
ALREADY_GREETED = "already_greeted"  # `hello` sent twice
UNSUPPORTED_VERSION = "unsupported_version"  # the server does not speak this protocol version
LOGIN_REQUIRED = "login_required"  # this request needs a logged-in player
ALREADY_LOGGED_IN = "already_logged_in"  # register/login/resume on a logged-in session
BAD_NAME = "bad_name"  # a player name is not [a-z0-9_]{3,20}
NAME_TAKEN = "name_taken"  # register: the name exists
WEAK_PASSWORD = "weak_password"  # register: shorter than 8 or longer than 256 characters
BAD_CREDENTIALS = "bad_credentials"  # login: unknown name or wrong password (never says which)
BAD_TOKEN = "bad_token"  # resume: unknown, used or expired token
TOO_MANY_ATTEMPTS = "too_many_attempts"  # login: too many failures for this name or address
SERVER_BUSY = "server_busy"  # login/register: the password-hashing queue is full; try again
BANNED = "banned"  # login: staff banned this player (docs/ADMIN.md); also a goodbye code
NOT_MODERATOR = "not_moderator"  # a moderator-only request from a player who is not one
DEPOSITS_DISABLED = "deposits_disabled"  # the dev-only `deposit` is off in this room

# -- lobby and tables ---------------------------------------------------------------------
UNKNOWN_TABLE = "unknown_table"  # no table has this table_id
TABLE_CAP_REACHED = "table_cap_reached"  # C-1: one table more than the client kind allows
NOT_AT_TABLE = "not_at_table"  # the request needs the table to be open for this player
STILL_SEATED = "still_seated"  # unobserve while holding a seat: leave first
UNKNOWN_TOURNAMENT = "unknown_tournament"  # no tournament has this tournament_id

# -- chat (C-13) ----------------------------------------------------------------------------
CHAT_MUTED = "chat_muted"  # the player is muted at this table or everywhere
CHAT_RATE_LIMITED = "chat_rate_limited"  # too many lines too fast
CHAT_REPEATED = "chat_repeated"  # the same line again (spam)
CHAT_FLOOD = "chat_flood"  # emoji / symbol / repeated-character flood
CHAT_ADVERTISING = "chat_advertising"  # links and web addresses
CHAT_LANGUAGE = "chat_language"  # a word on the room's list (slurs, threats, collusion talk)
CHAT_HAND_IN_PROGRESS = "chat_hand_in_progress"  # talk about a running hand by a non-player
CHAT_TOO_LONG = "chat_too_long"  # longer than the room's maximum line
CHAT_EMPTY = "chat_empty"  # nothing but white space

# -- disconnect reasons (sent in a `goodbye` frame before closing) -------------------------
SLOW_READER = "slow_reader"  # the client did not read its messages; its queue overflowed
IDLE_TIMEOUT = "idle_timeout"  # nothing heard from the client for too long
SESSION_REPLACED = "session_replaced"  # the same player logged in on another connection
SERVER_SHUTDOWN = "server_shutdown"  # the server is stopping
INBOUND_FLOOD = "inbound_flood"  # past the inbound budget again and again (docs/SECURITY.md)

# -- anything else --------------------------------------------------------------------------
INTERNAL_ERROR = "internal_error"  # a bug on the server side; the request changed nothing
UNAVAILABLE = "unavailable"  # the feature exists in the protocol but not in this server yet
SERVICE_UNAVAILABLE = "service_unavailable"  # the database did not answer in time; try later
CLUSTER_UNAVAILABLE = "cluster_unavailable"  # cluster mode: the table's server not reachable now

SESSION_CODES: tuple[str, ...] = tuple(
    value
    for name, value in list(globals().items())
    if name.isupper() and isinstance(value, str) and name != "SESSION_CODES"
)


def amount_error(field: str, value: object) -> ProtocolError:
    """The `invalid_amount` error for a money field that is not a positive int."""
    return ProtocolError(
        INVALID_AMOUNT,
        f"{field} must be a positive whole number of cents, got {excerpt(value)}",
    )
