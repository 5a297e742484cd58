"""Refunds of an interrupted or cancelled tournament (T-18), as amounts per player.

The state is the tournament's last completed hand on every table (tables may have stopped
at different moments): what every player paid in, who is still in with how many chips, the
current bounties, the prizes already paid, the guarantee and the prize table. Everything won
or lost in completed hands, and every prize already paid, stands.

1. *Not started*: every registered player gets back every buy-in and fee they paid (and the
   bounty part of the buy-in, `bounty`).
2. *Started, not in the money*: every remaining player gets back the fee and their current
   bounty; half the prize pool is shared equally among the remaining players, half in
   proportion to their chips.
3. *In the money*: every remaining player gets back the fee and their current bounty; of the
   prize money not yet paid each remaining player first receives the next prize to be awarded
   (the prize of place N when N players remain), and the rest goes by chips.

Choices where the rule is silent (docs/TOURNAMENTS.md, "T-18 outage refunds"):
- Busted players get nothing in cases 2 and 3, not even the fee: the rule gives the fee to
  *remaining* players. Their buy-ins stay in the pool that the remaining players share.
- "The fee" of a remaining player (cases 2, 3) is, by default (`FeeRefund.LIVE_ENTRY`), the fees
  of the stack still in play: the entry, re-entry or rebuy that last brought the player in,
  plus the rebuys and add-ons bought since. Fees of entries that busted stay with the house,
  exactly as a busted player's do. `FeeRefund.ALL_ENTRIES` gives back every fee they paid.
- Guarantee: the pool shared never includes the overlay (T-18: if the guarantee was not reached
  only what entries paid in is shared; when it was reached there is no overlay). In the money,
  the prizes of the table stand, but prizes paid plus the money shared never exceed what the
  entries paid in; when that cap does not cover the next prize for every remaining player, the
  money left is shared equally instead and nothing goes by chips.
- The 50 % halves of case 2: the equal half is `pool // 2`, the chip half the rest (an odd cent
  of the pool goes by chips). These are pool amounts; only the per-player amounts are rounded.
- T-7: every per-player amount is rounded down to the cent; what each split leaves (fewer cents
  than players sharing it) goes to the house rounding account.

T-17 staking is not applied here: each `PlayerRefund` lists its parts (`components`) and
`total`, so the staking split can share whatever the seller receives with the buyers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tournaments.director.payouts import PrizeTable, split_equally


class RefundPhase(StrEnum):
    """Where the tournament stood at its last completed hands (T-18)."""

    NOT_STARTED = "not_started"  # T-18.1
    BEFORE_MONEY = "before_money"  # T-18.2: started, the bubble has not burst
    IN_THE_MONEY = "in_the_money"  # T-18.3: the next player out wins a prize (T-5)


class FeeRefund(StrEnum):
    """Which fees a remaining player gets back in cases 2 and 3 (T-18; the rule is silent)."""

    LIVE_ENTRY = "live_entry"  # the fees of the stack still in play (default)
    ALL_ENTRIES = "all_entries"  # every fee the player paid, busted entries included


@dataclass(frozen=True, slots=True)
class PlayerAtStop:
    """One player at the last completed hand; money in minor units, chips in chips.

    `buy_in` and `fee` add up every entry, re-entry, rebuy and add-on (T-4); `buy_in` is the
    part paid into the prize pool, the bounty part of a bounty tournament's buy-in is not in it
    (T-14). `live_fee` is the part of `fee` paid for the stack still in play (0 once busted).
    `bounty` is the player's current bounty total (before the start: the bounty part they paid).
    """

    player: str
    buy_in: int
    fee: int
    live_fee: int = 0
    chips: int = 0
    bounty: int = 0
    busted: bool = False
    prizes_paid: int = 0  # prizes already paid to the player (they stand)


@dataclass(frozen=True, slots=True)
class TournamentAtStop:
    """The interrupted tournament: phase, players, guarantee (T-5, T-6), prize table (case 3)."""

    phase: RefundPhase
    players: tuple[PlayerAtStop, ...]
    guarantee: int = 0
    guarantee_dropped: bool = False  # T-5: late registration closed at the money
    prizes: PrizeTable | None = None  # the fixed prize table; needed in the money
    added: int = 0  # T-15: what the house added to the pool by raising prizes

    @property
    def collected(self) -> int:
        """What the entries paid into the prize pool."""
        return sum(p.buy_in for p in self.players)

    @property
    def overlay(self) -> int:
        """What the house adds to the pool: the guarantee's overlay (T-6; 0 when reached or
        dropped, T-5) and the money of prize changes (T-15), never shared like the overlay."""
        guaranteed = 0 if self.guarantee_dropped else max(0, self.guarantee - self.collected)
        return guaranteed + self.added

    @property
    def remaining(self) -> tuple[PlayerAtStop, ...]:
        """The players still in, with chips."""
        return tuple(p for p in self.players if not p.busted)


@dataclass(frozen=True, slots=True)
class PlayerRefund:
    """What one player receives, by part; every part already rounded down (T-7)."""

    player: str
    fee: int = 0
    buy_in: int = 0  # case 1 only
    pool_equal_share: int = 0  # case 2
    pool_chip_share: int = 0  # cases 2 and 3
    next_prize: int = 0  # case 3
    bounty: int = 0

    def components(self) -> tuple[tuple[str, int], ...]:
        """The parts by name, for the T-17 staking split and the ledger's transfer kinds."""
        return (
            ("fee", self.fee),
            ("buy_in", self.buy_in),
            ("pool_equal_share", self.pool_equal_share),
            ("pool_chip_share", self.pool_chip_share),
            ("next_prize", self.next_prize),
            ("bounty", self.bounty),
        )

    @property
    def from_pool(self) -> int:
        """The prize money the player receives (what comes out of the prize pool)."""
        return self.pool_equal_share + self.pool_chip_share + self.next_prize

    @property
    def total(self) -> int:
        """Everything the player receives."""
        return sum(amount for _, amount in self.components())


