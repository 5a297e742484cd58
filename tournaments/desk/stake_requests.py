"""The desk's staking (T-17) and deal (T-13) requests: from a session to the tournament's actor.

`handle` runs one request of `pokerroom.protocol.staking_messages` for the session's player
(never a player named in the request, ARCH 8): offers, withdrawals and purchases go to the
actor's `Stakes` (its money queue; a purchase's `key` is the buyer's own, P-2), the list of a
tournament's offers is read from the actor, `my_stakes` from the store (on the read lane: a
finished tournament's stakes and their results too), and deal requests and answers go to the
actor's `DealMaker`. Refusals keep the director's stable codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.messages import Request
from pokerroom.protocol.staking_messages import (
    DealAnswer,
    MyStakesAnswer,
    OfferAnswer,
    OffersAnswer,
    StakeAnswer,
    StakeOfferView,
    StakeResult,
    StakeView,
)
from tournaments.director.staking import DEFAULT_MARKUP_BPS, Offer, Stake
from tournaments.store import stake_store

if TYPE_CHECKING:
    from pokerroom.ledger import LedgerService
    from pokerroom.protocol.answers import Answer
    from tournaments.actor.tournament import TournamentActor

#: The open (or just finished) tournament of an id; raises `ProtocolError` for an unknown one.
FindActor = Callable[[str], "TournamentActor"]


def handle(find: FindActor, ledger: LedgerService | None, player: str, request: Request) -> Answer:
    """Run one staking or deal request for `player`: the `ok` result or a Deferred of it."""
    args = dict(request.args)
    name = request.name
    if name == "my_stakes":
        return my_stakes(ledger, player, args.get("tournament_id"))
    actor = find(args["tournament_id"])
    deals = actor.deals
    if name == "stake_offers":
        book = actor.stakes.book
        return OffersAnswer(
            buy_in=0 if book is None else book.buy_in,
            offers=[offer_view(o) for o in actor.stakes.open_offers()],
        )
    if name == "stake_offer":
        markup = args.get("markup_bps", DEFAULT_MARKUP_BPS)
        offered = actor.stakes.offer(player, args["share_bps"], markup)
        return offered.addCallback(lambda offer: OfferAnswer(offer=offer_view(offer)))
    if name == "stake_withdraw":
        withdrawn = actor.stakes.withdraw(player, args["offer_id"])
        return withdrawn.addCallback(lambda offer: OfferAnswer(offer=offer_view(offer)))
    if name == "stake_buy":
        bought = actor.stakes.buy(player, args["offer_id"], args["share_bps"], args["key"])
        return bought.addCallback(_stake_answer(actor))
    if name == "deal_request":
        return DealAnswer(deal=deals.request(player))
    if name == "deal_accept":
        return DealAnswer(deal=deals.accept(player, args["deal_id"]))
    if name == "deal_reject":
        return DealAnswer(deal=deals.reject(player, args["deal_id"]))
    raise ProtocolError(errors.UNKNOWN_MESSAGE, f"the desk does not handle {name}")


def replayed(find: FindActor, player: str, key: str, args: dict[str, Any], answer: Any) -> Any:
    """A `stake_buy` retry (P-2): the purchase as it stands now (`held`, `paid`, `refunded`
    ...), not as it stood when first answered."""
    try:
        actor = find(args["tournament_id"])
    except ProtocolError:  # no longer held: nothing is known, the first answer stands
        return answer
    stake = actor.stakes.purchases.get((player, key))
    if stake is None:
        return answer
    return StakeAnswer(stake=stake_view(actor.stakes.row_of(stake)))


def _stake_answer(actor: TournamentActor) -> Callable[[Stake], StakeAnswer]:
    def answer(stake: Stake) -> StakeAnswer:
        return StakeAnswer(stake=stake_view(actor.stakes.row_of(stake)))

    return answer


def my_stakes(ledger: LedgerService | None, player: str, tournament_id: str | None) -> Answer:
    """`my_stakes`: the player's stakes sold and bought, and each holding's result (stored);
    none without a room's ledger (a desk with no scheduler)."""
    if ledger is None:
        return MyStakesAnswer(sold=[], bought=[], results=[])

    def load(conn: Connection) -> stake_store.PlayerStakes:
        return stake_store.player_stakes(conn, player, tournament_id)

    def answer(found: stake_store.PlayerStakes) -> MyStakesAnswer:
        held = stake_store.holdings((*found.sold, *found.bought), found.payouts)
        return MyStakesAnswer(
            sold=[stake_view(r) for r in found.sold],
            bought=[stake_view(r) for r in found.bought],
            results=[
                StakeResult(
                    tournament_id=tid,
                    seller=seller,
                    buyer=buyer,
                    share_bps=bps,
                    paid=paid,
                    received=received,
                    returned=returned,
                )
                for (tid, seller, buyer), (bps, paid, received, returned) in held.items()
            ],
        )

    reading: Any = ledger.read(_read, load)
    return reading.addCallback(answer)  # type: ignore[no-any-return]


def _read(engine: Any, work: Callable[[Connection], Any]) -> Any:
    """Blocking: one read transaction."""
    from pokerroom.ledger.db import read

    return read(engine, work)


def offer_view(offer: Offer) -> StakeOfferView:
    """An offer as the protocol shows it."""
    return StakeOfferView(
        offer_id=offer.offer_id,
        seller=offer.seller,
        share_bps=offer.share_bps,
        sold_bps=offer.sold_bps,
        left_bps=offer.left_bps,
        markup_bps=offer.markup_bps,
    )


def stake_view(row: stake_store.StakeRow) -> StakeView:
    """A purchase as the protocol shows it."""
    stake = row.stake
    return StakeView(
        tournament_id=row.tournament_id,
        stake_id=stake.stake_id,
        offer_id=stake.offer_id,
        seller=stake.seller,
        buyer=stake.buyer,
        share_bps=stake.share_bps,
        markup_bps=row.markup_bps,
        price=stake.price,
        status=row.status,
        bought_at_ms=row.bought_at_ms,
    )
