"""Staking (T-17) and deal (T-13) messages: offers, purchases, stakes, and deals at the final table.

Pure declarations, like `tournament_messages.py` (whose fields this module uses);
`pokerroom.protocol.catalog` imports both, which registers them. Requests name the tournament by
`tournament_id`, never the player (the session knows who it is). Shares and markups are basis
points: 10,000 bps is 100 % of one's action, markup 10,000 is 1.00 (at most 12,000). Money is in
cents. Refusals carry the director's stable codes (`stake_closed`, `oversold`,
`markup_too_high`, `own_action`, `bad_stake`, `unknown_offer`, `not_registered`,
`insufficient_funds`; `deal_not_allowed`, `not_in_deal`, `no_deal`, `deal_expired`) or
`idempotency_conflict`. See docs/PROTOCOL.md, section 9.
"""

from __future__ import annotations

import re

from pokerroom.protocol import fields as f
from pokerroom.protocol.events import ServerMessage, WireObject, message, result_of
from pokerroom.protocol.fields import Field, pattern
from pokerroom.protocol.messages import Message
from pokerroom.protocol.tournament_messages import TOURNAMENT_ID, DealFigure

ID_RE = re.compile(r"^[a-z0-9]{1,20}$")
OFFER_ID = Field("offer_id", "string", "an offer of `stake_offers`", True, pattern(ID_RE, 20))
DEAL_ID = Field("deal_id", "string", "the deal of `deal_proposal`", True, pattern(ID_RE, 20))
SHARE = Field(
    "share_bps", "int", "basis points of the seller's action (100 = 1 %)", True,
    f.integer(1, 10_000),
)  # fmt: skip
#: P-2: a purchase's key is required: the same key again buys once.
BUY_KEY = Field(
    "key", "string", "idempotency key (P-2): a retry buys once", True, pattern(f.TABLE_ID_RE, 40)
)


# -- requests -------------------------------------------------------------------------------
class StakeOffer(Message):
    """T-17: offer `share_bps` of your action at `markup_bps` (default 10,000 = 1.00, at most
    12,000); registered, before the start; your offers add up to 10,000 bps at most. Answered
    by `ok` {offer}; errors `not_registered`, `stake_closed`, `markup_too_high`, `oversold`,
    `bad_stake`."""

    name = "stake_offer"
    fields = (
        TOURNAMENT_ID,
        SHARE,
        Field("markup_bps", "int", "10,000 = 1.00 (default) to 12,000 = 1.20", False,
              f.integer(1, 1_000_000)),
    )  # fmt: skip


class StakeWithdraw(Message):
    """T-17: take back what is unsold of one of your offers (before the start); what was sold
    stays sold. Answered by `ok` {offer}; errors `unknown_offer`, `stake_closed`."""

    name = "stake_withdraw"
    fields = (TOURNAMENT_ID, OFFER_ID)


class StakeOffers(Message):
    """T-17: the offers of a tournament with something left to buy, and the buy-in that prices
    them. Answered by `ok` {buy_in, offers: [stake offer]}."""

    name = "stake_offers"
    fields = (TOURNAMENT_ID,)


class StakeBuy(Message):
    """T-17: buy `share_bps` of an offer; the price (buy-in × share × markup, rounded down to
    the cent) leaves your wallet at once for the tournament's staking escrow. A `key` is
    required (P-2): the same key again gets the first purchase, and nothing moves. Answered by
    `ok` {stake}; errors `unknown_offer`, `own_action`, `oversold`, `stake_closed`,
    `bad_stake`, `insufficient_funds`, `idempotency_conflict`."""

    name = "stake_buy"
    fields = (TOURNAMENT_ID, OFFER_ID, SHARE, BUY_KEY)


class MyStakes(Message):
    """T-17: your stakes, sold and bought (in one tournament, or in all), and each holding's
    result. Answered by `ok` {sold: [stake], bought: [stake], results: [stake result]}."""

    name = "my_stakes"
    fields = (
        Field("tournament_id", "string", "one tournament (default: all)", False,
              TOURNAMENT_ID.validator),
    )  # fmt: skip


class DealRequest(Message):
    """T-13: ask for a deal at the final table. Once every remaining player has asked, every
    table stops after its hand and `deal_proposal` comes. Answered by `ok` {deal}; errors
    `deal_not_allowed`, `not_in_deal`."""

    name = "deal_request"
    fields = (TOURNAMENT_ID,)


class DealAccept(Message):
    """T-13: accept the proposal `deal_id` before its deadline; once every player has, it is
    paid. Answered by `ok` {deal}; errors `no_deal`, `deal_expired`, `not_in_deal`."""

    name = "deal_accept"
    fields = (TOURNAMENT_ID, DEAL_ID)


