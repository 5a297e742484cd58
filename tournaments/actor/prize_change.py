"""T-15 on the tournament actor: the operator changes a running tournament's prizes.

`PrizeChanges.change_prizes` (a part the actor owns) is what the staff command calls
(docs/ADMIN.md): the director's `change_prizes` decides (raises only, the pool balanced, decided
places standing; cash in place of a satellite's seats), and the decision is ONE unit of the
actor's recorder: the house's money into the pool (the `overlay` transfer, under the caller's
key, P-2) with its audit row (`tournament_prize_changes`: who, why, when, the table before and
after, the money added) and the new prize table in the same transaction. The new table pays
every place not yet awarded; T-18 treats the money added like the overlay (`prize_added`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.python.failure import Failure

from tournaments import store
from tournaments.actor.recorder import Op
from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.payouts import PrizeTable
from tournaments.director.prize_changes import PrizeChange, change_prizes

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.actor.payout_runner import PayoutRunner


class PrizeHost(Protocol):
    """What a prize change reads of its tournament, and the prize table it replaces."""

    prizes: PrizeTable | None  # the prize table, once fixed (T-6)
    tid: str  # the tournament's id
    clock: IReactorTime  # the injected clock
    cashier: Cashier  # the ledger keys
    durable: Durable  # the stored writes (T-18)
    payouts: PayoutRunner  # the pool (the money added joins it) and a satellite's seats
    alive: dict[str, int]  # entry -> entry number, for players with chips
    satellite_seats: int | None  # T-8: a satellite's seats
    log: Any  # the tournament's logger


class PrizeChanges:
    """The T-15 changes of one tournament's prizes: a part the actor owns."""

    def __init__(self, host: PrizeHost) -> None:
        self.host = host
        #: The changes made, in order; the first answer to each key (P-2): the change, or the
        #: callers waiting while it is in flight.
        self.made: list[store.PrizeChangeRecord] = []
        self._prize_keys: dict[str, PrizeChange | list[Deferred[PrizeChange]]] = {}

    def change_prizes(
        self,
        amounts: Sequence[int],
        *,
        by: str,
        reason: str,
        key: str,
        rounding: int | None = None,
        seats_in_cash: bool = False,
        audit: Op | None = None,
    ) -> Deferred[PrizeChange]:
        """T-15: replace the prize table (every place, first place first) or pay the seats in
        cash; refused with `prizes_not_fixed`, `prize_lowered`, `bad_prizes` or
        `unbalanced_prizes`. The same `key` again answers the first change (P-2). `audit` is
        the staff's audit row (docs/ADMIN.md), written in the change's own unit."""
        first = self._prize_keys.get(key)
        if isinstance(first, PrizeChange):
            return succeed(first)
        waiter: Deferred[PrizeChange] = Deferred()
        if first is not None:
            first.append(waiter)
            return waiter
        waiting: list[Deferred[PrizeChange]] = [waiter]
        self._prize_keys[key] = waiting

        def done(outcome: PrizeChange | Failure) -> None:
            if isinstance(outcome, PrizeChange):
                self._prize_keys[key] = outcome
            else:
                self._prize_keys.pop(key, None)  # a refused change may be asked again
            for d in waiting:
                if isinstance(outcome, Failure):
                    d.errback(outcome)
                else:
                    d.callback(outcome)

        changing = self._change_prizes(amounts, by, reason, key, rounding, seats_in_cash, audit)
        changing.addBoth(done)
        return waiter

    @inlineCallbacks
    def _change_prizes(
        self,
        amounts: Sequence[int],
        by: str,
        reason: str,
        key: str,
        rounding: int | None,
        seats_in_cash: bool,
        audit: Op | None = None,
    ) -> Generator[Deferred[Any], Any, PrizeChange]:
        table = self.host.prizes
        if table is None:
            raise DirectorError(errors.PRIZES_NOT_FIXED, "the prize table is not fixed yet (T-6)")
        seats = self.host.payouts.seats
        seat_places = (self.host.satellite_seats or 0) if seats is not None else 0
        ledger_key = self.host.cashier.key("prize_change", by, key)
        change = change_prizes(
            self.host.tid, table, len(self.host.alive), amounts, key=ledger_key, rounding=rounding,
            seat_places=seat_places, seats_in_cash=seats_in_cash,
        )  # fmt: skip
        record = store.PrizeChangeRecord(
            seq=len(self.made) + 1,
            changed_by=by,
            reason=reason,
            at_ms=round(self.host.clock.seconds() * 1000),
            old=change.old,
            new=change.new,
            added=change.added,
            cash_places=tuple(range(1, seat_places + 1)) if change.seats_in_cash else (),
            ledger_key=ledger_key,
        )
        # Reserved at once: places finishing while the money is in flight get the new table.
        self.host.prizes = change.new
        self.host.payouts.pool_total += change.added
        if seats is not None and change.seats_in_cash:
            seats.seats_in_cash = True
        self.made.append(record)
        ops: list[Op] = [
            partial(store.add_prize_change, tournament_id=self.host.tid, change=record)
        ]
        if audit is not None:
            ops.append(audit)
        try:
            yield self.host.durable.money(change.moves, ledger_key, "overlay", ops)
        except Exception:
            if self.host.prizes is change.new:
                self.host.prizes = change.old
            self.host.payouts.pool_total -= change.added
            if seats is not None and change.seats_in_cash:
                seats.seats_in_cash = False
            self.made.remove(record)
            raise
        self.host.log.info(
            "prizes_changed", by=by, reason=reason, added=change.added, amounts=change.new.amounts
        )
        return change
