"""T-17 staking on the tournament actor: offers, purchases, the escrow, sharing what sellers win.

The arithmetic and the refusals are the director's (`tournaments.director.staking`); here the
requests run in the actor's money queue (one at a time, in order, with registrations: a seller
unregistering and a buyer buying from them never cross), each decision is ONE unit of the
actor's recorder — the transfer and the rows it goes with (`tournaments.store.stake_store`) in one
transaction — and a refused transfer undoes the decision.

- `offer`, `withdraw`: registered players, before the start; stored, no money.
- `buy`: the buyer pays the tournament's staking escrow at once (`stake`, P-2: the buyer's key;
  the same buyer and key again gets the first purchase back, and nothing moves).
- a seller unregistering (`leaving`): every buyer gets back what they paid, in the SAME
  transfer as the seller's own refund (T-17: the seller keeps none of it).
- the start (`started`): the escrow of the sold shares is paid to each seller (not with
  `hold_until_result`, which satellites use: then `result` pays it once a seller's result is
  money or a bust, and `seat` gives it back to the buyers when the seller wins a seat).
- every payment a seller receives from the tournament — a prize, a bounty, a deal amount —
  goes through `share`: the seller's part and each buyer's part (`staking.split_payment`,
  T-7: rounded down, the rest to house rounding) in the payment's own transfer, and each
  buyer's part is written as a payout row (the stake's result) in the same transaction.
  T-18 refunds are shared by the refund job (`tournaments.store.stake_refunds`).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred, inlineCallbacks

from pokerroom.ledger import InsufficientFunds
from tournaments.actor.recorder import Op
from tournaments.director import errors
from tournaments.director import staking as rules
from tournaments.director.errors import DirectorError
from tournaments.director.money import WALLET, MoneyMove
from tournaments.director.staking import Offer, Stake, StakingBook
from tournaments.store import stake_store

if TYPE_CHECKING:
    from collections.abc import Callable

    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.durable import Durable
    from tournaments.config import TournamentConfig
    from tournaments.director.registration import RegistrationSettings, RegistrationState

IDEMPOTENCY_CONFLICT = "idempotency_conflict"  # the ledger's code (P-2)
#: What a seller is taken to hold when a seat unwinds their stakes: the ledger's funds check on
#: the seller's wallet is the last word (a refusal is kept for the staff).
UNCHECKED = 10**15


class StakesHost(Protocol):
    """What the staking reads of its tournament, and its queue of money requests."""

    tid: str  # The tournament's id.
    config: TournamentConfig  # The tournament's config.
    settings: RegistrationSettings  # The registration settings.
    state: RegistrationState  # The registrations as the director sees them.
    status: str  # registering, running, finished or cancelled.
    clock: IReactorTime  # The injected clock.
    durable: Durable  # The tournament's stored writes (T-18).
    log: Any  # The tournament's logger.

    def run(self, work: Callable[..., Any], *args: Any) -> Deferred[Any]:
        """Queue a money request behind the others (they run one at a time, in order)."""
        ...

    def idle(self) -> bool:
        """No money request is queued or running."""
        ...


class Stakes:
    """The staking of one tournament's actor (see the module docstring)."""

    def __init__(self, actor: StakesHost) -> None:
        self.actor = actor
        self.tid = actor.tid
        config = actor.config
        hold = getattr(config, "hold_stakes_until_result", None)
        #: Satellites hold the escrow until each seller's result (T-17: a seat is no money).
        self.hold = config.satellite is not None if hold is None else bool(hold)
        buy_in = actor.settings.buy_in
        #: None in a freeroll: action with no price cannot be sold (`bad_stake`).
        self.book: StakingBook | None = (
            StakingBook(self.tid, buy_in, self.hold) if buy_in > 0 else None
        )
        #: Every purchase ever made, by (buyer, key): a retry gets its first purchase (P-2).
        self.purchases: dict[tuple[str, str], Stake] = {}
        self.rows: dict[str, stake_store.StakeRow] = {}  # stake id -> as bought
        #: Every buyer's part of every payment to a seller: (seller, buyer, cents, reason).
        self.parts: list[tuple[str, str, int, str]] = []
        self.failures: list[tuple[str, str]] = []

    # ------------------------------------------------------------------ reading

    def open_offers(self) -> tuple[Offer, ...]:
        """The offers with something left to buy (the tournament's list of offers)."""
        return () if self.book is None else self.book.open_offers()

    def status_of(self, stake: Stake) -> str:
        """Where a purchase stands: held, paid (to the seller), returned or refunded."""
        book = self.book
        if book is None or stake not in book.stakes:
            return stake_store.REFUNDED
        if stake.seller in book.returned:
            return stake_store.RETURNED
        return stake_store.PAID if stake.seller in book.released else stake_store.HELD

    def row_of(self, stake: Stake) -> stake_store.StakeRow:
        """A purchase as stored, with where it stands now."""
        made = self.rows.get(stake.stake_id)
        markup = rules.DEFAULT_MARKUP_BPS if made is None else made.markup_bps
        at_ms = 0 if made is None else made.bought_at_ms
        key = "" if made is None else made.ledger_key
        return stake_store.StakeRow(
            stake, markup, key, self.status_of(stake), at_ms, tournament_id=self.tid
        )

    def received(self, buyer: str) -> int:
        """What `buyer` received from sellers' winnings in this tournament so far."""
        return sum(cents for _, who, cents, _ in self.parts if who == buyer)

    def restore(self, rows: stake_store.StakingRows, started: bool) -> None:
        """T-18 resume: the book as stored; a start whose escrow payment was not stored yet
        pays it now (a crash between the start and its payment)."""
        if self.book is None:
            return
        self.book = stake_store.book_of(
            rows, self.tid, self.book.buy_in, hold_until_result=self.hold, started=started
        )
        self.purchases = {(r.stake.buyer, r.stake.key): r.stake for r in rows.stakes}
        self.rows = {r.stake.stake_id: r for r in rows.stakes}
        if started and not self.hold:
            held = {r.stake.seller for r in rows.stakes if r.status == stake_store.HELD}
            with self.actor.durable.batch():
                for seller in sorted(held):
                    self._release(seller)

    # ------------------------------------------------------------------ requests

    def offer(
        self, seller: str, share_bps: int, markup_bps: int = rules.DEFAULT_MARKUP_BPS
    ) -> Deferred[Offer]:
        """T-17: a registered player offers `share_bps` of their action at `markup_bps`."""
        queued: Deferred[Any] = self.actor.run(self._offer, seller, share_bps, markup_bps)
        return queued

    def withdraw(self, seller: str, offer_id: str) -> Deferred[Offer]:
        """T-17: the unsold part of an offer goes back to the seller (before the start)."""
        queued: Deferred[Any] = self.actor.run(self._withdraw, seller, offer_id)
        return queued

    def buy(self, buyer: str, offer_id: str, share_bps: int, key: str) -> Deferred[Stake]:
        """T-17: `buyer` buys `share_bps` of an offer, paying the escrow at once (P-2: `key`)."""
        queued: Deferred[Any] = self.actor.run(self._buy, buyer, offer_id, share_bps, key)
        return queued

    def _open_book(self) -> StakingBook:
        """The book, while offers and purchases are open (before the start)."""
        if self.book is None:
            raise DirectorError(errors.BAD_STAKE, "this tournament has no buy-in to price action")
        if self.actor.status != "registering" or self.book.started:
            raise DirectorError(errors.STAKE_CLOSED, "the tournament has started")
        return self.book

    def _now_ms(self) -> int:
        return round(self.actor.clock.seconds() * 1000)

    def _offer_op(self, offer: Offer, status: str) -> Op:
        return partial(
            stake_store.save_offer,
            tournament_id=self.tid,
            offer=offer,
            status=status,
            at_ms=self._now_ms(),
        )

    @inlineCallbacks
    def _store(self, before: StakingBook, ops: Sequence[Op]) -> Generator[Deferred[Any], Any, None]:
        """Write a decision without money; a refused write undoes it (the queue kept others out)."""
        try:
            yield self.actor.durable.money((), "", rules.STAKE, ops)
        except Exception:
            now = self.book
            assert now is not None
            self.book = replace(before, started=now.started, released=now.released)
            raise

    @inlineCallbacks
    def _offer(
        self, seller: str, share_bps: int, markup_bps: int
    ) -> Generator[Deferred[Any], Any, Offer]:
        book = self._open_book()
        registered = seller in self.actor.state.players
        step = rules.offer(book, seller, share_bps, markup_bps, registered=registered)
        assert step.offer is not None
        self.book = step.book
        yield self._store(book, [self._offer_op(step.offer, stake_store.OPEN)])
        self.actor.log.info("stake_offered", seller=seller, offer=step.offer.offer_id)
        return step.offer

    @inlineCallbacks
    def _withdraw(self, seller: str, offer_id: str) -> Generator[Deferred[Any], Any, Offer]:
        book = self._open_book()
        step = rules.withdraw(book, seller, offer_id)
        assert step.offer is not None
        self.book = step.book
        yield self._store(book, [self._offer_op(step.offer, stake_store.WITHDRAWN)])
        return step.offer

    @inlineCallbacks
    def _buy(
        self, buyer: str, offer_id: str, share_bps: int, key: str
    ) -> Generator[Deferred[Any], Any, Stake]:
        first = self.purchases.get((buyer, key))
        if first is not None:  # P-2: the first purchase again, nothing moves
            if (first.offer_id, first.share_bps) != (offer_id, share_bps):
                raise DirectorError(
                    IDEMPOTENCY_CONFLICT, "this key was used for another purchase; use a new key"
                )
            return first
        book = self._open_book()
        step = rules.buy(book, buyer, offer_id, share_bps, key=key)
        stake, offer = step.stake, step.offer
        assert stake is not None and offer is not None
        (move,) = step.moves
        row = stake_store.StakeRow(
            stake, offer.markup_bps, move.key, stake_store.HELD, self._now_ms()
        )
        ops: list[Op] = [
            partial(stake_store.save_stake, tournament_id=self.tid, row=row),
            self._offer_op(offer, stake_store.OPEN),
        ]
        self.book = step.book
        self.purchases[(buyer, key)] = stake
        self.rows[stake.stake_id] = row
        try:
            yield self.actor.durable.money(step.moves, move.key, rules.STAKE, ops)
        except Exception as exc:
            self.book = _unbought(self.book, stake)
            del self.purchases[(buyer, key)]
            del self.rows[stake.stake_id]
            if isinstance(exc, InsufficientFunds):
                raise DirectorError(errors.INSUFFICIENT_FUNDS, "not enough money") from None
            raise
        self.actor.log.info("stake_bought", buyer=buyer, seller=stake.seller, price=stake.price)
        return stake

    # ------------------------------------------------------------------ the actor's events

    def leaving(self, seller: str) -> tuple[tuple[MoneyMove, ...], list[Op], StakingBook | None]:
        """T-17, the seller unregisters: the moves giving every buyer back what they paid (for
        the seller's own refund transfer), their rows, and the book once that transfer landed."""
        book = self.book
        if book is None or book.started:
            return (), [], None
        if not any(o.seller == seller for o in book.offers):
            return (), [], None
        step = rules.seller_unregistered(book, seller)
        gone = [s.stake_id for s in book.stakes if s.seller == seller]
        now = self._now_ms()
        ops: list[Op] = [partial(stake_store.offers_gone, tournament_id=self.tid, seller=seller)]
        if gone:
            ops.append(
                partial(
                    stake_store.settle_stakes,
                    tournament_id=self.tid,
                    status=stake_store.REFUNDED,
                    at_ms=now,
                    stake_ids=gone,
                )
            )
        return step.moves, ops, step.book

    def left(self, book: StakingBook | None) -> None:
        """The seller's refund (with their buyers') landed: the book without them."""
        if book is not None:
            self.book = book

    def started(self) -> None:
        """T-17 at the start: offers close at once (the first hand's payments are shared); each
        seller is paid their sold shares' escrow — in the start's unit, or, when a purchase is
        still in flight, after it in the money queue (a refused one is then not paid out)."""
        book = self.book
        if book is None:
            return
        self.book = replace(book, started=True)
        if self.hold or not book.stakes:
            return
        if self.actor.idle():
            self._pay_sellers()
        else:
            self.actor.run(self._pay_sellers)

    def _pay_sellers(self) -> None:
        """Every seller's escrow of their sold shares, one transfer each (`stake`)."""
        book = self.book
        assert book is not None
        with self.actor.durable.batch():
            for seller in sorted({s.seller for s in book.stakes}):
                self._release(seller)

    def _note(self, failure: Any, key: str) -> None:
        """A refused staking transfer, kept for the staff (the tournament goes on)."""
        self.failures.append((key, str(failure.value)))
        self.actor.log.error("stake_transfer_failed", key=key, error=str(failure.value))

    def _post(self, moves: Sequence[MoneyMove], key: str, ops: Sequence[Op]) -> None:
        """A transfer of the escrow in the current unit; a refusal is noted."""
        if moves:
            done = self.actor.durable.money(moves, key, rules.STAKE, ops)
            done.addErrback(self._note, key)

    def _release(self, seller: str) -> None:
        """A held escrow paid to its seller (their result is money or a bust)."""
        book = self.book
        if book is None or not book.started:
            return
        step = rules.release_escrow(book, seller)
        self.book = step.book
        op = partial(
            stake_store.settle_stakes,
            tournament_id=self.tid,
            status=stake_store.PAID,
            at_ms=self._now_ms(),
            sellers=[seller],
        )
        self._post(step.moves, f"{self.tid}:stake:release:{seller}", [op])

    def result(self, player: str) -> None:
        """`hold_until_result`: a seller finished with money or nothing; their escrow is theirs."""
        if self.hold:
            self._release(player)

    def seat(self, player: str) -> None:
        """T-17/T-18: the seller won a seat (a ticket, or T$ for a duplicate), not money: every
        buyer gets back in money what they paid, from the escrow (held) or from the seller."""
        book = self.book
        if book is None or not book.started or not any(s.seller == player for s in book.stakes):
            return
        step = rules.seat_instead_of_money(book, player, seller_balance=UNCHECKED)
        self.book = step.book
        op = partial(
            stake_store.settle_stakes,
            tournament_id=self.tid,
            status=stake_store.RETURNED,
            at_ms=self._now_ms(),
            sellers=[player],
        )
        self._post(step.moves, f"{self.tid}:stake:return:{player}", [op])

    def share(
        self, moves: Iterable[MoneyMove], key: str, reason: str
    ) -> tuple[tuple[MoneyMove, ...], list[Op]]:
        """T-17: every move paying a seller's wallet split with their buyers (`split_payment`),
        for ONE transfer; and the op writing each buyer's part (in that transfer's unit).

        A move's key names its parts (`<key>:stake:<buyer>`); a move without one takes the
        transfer's `key`. Moves to anyone without buyers are unchanged."""
        book = self.book
        given = tuple(moves)
        if book is None or not book.started or not book.stakes:
            return given, []
        shared: list[MoneyMove] = []
        rows: list[stake_store.PayoutRow] = []
        now = self._now_ms()
        for move in given:
            seller = move.destination.owner
            if move.destination.kind != WALLET or not book.shares(seller):
                shared.append(move)
                continue
            base = move.key or key
            parts = rules.split_payment(
                book, seller, move.amount, kind=move.kind, source=move.source, key=base
            )
            shared.extend(parts)
            prefix = f"{base}:stake:"
            for part in parts:
                buyer = part.destination.owner
                if part.key.startswith(prefix) and part.destination.kind == WALLET:
                    rows.append(
                        stake_store.PayoutRow(part.key, seller, buyer, part.amount, reason, now)
                    )
                    self.parts.append((seller, buyer, part.amount, reason))
        if not rows:
            return tuple(shared), []
        return tuple(shared), [partial(stake_store.add_payouts, tournament_id=self.tid, rows=rows)]


def _unbought(book: StakingBook | None, stake: Stake) -> StakingBook | None:
    """The book without a purchase the ledger refused (whatever happened to it meanwhile)."""
    if book is None:
        return None
    offers = tuple(
        replace(o, sold_bps=o.sold_bps - stake.share_bps) if o.offer_id == stake.offer_id else o
        for o in book.offers
    )
    return replace(book, offers=offers, stakes=tuple(s for s in book.stakes if s != stake))
