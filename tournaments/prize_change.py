"""T-15 on the tournament actor: the operator changes a running tournament's prizes.

`change_prizes` is the actor-side method the staff command calls (docs/ADMIN.md): the
director's `change_prizes` decides (raises only, the pool balanced, decided places standing;
cash in place of a satellite's seats), and the decision is ONE unit of the actor's recorder:
the house's money into the pool (the `overlay` transfer, under the caller's key, P-2) with its
audit row (`tournament_prize_changes`: who, why, when, the table before and after, the money
added) and the new prize table in the same transaction. The new table pays every place not yet
awarded; T-18 treats the money added like the overlay (`prize_added`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.python.failure import Failure

from tournaments import store
from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.payouts import PrizeTable
from tournaments.director.prize_changes import PrizeChange, change_prizes
from tournaments.recorder import Op

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.cashier import Cashier
    from tournaments.durable import Durable
    from tournaments.payout_runner import PayoutRunner


class PrizeChanges:
    """The T-15 method of `TournamentActor` (a mixin: it reads the actor's state)."""

    if TYPE_CHECKING:  # what the mixin uses of its TournamentActor
        tid: str
        clock: IReactorTime
        cashier: Cashier
        durable: Durable
        payouts: PayoutRunner
        prizes: PrizeTable | None
        alive: dict[str, int]
        satellite_seats: int | None
        log: Any

    #: The changes made, in order; the first answer to each key (P-2): the change, or the
    #: callers waiting while it is in flight.
    prize_changes: list[store.PrizeChangeRecord]
    _prize_keys: dict[str, PrizeChange | list[Deferred[PrizeChange]]]

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
        if not hasattr(self, "prize_changes"):
            self.prize_changes = []
            self._prize_keys = {}
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
        table = self.prizes
        if table is None:
            raise DirectorError(errors.PRIZES_NOT_FIXED, "the prize table is not fixed yet (T-6)")
        seats = self.payouts.seats
        seat_places = (self.satellite_seats or 0) if seats is not None else 0
        ledger_key = self.cashier.key("prize_change", by, key)
        change = change_prizes(
            self.tid, table, len(self.alive), amounts, key=ledger_key, rounding=rounding,
            seat_places=seat_places, seats_in_cash=seats_in_cash,
        )  # fmt: skip
        record = store.PrizeChangeRecord(
            seq=len(self.prize_changes) + 1,
            changed_by=by,
            reason=reason,
            at_ms=round(self.clock.seconds() * 1000),
            old=change.old,
            new=change.new,
            added=change.added,
            cash_places=tuple(range(1, seat_places + 1)) if change.seats_in_cash else (),
            ledger_key=ledger_key,
        )
        # Reserved at once: places finishing while the money is in flight get the new table.
        self.prizes = change.new
        self.payouts.pool_total += change.added
        if seats is not None and change.seats_in_cash:
            seats.seats_in_cash = True
        self.prize_changes.append(record)
        ops: list[Op] = [partial(store.add_prize_change, tournament_id=self.tid, change=record)]
        if audit is not None:
            ops.append(audit)
        try:
            yield self.durable.money(change.moves, ledger_key, "overlay", ops)
        except Exception:
            if self.prizes is change.new:
                self.prizes = change.old
            self.payouts.pool_total -= change.added
            if seats is not None and change.seats_in_cash:
                seats.seats_in_cash = False
            self.prize_changes.remove(record)
            raise
        self.log.info(
            "prizes_changed", by=by, reason=reason, added=change.added, amounts=change.new.amounts
        )
        return change
