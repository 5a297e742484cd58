"""One tournament's bounties in play (T-14): the director's arithmetic, the ledger, the store.

The arithmetic is `tournaments.director.bounties` (starting bounties, knockouts in T-9 order,
the bubble, the end). Here the actor's events become its calls, and each settlement becomes
ONE ledger transfer from the tournament's bounty pool (cash paid now to wallets, T-7 leftovers
of split knockout pots to the house rounding account) with the entries' bounty totals and
bounties won written in the same transaction (`store.save_bounties`): T-18 refunds read each
remaining player's current bounty from there. The entry's own transfer already moved its
starting bounty into the pool (`registration.entry_moves`).

- an entry or re-entry paid: a new starting bounty on the player (`enter`);
- an unregistration: the bounty leaves with the refund (`leave`);
- each hand's (or hand-for-hand round's) knockouts: `settle_knockouts`, T-9 order; in deferred
  format the bubble pays every total still in play;
- the end (T-8): every player left is paid their own total (the PKO winner's own bounty).

Players hear `bounty_won` (the receiver, and the player whose bounty it was) once stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred

from tournaments import store
from tournaments.director import bounties as rules
from tournaments.director.bounties import (
    BountyFormat,
    BountyKind,
    BountyPayment,
    BountySettlement,
    BountyState,
    Reason,
)
from tournaments.director.eliminations import Knockout
from tournaments.director.registration import Decision

if TYPE_CHECKING:
    from tournaments.actor.cashier import Cashier
    from tournaments.director.registration import RegistrationSettings, RegistrationState
    from tournaments.tables.floor import Players

#: The names operators write (`bounty.format`) -> the director's kinds.
FORMAT_NAMES = {
    "deferred": BountyKind.DEFERRED,
    "classic": BountyKind.CLASSIC,
    "pko": BountyKind.PROGRESSIVE,
}
#: And back, for the lobby and the status.
FORMAT_OF = {kind: name for name, kind in FORMAT_NAMES.items()}


def bounty_format(format_name: str, share_bps: int) -> BountyFormat:
    """A bounty setting from its operator names (`deferred`, `classic`, `pko`, or the director's
    own kind values); ValueError on an unknown one."""
    kind = FORMAT_NAMES.get(format_name)
    if kind is None:
        try:
            kind = BountyKind(format_name)
        except ValueError:
            raise ValueError(
                f"bounty format is one of {sorted(FORMAT_NAMES)}, not {format_name!r}"
            ) from None
    return BountyFormat(share_bps, kind)


def restored_state(
    record: store.TournamentRecord,
    entries: Iterable[store.EntryRecord],
    payments: Iterable[store.Payment],
) -> BountyState:
    """The bounty state of a stored tournament (a resume after a crash, T-18): totals of the
    entries alive, what was paid in and out, the rest rounded away, the bubble and the count."""
    gone = set()
    listed = list(entries)
    for entry in listed:
        if entry.status == store.UNREGISTERED:
            gone.add(entry.player)
    totals = {e.player: e.bounty for e in listed if e.status == store.ALIVE}
    paid_in = sum(p.bounty for p in payments if p.player not in gone)
    paid_out = sum(e.bounty_won for e in listed)
    rounding = paid_in - paid_out - sum(totals.values())
    if rounding < 0:
        raise store.StoreError("the stored bounties hold more than was paid in (T-14)")
    return BountyState(
        totals, record.bounty_burst, paid_in, paid_out, rounding, record.bounty_serial
    )


class BountyHost(Protocol):
    """What the bounty book reads of its tournament."""

    tid: str  # The tournament's id.
    cashier: Cashier  # The tournament's ledger keys and transfers.
    state: RegistrationState  # The registrations as the director sees them.
    settings: RegistrationSettings  # The registration settings.
    players: Players  # Who is told what.
    log: Any  # The tournament's logger.


class BountyBook:
    """The bounties of one tournament's actor (see the module docstring)."""

    def __init__(self, actor: BountyHost, fmt: BountyFormat) -> None:
        self.actor = actor
        self.fmt = fmt
        self.state = BountyState()
        #: Bounty money paid to each player over the tournament (every entry), for the results.
        self.won: dict[str, int] = {}
        #: The same per entry (player, entry number), as stored.
        self.won_by_entry: dict[tuple[str, int], int] = {}
        #: Every payment decided, in order, with the hand it came from (for reports and tests).
        self.paid: list[tuple[str, BountyPayment]] = []
        self.failures: list[tuple[str, str]] = []

    def restore(
        self,
        record: store.TournamentRecord,
        entries: Iterable[store.EntryRecord],
        payments: Iterable[store.Payment],
    ) -> None:
        """T-18 resume: the bounties as stored (totals, bubble, settlements so far, won)."""
        listed = list(entries)
        self.state = restored_state(record, listed, payments)
        self.won = {}
        self.won_by_entry = {}
        for entry in listed:
            if entry.bounty_won:
                self.won[entry.player] = self.won.get(entry.player, 0) + entry.bounty_won
                self.won_by_entry[(entry.player, entry.entry_no)] = entry.bounty_won

    @property
    def format_name(self) -> str:
        """`deferred`, `classic` or `pko`."""
        return FORMAT_OF[self.fmt.kind]

    def total(self, player: str) -> int | None:
        """The bounty on `player`'s head now (None: not in play)."""
        return self.state.totals.get(player)

    def top(self, count: int = 10) -> list[tuple[str, int]]:
        """The largest bounties in play (the lobby's list), largest first, by name on a tie."""
        ranked = sorted(self.state.totals.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:count]

    # ------------------------------------------------------------------ entries

    def entered(self, player: str, decision: Decision) -> None:
        """A paid entry or re-entry brings its starting bounty (T-14).

        Deferred format, an entry decided before the money was reached whose transfer landed
        after the bubble (T-5 closed late registration meanwhile): the bubble paid every player
        still in their own bounty, so this entry is paid its own at once too.
        """
        settings = self.actor.settings
        buy_in = settings.reentry.buy_in if decision.action == "reentry" else settings.buy_in
        late = self.fmt.kind is BountyKind.DEFERRED and self.state.bubble_burst
        state = replace(self.state, bubble_burst=False) if late else self.state
        state = rules.enter(state, player, buy_in, self.fmt)
        if state.totals[player] != decision.bounty:
            raise AssertionError("the entry's transfer and its bounty disagree (T-14)")
        self.state = state
        if late:
            self._apply(rules.burst_bubble(state, self.fmt), {})

    def left(self, player: str) -> None:
        """T-3: unregistered; the refund took the bounty part back out of the pool."""
        if player in self.state.totals:
            self.state = rules.leave(self.state, player)

    # ------------------------------------------------------------------ settlements

    def knockouts(self, knockouts: Sequence[Knockout], paid_places: int) -> None:
        """One hand's (or hand-for-hand round's) knockouts, in T-9 order; the bubble."""
        settlement = rules.settle_knockouts(
            self.state, knockouts, self.fmt, paid_places=paid_places
        )
        self._apply(settlement, {k.entry: k.hand_id for k in knockouts})

    def in_the_money(self) -> None:
        """The money was reached without a knockout (more places paid once the pool was fixed)."""
        if not self.state.bubble_burst:
            self._apply(rules.burst_bubble(self.state, self.fmt), {})

    def end(self) -> None:
        """T-8: every player left is paid the bounty on their own head."""
        self._apply(rules.end_tournament(self.state), {})

    def _entry_no(self, player: str) -> int:
        record = self.actor.state.players.get(player)
        return record.entries if record is not None else 1

    def _apply(self, settlement: BountySettlement, hands: Mapping[str, str]) -> None:
        """The new state; the payments to wallets and the store, in one transfer; tell."""
        before = self.state
        self.state = settlement.state
        if settlement.state == before:
            return
        touched: dict[tuple[str, int], int] = {}
        for payment in settlement.payments:
            self.paid.append((hands.get(payment.source, ""), payment))
            if payment.paid:
                self.won[payment.entry] = self.won.get(payment.entry, 0) + payment.paid
                where = (payment.entry, self._entry_no(payment.entry))
                self.won_by_entry[where] = self.won_by_entry.get(where, 0) + payment.paid
                touched[where] = self.won_by_entry[where]
        after = settlement.state.totals
        totals = {  # only the totals this settlement changed (a busted entry's goes to 0)
            (p, self._entry_no(p)): after.get(p, 0)
            for p in set(before.totals) | set(after)
            if before.totals.get(p) != after.get(p)
        }
        op = partial(
            store.save_bounties,
            tournament_id=self.actor.tid,
            serial=settlement.state.serial,
            burst=settlement.state.bubble_burst,
            totals=totals,
            won=touched,
        )
        key = self.actor.cashier.key("bounty", "settlement", settlement.state.serial)
        moves: Sequence[Any] = rules.bounty_moves(self.actor.tid, settlement)
        shared: list[Any] = []
        stakes = getattr(self.actor, "stakes", None)
        if stakes is not None:  # T-17: a seller's bounty shared with their buyers, same transfer
            moves, shared = stakes.share(moves, key, "bounty")
        posted = self._post(moves, key, op, shared)
        posted.addCallback(lambda _: self._tell(before, settlement, hands))
        posted.addErrback(self._failed, key)

    def _post(
        self, moves: Sequence[Any], key: str, op: Any, more: Sequence[Any] = ()
    ) -> Deferred[Any]:
        """One transfer and its store writes: in the actor's stored unit when it stores its
        decisions (the hand's own, inside its batch), else in one transaction of their own."""
        durable = getattr(self.actor, "durable", None)
        if durable is not None:
            return durable.money(moves, key, "bounty", [op, *more])  # type: ignore[no-any-return]
        return self.actor.cashier.post_with(
            moves, key, "bounty", lambda conn: [write(conn) for write in (op, *more)]
        )

    def _failed(self, failure: Any, key: str) -> None:
        """A refused settlement is kept for the staff; the tournament goes on."""
        self.failures.append((key, str(failure.value)))
        self.actor.log.error("bounty_transfer_failed", key=key, error=str(failure.value))

    def _tell(
        self, before: BountyState, settlement: BountySettlement, hands: Mapping[str, str]
    ) -> None:
        """`bounty_won` to the receiver (and the player whose bounty it was), once stored; each
        says the receiver's bounty right after that payment (several knockouts of one hand)."""
        tell = getattr(self.actor.players, "bounty_won", None)
        if tell is None:
            return
        for payment, bounty in zip(
            settlement.payments, bounties_after(before, settlement.payments), strict=True
        ):
            tell(payment, bounty, hands.get(payment.source, ""))


def bounties_after(before: BountyState, payments: Sequence[BountyPayment]) -> list[int]:
    """The receiver's bounty right after each payment, in order (T-14): a knockout takes the
    busted player's bounty off the table and adds `added` onto the receiver's; the bubble and
    the end pay a player their whole total, which leaves none."""
    totals = dict(before.totals)
    after = []
    for payment in payments:
        if payment.reason is Reason.KNOCKOUT:
            totals.pop(payment.source, None)
            totals[payment.entry] = totals.get(payment.entry, 0) + payment.added
        else:
            totals[payment.entry] = 0
        after.append(totals.get(payment.entry, 0))
    return after
