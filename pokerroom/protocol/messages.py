"""Client-to-server messages (requests): name, fields, validation, and when each is sent.

Pure. Every request is a JSON object with `type` (the message name) and `id` (chosen by the
client: an integer or a string of at most 64 characters), echoed in the answer: `ok` with a
`result` object, or `error` with a stable `code` (P-1). A request that fails validation
changes nothing. No request may name the acting player: the session knows who it is
(docs/ARCHITECTURE.md rule 8), so `player_id`, `player`, `user` and `as` are refused outright.
Server-to-client messages are in `pokerroom.protocol.events`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.fields import AMOUNT, CURRENCY, TABLE_ID, Field

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = (1,)
CLIENT = "client->server"
SERVER = "server->client"

#: Keys that would let a client claim an identity; refused in every request.
IDENTITY_KEYS = frozenset({"player_id", "player", "user", "as", "as_player", "account"})
ENVELOPE_KEYS = frozenset({"type", "id"})

#: name -> message class, per direction (`chat` exists in both).
CLIENT_MESSAGES: dict[str, type[Message]] = {}
SERVER_MESSAGES: dict[str, type[Message]] = {}


def check_request_id(value: object) -> int | str:
    """The client's request id: an int in [0, 2**53] or a string of 1..64 characters."""
    if f.is_int(value) and 0 <= value <= 2**53:
        return value
    if isinstance(value, str) and 0 < len(value) <= 64:
        return value
    raise ProtocolError(errors.BAD_REQUEST_ID, "id must be an integer or a string of 1-64 chars")


class Message:
    """Base of every message; subclasses set `name`, `direction`, `fields` and a docstring."""

    name: ClassVar[str] = ""
    direction: ClassVar[str] = CLIENT
    fields: ClassVar[tuple[Field, ...]] = ()
    answer: ClassVar[str] = "ok"
    #: Handled before login (hello, register, login, resume, ping).
    before_login: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            registry = CLIENT_MESSAGES if cls.direction == CLIENT else SERVER_MESSAGES
            registry[cls.name] = cls


@dataclass(frozen=True, slots=True)
class Request:
    """A validated request: its message class, the client's id and the checked fields."""

    message: type[Message]
    id: int | str
    args: dict[str, Any]

    @property
    def name(self) -> str:
        """The message name (`type`)."""
        return self.message.name


@functools.cache
def _allowed_keys(message: type[Message]) -> frozenset[str]:
    """The keys a request of this message may carry: the envelope and its fields."""
    return ENVELOPE_KEYS | {field.name for field in message.fields}


@functools.cache
def _plain_keys(message: type[Message]) -> frozenset[str]:
    """The allowed keys that are no identity key: a frame of only these passes both key checks
    of `parse_request` in one subset test."""
    return _allowed_keys(message) - IDENTITY_KEYS  # type: ignore[arg-type]


def parse_request(frame: dict[str, Any], request_id: int | str | None = None) -> Request:
    """Validate a decoded frame against its message; raise ProtocolError naming the problem.

    `request_id`: the frame's `id` as `check_request_id` already returned it (the session
    checks it first, to answer even a frame that fails here); None checks it here.
    """
    if request_id is None:
        request_id = check_request_id(frame.get("id"))
    kind = frame.get("type")
    message = CLIENT_MESSAGES.get(kind) if isinstance(kind, str) else None
    if message is None:
        raise ProtocolError(
            errors.UNKNOWN_MESSAGE, f"no client message named {errors.excerpt(kind)}"
        )
    # A class object is hashable; mypy does not see `type[Message]` as Hashable (a known bug).
    if not _plain_keys(message).issuperset(frame):  # type: ignore[arg-type]
        claimed = IDENTITY_KEYS.intersection(frame)
        if claimed:
            raise ProtocolError(
                errors.IDENTITY_NOT_ALLOWED,
                f"{sorted(claimed)[0]!r}: a request acts for the logged-in player only",
            )
        extra = frame.keys() - _allowed_keys(message)  # type: ignore[arg-type]
        if extra:
            raise ProtocolError(
                errors.UNKNOWN_FIELD, f"{message.name} has no field {errors.excerpt(min(extra))}"
            )
    args: dict[str, Any] = {}
    for field in message.fields:
        if field.name not in frame:
            if field.required:
                raise ProtocolError(errors.MISSING_FIELD, f"{message.name} needs {field.name!r}")
            continue
        args[field.name] = field.check(frame[field.name])
    return Request(message, request_id, args)


