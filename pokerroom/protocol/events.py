"""Server-to-client messages: one typed definition each, from which the frame is encoded.

Every server message is a frozen `msgspec.Struct` tagged by its `type`; the objects inside
messages (a table summary, a snapshot, the legal actions ...) are `WireObject`s. A message is
built as a value (`PlayerActed(table_id=..., hand_id=..., seat=2, action="call", amount=40)`)
and encoded once by `encode` (a compact JSON line, docs/PROTOCOL.md section 1); there are no
hand-built frame dicts. Optional fields default to `UNSET` and are left out of the frame;
nullable ones are always present. docs/PROTOCOL.md is checked against these definitions in both
directions (tests/protocol/test_protocol_doc.py), and the bots validate every frame they receive
against them (`pokerroom.protocol.catalog.validate`).

Table events carry only what their receiver may see (C-15): `hole_cards` and `action_request`
go to one player, and no frame names another player's hidden cards before `hand_shown`.
Tournament messages are declared in `pokerroom.protocol.tournament_messages`; typed `ok`
results in `pokerroom.protocol.results`; the base classes and the registry in
`pokerroom.protocol.wire`; `pokerroom.protocol.catalog` imports them all and checks frames.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

from pokerroom.protocol.errors import MAX_MESSAGE_CHARS, ProtocolError
from pokerroom.protocol.wire import (
    RESULTS,
    SERVER_TYPES,
    Frame,
    ServerMessage,
    WireObject,
    as_dict,
    encode,
    fields_of,
    frame_type,
    message,
    result_of,
    server_messages,
)

#: The base names are `pokerroom.protocol.wire`'s, named here too for the message modules.
__all__ = [
    "RESULTS",
    "SERVER_TYPES",
    "UNSET",
    "Frame",
    "ServerMessage",
    "UnsetType",
    "WireObject",
    "as_dict",
    "encode",
    "fields_of",
    "frame_type",
    "message",
    "result_of",
    "server_messages",
]


# -- answers and session notices ------------------------------------------------------------
@message
class Ok(ServerMessage, tag="ok", frozen=True):
    """The answer to a request that succeeded; `id` is the request's id, `re` its type, and
    `result` what it returned (per request, `pokerroom.protocol.results`; may be empty)."""

    id: int | str
    re: str
    result: Any


@message
class Error(ServerMessage, tag="error", frozen=True):
    """The answer to a refused request; nothing changed (P-1). `id` is null when the frame
    was unreadable. `details` (optional) holds machine-readable extras, e.g. `until_ms`."""

    id: int | str | None
    code: str
    message: str
    details: dict[str, Any] | UnsetType = UNSET


@message
class Keepalive(ServerMessage, tag="keepalive", frozen=True):
    """Sent after `heartbeat_seconds` without traffic to the client. Answer with `ping`;
    a client silent for `idle_timeout_seconds` is disconnected (idle_timeout)."""

    server_time_ms: int


@message
class Goodbye(ServerMessage, tag="goodbye", frozen=True):
    """Last frame before the server closes the connection: frame_too_large,
    too_many_requests, idle_timeout, session_replaced, server_shutdown and the connection
    limits. Resume with `resume` if allowed."""

    code: str
    message: str


class TableSummary(WireObject, frozen=True):
    """A cash table's lobby line."""

    table_id: str
    variant: str
    max_seats: int
    small_blind: int
    big_blind: int
    currency: str
    min_buy_in: int
    max_buy_in: int
    action_seconds: float
    timebank_seconds: float
    players: int
    observers: int


@message
class LobbyUpdate(ServerMessage, tag="lobby_update", frozen=True):
    """To lobby subscribers: one table's summary changed (someone sat down or stood up)."""

    table: TableSummary


# -- objects inside table events --------------------------------------------------------------
class SeatStack(WireObject, frozen=True):
    """A dealt-in seat at the start of a hand."""

    seat: int
    player: str
    stack: int


class LegalView(WireObject, frozen=True):
    """The legal actions in `action_request`: amounts are to-totals; null: no raise."""

    fold: bool
    check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None


class Share(WireObject, frozen=True):
    """One winner's part of a pot (C-5)."""

    seat: int
    amount: int


class SnapshotSeat(WireObject, frozen=True):
    """One seat in a snapshot; at a bounty tournament's table, the bounty on the player's head
    (cents, T-14)."""

    seat: int
    player: str
    stack: int
    sitting_out: bool
    waiting: bool
    in_hand: bool
    disconnected: bool
    bounty: int | UnsetType = UNSET


class HandSeat(WireObject, frozen=True):
    """One dealt-in seat of the running hand; `cards` only for the viewer and shown hands."""

    seat: int
    stack: int
    bet: int
    folded: bool
    cards: list[str] | UnsetType = UNSET


class HandView(WireObject, frozen=True):
    """The running hand as one viewer may see it (C-15)."""

    hand_id: str
    board: list[str]
    pot: int
    actor: int | None
    seats: list[HandSeat]
    deadline_ms: int | UnsetType = UNSET


class Snapshot(WireObject, frozen=True):
    """The whole table as the receiver may see it. A tournament table has no currency and no
    buy-in (chips are not money) and names its tournament and ante."""

    table_id: str
    variant: str
    max_seats: int
    blinds: list[int]
    currency: str | None
    buy_in: list[int] | None
    button: int | None
    seats: list[SnapshotSeat]
    hand: HandView | None
    tournament_id: str | UnsetType = UNSET
    ante: int | UnsetType = UNSET


# -- table events -------------------------------------------------------------------------------
class TableEvent(ServerMessage, frozen=True):
    """A table event: every one names its table."""

    table_id: str


