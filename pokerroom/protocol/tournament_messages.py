"""Tournament messages: the lobby, registration, re-entry/rebuy/add-on, play, moves, results.

Pure declarations, like `messages.py` (requests) and `events.py` (typed server messages);
importing this module registers them. Every request names the tournament by `tournament_id`,
never the player (the session knows who it is, docs/ARCHITECTURE.md rule 8). Refusals carry the
director's stable codes (`tournaments/director/errors.py`: `registration_closed`,
`insufficient_funds`, ...), `unknown_tournament`, or the engine's for actions (P-1). Money
amounts are cents; chip amounts are tournament chips (never money). See docs/PROTOCOL.md,
section 9.
"""

from __future__ import annotations

import re

from pokerroom.protocol import fields as f
from pokerroom.protocol.events import (
    UNSET,
    LegalView,
    ServerMessage,
    UnsetType,
    WireObject,
    message,
    result_of,
)
from pokerroom.protocol.fields import KEY, Field
from pokerroom.protocol.messages import Message

TOURNAMENT_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
TOURNAMENT_ID = Field(
    "tournament_id", "string", "the tournament's id", True, f.pattern(TOURNAMENT_ID_RE, 64)
)
FUNDING = ("cash", "tdollars", "ticket")


# -- requests -------------------------------------------------------------------------------
class TournamentList(Message):
    """The tournament lobby. Answered by `ok` {tournaments: [tournament summary]}: id, name,
    kind, status, start, buy-in and fee, entries, guarantee, the late-registration period and
    when it ends (T-5), seconds to the next break (T-11)."""

    name = "tournament_list"


class TournamentStatus(Message):
    """One tournament's status. Answered by `ok` {status}: a `tournament_status` message.
    Registered players also receive `tournament_status` at every level change, break, start,
    knockout and the money."""

    name = "tournament_status_request"
    fields = (TOURNAMENT_ID,)


class TournamentRegister(Message):
    """Register (T-2, T-3, T-5): buy-in to the prize pool, fee to the house, all at once.
    Answered by `ok` {entry: 1, chips}; errors `unknown_tournament`, `registration_not_open`,
    `registration_closed`, `already_registered`, `tournament_full`, `insufficient_funds`,
    `idempotency_conflict`. During late registration the player is seated at once. With a
    `key`, a retry moves nothing and gets the first answer (P-2). With a `ticket_id` (one of
    the player's `tickets`) the entry is paid by that ticket (T-16, T-3); its errors
    `unknown_ticket`, `ticket_not_usable`, `ticket_expired`, `wrong_ticket`."""

    name = "tournament_register"
    fields = (
        TOURNAMENT_ID,
        Field("funding", "string", "cash | tdollars | ticket (default cash)", False,
              f.choice(FUNDING)),
        Field("ticket_id", "string", "pay with this ticket (funding ticket)", False, f.text(64)),
        KEY,
    )  # fmt: skip


class TournamentUnregister(Message):
    """Unregister before `unregister_close` (T-3): buy-in and fee back where they came from.
    Answered by `ok` {refunded}; errors `not_registered`, `unregister_closed`,
    `ticket_not_refundable`."""

    name = "tournament_unregister"
    fields = (TOURNAMENT_ID,)


class TournamentReenter(Message):
    """Re-enter after busting, during late registration (T-4, T-5): a new entry and stack.
    Answered by `ok` {entry, chips}; errors `still_in_play`, `period_closed`, `limit_reached`,
    `registration_closed`, `insufficient_funds`."""

    name = "tournament_reenter"
    fields = (TOURNAMENT_ID, KEY)


class TournamentRebuy(Message):
    """Buy the rebuy's chips (T-4); added at once between hands, or after the current hand.
    Answered by `ok` {chips}; errors `period_closed`, `limit_reached`, `stack_too_big`,
    `insufficient_funds`."""

    name = "tournament_rebuy"
    fields = (TOURNAMENT_ID, KEY)


class TournamentAddon(Message):
    """Take the add-on (T-4). Answered by `ok` {chips}; errors as `tournament_rebuy`."""

    name = "tournament_addon"
    fields = (TOURNAMENT_ID, KEY)


class Tickets(Message):
    """The player's tournament tickets (T-16, T-3), newest first. Answered by `ok` {tickets:
    [ticket]}. A ticket pays one entry in its target (or any tournament of its buy-in level);
    it is never money: not transferable, not cashable."""

    name = "tickets"


