"""What the nodes send each other on the bus (msgspec Structs, msgpack on the wire).

A frame meant for a client travels as the very bytes the owner encoded (`frame`), so the
receiving node writes it to the player's connection without decoding it again.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Command(msgspec.Struct, frozen=True, kw_only=True):
    """A player's table request, sent by the node holding the session to the table's owner."""

    op: str  # observe, unobserve, sit, top_up, sit_out, sit_in, leave, act, chat, ...
    player: str
    args: dict[str, Any] = {}


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """The owner's answer: the result (plain JSON values) or the refusal's code; and the
    table's audience after the request (players and observers, every node's)."""

    ok: bool
    result: Any = None
    code: str = ""
    message: str = ""
    details: dict[str, Any] = {}
    audience: list[str] | None = None  # None: the owner has no such table (any more)


class TableEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One broadcast of a table: `seq` counts from 1 per owner (`node`, `epoch`); `audience`
    is who should get it (the table's audience less the excluded)."""

    table_id: str
    node: str
    epoch: int
    seq: int
    audience: list[str]
    frame: bytes


class Private(msgspec.Struct, frozen=True, kw_only=True):
    """One message for one player (hole cards, C-15; a table's notice to that player)."""

    player: str
    frame: bytes


class SessionClaim(msgspec.Struct, frozen=True, kw_only=True):
    """`player` logged in on `node` at `at` (seconds, the node's clock): an older session of
    theirs on another node is closed with `session_replaced`."""

    player: str
    node: str
    at: float


class LobbyLine(msgspec.Struct, frozen=True, kw_only=True):
    """A table's lobby line from its owner (at the epoch of its lease), and the table's
    audience."""

    node: str
    table: dict[str, Any]  # a TableSummary as plain JSON values
    audience: list[str]
    epoch: int = 0  # 0: not told (a node of an older version)


class MutesChanged(msgspec.Struct, frozen=True, kw_only=True):
    """`node` stored or lifted a chat mute: the other nodes read the active mutes again."""

    node: str


class BanChanged(msgspec.Struct, frozen=True, kw_only=True):
    """Staff on `node` banned `player` (or lifted the ban: `banned` false)."""

    node: str
    player: str
    banned: bool


class TourneyLine(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's lobby line from its owner: the summary, who is registered, and each of
    its open tables' audience (the node holding a player's session counts and resumes their
    tournament tables from it, C-1, C-14). `open` false: it ended (still asked for results)."""

    node: str
    tournament_id: str
    open: bool
    summary: dict[str, Any]  # a TournamentSummary as plain JSON values
    players: list[str]
    tables: dict[str, list[str]]  # table id `<tournament_id>.<n>` -> its audience


class LinesAsked(msgspec.Struct, frozen=True, kw_only=True):
    """`node` just started listening: every owner tells its tournaments' lines now."""

    node: str


class Fanout(msgspec.Struct, frozen=True, kw_only=True):
    """One public frame for several players not connected to `node` (a tournament table's
    event, a tournament's status or results): each node writes it to those connected to it."""

    node: str
    players: list[str]
    frame: bytes