@dataclass(frozen=True, slots=True)
class RefundPlan:
    """T-18's result: one refund per player (in input order) and where the rest goes.

    Prize money not yet paid (of the guaranteed pool) = `pool_shared` + `house_rounding` +
    `overlay_returned`, in cases 2 and 3. `overlay_returned` is measured against the
    guaranteed pool: the actor moves it back to the house overlay account only as far as
    it had posted the overlay (T-6: once the pool was final).
    """

    phase: RefundPhase
    refunds: tuple[PlayerRefund, ...]
    pool_shared: int  # prize money handed to players (equal, chip and next-prize parts)
    overlay_returned: int  # the overlay not shared: T-18's guarantee clause
    fees_kept: int  # fees the house keeps: those of busted players and busted entries
    house_rounding: int  # T-7: the cents the per-player round-downs leave

    def refund_for(self, player: str) -> PlayerRefund:
        """One player's refund (KeyError for a player not in the tournament)."""
        for refund in self.refunds:
            if refund.player == player:
                return refund
        raise KeyError(player)

    @property
    def paid_out(self) -> int:
        """Everything the players receive."""
        return sum(r.total for r in self.refunds)


def outage_refunds(
    state: TournamentAtStop, fee_refund: FeeRefund = FeeRefund.LIVE_ENTRY
) -> RefundPlan:
    """T-18: each player's refund from the state of the last completed hands (T-7 rounding)."""
    _check(state)
    if state.phase is RefundPhase.NOT_STARTED:
        return _not_started(state)
    if state.phase is RefundPhase.IN_THE_MONEY and state.prizes is not None:  # _check: never None
        return _in_the_money(state, state.prizes, fee_refund)
    return _before_money(state, fee_refund)


