"""Bounties (T-14): starting bounties, knockouts, the bubble and the end, in integer cents.

Three formats, a tournament setting (`BountyFormat.kind`):

- deferred progressive (the house default, the T-14 text): a knockout before the bubble moves
  the busted player's whole bounty total onto the total of the winner(s) of the knockout pot;
  nothing is paid. When the bubble bursts every player still in is paid their own total, and
  from then on no bounty is left in play (a later knockout moves nothing).
- classic knockout: each entry carries its fixed starting bounty; a knockout pays it at once to
  the winner(s); a bounty total never grows.
- progressive knockout (PKO): a knockout splits the busted player's total among the winners;
  each winner's share is halved: the cash half, rounded down, is paid at once and the other
  half (with the odd cent of an odd share) is added to the winner's own bounty total.

In every format the end of the tournament (T-8) pays each player still holding a total their
own total: the PKO or classic winner collects the bounty on their own head.

Rounding (T-7): a starting bounty is `buy_in * share_bps // 10_000`, rounded down (the rest of
the buy-in stays with the prize pool). A bounty split among several winners of the knockout pot
gives each the same amount rounded down; the leftover cents go to the house rounding account.
Halving a PKO share loses nothing: the odd cent stays in play on the winner's bounty.

Conservation: `paid_in == paid_out + rounding + in_play` after every step (`BountyState.balanced`).

Order (T-9): the knockouts of one hand (or hand-for-hand round) are settled lowest finisher
first, with `eliminations.rank_knockouts`. A player who wins the pot that busts someone is never
busted in that hand, and a busted player's bounty is their own total, so the order changes no
amount except around the bubble: in deferred format the bubble bursts between the knockout that
finishes just out of the money and the first one that finishes in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from tournaments.director import errors
from tournaments.director.eliminations import Knockout, PotResult, rank_knockouts
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    MoneyMove,
    bounty_pool,
    house,
    moves,
    wallet,
)
from tournaments.director.payouts import BPS, split_equally


class BountyKind(StrEnum):
    """How knockouts are paid (T-14: a tournament setting)."""

    DEFERRED = "deferred_progressive"  # moved to the winner's total; all paid at the bubble
    CLASSIC = "knockout"  # the fixed bounty paid at once
    PROGRESSIVE = "progressive_knockout"  # half paid at once, half onto the winner's bounty


@dataclass(frozen=True, slots=True)
class BountyFormat:
    """A bounty tournament's setting: the format and the part of each buy-in that is bounty."""

    share_bps: int  # basis points of the buy-in that go to the bounty pool, 1..10,000
    kind: BountyKind = BountyKind.DEFERRED

    def __post_init__(self) -> None:
        """Refuse a share outside 1..10,000 basis points."""
        if not 0 < self.share_bps <= BPS:
            raise DirectorError(
                errors.BAD_PAYOUT_SETTINGS,
                f"bounty share_bps must be 1..{BPS}, not {self.share_bps}",
            )


def starting_bounty(buy_in: int, fmt: BountyFormat) -> int:
    """T-14/T-7: the bounty an entry (or re-entry) brings, from its buy-in, rounded down."""
    if buy_in < 0:
        raise ValueError("a buy-in is never negative")
    return buy_in * fmt.share_bps // BPS


@dataclass(frozen=True, slots=True)
class BountyState:
    """Bounty totals of the entries still in (cents), the bubble, and the pool's account."""

    totals: Mapping[str, int] = field(default_factory=dict)  # every entry still in -> its total
    bubble_burst: bool = False
    paid_in: int = 0  # starting bounties of every entry and re-entry
    paid_out: int = 0  # paid to players
    rounding: int = 0  # to the house rounding account (T-7)
    serial: int = 0  # settlements so far; part of every idempotency key (P-2)

    @property
    def in_play(self) -> int:
        """Bounty money still on players' heads."""
        return sum(self.totals.values())

    @property
    def balanced(self) -> bool:
        """Conservation: what was paid in is paid out, rounded away, or still in play."""
        return self.paid_in == self.paid_out + self.rounding + self.in_play


class Reason(StrEnum):
    """Why a bounty payment happens."""

    KNOCKOUT = "knockout"
    BUBBLE = "bubble"  # deferred format: each player still in is paid their own total
    END = "end"  # the tournament is over: each player left is paid their own total


