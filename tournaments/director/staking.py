"""Staking (T-17): selling shares of one's tournament action, and sharing what the seller wins.

A `StakingBook` per tournament holds the offers and the stakes bought; every function takes
the book and returns a `StakingStep` (the new book, the `MoneyMove`s to post, and the offer or
stake concerned), or raises `DirectorError` with a stable code. Amounts are integer cents,
shares basis points (10,000 = the whole action), markups basis points (10,000 = 1.00).

Life of a stake:

- `offer`: a registered player, before the start, offers `share_bps` of their action at a
  markup from 1.00 (10,000) to 1.20 (12,000, above: `markup_too_high`; below 1.00: `bad_stake`,
  a markup is never a discount). A seller's offers add up to at most 10,000 bps (`oversold`).
- `withdraw`: before the start, the unsold part of an offer goes; what was sold stays sold.
- `buy`: before the start, another player buys part of an offer (`own_action` for the seller,
  `oversold` beyond what is left). Price = buy-in × share × markup, rounded down to the cent:
  `buy_in * share_bps * markup_bps // 10_000**2`, one floor of the exact product (T-7); a
  share that would cost 0 cents is `bad_stake`. The markup raises the price, never the share:
  a buyer of 1,500 bps at 1.15 owns 1,500 bps. The buyer pays the staking escrow account of
  the tournament at once (`stake` transfer). The buyer's idempotency key names the purchase:
  the same buyer and key again gets the first purchase back, with the same move and key, so a
  retry buys once (P-2).
- `seller_unregistered` (before the start; T-17): every buyer gets back from the escrow
  exactly what they paid, the seller keeps none of it; the seller's offers go.
  `cancel_before_start` (T-18.1) does this for every seller.
- `tournament_started`: the escrow for the sold shares is paid to each seller (`stake`), and
  offers close. With `hold_until_result` (a tournament setting for satellites, whose prizes
  are seats) the escrow stays held; `release_escrow` pays it to a seller once their result
  is money or nothing (busted, or a cash prize), and `seat_instead_of_money` returns it to
  the buyers when the seller wins a seat.

Sharing (`split_payment`, `split_amount`). Whatever money the seller receives from the
tournament after the start — a prize, a bounty, a deal amount (T-13), a T-18 refund part —
is split with the buyers in proportion to the shares bought: with `sold` bps sold in all and
`bps(b)` bought by buyer b (summed over all of b's purchases from this seller),

    buyer b gets  floor(amount × bps(b) / 10,000)
    the seller    floor(amount × (10,000 − sold) / 10,000)
    house rounding the rest: amount − the seller's part − the buyers' parts.

Every part is rounded down, the seller's too (T-7 rounds every amount computed for a player),
and the rest, fewer cents than the buyers plus one, goes to the house rounding account. A buyer
who bought twice is one holder: 1,500 + 500 bps share as 2,000 bps (one floor, not two). The
moves all come from the account the payment comes from (prize pool, bounty pool, ...), to be
posted in one ledger transaction with the seller's part; the seller's part keeps the payment's
own key, so a payment without buyers is the same move as before staking. Re-entries, rebuys
and add-ons are the seller's own expense and change no share (the rule is silent; the shares
sold are of the seller's action in the tournament, whatever it cost them later).

A seat instead of money (T-17, T-18: a satellite seat, a replacement ticket or registration).
The buyers get back in money what they paid, and the seller keeps the whole seat: the stake
is unwound, as if it had never been sold. The money comes from where the buyers' money is:

- still held in escrow (`hold_until_result`): from the escrow, which always covers it;
- already paid to the seller at the start: from the seller's wallet, a reversal of that
  payment. The seller's balance is given (read just before); if it does not cover every buyer
  the answer is `insufficient_funds` and nothing moves: the seller must then be paid the
  prize in money (T-15 lets the operator pay cash of equal value instead of a non-cash prize),
  which `split_payment` shares. So no rule here creates money or leaves a debt; a satellite
  should set `hold_until_result` so that the case cannot arise.

After the unwinding the seller's buyers hold nothing: later payments to the seller are not
shared (payments shared before it stand).

Conservation: the escrow receives the prices paid and pays out exactly the same amounts, to
sellers or back to buyers; `StakingBook.escrow_held` is what it holds at any moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    Account,
    MoneyMove,
    house,
    moves,
    staking_escrow,
    wallet,
)
from tournaments.director.payouts import BPS

DEFAULT_MARKUP_BPS = 10_000  # 1.00
MAX_MARKUP_BPS = 12_000  # 1.20
STAKE = "stake"  # transfer kinds
REFUND = "refund"
ROUNDING = "rounding"


@dataclass(frozen=True, slots=True)
class Offer:
    """A share of a seller's action on sale; `share_bps` shrinks to `sold_bps` on withdrawal."""

    offer_id: str
    seller: str
    share_bps: int
    markup_bps: int
    sold_bps: int = 0

    @property
    def left_bps(self) -> int:
        """What is still for sale."""
        return self.share_bps - self.sold_bps


