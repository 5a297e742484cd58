"""The `ok` result of each request, typed (docs/PROTOCOL.md section 5).

Each class is the `result` object of the requests named in its `@result_of`; the session and
the lobby answer with these values, and the bots check every `ok` they receive against them
(`pokerroom.protocol.catalog.validate`). Tournament results are in `tournament_messages`.
"""

from __future__ import annotations

from pokerroom.protocol.events import Snapshot, TableSummary, WireObject, result_of


@result_of(
    "logout",
    "lobby_unsubscribe",
    "unobserve",
    "sit_out",
    "act",
    "chat",
    "tournament_act",
    "tournament_sit_out",
)
class Empty(WireObject, frozen=True):
    """`{}`: done, nothing to report."""


@result_of("hello")
class Greeting(WireObject, frozen=True):
    """`hello`: what the server speaks and this client's limits (C-1)."""

    protocol_version: int
    server: str
    heartbeat_seconds: float
    idle_timeout_seconds: float
    max_frame: int
    table_cap: int


@result_of("register", "login", "resume")
class LoggedIn(WireObject, frozen=True):
    """A login: the player, a fresh resume token, the moderator flag, the open tables."""

    player_id: str
    token: str
    moderator: bool
    tables: list[str]


@result_of("ping")
class Pong(WireObject, frozen=True):
    """`ping`: the server's clock."""

    server_time_ms: int


@result_of("lobby_list", "lobby_subscribe")
class LobbyPage(WireObject, frozen=True):
    """A page of table summaries in `table_id` order."""

    tables: list[TableSummary]
    total: int
    offset: int


@result_of("observe")
class Observed(WireObject, frozen=True):
    """`observe`: the table as the player may see it."""

    snapshot: Snapshot


@result_of("sit")
class Seated(WireObject, frozen=True):
    """`sit`: the seat taken and the chips bought in."""

    seat: int
    stack: int


@result_of("top_up")
class ToppedUp(WireObject, frozen=True):
    """`top_up`: the stack now, and chips waiting for the end of the hand (C-9)."""

    stack: int
    pending: int


@result_of("sit_in")
class SatIn(WireObject, frozen=True):
    """`sit_in`: what the player owes and whether they wait for the big blind (C-4)."""

    owes: int
    wait_for_big_blind: bool


@result_of("leave")
class CashedOut(WireObject, frozen=True):
    """`leave`: the amount cashed out, and the C-8 decline count and block."""

    amount: int
    decline_number: int
    blocked_until_ms: int | None


@result_of("wallet", "deposit")
class Balance(WireObject, frozen=True):
    """A wallet balance in one currency."""

    currency: str
    balance: int


@result_of("hand_histories")
class HistoryPage(WireObject, frozen=True):
    """A page of the player's hands as PHH text, newest first; `next` is the older page's
    cursor (`before`), or null."""

    hands: list[str]
    truncated: bool
    next: str | None


@result_of("mute")
class Muted(WireObject, frozen=True):
    """`mute`: until when (null: for good)."""

    until_ms: int | None


@result_of("unmute")
class Unmuted(WireObject, frozen=True):
    """`unmute`: how many mutes were lifted."""

    lifted: int