def client_messages() -> list[type[Message]]:
    """Every client message, in definition order."""
    return list(CLIENT_MESSAGES.values())


# -- session ------------------------------------------------------------------------------
class Hello(Message):
    """First message on a connection: the protocol version and the client kind (C-1).

    Answered by `ok` with protocol_version, server, heartbeat_seconds, idle_timeout_seconds,
    max_frame and table_cap (the cap for this client kind). Any other request first gets
    `hello_required`; a version the server does not speak gets `unsupported_version`.
    """

    name = "hello"
    before_login = True
    fields = (
        Field("version", "int", "protocol version the client speaks (1)", True, f.integer(0, 999)),
        Field("client", "string", "desktop | mobile | web", True, f.choice(f.CLIENT_KINDS)),
        Field("agent", "string", "free text: client name and version", False, f.text(100)),
    )


class Register(Message):
    """Create an account and log in. Answered by `ok` {player_id, token}.

    Errors: bad_name, weak_password (fewer than 8 or more than 256 characters), name_taken.
    """

    name = "register"
    before_login = True
    fields = (
        Field(
            "name", "string", "login name, [a-z0-9_]{3,20}; becomes the player_id", True, f.text(64)
        ),
        Field("password", "string", "8 to 256 characters", True, f.text(1024)),
    )


class Login(Message):
    """Log in. Answered by `ok` {player_id, token, tables}; then one `table_snapshot` per
    table the player sits at or watches (C-14). A session of the same player on another
    connection is closed with `goodbye` session_replaced. Error: bad_credentials."""

    name = "login"
    before_login = True
    fields = (
        Field("name", "string", "login name", True, f.text(64)),
        Field("password", "string", "password", True, f.text(1024)),
    )


class Resume(Message):
    """Log in again after a drop with the token of the last login/resume (single use).

    Answered like `login`, with a fresh token. Error: bad_token."""

    name = "resume"
    before_login = True
    fields = (Field("token", "string", "the token from login/register/resume", True, f.text(128)),)


class Logout(Message):
    """Log out; the resume token is forgotten. Seats are kept, as after a drop (C-14)."""

    name = "logout"


class Ping(Message):
    """Keepalive, at any time (also the answer to a `keepalive`). `ok` {server_time_ms}."""

    name = "ping"
    before_login = True


# -- lobby -----------------------------------------------------------------------------------
PAGE = (
    Field(
        "offset",
        "int",
        "first table to list (default 0), in table_id order",
        False,
        f.integer(0, 100_000),
    ),
    Field("limit", "int", "how many (1..200, default 200)", False, f.integer(1, 200)),
)


class LobbyList(Message):
    """The cash tables, a page at a time in table_id order. `ok` {tables: [table summary],
    total, offset}; ask again with a larger offset while offset + len(tables) < total."""

    name = "lobby_list"
    fields = PAGE


class LobbySubscribe(Message):
    """Like lobby_list, then a `lobby_update` whenever any table's summary changes."""

    name = "lobby_subscribe"
    fields = PAGE


class LobbyUnsubscribe(Message):
    """Stop the `lobby_update` messages."""

    name = "lobby_unsubscribe"


class Observe(Message):
    """Open a table: receive its public events. `ok` {snapshot}. Counts toward the table
    cap of the client kind (C-1): table_cap_reached. Error: unknown_table."""

    name = "observe"
    fields = (TABLE_ID,)


class Unobserve(Message):
    """Close a table the player does not sit at. Error: not_at_table, or the table's own
    code if the player is still seated (leave first)."""

    name = "unobserve"
    fields = (TABLE_ID,)


# -- table -----------------------------------------------------------------------------------
class Sit(Message):
    """Take a seat and buy in from the wallet (C-2, C-8, C-9, C-10). Opens the table if it
    was not open (C-1 cap). `ok` with the table's result; then `seat_taken` to the table."""

    name = "sit"
    fields = (
        TABLE_ID,
        Field(
            "seat",
            "int|null",
            "seat number, or null for any free seat",
            False,
            f.integer(0, 23),
            nullable=True,
        ),
        Field("buy_in", "amount", "cents moved from the wallet to the table", True, f.check_amount),
        Field(
            "wait_for_big_blind",
            "bool",
            "C-2: no entry post, wait for the big blind",
            False,
            f.boolean,
        ),
    )