@dataclass(frozen=True, slots=True)
class Stake:
    """One purchase: `share_bps` of `seller`'s action bought by `buyer` for `price` cents."""

    stake_id: str
    offer_id: str
    seller: str
    buyer: str
    share_bps: int
    price: int
    key: str  # the buyer's idempotency key (P-2)


@dataclass(frozen=True, slots=True)
class StakingBook:
    """The offers and stakes of one tournament, and where each seller's escrow stands."""

    tournament_id: str
    buy_in: int  # the price of 100 % of the action at markup 1.00 (T-2's buy-in, no fee)
    hold_until_result: bool = False  # satellites: escrow held until each seller's result
    started: bool = False
    offers: tuple[Offer, ...] = ()
    stakes: tuple[Stake, ...] = ()
    released: frozenset[str] = frozenset()  # sellers whose escrow was paid to them
    returned: frozenset[str] = frozenset()  # sellers whose buyers got back what they paid
    serial: int = 0  # offers and stakes made so far; names them

    def __post_init__(self) -> None:
        """Refuse a book without a buy-in to price shares by."""
        if self.buy_in <= 0:
            raise DirectorError(errors.BAD_STAKE, "staking needs a positive buy-in")

    def find_offer(self, offer_id: str) -> Offer:
        """The offer named `offer_id` (`unknown_offer`)."""
        for offer in self.offers:
            if offer.offer_id == offer_id:
                return offer
        raise DirectorError(errors.UNKNOWN_OFFER, f"no offer {offer_id}")

    def offered_bps(self, seller: str) -> int:
        """All of `seller`'s action on offer or sold."""
        return sum(o.share_bps for o in self.offers if o.seller == seller)

    def sold_bps(self, seller: str) -> int:
        """All of `seller`'s action bought by others (and not given back)."""
        return sum(self.shares(seller).values())

    def shares(self, seller: str) -> dict[str, int]:
        """Each buyer of `seller`'s live stakes and the bps they hold, summed over purchases."""
        held: dict[str, int] = {}
        if seller in self.returned:
            return held
        for stake in self.stakes:
            if stake.seller == seller:
                held[stake.buyer] = held.get(stake.buyer, 0) + stake.share_bps
        return dict(sorted(held.items()))

    def open_offers(self) -> tuple[Offer, ...]:
        """The offers with something left to buy, for the tournament's list of offers."""
        return tuple(o for o in self.offers if o.left_bps > 0)

    def stakes_of(self, player: str) -> tuple[tuple[Stake, ...], tuple[Stake, ...]]:
        """A player's stakes: (sold by them, bought by them)."""
        sold = tuple(s for s in self.stakes if s.seller == player)
        bought = tuple(s for s in self.stakes if s.buyer == player)
        return sold, bought

    @property
    def escrow_held(self) -> int:
        """What the staking escrow holds: prices of stakes neither paid out nor given back."""
        settled = self.released | self.returned
        return sum(s.price for s in self.stakes if s.seller not in settled)


@dataclass(frozen=True, slots=True)
class StakingStep:
    """A decision: the new book, the moves to post, and the offer or stake it concerns."""

    book: StakingBook
    moves: tuple[MoneyMove, ...] = ()
    offer: Offer | None = None
    stake: Stake | None = None


@dataclass(frozen=True, slots=True)
class Split:
    """An amount shared by stakes: the seller's part, each buyer's, the rest to the house."""

    seller: int
    buyers: tuple[tuple[str, int], ...]  # (buyer, cents), by buyer
    rounding: int  # T-7: to the house rounding account

    @property
    def total(self) -> int:
        """Every cent of the amount split."""
        return self.seller + sum(part for _, part in self.buyers) + self.rounding


def stake_price(buy_in: int, share_bps: int, markup_bps: int) -> int:
    """T-17: buy-in × share × markup, rounded down to the cent (T-7)."""
    return buy_in * share_bps * markup_bps // (BPS * BPS)


def _before_start(book: StakingBook) -> None:
    """Offers, withdrawals and purchases end when the tournament starts (T-17)."""
    if book.started:
        raise DirectorError(errors.STAKE_CLOSED, "the tournament has started")