@dataclass(frozen=True, slots=True)
class BountyPayment:
    """One decision: `paid` cents to `entry` now, `added` cents onto `entry`'s own total."""

    reason: Reason
    entry: str  # who receives
    source: str  # whose bounty it was: the busted entry, or `entry` itself at the bubble / end
    paid: int
    added: int


@dataclass(frozen=True, slots=True)
class BountySettlement:
    """The new state, the payments in the order decided, and the cents rounded to the house."""

    state: BountyState
    payments: tuple[BountyPayment, ...] = ()
    rounding: int = 0

    @property
    def paid(self) -> int:
        """Cents paid to players now."""
        return sum(p.paid for p in self.payments)


def enter(state: BountyState, entry: str, buy_in: int, fmt: BountyFormat) -> BountyState:
    """T-14: an entry or re-entry brings a new starting bounty, paid from its own buy-in."""
    if entry in state.totals:
        raise DirectorError(errors.STILL_IN_PLAY, f"{entry} already holds a bounty")
    if fmt.kind is BountyKind.DEFERRED and state.bubble_burst:
        # T-5 closes late registration at the money; here the bounty would never be paid.
        raise DirectorError(errors.REGISTRATION_CLOSED, "no bounty entry after the bubble")
    bounty = starting_bounty(buy_in, fmt)
    return replace(state, totals={**state.totals, entry: bounty}, paid_in=state.paid_in + bounty)


def leave(state: BountyState, entry: str) -> BountyState:
    """T-3: an entry unregistered before the start takes its starting bounty back with its
    buy-in (the refund moves it out of the bounty pool): it is no longer paid in."""
    bounty = state.totals.get(entry)
    if bounty is None:
        raise DirectorError(errors.NOT_REGISTERED, f"{entry} holds no bounty")
    totals = {e: amount for e, amount in state.totals.items() if e != entry}
    return replace(state, totals=totals, paid_in=state.paid_in - bounty)


def eliminating_pot(entry: str, pots: Sequence[PotResult]) -> int:
    """T-14: the index of the pot that eliminated busted `entry` (0 is the main pot).

    Pots come main pot first, then side pots in order of their contribution level, and
    `contributors` are the players who contested each one; a player not folded contests every
    pot up to their own level. The pot that eliminated a busted player is the highest pot they
    contested: it holds the last of their chips, and they lost it (as every pot they were in,
    or they would have chips). A player whose whole stack went in as an ante or a dead post
    contested no pot's bets; their chips lie in the main pot, which then eliminated them.
    """
    if not pots:
        raise ValueError("a hand that busts a player has a pot")
    for index in range(len(pots) - 1, -1, -1):
        if entry in pots[index].contributors:
            return index
    return 0


def bounty_winners(entry: str, pots: Sequence[PotResult]) -> tuple[str, ...]:
    """T-14: who shares busted `entry`'s bounty: the winners of the pot that eliminated them."""
    winners = pots[eliminating_pot(entry, pots)].winners
    return tuple(dict.fromkeys(w for w in winners if w != entry))


def _shares(kind: BountyKind, share: int, bubble_burst: bool) -> tuple[int, int]:
    """One winner's share of a bounty as (paid now, added to their own total)."""
    if kind is BountyKind.CLASSIC or (kind is BountyKind.DEFERRED and bubble_burst):
        return share, 0
    if kind is BountyKind.DEFERRED:
        return 0, share
    paid = share // 2  # PKO: the cash half rounded down, the odd cent onto the winner's bounty
    return paid, share - paid


def _check_knockouts(state: BountyState, knockouts: Sequence[Knockout]) -> None:
    """Refuse knockouts that do not fit the state: unknown, repeated, or without a winner."""
    busted = [k.entry for k in knockouts]
    if len(set(busted)) != len(busted):
        raise ValueError("an entry is busted once per hand")
    for k in knockouts:
        if k.entry not in state.totals:
            raise ValueError(f"{k.entry} is not in the tournament")
        if not k.busted_by:
            raise ValueError(f"the knockout of {k.entry} names no winner of its pot")
        for winner in k.busted_by:
            if winner not in state.totals or winner in busted:
                raise ValueError(f"{winner} cannot win the pot that busted {k.entry}")