@message
class TableSnapshot(TableEvent, tag="table_snapshot", frozen=True):
    """The whole table as the receiver may see it (C-15): after observe/sit, and on
    reconnect (C-14)."""

    snapshot: Snapshot


@message
class SeatTaken(TableEvent, tag="seat_taken", frozen=True):
    """A player sat down."""

    seat: int
    player: str
    stack: int


@message
class SeatLeft(TableEvent, tag="seat_left", frozen=True):
    """A player stood up; `amount` was cashed out to the wallet."""

    seat: int
    player: str
    amount: int


@message
class PlayerSatOut(TableEvent, tag="player_sat_out", frozen=True):
    """A player sits out (C-3, C-6): asked, timeout, no_chips, restart, cash_out_failed."""

    seat: int
    player: str
    reason: str


@message
class PlayerSatIn(TableEvent, tag="player_sat_in", frozen=True):
    """A player is back (C-3, C-4): what they owe and whether they wait for the big blind."""

    seat: int
    player: str
    owes: int
    wait_for_bb: bool


@message
class HandStarted(TableEvent, tag="hand_started", frozen=True):
    """A hand begins; `seats` are the dealt-in seats in position order. A tournament table
    also gives the level's ante per player (`ante`, 0 without antes)."""

    hand_id: str
    button: int
    blinds: list[int]
    seats: list[SeatStack]
    ante: int | UnsetType = UNSET


@message
class BlindPosted(TableEvent, tag="blind_posted", frozen=True):
    """A forced bet (C-2, C-4): small, big, entry, dead or ante."""

    hand_id: str
    seat: int
    amount: int
    kind: str


@message
class HoleCards(TableEvent, tag="hole_cards", frozen=True):
    """The receiver's own hole cards (to the holder only, C-15)."""

    hand_id: str
    cards: list[str]


@message
class ActionRequest(TableEvent, tag="action_request", frozen=True):
    """To the player to act: legal actions and the clock (C-6, C-7)."""

    hand_id: str
    seat: int
    actions: LegalView
    deadline_ms: int
    timebank_ms: int


@message
class TimebankStarted(TableEvent, tag="timebank_started", frozen=True):
    """The action clock ran out; the time bank runs (C-7)."""

    hand_id: str
    seat: int
    timebank_ms: int
    deadline_ms: int


@message
class PlayerActed(TableEvent, tag="player_acted", frozen=True):
    """A betting action, including the table's own on a timeout (C-6): `amount` is the
    to-total of a bet or raise, the amount paid for a call, null otherwise."""

    hand_id: str
    seat: int
    action: str
    amount: int | None
    added: int | UnsetType = UNSET
    all_in: bool | UnsetType = UNSET
    auto: str | UnsetType = UNSET


@message
class BoardDealt(TableEvent, tag="board_dealt", frozen=True):
    """Community cards: street 1 flop, 2 turn, 3 river."""

    hand_id: str
    street: int
    cards: list[str]


@message
class PotReturned(TableEvent, tag="pot_returned", frozen=True):
    """An uncalled bet goes back."""

    hand_id: str
    seat: int
    amount: int


@message
class HandShown(TableEvent, tag="hand_shown", frozen=True):
    """A player shows their cards at showdown (the only way others' cards are sent, C-15)."""

    hand_id: str
    seat: int
    cards: list[str]


@message
class HandMucked(TableEvent, tag="hand_mucked", frozen=True):
    """A player mucks (cards stay hidden)."""

    hand_id: str
    seat: int


@message
class PotAwarded(TableEvent, tag="pot_awarded", frozen=True):
    """A pot or side pot is won (C-5, C-11): `amount` after rake, split in `shares`."""

    hand_id: str
    pot: int
    seats: list[int]
    amount: int
    rake: int
    shares: list[Share]


@message
class HandEnded(TableEvent, tag="hand_ended", frozen=True):
    """The hand is over: every dealt-in seat's stack (keys are seat numbers) and the rake."""

    hand_id: str
    stacks: dict[str, int]
    rake: int


@message
class ChatLine(TableEvent, tag="chat", frozen=True):
    """A chat line at a table (C-13), to everyone who has the table open."""

    player: str
    text: str
    at_ms: int


@message
class TablePaused(TableEvent, tag="table_paused", frozen=True):
    """The table waits for the database to take a step (`start_hand` or `settle_hand`): an
    outage. Nothing is dealt, chips stay safe in escrow, the table tries again by itself
    (C-12); also sent to a player who opens the table while it waits."""

    step: str
    since_ms: int


@message
class TableResumed(TableEvent, tag="table_resumed", frozen=True):
    """The database took the step the table waited on (`paused_ms` later); play goes on."""

    step: str
    paused_ms: int


@message
class TableHalted(TableEvent, tag="table_halted", frozen=True):
    """The database refused a table's step for good (not an outage): the table deals no more
    until the room restarts, when the hand `hand_id` is void (C-12); its result was never sent
    (docs/ARCHITECTURE.md rule 14)."""

    step: str
    hand_id: str | None


def ok(request_id: int | str, re: str, result: Any = None) -> Ok:
    """The `ok` message answering request `request_id` of type `re`."""
    return Ok(id=request_id, re=re, result={} if result is None else result)


def goodbye(code: str, message: str) -> Goodbye:
    """The `goodbye` message."""
    return Goodbye(code=code, message=message)


def error_message(error: ProtocolError, request_id: int | str | None = None) -> Error:
    """The `error` message answering the request `request_id` with a refusal."""
    return Error(
        id=request_id,
        code=error.code,
        message=error.message[:MAX_MESSAGE_CHARS],
        details=error.details or UNSET,
    )