class TournamentAct(Message):
    """A betting action at the player's tournament table, answering `tournament_action_request`
    (same rules and engine codes as `act`)."""

    name = "tournament_act"
    fields = (
        TOURNAMENT_ID,
        Field("action", "string", "fold | check | call | bet | raise", True, f.choice(f.ACTIONS)),
        Field("amount", "int|null", "bet/raise: the 'to' total in chips", False,
              f.integer(1, 10**12), nullable=True),
    )  # fmt: skip


class TournamentSitOut(Message):
    """Sit out or come back (T-12): a sitting-out player is still dealt in, posts blinds and
    antes, and is folded to a bet or checked. Answered by `ok` {}."""

    name = "tournament_sit_out"
    fields = (
        TOURNAMENT_ID,
        Field("sitting_out", "bool", "true to sit out, false to come back", True, f.boolean),
    )


# -- objects, results and server messages -----------------------------------------------------
class TournamentSummary(WireObject, frozen=True):
    """A tournament's lobby line (T-1, T-5, T-11). Times are ms since the epoch; null where
    not known yet (a sit-and-go starts when full)."""

    tournament_id: str
    name: str
    kind: str
    status: str
    starts_at_ms: int | None
    buy_in: int
    fee: int
    entries: int
    max_entries: int | None
    guarantee: int
    registration_open: bool
    late_registration_levels: int
    late_registration_ends_ms: int | None
    late_registration_closed: str | None
    next_break_in: int | None
    players_left: int
    bounty_format: str | UnsetType = UNSET


class TournamentPlace(WireObject, frozen=True):
    """One place in `tournament_results`."""

    player: str
    place: int
    tied: int
    prize: int


class PlayerBounty(WireObject, frozen=True):
    """A player and an amount of bounty money (cents, T-14): the bounty on their head in
    `top_bounties`, the bounties they won in `tournament_results`."""

    player: str
    amount: int


class TicketView(WireObject, frozen=True):
    """A tournament ticket (T-16, T-3). `target` is the tournament it pays an entry in (null:
    any tournament of its buy-in level); `any_of_level` true when it pays any tournament of
    buy-in plus fee `value`. `state`: issued, used, returned, expired, converted."""

    ticket_id: str
    target: str | None
    any_of_level: bool
    buy_in: int
    fee: int
    value: int
    state: str
    issued_at_ms: int
    expires_at_ms: int
    source: str | None
    used_in: str | None


class DealFigure(WireObject, frozen=True):
    """One player of a deal (T-13): their chips when the tables paused and their amount
    (cents, paid at once if every player accepts)."""

    player: str
    chips: int
    amount: int


class DealView(WireObject, frozen=True):
    """An accepted deal as the results record it (T-13): `kind` icm, chip_chop or custom (a
    staff member's split), each player's figure, the cents rounding left to the house (T-7),
    the amount left to play for (paid to the winner by the final result) and when."""

    deal_id: str
    kind: str
    figures: list[DealFigure]
    rounding: int
    left_to_play_for: int
    accepted_at_ms: int


@message
class TournamentLobbyUpdate(ServerMessage, tag="tournament_lobby_update", frozen=True):
    """A tournament summary changed (opened, registrations, start, knockouts, level or break,
    end); to lobby subscribers (`lobby_subscribe`)."""

    tournament: TournamentSummary


@message
class TournamentStatusEvent(ServerMessage, tag="tournament_status", frozen=True):
    """Status of a tournament: on request, and to its registered players at the start, each
    level change and break (T-11), each knockout and the money. Before the start: when it
    starts and its first level."""

    tournament_id: str
    status: str
    starts_at_ms: int | None
    level: int
    small_blind: int
    big_blind: int
    ante: int
    level_seconds: int
    next_level_in: int | None
    on_break: bool
    next_break_in: int | None
    players_left: int
    entries: int
    average_stack: int
    prize_pool: int
    payouts: list[int] | None
    in_the_money: bool
    hand_for_hand: bool
    bounty_format: str | UnsetType = UNSET
    bounties_in_play: int | UnsetType = UNSET
    bounties_paid: int | UnsetType = UNSET
    top_bounties: list[PlayerBounty] | UnsetType = UNSET


@message
class TournamentSeat(ServerMessage, tag="tournament_seat", frozen=True):
    """You are moved (T-10): to the player concerned, before their new table's next hand.
    `reason`: balance | break | final_redraw | staff (a move by the floor, docs/ADMIN.md)."""

    tournament_id: str
    table: int
    seat: int
    reason: str
    from_table: int


