"""Casino table messages (docs/PROTOCOL.md section 10): list, join, bet, rounds, history.

Pure declarations, like `staking_messages.py`; importing this module registers them. Requests
name the table by `table_id`, never the player (the session knows who it is). Money is in minor
units. A confirmation takes a `key` (P-2): the same key again answers the same and moves
nothing. Refusals carry the table's codes (`pokerroom.casino.codes`) and the core's
(`pokerroom.casino.core.errors`).
"""

from __future__ import annotations

import re
from typing import Any

from pokerroom.protocol import fields as f
from pokerroom.protocol.events import ServerMessage, WireObject, message, result_of
from pokerroom.protocol.fields import AMOUNT, TABLE_ID, Field, pattern
from pokerroom.protocol.messages import Message

SPOT_RE = re.compile(r"^[a-z0-9_:-]{1,40}$")
SPOT = Field("spot", "string", "a bet spot of the table's game (e.g. banker, straight:17)",
             True, pattern(SPOT_RE, 40))  # fmt: skip
CONFIRM_KEY = Field(
    "key", "string", "idempotency key (P-2): a retry confirms once", True,
    pattern(f.TABLE_ID_RE, 40),
)  # fmt: skip


# -- requests -------------------------------------------------------------------------------
class CasinoTables(Message):
    """The casino tables of the room. Answered by `ok` {tables: [casino table]}."""

    name = "casino_tables"


class CasinoJoin(Message):
    """Sit at a casino table to bet (K-1); an idle table opens a round. Answered by `ok`
    {table}; error `unknown_table`."""

    name = "casino_join"
    fields = (TABLE_ID,)


class CasinoObserve(Message):
    """Watch a casino table: its round events, every player's totals. Answered by `ok`
    {table}; error `unknown_table`."""

    name = "casino_observe"
    fields = (TABLE_ID,)


class CasinoLeave(Message):
    """Leave a casino table; unconfirmed chips are dropped, confirmed bets still settle (K-9).
    Answered by `ok` {}."""

    name = "casino_leave"
    fields = (TABLE_ID,)


class CasinoPlace(Message):
    """Add chips to your draft on a spot (K-3); nothing moves yet. Answered by `ok`
    {bets: [casino bet]} (the whole draft); errors `not_at_table`, `betting_closed`,
    `table_closed`, `unknown_spot`, `invalid_stake`."""

    name = "casino_place"
    fields = (TABLE_ID, SPOT, AMOUNT)


class CasinoClear(Message):
    """Drop your unconfirmed chips (K-3). Answered by `ok` {}."""

    name = "casino_clear"
    fields = (TABLE_ID,)


class CasinoUndo(Message):
    """Take back your last unconfirmed chip (K-3). Answered by `ok` {bets: [casino bet]};
    error `no_draft`."""

    name = "casino_undo"
    fields = (TABLE_ID,)


class CasinoDouble(Message):
    """Double your unconfirmed chips, and only them (K-3). Answered by `ok` {bets}; error
    `no_draft`."""

    name = "casino_double"
    fields = (TABLE_ID,)


class CasinoRebet(Message):
    """Your confirmed bets of the last settled round as a new draft (K-3). Answered by `ok`
    {bets}; error `no_draft` (none)."""

    name = "casino_rebet"
    fields = (TABLE_ID,)


class CasinoConfirm(Message):
    """Confirm your draft (K-3): limits (K-5), then the stakes leave your wallet (K-4). Answered
    by `ok` {round_id, bets, staked, replayed}; errors `no_draft`, `betting_closed`,
    `below_minimum`, `above_maximum`, `spot_closed`, `insufficient_funds`,
    `idempotency_conflict`."""

    name = "casino_confirm"
    fields = (TABLE_ID, CONFIRM_KEY)


class CasinoDecide(Message):
    """Blackjack: decide for your box now (BJ-6 … BJ-13): `hit`, `stand`, `double`, `split`,
    `surrender`, or in the insurance window `insure`, `decline`, `even_money`. A decision that
    adds a stake (double, split, insure) needs a `key` (P-2) and the funds (K-4). Answered by
    `ok` {} once applied; errors `not_your_turn`, `wrong_phase`, `not_allowed`, `unknown_box`,
    `decision_pending`, `insufficient_funds`, `missing_key`, `idempotency_conflict` (a key
    that posted another request: nothing moves, the decision is not applied)."""

    name = "casino_decide"
    fields = (
        TABLE_ID,
        Field("box", "int", "your box, 1-7", True, f.integer(1, 7)),
        Field("action", "string", "the decision", True, pattern(re.compile(r"^[a-z_]{1,20}$"), 20)),
        Field("key", "string", "idempotency key (P-2), for double, split and insure", False,
              pattern(f.TABLE_ID_RE, 40)),
    )  # fmt: skip