def _pay_totals(totals: dict[str, int], reason: Reason) -> list[BountyPayment]:
    """Pay every total still in play to its holder, and empty it."""
    paid = [
        BountyPayment(reason, e, e, amount, 0) for e, amount in sorted(totals.items()) if amount
    ]
    for payment in paid:
        totals[payment.entry] = 0
    return paid


def _settled(
    state: BountyState,
    totals: dict[str, int],
    payments: list[BountyPayment],
    rounding: int,
    bubble_burst: bool,
) -> BountySettlement:
    """The settlement and the state after it."""
    new_state = BountyState(
        totals=totals,
        bubble_burst=bubble_burst,
        paid_in=state.paid_in,
        paid_out=state.paid_out + sum(p.paid for p in payments),
        rounding=state.rounding + rounding,
        serial=state.serial + 1,
    )
    return BountySettlement(new_state, tuple(payments), rounding)


def settle_knockouts(
    state: BountyState, knockouts: Sequence[Knockout], fmt: BountyFormat, *, paid_places: int
) -> BountySettlement:
    """T-14: the bounties of one hand's (or hand-for-hand round's) knockouts, in T-9 order.

    Each `Knockout.busted_by` names the winners of the pot that eliminated the player
    (`bounty_winners`). The players still in are `state.totals`; with `paid_places` this
    places the bubble: it bursts before the first knockout whose finishing place is paid (a
    tie that covers a paid place counts as paid), or after the last knockout if the field is
    then in the money. In deferred format the bubble pays every total still in play.
    """
    _check_knockouts(state, knockouts)
    totals = dict(state.totals)
    burst = state.bubble_burst
    deferred = fmt.kind is BountyKind.DEFERRED
    payments: list[BountyPayment] = []
    rounding = 0
    for group in rank_knockouts(knockouts):
        best_place = len(totals) - len(group) + 1
        if not burst and best_place <= paid_places:
            burst = True
            if deferred:
                payments += _pay_totals(totals, Reason.BUBBLE)
        for knockout in sorted(group, key=lambda k: (k.table_id, k.entry)):
            bounty = totals.pop(knockout.entry)
            winners = sorted(set(knockout.busted_by))
            each, rest = split_equally(bounty, len(winners))
            rounding += rest
            paid, added = _shares(fmt.kind, each, burst)
            for winner in winners:
                totals[winner] += added
                if paid or added:
                    payments.append(
                        BountyPayment(Reason.KNOCKOUT, winner, knockout.entry, paid, added)
                    )
    if not burst and len(totals) <= paid_places:
        burst = True
        if deferred:
            payments += _pay_totals(totals, Reason.BUBBLE)
    return _settled(state, totals, payments, rounding, burst)


def burst_bubble(state: BountyState, fmt: BountyFormat) -> BountySettlement:
    """T-14: the field reached the money; deferred format pays each player their own total.

    `settle_knockouts` calls this itself when a knockout reaches the money; call it directly
    when the money is reached without one (more places paid once the pool is final, T-6).
    """
    if state.bubble_burst:
        return BountySettlement(state)
    totals = dict(state.totals)
    paid = _pay_totals(totals, Reason.BUBBLE) if fmt.kind is BountyKind.DEFERRED else []
    return _settled(state, totals, paid, 0, True)


def end_tournament(state: BountyState) -> BountySettlement:
    """T-8/T-14: every player left is paid the total on their own head (the PKO winner's bounty).

    Every format ends the same way; in deferred format the bubble has already paid everything.
    """
    totals = dict(state.totals)
    return _settled(state, totals, _pay_totals(totals, Reason.END), 0, True)


def bounty_moves(tournament_id: str, settlement: BountySettlement) -> tuple[MoneyMove, ...]:
    """The ledger moves of a settlement: cash paid now to wallets, rounding to the house (T-7).

    Keys carry the settlement's serial, so replaying one decision cannot pay twice (P-2).
    """
    pool = bounty_pool(tournament_id)
    prefix = f"{tournament_id}:bounty:{settlement.state.serial}"
    paid: list[MoneyMove | None] = [
        MoneyMove(
            "bounty", pool, wallet(p.entry), p.paid, f"{prefix}:{p.reason}:{p.source}:{p.entry}"
        )
        for p in settlement.payments
    ]
    rest = MoneyMove("rounding", pool, house(HOUSE_ROUNDING), settlement.rounding, f"{prefix}:rd")
    return moves(*paid, rest)