class DealReject(Message):
    """T-13: reject the proposal `deal_id`: no deal, play resumes exactly as it was. Answered
    by `ok` {deal}; errors as `deal_accept`."""

    name = "deal_reject"
    fields = (TOURNAMENT_ID, DEAL_ID)


# -- objects, results and server messages -----------------------------------------------------
class StakeOfferView(WireObject, frozen=True):
    """An offer of action (T-17): what was offered, sold and is left, in bps, at its markup."""

    offer_id: str
    seller: str
    share_bps: int
    sold_bps: int
    left_bps: int
    markup_bps: int


class StakeView(WireObject, frozen=True):
    """One purchase (T-17). `status`: held (in the escrow), paid (the escrow paid to the
    seller), refunded (the seller unregistered, or the tournament was cancelled before the
    start), returned (the seller won a seat, not money: the price came back)."""

    tournament_id: str
    stake_id: str
    offer_id: str
    seller: str
    buyer: str
    share_bps: int
    markup_bps: int
    price: int
    status: str
    bought_at_ms: int


class StakeResult(WireObject, frozen=True):
    """What one buyer holds of one seller in one tournament, and its result (T-17):
    `share_bps` held, `paid` (cents for it), `received` (the buyer's parts of the seller's
    prizes, bounties, deal amounts and refunds), `returned` (prices given back)."""

    tournament_id: str
    seller: str
    buyer: str
    share_bps: int
    paid: int
    received: int
    returned: int


class DealState(WireObject, frozen=True):
    """Where the final table's deal stands (T-13): `phase` open (requests being collected),
    pausing (every player asked: the tables stop after their hands), proposed (answers
    awaited), done (a deal was made); who asked, and who accepted the proposal `deal_id`."""

    phase: str
    deal_id: str | None
    asked: list[str]
    accepted: list[str]


@message
class DealRequested(ServerMessage, tag="deal_requested", frozen=True):
    """A remaining player asked for a deal (T-13): to every remaining player, with who has
    asked and who has not yet."""

    tournament_id: str
    player: str
    asked: list[str]
    waiting: list[str]


@message
class DealProposal(ServerMessage, tag="deal_proposal", frozen=True):
    """The deal put to every remaining player (T-13): the tables are paused; each player's
    chips and amount, the amount left to play for and the cents rounding leaves to the house;
    answer with `deal_accept` or `deal_reject` before `deadline_ms` (silence is a rejection).
    `proposed_by` is `system` (icm, chip_chop) or the staff member of a custom split."""

    tournament_id: str
    deal_id: str
    kind: str
    proposed_by: str
    figures: list[DealFigure]
    left_to_play_for: int
    rounding: int
    deadline_ms: int


@message
class DealResult(ServerMessage, tag="deal_result", frozen=True):
    """How a proposal ended (T-13), to every player of it: `outcome` made (every player
    accepted: the amounts are paid now; play goes on for the amount left to play for, or the
    tournament ends), rejected (`rejected_by`), expired (not everyone answered in time) or
    withdrawn (the staff put another split), or restart (the server restarted while it was
    being made: void, told after the table snapshot of the player's next login, T-18); play
    resumes exactly as it was unless made."""

    tournament_id: str
    deal_id: str
    outcome: str
    rejected_by: str | None
    figures: list[DealFigure]


@result_of("stake_offer", "stake_withdraw")
class OfferAnswer(WireObject, frozen=True):
    """The offer as it stands after the request."""

    offer: StakeOfferView


@result_of("stake_offers")
class OffersAnswer(WireObject, frozen=True):
    """`stake_offers`: the buy-in (the price of 10,000 bps at markup 1.00) and the offers."""

    buy_in: int
    offers: list[StakeOfferView]


@result_of("stake_buy")
class StakeAnswer(WireObject, frozen=True):
    """The purchase (the first one again for a retried key)."""

    stake: StakeView


@result_of("my_stakes")
class MyStakesAnswer(WireObject, frozen=True):
    """`my_stakes`: stakes sold, bought, and each holding's result."""

    sold: list[StakeView]
    bought: list[StakeView]
    results: list[StakeResult]


@result_of("deal_request", "deal_accept", "deal_reject")
class DealAnswer(WireObject, frozen=True):
    """Where the deal stands after the request."""

    deal: DealState


STAKING_REQUESTS = (
    StakeOffer, StakeWithdraw, StakeOffers, StakeBuy, MyStakes, DealRequest, DealAccept,
    DealReject,
)  # fmt: skip
STAKING_EVENTS = (DealRequested, DealProposal, DealResult)
#: Requests the tournament desk handles here (the lobby hands them over with `tournament_*`).
NAMES = frozenset(m.name for m in STAKING_REQUESTS)
