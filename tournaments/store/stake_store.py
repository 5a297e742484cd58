"""Staking (T-17) and deals (T-13) in the database: offers, stakes, what buyers received, deals.

Tables (on `tournaments.store.metadata`, listed through `pokerroom.schema.all_metadata()`,
created by migration 0009):

- `tournament_stake_offers`: one row per offer: seller, share and markup (bps), what is sold,
  `status` (`open`, `withdrawn` — what was unsold went back —, `gone`: the seller unregistered).
- `tournament_stakes`: one row per purchase: seller, buyer, share, price, the buyer's own
  idempotency key and the ledger key of the payment into the escrow, `status`: `held` (in the
  staking escrow), `paid` (the escrow paid to the seller: at the start, or at their result with
  `hold_until_result`), `refunded` (the seller unregistered or the tournament was cancelled
  before the start: the buyer got back exactly what they paid), `returned` (the seller won a
  seat, not money: the buyer got back what they paid, T-17/T-18).
- `tournament_stake_payouts`: every buyer's part of a payment to a seller (prize, bounty, deal
  amount, T-18 refund): the ledger key of the part, who, how much, why. A stake's result.
- `tournament_deals`: an accepted deal (T-13): how it was made, every player's chips and
  figure, the rounding, the amount left to play for, when, and the ledger key that paid it.

Every function takes a SQLAlchemy `Connection` (the caller owns the transaction: a purchase's
row is written with its transfer, a payout row with the payment it is part of). Writes are
idempotent (the same write again is the same row), as the recorder may retry them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.director.staking import Offer, Stake, StakingBook
from tournaments.store import metadata

# Offer statuses.
OPEN = "open"
WITHDRAWN = "withdrawn"  # T-17: the unsold part went back to the seller
GONE = "gone"  # the seller unregistered before the start (T-17)
# Stake statuses.
HELD = "held"  # the price is in the staking escrow
PAID = "paid"  # the escrow paid to the seller (the start, or their result)
REFUNDED = "refunded"  # back to the buyer: the seller left, or the tournament was cancelled
RETURNED = "returned"  # back to the buyer: the seller won a seat, not money
STAKE_STATUSES = (HELD, PAID, REFUNDED, RETURNED)

tournament_stake_offers = sa.Table(
    "tournament_stake_offers",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("offer_id", sa.String(20), primary_key=True),
    sa.Column("seller", sa.String(40), nullable=False),
    sa.Column("share_bps", sa.Integer, nullable=False),  # on offer or sold (shrinks: withdraw)
    sa.Column("markup_bps", sa.Integer, nullable=False),
    sa.Column("sold_bps", sa.Integer, nullable=False),
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("created_at_ms", sa.BigInteger, nullable=False),
)

tournament_stakes = sa.Table(
    "tournament_stakes",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("stake_id", sa.String(20), primary_key=True),
    sa.Column("offer_id", sa.String(20), nullable=False),
    sa.Column("seller", sa.String(40), nullable=False),
    sa.Column("buyer", sa.String(40), nullable=False),
    sa.Column("share_bps", sa.Integer, nullable=False),
    sa.Column("markup_bps", sa.Integer, nullable=False),
    sa.Column("price", sa.BigInteger, nullable=False),
    sa.Column("client_key", sa.String(200), nullable=False),  # the buyer's key (P-2)
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("bought_at_ms", sa.BigInteger, nullable=False),
    sa.Column("settled_at_ms", sa.BigInteger, nullable=True),
    sa.Index("ix_tournament_stakes_buyer", "buyer"),
    sa.Index("ix_tournament_stakes_seller", "seller"),
)

tournament_stake_payouts = sa.Table(
    "tournament_stake_payouts",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("part_key", sa.String(250), primary_key=True),  # the part's move key
    sa.Column("seller", sa.String(40), nullable=False),
    sa.Column("buyer", sa.String(40), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("reason", sa.String(12), nullable=False),  # prize, bounty, deal, refund
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_tournament_stake_payouts_buyer", "buyer"),
)

tournament_deals = sa.Table(
    "tournament_deals",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("deal_id", sa.String(20), primary_key=True),
    sa.Column("kind", sa.String(12), nullable=False),  # icm, chip_chop, custom
    sa.Column("players", sa.JSON, nullable=False),
    sa.Column("stacks", sa.JSON, nullable=False),
    sa.Column("amounts", sa.JSON, nullable=False),
    sa.Column("rounding", sa.BigInteger, nullable=False),
    sa.Column("left_to_play_for", sa.BigInteger, nullable=False),
    sa.Column("proposed_by", sa.String(40), nullable=False),  # "system" or the staff member
    sa.Column("accepted_at_ms", sa.BigInteger, nullable=False),
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class OfferRow:
    """One stored offer."""

    offer: Offer
    status: str = OPEN
    created_at_ms: int = 0


@dataclass(frozen=True, slots=True)
class StakeRow:
    """One stored purchase."""

    stake: Stake
    markup_bps: int
    ledger_key: str
    status: str = HELD
    bought_at_ms: int = 0
    settled_at_ms: int | None = None
    tournament_id: str = ""


@dataclass(frozen=True, slots=True)
class PayoutRow:
    """A buyer's part of a payment to a seller (T-17): the stake's result."""

    part_key: str
    seller: str
    buyer: str
    amount: int
    reason: str
    at_ms: int = 0
    tournament_id: str = ""


@dataclass(frozen=True, slots=True)
class DealRow:
    """An accepted deal, as the tournament's results record it (T-13)."""

    deal_id: str
    kind: str
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    amounts: tuple[int, ...]
    rounding: int
    left_to_play_for: int
    proposed_by: str
    accepted_at_ms: int
    ledger_key: str