@message
class TournamentActionRequest(ServerMessage, tag="tournament_action_request", frozen=True):
    """Your turn at your tournament table, with your own view of the hand: your hole cards only
    (C-15), the board, the stacks and the pot. The action clock and time bank run (C-6, C-7).
    Answer with `tournament_act`."""

    tournament_id: str
    hand_id: str
    table: int
    hole_cards: list[str]
    board: list[str]
    stacks: dict[str, int]
    pot: int
    actions: LegalView


@message
class TournamentFinish(ServerMessage, tag="tournament_finish", frozen=True):
    """Your entry finished: place, prize (cents, paid into your wallet, T-7), and who won the
    pot that knocked you out (T-9). Re-entry or rebuy may follow where allowed."""

    tournament_id: str
    place: int
    tied: int
    prize: int
    busted_by: list[str]
    bounty: int | UnsetType = UNSET


@message
class TournamentResults(ServerMessage, tag="tournament_results", frozen=True):
    """The tournament ended (T-8): every place and prize; to everyone who took part. After a
    deal (T-13) `deal` records it, and each player's prize includes their deal amount."""

    tournament_id: str
    prize_pool: int
    results: list[TournamentPlace]
    bounties: list[PlayerBounty] | UnsetType = UNSET
    deal: DealView | UnsetType = UNSET


@message
class TournamentCancelled(ServerMessage, tag="tournament_cancelled", frozen=True):
    """The tournament was cancelled (T-1: too few entries or the staff; T-18: an outage) and
    your refund is paid: by part, in cents, and in all. `buy_in` comes back only before the
    start (T-18.1); after it, `pool_share` is your share of the prize pool (T-18.2, T-18.3)."""

    tournament_id: str
    reason: str
    fee: int
    buy_in: int
    pool_share: int
    bounty: int
    total: int


@message
class BountyWon(ServerMessage, tag="bounty_won", frozen=True):
    """Bounty money (T-14), to the player who receives it and to the player whose bounty it
    was: `reason` knockout (`busted` knocked out in `hand_id`), bubble (deferred bounties paid
    as the money is reached) or end (the bounty on one's own head at the end). `amount` is paid
    to the wallet now (cents), `added` goes onto the receiver's own bounty, `bounty` is the
    receiver's bounty after it."""

    tournament_id: str
    player: str
    busted: str | None
    reason: str
    amount: int
    added: int
    bounty: int
    hand_id: str | None


@result_of("tournament_list")
class TournamentLobby(WireObject, frozen=True):
    """`tournament_list`: every open tournament."""

    tournaments: list[TournamentSummary]


@result_of("tournament_status_request")
class TournamentStatusAnswer(WireObject, frozen=True):
    """`tournament_status_request`: the `tournament_status` message."""

    status: TournamentStatusEvent


@result_of("tournament_register", "tournament_reenter")
class Entered(WireObject, frozen=True):
    """A paid entry: its number (1 for the first, 2 after one re-entry ...) and its chips."""

    entry: int
    chips: int


@result_of("tournament_rebuy", "tournament_addon")
class ChipsBought(WireObject, frozen=True):
    """Chips bought by a rebuy or an add-on (T-4)."""

    chips: int


@result_of("tournament_unregister")
class Unregistered(WireObject, frozen=True):
    """Unregistered: buy-in and fee went back (T-3)."""

    refunded: bool


@result_of("tickets")
class TicketsAnswer(WireObject, frozen=True):
    """`tickets`: the player's tickets, newest first."""

    tickets: list[TicketView]


TOURNAMENT_REQUESTS = (
    TournamentList, TournamentStatus, TournamentRegister, TournamentUnregister,
    TournamentReenter, TournamentRebuy, TournamentAddon, TournamentAct, TournamentSitOut,
    Tickets,
)  # fmt: skip
TOURNAMENT_EVENTS = (
    TournamentLobbyUpdate, TournamentStatusEvent, TournamentSeat, TournamentActionRequest,
    TournamentFinish, TournamentResults, TournamentCancelled, BountyWon,
)  # fmt: skip
#: The money requests that take a client `key` (P-2).
KEYED_REQUESTS = frozenset(
    {"tournament_register", "tournament_reenter", "tournament_rebuy", "tournament_addon"}
)