class TopUp(Message):
    """Add chips from the wallet between hands, up to the table maximum (C-9). With a `key`,
    a retry moves nothing and gets the first answer (P-2)."""

    name = "top_up"
    fields = (TABLE_ID, AMOUNT, f.KEY)


class SitOut(Message):
    """Sit out: keep the seat, not dealt in (C-3). `player_sat_out` to the table."""

    name = "sit_out"
    fields = (TABLE_ID,)


class SitIn(Message):
    """Come back (C-3, C-4): post what is owed now (post=true), or wait for the big blind."""

    name = "sit_in"
    fields = (
        TABLE_ID,
        Field(
            "post",
            "bool",
            "true: post owed blinds now; false: wait for the big blind",
            False,
            f.boolean,
        ),
    )


class Act(Message):
    """A betting action, answering an `action_request`. `amount` is the total the bet or
    raise goes *to* this street (required for bet/raise, absent otherwise). Out of turn:
    not_your_turn; illegal sizes: the engine's codes. `player_acted` to the table."""

    name = "act"
    fields = (
        TABLE_ID,
        Field("action", "string", "fold | check | call | bet | raise", True, f.choice(f.ACTIONS)),
        Field(
            "amount",
            "amount|null",
            "bet/raise: the 'to' total in cents",
            False,
            f.check_amount,
            nullable=True,
        ),
    )


class Leave(Message):
    """Stand up after the current hand and cash out to the wallet (C-8, C-10). The table
    stays open as observed; send `unobserve` to close it."""

    name = "leave"
    fields = (TABLE_ID,)


class Chat(Message):
    """A chat line at a table (C-13). `ok`, then `chat` to everyone at the table. Refused
    with chat_muted, chat_rate_limited, chat_repeated, chat_flood, chat_advertising,
    chat_language, chat_hand_in_progress, chat_too_long or chat_empty."""

    name = "chat"
    fields = (TABLE_ID, Field("text", "string", "the line", True, f.text(f.MAX_TEXT)))


# -- money and history -------------------------------------------------------------------
class Wallet(Message):
    """The player's wallet balance. `ok` {currency, balance}."""

    name = "wallet"
    fields = (CURRENCY,)


class Deposit(Message):
    """Development rooms only (`[dev] allow_deposit`): fund the wallet from the `external`
    account. `ok` {currency, balance}. Error: deposits_disabled."""

    name = "deposit"
    fields = (AMOUNT, CURRENCY, f.KEY)


class HandHistories(Message):
    """The player's own finished hands as PHH text, or PokerStars-style text for trackers
    (`format` "pokerstars"), newest first, a page at a time; C-15 either way.

    `ok` {hands: [...], truncated, next}: a page holds at most `limit` hands and stays small
    (about 16 KiB); `next` is the cursor to pass as `before` for the older hands, or null."""

    name = "hand_histories"
    fields = (
        Field("table_id", "string", "only this table", False, f.pattern(f.TABLE_ID_RE)),
        Field("limit", "int", "1..100, default 20", False, f.integer(1, 100)),
        Field(
            "before",
            "string",
            "the `next` of the previous page: only older hands",
            False,
            f.pattern(f.HISTORY_CURSOR_RE, 100),
        ),
        Field(
            "format",
            "string",
            '"phh" (default) or "pokerstars"',
            False,
            f.choice(("phh", "pokerstars")),
        ),
    )


# -- moderation (C-13) ---------------------------------------------------------------------
class Mute(Message):
    """Moderators: mute `target` at a table (table_id) or everywhere, for `minutes` or for
    good (minutes absent or null). Error: not_moderator."""

    name = "mute"
    fields = (
        Field("target", "string", "the player to mute", True, f.player_name),
        Field("table_id", "string", "only at this table", False, f.pattern(f.TABLE_ID_RE)),
        Field(
            "minutes",
            "int|null",
            "length; absent or null = permanent",
            False,
            f.integer(1, 525_600),
            nullable=True,
        ),
        Field("reason", "string", "kept with the mute", False, f.text(200)),
    )


class Unmute(Message):
    """Moderators: lift a mute of `target` (at table_id, or the global one)."""

    name = "unmute"
    fields = (
        Field("target", "string", "the player", True, f.player_name),
        Field("table_id", "string", "the table mute to lift", False, f.pattern(f.TABLE_ID_RE)),
    )