def offer(
    book: StakingBook,
    seller: str,
    share_bps: int,
    markup_bps: int = DEFAULT_MARKUP_BPS,
    *,
    registered: bool,
) -> StakingStep:
    """T-17: a registered player offers `share_bps` of their action at `markup_bps`."""
    _before_start(book)
    if not registered:
        raise DirectorError(errors.NOT_REGISTERED, f"{seller} is not registered")
    if markup_bps > MAX_MARKUP_BPS:
        raise DirectorError(
            errors.MARKUP_TOO_HIGH, f"markup {markup_bps} bps is above {MAX_MARKUP_BPS}"
        )
    if markup_bps < DEFAULT_MARKUP_BPS or share_bps <= 0:
        raise DirectorError(errors.BAD_STAKE, "a share above 0 bps at a markup of 1.00 or more")
    offered = book.offered_bps(seller)
    if offered + share_bps > BPS:
        raise DirectorError(
            errors.OVERSOLD, f"{seller} has {BPS - offered} bps of action left to offer"
        )
    made = Offer(f"o{book.serial + 1}", seller, share_bps, markup_bps)
    new = replace(book, offers=(*book.offers, made), serial=book.serial + 1)
    return StakingStep(new, offer=made)


def withdraw(book: StakingBook, seller: str, offer_id: str) -> StakingStep:
    """T-17: before the start the seller takes back what is unsold of an offer."""
    _before_start(book)
    found = book.find_offer(offer_id)
    if found.seller != seller:
        raise DirectorError(errors.UNKNOWN_OFFER, f"{seller} has no offer {offer_id}")
    kept = replace(found, share_bps=found.sold_bps)
    offers = tuple(
        kept if o.offer_id == offer_id else o
        for o in book.offers
        if o.offer_id != offer_id or kept.share_bps
    )
    return StakingStep(replace(book, offers=offers), offer=kept)


def buy(
    book: StakingBook,
    buyer: str,
    offer_id: str,
    share_bps: int,
    *,
    key: str,
    balance: int | None = None,
) -> StakingStep:
    """T-17: `buyer` buys `share_bps` of an offer and pays the price into the escrow.

    `balance` is the buyer's wallet read just before (the ledger's funds check stays the last
    word). A purchase already made under the same buyer and `key` is answered again as made.
    """
    for stake in book.stakes:
        if stake.buyer == buyer and stake.key == key:
            return StakingStep(book, (_purchase(book, stake),), stake=stake)
    _before_start(book)
    found = book.find_offer(offer_id)
    if buyer == found.seller:
        raise DirectorError(errors.OWN_ACTION, "a seller cannot buy their own action")
    if share_bps <= 0:
        raise DirectorError(errors.BAD_STAKE, "a share is more than 0 bps")
    if share_bps > found.left_bps:
        raise DirectorError(errors.OVERSOLD, f"{found.left_bps} bps left of {offer_id}")
    price = stake_price(book.buy_in, share_bps, found.markup_bps)
    if price <= 0:
        raise DirectorError(errors.BAD_STAKE, "the share would cost less than a cent")
    if balance is not None and balance < price:
        raise DirectorError(errors.INSUFFICIENT_FUNDS, f"needs {price}, has {balance}")
    serial = book.serial + 1
    made = Stake(f"s{serial}", offer_id, found.seller, buyer, share_bps, price, key)
    sold = replace(found, sold_bps=found.sold_bps + share_bps)
    new = replace(
        book,
        offers=tuple(sold if o.offer_id == offer_id else o for o in book.offers),
        stakes=(*book.stakes, made),
        serial=serial,
    )
    return StakingStep(new, (_purchase(new, made),), offer=sold, stake=made)


def _purchase(book: StakingBook, stake: Stake) -> MoneyMove:
    """The buyer's payment into the escrow, keyed by the buyer's own key (P-2)."""
    return MoneyMove(
        STAKE,
        wallet(stake.buyer),
        staking_escrow(book.tournament_id),
        stake.price,
        f"{book.tournament_id}:stake:buy:{stake.buyer}:{stake.key}",
    )


def _refund_from_escrow(book: StakingBook, stakes: tuple[Stake, ...]) -> tuple[MoneyMove, ...]:
    """Each buyer gets back from the escrow exactly what they paid, stake by stake."""
    escrow = staking_escrow(book.tournament_id)
    return moves(
        *(
            MoneyMove(
                REFUND,
                escrow,
                wallet(s.buyer),
                s.price,
                f"{book.tournament_id}:stake:refund:{s.stake_id}",
            )
            for s in stakes
        )
    )


def seller_unregistered(book: StakingBook, seller: str) -> StakingStep:
    """T-17: the seller left before the start: every buyer refunded in full, offers gone."""
    _before_start(book)
    theirs = tuple(s for s in book.stakes if s.seller == seller)
    new = replace(
        book,
        offers=tuple(o for o in book.offers if o.seller != seller),
        stakes=tuple(s for s in book.stakes if s.seller != seller),
    )
    return StakingStep(new, _refund_from_escrow(book, theirs))


