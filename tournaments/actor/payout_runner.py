"""The prize pool's money: overlay when the pool is fixed, prizes, rounding, refunds (T-5..T-7).

Every movement is one ledger transfer with its own idempotency key, written with the store
rows it goes with (the prize table, the prize paid to an entry) in the unit of the decision that
made it (`Durable`, T-18), in order (a prize may need the overlay to have landed in the pool
first). A refused transfer is logged and kept in `failures` for the staff; the tournament goes
on. Cancellations are refunded by the refund job (pokerroom/jobs), never here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred

from tournaments.actor.recorder import Op
from tournaments.actor.satellite import SeatPayer, satellite_table
from tournaments.director import entries as director_entries
from tournaments.director.money import HOUSE_OVERLAY, HOUSE_ROUNDING, MoneyMove, house, prize_pool
from tournaments.director.money import wallet as wallet_account
from tournaments.director.payouts import prize_table, tied_prizes
from tournaments.director.registration import Clock

if TYPE_CHECKING:
    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.actor.stakes import Stakes
    from tournaments.config import TournamentConfig
    from tournaments.director.payouts import PrizeTable
    from tournaments.director.registration import RegistrationSettings, RegistrationState
    from tournaments.results import Result


class PayoutHost(Protocol):
    """What the payout runner reads of its tournament, and the prizes it fixes."""

    prizes: PrizeTable | None  # The prize table, once fixed (T-6).
    satellite_seats: int | None  # T-8: a satellite ends at this many players.

    tid: str  # The tournament's id.
    cashier: Cashier  # The tournament's ledger keys and transfers.
    config: TournamentConfig  # The tournament's config.
    durable: Durable  # The tournament's stored writes (T-18).
    log: Any  # The tournament's logger.
    results: list[Result]  # The finished entries, in order.
    settings: RegistrationSettings  # The registration settings.
    state: RegistrationState  # The registrations as the director sees them.
    stakes: Stakes  # The tournament's staking (T-17).


class PayoutRunner:
    """Posts the pool's movements for one tournament, in order."""

    def __init__(self, actor: PayoutHost) -> None:
        self.actor = actor
        self.tid = actor.tid
        self.pool_total = 0
        self.overlay = 0
        self.paid_total = 0
        self.rounding_total = 0
        self.failures: list[tuple[str, str]] = []
        self._tied_groups: set[int] = set()
        self.seats: SeatPayer | None = None  # set for a satellite (T-8, T-16)
        #: T-13: what an accepted deal already paid each player (part of their prize).
        self.credited: dict[str, int] = {}

    def _post(
        self, moves: tuple[MoneyMove, ...], key: str, kind: str, ops: Sequence[Op] = ()
    ) -> None:
        """One transfer (and the rows it goes with), after the previous ones (in the
        decision's unit)."""
        posted = self.actor.durable.money(moves, key, kind, ops)
        posted.addErrback(lambda failure: self.note(key, failure))

    def post_then(self, moves: tuple[MoneyMove, ...], key: str, kind: str, then: Any) -> None:
        """One transfer and, once it landed, `then(transfer)` (a seat's registration)."""
        posted = self.actor.durable.money(moves, key, kind).addCallback(then)
        posted.addErrback(lambda failure: self.note(key, failure))

    def note(self, key: str, failure: Any) -> None:
        """A refused movement, kept for the staff."""
        self.failures.append((key, str(failure.value)))
        self.actor.log.error("transfer_failed", key=key, error=str(failure.value))

    def settled(self) -> Deferred[Any]:
        """Fires once every transfer so far has settled (with the decisions before it)."""
        return self.actor.durable.recorder.idle()

    def fix_pool_if_final(self, clock: Clock, before: int, force: bool = False) -> None:
        """T-6: once every period has closed, the overlay tops the pool up and prizes are fixed."""
        actor = self.actor
        if actor.prizes is not None:
            return
        settings, state = actor.settings, actor.state
        if not force and not director_entries.pool_is_final(settings, state, clock):
            return
        pool = director_entries.prize_pool_status(settings, state)
        if pool.overlay:
            move = MoneyMove(
                "overlay", house(HOUSE_OVERLAY), prize_pool(self.tid), pool.overlay, ""
            )
            self._post((move,), actor.cashier.key("overlay", "house", 1), "overlay")
        self.overlay = pool.overlay
        self.pool_total = pool.total
        if self.seats is not None:  # T-8, T-16: a satellite pays seats
            actor.prizes, actor.satellite_seats = satellite_table(
                self.seats.target, state.entries, pool.total
            )
        else:
            actor.prizes = prize_table(state.entries, pool.total, actor.config.payouts)
        actor.log.info("prize_pool_fixed", pool=pool.total, overlay=pool.overlay)
        actor.durable.pool_fixed(actor.prizes, pool.overlay)
        self._renumber(before)
        if actor.results:  # places given while the field could grow are final now (T-5)
            actor.durable.places([(r.entry, r.entry_no, r.place) for r in actor.results])
        for index, result in enumerate(actor.results):  # finishes placed before the pool was final
            if result.place <= actor.prizes.paid_places and not result.prize:
                prize = self.pay_place(result.entry, result.place, result.tied, result.entry_no)
                actor.results[index] = replace(result, prize=prize)

    def _renumber(self, before: int) -> None:
        """Places given while the field could still grow are made final (T-5, T-6).

        Walking back from the latest knockouts, each batch (one hand or one hand-for-hand
        round) keeps its T-9 order and takes the places just below the players left then;
        a player who bought back in (T-4) leaves no gap.
        """
        results = self.actor.results
        counter = before
        index = len(results)
        while index > 0:
            batch = results[index - 1].batch
            first = index - 1
            while first > 0 and results[first - 1].batch == batch:
                first -= 1
            worst = counter + index - first
            by_place: dict[int, list[int]] = {}
            for offset in range(first, index):
                by_place.setdefault(results[offset].place, []).append(offset)
            for place in sorted(by_place, reverse=True):  # T-9 order kept, gaps closed
                members = by_place[place]
                best = worst - len(members) + 1
                for offset in members:
                    results[offset] = replace(results[offset], place=best, tied=len(members))
                worst = best - 1
            new_before = counter + index - first
            counter = new_before
            index = first

    def pay_place(self, entry: str, place: int, tied: int, entry_no: int | None = None) -> int:
        """T-7: the prize of `place` (shared by `tied` players), rounded down to the cent;
        stored with its transfer as the prize of the entry (`entry_no`: the player's latest)."""
        prizes = self.actor.prizes
        assert prizes is not None
        if tied > 1:
            amount, rest = tied_prizes(prizes, place, tied)
            if rest and place not in self._tied_groups:
                self._tied_groups.add(place)
                self._rounding(rest, f"tie{place}")
        else:
            amount = prizes.prize(place)
        if entry_no is None:
            record = self.actor.state.players.get(entry)
            entry_no = record.entries if record is not None else 1
        seats = self.actor.satellite_seats
        if self.seats is not None and seats is not None and place <= seats:
            self.paid_total += amount
            value = self.seats.pay_seat(entry, amount)
            self.actor.durable.prize(entry, entry_no, value)
            return value
        credited = self.credited.get(entry, 0)  # T-13: paid at once by an accepted deal
        if amount > 0:
            move = MoneyMove("prize", prize_pool(self.tid), wallet_account(entry), amount, "")
            key = self.actor.cashier.key("prize", entry, place)
            shared, ops = self.actor.stakes.share((move,), key, "prize")  # T-17: with buyers
            self._post(shared, key, "prize", ops)
            self.actor.durable.prize(entry, entry_no, amount + credited)
            self.paid_total += amount
        return amount + credited

    def _rounding(self, amount: int, label: str) -> None:
        """T-7: what rounding down leaves goes to the house rounding account."""
        move = MoneyMove("rounding", prize_pool(self.tid), house(HOUSE_ROUNDING), amount, "")
        self._post((move,), self.actor.cashier.key("rounding", "house", label), "rounding")
        self.rounding_total += amount

    def close(self) -> None:
        """The end: whatever the prizes left in the pool goes to house rounding (T-7)."""
        rest = self.pool_total - self.paid_total - self.rounding_total
        if rest > 0:
            self._rounding(rest, "end")
