"""Tournament messages: the lobby, registration, re-entry/rebuy/add-on, play, moves, results.

Pure declarations, like `messages.py` (requests) and `events.py` (server messages); importing
this module registers them. Every request names the tournament by `tournament_id`, never the
player (the session knows who it is, ARCHITECTURE rule 8). Refusals carry the director's stable
codes (`tournaments/director/errors.py`: `registration_closed`, `insufficient_funds`, ...) or the
engine's for actions (P-1). Money amounts are cents; chip amounts are tournament chips (never
money). See docs/PROTOCOL.md, section 9.
"""

from __future__ import annotations

import re

from pokerroom.protocol import fields as f
from pokerroom.protocol.events import ServerMessage
from pokerroom.protocol.fields import Field
from pokerroom.protocol.messages import Message

TOURNAMENT_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
TOURNAMENT_ID = Field(
    "tournament_id", "string", "the tournament's id", True, f.pattern(TOURNAMENT_ID_RE, 64)
)
FUNDING = ("cash", "tdollars", "ticket")


def _fields(*specs: tuple[str, str, str]) -> tuple[Field, ...]:
    return tuple(Field(name, kind, doc) for name, kind, doc in specs)


# -- requests -------------------------------------------------------------------------------
class TournamentList(Message):
    """The tournament lobby. Answered by `ok` {tournaments: [tournament summary...]}: id, name,
    kind (mtt | sit_and_go), status, starts_at, buy_in, fee, entries, guarantee, late
    registration open or not, seconds to the next break (T-11)."""

    name = "tournament_list"


class TournamentStatus(Message):
    """One tournament's status. Answered by `ok` {status} with the fields of
    `tournament_status`; the caller also receives `tournament_status` on every level change."""

    name = "tournament_status_request"
    fields = (TOURNAMENT_ID,)


class TournamentRegister(Message):
    """Register (T-2, T-3, T-5): buy-in to the prize pool, fee to the house, all at once.
    Answered by `ok` {entry: 1, chips}; errors `registration_not_open`, `registration_closed`,
    `already_registered`, `tournament_full`, `insufficient_funds`. During late registration the
    player is seated at once (`tournament_seat`)."""

    name = "tournament_register"
    fields = (
        TOURNAMENT_ID,
        Field("funding", "string", "cash | tdollars | ticket (default cash)", False,
              f.choice(FUNDING)),
        Field("ticket_id", "string", "the ticket, with funding=ticket", False, f.text(64)),
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
    fields = (TOURNAMENT_ID,)


class TournamentRebuy(Message):
    """Buy the rebuy's chips (T-4); added at once between hands, or after the current hand.
    Answered by `ok` {chips}; errors `period_closed`, `limit_reached`, `stack_too_big`,
    `insufficient_funds`."""

    name = "tournament_rebuy"
    fields = (TOURNAMENT_ID,)


class TournamentAddon(Message):
    """Take the add-on (T-4). Answered by `ok` {chips}; errors as `tournament_rebuy`."""

    name = "tournament_addon"
    fields = (TOURNAMENT_ID,)


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


# -- server messages ------------------------------------------------------------------------
class TournamentLobbyUpdate(ServerMessage):
    """A tournament summary changed (registrations, start, players left); to lobby watchers."""

    name = "tournament_lobby_update"
    fields = _fields(("tournament", "object", "the summary, as in `tournament_list`"))


class TournamentStatusEvent(ServerMessage):
    """Status of a tournament (on request, at every level change, start, break and the money):
    level, blinds and ante, seconds to the next level and the next break (T-11), players left,
    entries, average stack, prize pool, the payouts by place once fixed (T-6)."""

    name = "tournament_status"
    fields = _fields(
        ("tournament_id", "string", "the tournament"),
        ("status", "string", "registering | running | on_break | finished | cancelled"),
        ("level", "int", "1-based level"),
        ("small_blind", "int", "chips"),
        ("big_blind", "int", "chips"),
        ("ante", "int", "chips; with ante_kind none | classic | big_blind"),
        ("next_level_in", "int|null", "seconds"),
        ("next_break_in", "int|null", "seconds; 0 during a break"),
        ("players_left", "int", "entries still holding chips"),
        ("entries", "int", "every entry, re-entries included"),
        ("average_stack", "int", "chips"),
        ("prize_pool", "int", "cents, the guarantee included when it applies (T-5, T-6)"),
        ("payouts", "[int]|null", "cents by place, once the pool is fixed"),
        ("hand_for_hand", "bool", "the bubble is played hand-for-hand"),
    )


class TournamentSeat(ServerMessage):
    """You are moved (T-10): to the player concerned, before their new table's next hand.
    `reason`: balance | break | final_redraw."""

    name = "tournament_seat"
    fields = _fields(
        ("tournament_id", "string", "the tournament"),
        ("table", "int", "the table number"),
        ("seat", "int", "the seat number"),
        ("reason", "string", "balance | break | final_redraw"),
        ("from_table", "int", "the table you left"),
    )


class TournamentActionRequest(ServerMessage):
    """Your turn at your tournament table, with your own view of the hand: your hole cards only
    (C-15), the board, the stacks and the pot. The action clock and time bank run (C-6, C-7).
    Answer with `tournament_act`."""

    name = "tournament_action_request"
    fields = _fields(
        ("tournament_id", "string", "the tournament"),
        ("hand_id", "string", "the hand"),
        ("table", "int", "your table"),
        ("hole_cards", "[string]", "your cards"),
        ("board", "[string]", "the community cards"),
        ("stacks", "object", "player -> chips behind, in the order of action"),
        ("pot", "int", "chips put in so far"),
        ("actions", "object", "fold, call (chips), min_raise_to, max_raise_to"),
    )


class TournamentFinish(ServerMessage):
    """Your entry finished: place, prize (cents, paid into your wallet, T-7), and who won the
    pot that knocked you out (T-9). Re-entry or rebuy may follow where allowed."""

    name = "tournament_finish"
    fields = _fields(
        ("tournament_id", "string", "the tournament"),
        ("place", "int", "finishing place (tied players share, `tied` > 1)"),
        ("tied", "int", "players sharing the place"),
        ("prize", "int", "cents"),
        ("busted_by", "[string]", "the knockout pot's winners"),
    )


class TournamentResults(ServerMessage):
    """The tournament ended (T-8): every place and prize; to everyone who took part."""

    name = "tournament_results"
    fields = _fields(
        ("tournament_id", "string", "the tournament"),
        ("results", "[object]", "{player, place, tied, prize} by place"),
        ("prize_pool", "int", "cents"),
    )


class TournamentCancelled(ServerMessage):
    """The tournament was cancelled before its start (T-1, T-18.1): buy-ins and fees refunded."""

    name = "tournament_cancelled"
    fields = _fields(("tournament_id", "string", "the tournament"), ("reason", "string", "why"))


TOURNAMENT_REQUESTS = (
    TournamentList, TournamentStatus, TournamentRegister, TournamentUnregister,
    TournamentReenter, TournamentRebuy, TournamentAddon, TournamentAct, TournamentSitOut,
)  # fmt: skip
TOURNAMENT_EVENTS = (
    TournamentLobbyUpdate, TournamentStatusEvent, TournamentSeat, TournamentActionRequest,
    TournamentFinish, TournamentResults, TournamentCancelled,
)  # fmt: skip