def cancel_before_start(book: StakingBook) -> StakingStep:
    """T-18.1: a tournament cancelled before the start refunds every buyer in full."""
    _before_start(book)
    new = replace(book, offers=(), stakes=())
    return StakingStep(new, _refund_from_escrow(book, book.stakes))


def _release(book: StakingBook, seller: str) -> MoneyMove:
    """The escrow of `seller`'s sold shares, paid to the seller."""
    amount = sum(s.price for s in book.stakes if s.seller == seller)
    return MoneyMove(
        STAKE,
        staking_escrow(book.tournament_id),
        wallet(seller),
        amount,
        f"{book.tournament_id}:stake:release:{seller}",
    )


def _sellers(book: StakingBook) -> list[str]:
    """Every seller with a stake sold, in order of name."""
    return sorted({s.seller for s in book.stakes})


def tournament_started(book: StakingBook) -> StakingStep:
    """T-17: offers close; each seller is paid the escrow of their sold shares (unless held)."""
    if book.started:
        return StakingStep(book)
    if book.hold_until_result:
        return StakingStep(replace(book, started=True))
    sellers = _sellers(book)
    paid = moves(*(_release(book, seller) for seller in sellers))
    return StakingStep(replace(book, started=True, released=frozenset(sellers)), paid)


def release_escrow(book: StakingBook, seller: str) -> StakingStep:
    """A held escrow (`hold_until_result`) paid to the seller: their result is money or nothing."""
    if not book.started:
        raise ValueError("escrow is released at or after the start")
    if seller in book.released or seller in book.returned:
        return StakingStep(book)
    paid = moves(_release(book, seller))
    return StakingStep(replace(book, released=book.released | {seller}), paid)


def seat_instead_of_money(book: StakingBook, seller: str, *, seller_balance: int) -> StakingStep:
    """T-17/T-18: the seller won a seat or ticket, not money: the buyers get back what they paid.

    From the escrow if it is still held; else from the seller's wallet, who was paid it at the
    start (`insufficient_funds` if `seller_balance` does not cover it: pay the prize in money).
    """
    if not book.started:
        raise ValueError("before the start buyers are refunded from escrow: cancel_before_start")
    theirs = tuple(s for s in book.stakes if s.seller == seller)
    if seller in book.returned or not theirs:
        return StakingStep(book)
    if seller not in book.released:
        paid = _refund_from_escrow(book, theirs)
    else:
        owed = sum(s.price for s in theirs)
        if seller_balance < owed:
            raise DirectorError(
                errors.INSUFFICIENT_FUNDS,
                f"{seller} must give back {owed} to their buyers and has {seller_balance}",
            )
        paid = moves(
            *(
                MoneyMove(
                    REFUND,
                    wallet(seller),
                    wallet(s.buyer),
                    s.price,
                    f"{book.tournament_id}:stake:return:{s.stake_id}",
                )
                for s in theirs
            )
        )
    return StakingStep(replace(book, returned=book.returned | {seller}), paid)


def split_amount(amount: int, shares: Mapping[str, int]) -> Split:
    """T-17/T-7: `amount` shared by bps, each part rounded down, the rest to the house."""
    sold = sum(shares.values())
    if amount < 0 or sold > BPS or any(bps <= 0 for bps in shares.values()):
        raise ValueError(
            "a split needs amount >= 0 and shares above 0 bps summing to 10,000 or less"
        )
    parts = tuple((buyer, amount * bps // BPS) for buyer, bps in sorted(shares.items()))
    seller = amount * (BPS - sold) // BPS
    return Split(seller, parts, amount - seller - sum(part for _, part in parts))


def split_payment(
    book: StakingBook, seller: str, amount: int, *, kind: str, source: Account, key: str
) -> tuple[MoneyMove, ...]:
    """T-17: a payment of `amount` from `source` to `seller`, shared with the seller's buyers.

    The moves are meant for one ledger transaction. The seller's part keeps `key`; each buyer's
    part is `key:stake:<buyer>` with the same transfer `kind`; the rounding `key:stake:rounding`.
    """
    if not book.started:
        raise ValueError("before the start the buyers' money is still in escrow, not shared")
    split = split_amount(amount, book.shares(seller))
    return moves(
        MoneyMove(kind, source, wallet(seller), split.seller, key),
        *(
            MoneyMove(kind, source, wallet(buyer), part, f"{key}:stake:{buyer}")
            for buyer, part in split.buyers
        ),
        MoneyMove(ROUNDING, source, house(HOUSE_ROUNDING), split.rounding, f"{key}:stake:rounding"),
    )