class CasinoHistory(Message):
    """Your latest casino rounds, newest first (K-9). Answered by `ok` {rounds: [casino
    round]}."""

    name = "casino_history"
    fields = (
        Field("limit", "int", "rounds, 1-50 (default 20)", False, f.integer(1, 50)),
    )  # fmt: skip


# -- objects --------------------------------------------------------------------------------
class CasinoTableView(WireObject, frozen=True):
    """A casino table: game, currency, `phase` (between, opening, betting, settling, closed,
    waiting_for_bankroll), the round under way and when its betting closes, how many play."""

    table_id: str
    game: str
    currency: str
    phase: str
    round_id: str | None
    closes_ms: int | None
    players: int


class CasinoBet(WireObject, frozen=True):
    """Chips on one spot."""

    spot: str
    amount: int


class CasinoTotal(WireObject, frozen=True):
    """One player's round as everyone sees it."""

    player: str
    staked: int
    paid: int


class CasinoLine(WireObject, frozen=True):
    """One of your bets as settled: `result` win, lose, push or half; `returned` stake
    included."""

    spot: str
    stake: int
    result: str
    returned: int


class CasinoRoundView(WireObject, frozen=True):
    """One round of your history: `status` open, settled or void; `paid` null while open."""

    round_id: str
    table_id: str
    game: str
    status: str
    opened_ms: int
    outcome: dict[str, Any]
    bets: list[CasinoBet]
    paid: int | None


# -- server messages ------------------------------------------------------------------------
@message
class CasinoBettingOpen(ServerMessage, tag="casino_betting_open", frozen=True):
    """A round opened: bets are taken until `closes_ms` (K-2)."""

    table_id: str
    round_id: str
    closes_ms: int
    round_in_shoe: int


@message
class CasinoBettingClosed(ServerMessage, tag="casino_betting_closed", frozen=True):
    """No more bets (K-2); the outcome is drawn after this (RNG-2)."""

    table_id: str
    round_id: str


@message
class CasinoResult(ServerMessage, tag="casino_result", frozen=True):
    """The round's recorded outcome (K-6) and every player's totals, after the settlement."""

    table_id: str
    round_id: str
    outcome: dict[str, Any]
    totals: list[CasinoTotal]


@message
class CasinoSettlement(ServerMessage, tag="casino_settlement", frozen=True):
    """Your own settlement, to you only: each bet, what the cap withheld (K-12), a jackpot
    prize (PB-7), and whether the payout went to your held balance for review (K-13)."""

    table_id: str
    round_id: str
    lines: list[CasinoLine]
    staked: int
    paid: int
    capped: int
    jackpot: int
    held: bool


@message
class CasinoRoundVoid(ServerMessage, tag="casino_round_void", frozen=True):
    """The round is void: every stake returned (K-7, L-5); `partial`: a blackjack round
    cancelled by BJ-19 instead, your `casino_settlement` follows."""

    table_id: str
    round_id: str
    reason: str
    partial: bool


@message
class CasinoTableState(ServerMessage, tag="casino_table_state", frozen=True):
    """The table opened or closed (staff, or after a void: K-7), or waits for the house
    bankroll (`reason` waiting_for_bankroll)."""

    table_id: str
    open: bool
    reason: str


@message
class CasinoBlackjackMove(ServerMessage, tag="casino_blackjack_move", frozen=True):
    """Blackjack: a card dealt, a decision, the peek or the dealer's play; `box` 0 is the
    dealer; `stake` what a decision added."""

    table_id: str
    round_id: str
    kind: str
    box: int
    hand: int
    cards: list[str]
    stake: int


@message
class CasinoDecisionDue(ServerMessage, tag="casino_decision_due", frozen=True):
    """Blackjack: `player`'s box decides now, until `deadline_ms` (BJ-16); the actions it
    may take. Silence is the default: insurance declined, the hand stands (K-10)."""

    table_id: str
    round_id: str
    box: int
    hand: int
    player: str
    actions: list[str]
    deadline_ms: int


# -- results --------------------------------------------------------------------------------
@result_of("casino_tables")
class CasinoTablesAnswer(WireObject, frozen=True):
    """`casino_tables`."""

    tables: list[CasinoTableView]


@result_of("casino_join", "casino_observe")
class CasinoTableAnswer(WireObject, frozen=True):
    """`casino_join`, `casino_observe`."""

    table: CasinoTableView


@result_of("casino_place", "casino_undo", "casino_double", "casino_rebet")
class CasinoDraftAnswer(WireObject, frozen=True):
    """`casino_place`: the whole draft."""

    bets: list[CasinoBet]


@result_of("casino_confirm")
class CasinoConfirmAnswer(WireObject, frozen=True):
    """`casino_confirm`: the bets it added and your stakes in the round."""

    round_id: str
    bets: list[CasinoBet]
    staked: int
    replayed: bool


@result_of("casino_history")
class CasinoHistoryAnswer(WireObject, frozen=True):
    """`casino_history`."""

    rounds: list[CasinoRoundView]