def split_by_weights(amount: int, weights: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """`amount` shared in proportion to `weights`, each share rounded down, and the rest (T-7)."""
    total = sum(weights)
    if amount < 0 or total <= 0 or any(w < 0 for w in weights):
        raise ValueError("a split needs amount >= 0 and non-negative weights with a positive sum")
    shares = tuple(amount * weight // total for weight in weights)
    return shares, amount - sum(shares)


def _not_started(state: TournamentAtStop) -> RefundPlan:
    """T-18.1: every registered player gets back every buy-in, fee and bounty part paid."""
    refunds = tuple(
        PlayerRefund(p.player, fee=p.fee, buy_in=p.buy_in, bounty=p.bounty) for p in state.players
    )
    return RefundPlan(state.phase, refunds, 0, state.overlay, 0, 0)


def _before_money(state: TournamentAtStop, fee_refund: FeeRefund) -> RefundPlan:
    """T-18.2: fee and bounty back; half the pool equally, half by chips."""
    remaining = state.remaining
    pool = state.collected  # the overlay is never shared (guarantee clause)
    equal_half = pool // 2
    each, equal_rest = split_equally(equal_half, len(remaining))
    by_chips, chip_rest = split_by_weights(pool - equal_half, [p.chips for p in remaining])
    shares = {
        p.player: PlayerRefund(
            p.player,
            fee=_fee_back(p, fee_refund),
            pool_equal_share=each,
            pool_chip_share=chip_share,
            bounty=p.bounty,
        )
        for p, chip_share in zip(remaining, by_chips, strict=True)
    }
    return _plan(state, shares, pool, equal_rest + chip_rest, pool + state.overlay)


def _in_the_money(state: TournamentAtStop, table: PrizeTable, fee_refund: FeeRefund) -> RefundPlan:
    """T-18.3: fee and bounty back; the next prize to each, the rest of the unpaid by chips."""
    remaining = state.remaining
    left = len(remaining)
    unpaid = sum(table.prize(place) for place in range(1, left + 1))
    paid = sum(p.prizes_paid for p in state.players)
    shared = unpaid if state.overlay == 0 else min(unpaid, max(0, state.collected - paid))
    next_prize = table.prize(left)  # the place the next player out would take
    if shared >= left * next_prize:
        first = next_prize
        by_chips, rounding = split_by_weights(shared - left * first, [p.chips for p in remaining])
    else:  # the guarantee clause's cap does not cover every next prize: share it equally
        first, rounding = split_equally(shared, left)
        by_chips = (0,) * left
    shares = {
        p.player: PlayerRefund(
            p.player,
            fee=_fee_back(p, fee_refund),
            next_prize=first,
            pool_chip_share=chip_share,
            bounty=p.bounty,
        )
        for p, chip_share in zip(remaining, by_chips, strict=True)
    }
    return _plan(state, shares, shared, rounding, unpaid)


def _plan(
    state: TournamentAtStop,
    shares: dict[str, PlayerRefund],
    shared: int,
    rounding: int,
    unpaid: int,
) -> RefundPlan:
    """Every player's refund in input order (busted players: nothing) and the house's parts."""
    refunds = tuple(shares.get(p.player, PlayerRefund(p.player)) for p in state.players)
    fees_kept = sum(p.fee for p in state.players) - sum(r.fee for r in refunds)
    handed = shared - rounding
    return RefundPlan(state.phase, refunds, handed, unpaid - shared, fees_kept, rounding)


def _fee_back(player: PlayerAtStop, fee_refund: FeeRefund) -> int:
    """The fees a remaining player gets back in cases 2 and 3."""
    return player.fee if fee_refund is FeeRefund.ALL_ENTRIES else player.live_fee


def _check(state: TournamentAtStop) -> None:
    """Refuse a state no tournament can be in (ValueError): a refund must not guess."""
    names = [p.player for p in state.players]
    if len(set(names)) != len(names):
        raise ValueError("a player is listed twice")
    if state.guarantee < 0 or state.added < 0:
        raise ValueError("the guarantee and the money added must not be negative")
    for p in state.players:
        amounts = (p.buy_in, p.fee, p.live_fee, p.chips, p.bounty, p.prizes_paid)
        if min(amounts) < 0 or p.live_fee > p.fee:
            raise ValueError(f"{p.player}: negative amount, or live_fee above fee")
        if p.busted and (p.chips or p.bounty or p.live_fee):
            raise ValueError(f"{p.player}: a busted player has no chips, bounty or live entry")
        if not p.busted and state.phase is not RefundPhase.NOT_STARTED and p.chips == 0:
            raise ValueError(f"{p.player}: a remaining player must have chips")
    if state.phase is RefundPhase.NOT_STARTED:
        if any(p.busted or p.prizes_paid for p in state.players):
            raise ValueError("nobody busts or wins a prize before the start")
        return
    if not state.remaining:
        raise ValueError("a started tournament needs a remaining player")
    table = state.prizes
    left = len(state.remaining)
    if state.phase is RefundPhase.BEFORE_MONEY:
        if any(p.prizes_paid for p in state.players):
            raise ValueError("no prize is paid before the money")
        if table is not None and left <= table.paid_places:
            raise ValueError("the next player out would win a prize: that is the money (T-5)")
        return
    if table is None or left > table.paid_places:
        raise ValueError("in the money, every remaining player's place is paid (T-5)")
    if table.pool != state.collected + state.overlay:
        raise ValueError("the prize table shares the collected buy-ins and the overlay (T-6)")
    unpaid = sum(table.prize(place) for place in range(1, left + 1))
    if sum(p.prizes_paid for p in state.players) > table.pool - unpaid:
        raise ValueError("more prizes paid than the places already awarded hold")