@dataclass(frozen=True, slots=True)
class StakingRows:
    """A tournament's stored staking: its offers and purchases, and the deals made."""

    offers: tuple[OfferRow, ...] = ()
    stakes: tuple[StakeRow, ...] = ()
    deals: tuple[DealRow, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerStakes:
    """One player's stakes (sold and bought) and every payout part concerning them."""

    sold: tuple[StakeRow, ...] = ()
    bought: tuple[StakeRow, ...] = ()
    payouts: tuple[PayoutRow, ...] = field(default_factory=tuple)


# --------------------------------------------------------------------------- writes


def save_offer(conn: Connection, tournament_id: str, offer: Offer, status: str, at_ms: int) -> None:
    """An offer as it stands now (made, part sold, withdrawn, gone)."""
    table = tournament_stake_offers
    conn.execute(
        sa.delete(table).where(
            table.c.tournament_id == tournament_id, table.c.offer_id == offer.offer_id
        )
    )
    conn.execute(
        sa.insert(table).values(
            tournament_id=tournament_id,
            offer_id=offer.offer_id,
            seller=offer.seller,
            share_bps=offer.share_bps,
            markup_bps=offer.markup_bps,
            sold_bps=offer.sold_bps,
            status=status,
            created_at_ms=at_ms,
        )
    )


def offers_gone(conn: Connection, tournament_id: str, seller: str) -> None:
    """T-17: the seller unregistered: none of their offers is for sale any more."""
    table = tournament_stake_offers
    conn.execute(
        sa.update(table)
        .where(table.c.tournament_id == tournament_id, table.c.seller == seller)
        .values(status=GONE)
    )


def save_stake(conn: Connection, tournament_id: str, row: StakeRow) -> None:
    """A purchase (in the transaction of its payment into the escrow)."""
    table = tournament_stakes
    stake = row.stake
    conn.execute(
        sa.delete(table).where(
            table.c.tournament_id == tournament_id, table.c.stake_id == stake.stake_id
        )
    )
    conn.execute(
        sa.insert(table).values(
            tournament_id=tournament_id,
            stake_id=stake.stake_id,
            offer_id=stake.offer_id,
            seller=stake.seller,
            buyer=stake.buyer,
            share_bps=stake.share_bps,
            markup_bps=row.markup_bps,
            price=stake.price,
            client_key=stake.key,
            ledger_key=row.ledger_key,
            status=row.status,
            bought_at_ms=row.bought_at_ms,
            settled_at_ms=row.settled_at_ms,
        )
    )


def settle_stakes(
    conn: Connection,
    tournament_id: str,
    status: str,
    at_ms: int,
    *,
    sellers: Iterable[str] | None = None,
    stake_ids: Iterable[str] | None = None,
) -> None:
    """Stakes leave the escrow: `paid` to their seller, `refunded` or `returned` to buyers.

    Only stakes still `held` (or, for `returned`, `paid`: the seller gives back what the start
    paid them) change, so the same write again changes nothing.
    """
    table = tournament_stakes
    before = (HELD, PAID) if status == RETURNED else (HELD,)
    query = sa.update(table).where(
        table.c.tournament_id == tournament_id, table.c.status.in_(before)
    )
    if sellers is not None:
        query = query.where(table.c.seller.in_(sorted(set(sellers))))
    if stake_ids is not None:
        query = query.where(table.c.stake_id.in_(sorted(set(stake_ids))))
    conn.execute(query.values(status=status, settled_at_ms=at_ms))


def add_payouts(conn: Connection, tournament_id: str, rows: Sequence[PayoutRow]) -> None:
    """Buyers' parts of one payment to a seller (in the payment's own transaction)."""
    if not rows:
        return
    table = tournament_stake_payouts
    conn.execute(
        sa.delete(table).where(
            table.c.tournament_id == tournament_id,
            table.c.part_key.in_([r.part_key for r in rows]),
        )
    )
    conn.execute(
        sa.insert(table),
        [
            {
                "tournament_id": tournament_id,
                "part_key": r.part_key,
                "seller": r.seller,
                "buyer": r.buyer,
                "amount": r.amount,
                "reason": r.reason,
                "at_ms": r.at_ms,
            }
            for r in rows
        ],
    )


def save_deal(conn: Connection, tournament_id: str, deal: DealRow) -> None:
    """An accepted deal (in the transaction that pays it)."""
    table = tournament_deals
    conn.execute(
        sa.delete(table).where(
            table.c.tournament_id == tournament_id, table.c.deal_id == deal.deal_id
        )
    )
    conn.execute(
        sa.insert(table).values(
            tournament_id=tournament_id,
            deal_id=deal.deal_id,
            kind=deal.kind,
            players=list(deal.players),
            stacks=list(deal.stacks),
            amounts=list(deal.amounts),
            rounding=deal.rounding,
            left_to_play_for=deal.left_to_play_for,
            proposed_by=deal.proposed_by,
            accepted_at_ms=deal.accepted_at_ms,
            ledger_key=deal.ledger_key,
        )
    )


# --------------------------------------------------------------------------- reads


def _offer(row: sa.Row[Any]) -> OfferRow:
    offer = Offer(row.offer_id, row.seller, row.share_bps, row.markup_bps, row.sold_bps)
    return OfferRow(offer, row.status, row.created_at_ms)


def _stake(row: sa.Row[Any]) -> StakeRow:
    stake = Stake(
        row.stake_id, row.offer_id, row.seller, row.buyer, row.share_bps, row.price,
        row.client_key,
    )  # fmt: skip
    return StakeRow(
        stake, row.markup_bps, row.ledger_key, row.status, row.bought_at_ms, row.settled_at_ms,
        row.tournament_id,
    )  # fmt: skip


def _payout(row: sa.Row[Any]) -> PayoutRow:
    return PayoutRow(
        row.part_key, row.seller, row.buyer, row.amount, row.reason, row.at_ms, row.tournament_id
    )


def _deal(row: sa.Row[Any]) -> DealRow:
    return DealRow(
        row.deal_id, row.kind, tuple(row.players), tuple(int(n) for n in row.stacks),
        tuple(int(n) for n in row.amounts), row.rounding, row.left_to_play_for, row.proposed_by,
        row.accepted_at_ms, row.ledger_key,
    )  # fmt: skip


_T = TypeVar("_T")


def _rows(
    conn: Connection,
    table: sa.Table,
    read: Callable[[sa.Row[Any]], _T],
    *where: sa.ColumnElement[bool],
    order_by: Sequence[sa.Column[Any]] = (),
) -> list[_T]:
    """The one row reader: the rows of `table` that match every `where`, in `order_by`, each
    read by `read`."""
    return [read(r) for r in conn.execute(sa.select(table).where(*where).order_by(*order_by))]


def _serial(identifier: str) -> int:
    """The number in an offer or stake id (`o12`, `s13`)."""
    return int(identifier[1:]) if identifier[1:].isdigit() else 0


def load_staking(conn: Connection, tournament_id: str) -> StakingRows:
    """A tournament's offers, purchases and deals, in the order they were made."""
    offers, stakes, deals = tournament_stake_offers, tournament_stakes, tournament_deals
    offer_rows = _rows(conn, offers, _offer, offers.c.tournament_id == tournament_id)
    stake_rows = _rows(conn, stakes, _stake, stakes.c.tournament_id == tournament_id)
    deal_rows = _rows(conn, deals, _deal, deals.c.tournament_id == tournament_id)
    offer_rows.sort(key=lambda r: _serial(r.offer.offer_id))
    stake_rows.sort(key=lambda r: _serial(r.stake.stake_id))
    deal_rows.sort(key=lambda r: int(r.deal_id) if r.deal_id.isdigit() else 0)
    return StakingRows(tuple(offer_rows), tuple(stake_rows), tuple(deal_rows))


def load_payouts(conn: Connection, tournament_id: str) -> tuple[PayoutRow, ...]:
    """Every buyer's part of every payment to a seller of the tournament."""
    table = tournament_stake_payouts
    mine = table.c.tournament_id == tournament_id
    return tuple(_rows(conn, table, _payout, mine, order_by=(table.c.at_ms, table.c.part_key)))


def player_stakes(conn: Connection, player: str, tournament_id: str | None = None) -> PlayerStakes:
    """`player`'s stakes sold and bought (in one tournament, or in all), with the payout parts
    of every seller and buyer pair they are part of."""
    stakes, payouts = tournament_stakes, tournament_stake_payouts

    def theirs(table: sa.Table) -> list[sa.ColumnElement[bool]]:
        where = [sa.or_(table.c.seller == player, table.c.buyer == player)]
        if tournament_id is not None:
            where.append(table.c.tournament_id == tournament_id)
        return where

    rows = sorted(
        _rows(conn, stakes, _stake, *theirs(stakes)),
        key=lambda r: (r.tournament_id, _serial(r.stake.stake_id)),
    )
    order = (payouts.c.at_ms, payouts.c.part_key)
    found = tuple(_rows(conn, payouts, _payout, *theirs(payouts), order_by=order))
    return PlayerStakes(
        tuple(r for r in rows if r.stake.seller == player),
        tuple(r for r in rows if r.stake.buyer == player),
        found,
    )


# --------------------------------------------------------------------------- the book


def book_of(
    rows: StakingRows,
    tournament_id: str,
    buy_in: int,
    *,
    hold_until_result: bool,
    started: bool,
) -> StakingBook:
    """The director's `StakingBook` as stored (a restart, the refund job): the live offers, the
    stakes not refunded, which sellers' escrow was paid out or given back, and the serial."""
    serial = max(
        [_serial(r.offer.offer_id) for r in rows.offers]
        + [_serial(r.stake.stake_id) for r in rows.stakes]
        + [0]
    )
    live = tuple(r for r in rows.stakes if r.status != REFUNDED)
    released = frozenset(r.stake.seller for r in live if r.status == PAID)
    returned = frozenset(r.stake.seller for r in live if r.status == RETURNED)
    offers = tuple(r.offer for r in rows.offers if r.status != GONE and r.offer.share_bps > 0)
    book = StakingBook(tournament_id, buy_in, hold_until_result)
    return replace(
        book,
        started=started,
        offers=offers,
        stakes=tuple(r.stake for r in live),
        released=released - returned,
        returned=returned,
        serial=serial,
    )


def holdings(
    stakes: Iterable[StakeRow], payouts: Iterable[PayoutRow]
) -> dict[tuple[str, str, str], tuple[int, int, int, int]]:
    """Per (tournament, seller, buyer): bps held, price paid, money received from the seller's
    winnings, and money given back (refunded or returned) — a stake's result (T-17)."""
    found: dict[tuple[str, str, str], list[int]] = {}
    for row in stakes:
        stake = row.stake
        entry = found.setdefault((row.tournament_id, stake.seller, stake.buyer), [0, 0, 0, 0])
        if row.status not in (REFUNDED, RETURNED):
            entry[0] += stake.share_bps
        entry[1] += stake.price
        if row.status in (REFUNDED, RETURNED):
            entry[3] += stake.price
    for part in payouts:
        key = (part.tournament_id, part.seller, part.buyer)
        if key in found:
            found[key][2] += part.amount
    return {key: (a, b, c, d) for key, (a, b, c, d) in sorted(found.items())}


def payouts_by_buyer(rows: Iterable[PayoutRow]) -> Mapping[str, int]:
    """What each buyer received in all (tests, reports)."""
    total: dict[str, int] = {}
    for row in rows:
        total[row.buyer] = total.get(row.buyer, 0) + row.amount
    return dict(sorted(total.items()))
