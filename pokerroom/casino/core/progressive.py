"""Progressive baccarat (PB-1 … PB-11): a fresh 6-deck shoe every round and a jackpot side bet.

The main and side bets are baccarat's (B-3 … B-14 through `baccarat_bets.settle`, without the
35-round limit of Big/Small, PB-3). The jackpot bet `j` (0 < j ≤ J_max, PB-4) gives 7 % to the
pool whatever happens (PB-5); a round in which both hands are an Ace and an 8 of one suit (PB-6)
wins `floor(pool × j / J_max)` of the pool after this round's contributions (PB-7, L-4); the
pool is then topped up to the seed 10,000 × J_max from the seed account (PB-8 [unsourced]).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.baccarat import BaccaratOutcome
from pokerroom.casino.core.baccarat import draw as deal_coup
from pokerroom.casino.core.baccarat_bets import BaccaratRules
from pokerroom.casino.core.baccarat_bets import settle as settle_coup
from pokerroom.casino.core.cards import RandomSource, Shoe, rank, suit
from pokerroom.casino.core.money import percent_split, proportional_shares
from pokerroom.casino.core.results import LOSE, WIN, Bet, BetLine, Limits, Settlement, settlement

JACKPOT = "jackpot"
ACE, EIGHT = 0, 7  # rank indexes (cards.RANKS)


@dataclass(frozen=True, slots=True)
class ProgressiveRules:
    """A progressive baccarat table (PB-1 … PB-8); amounts in minor units."""

    pays: Mapping[str, Fraction]
    decks: int
    jackpot_max_bet: int  # J_max (PB-4)
    contribution_percent: Fraction  # PB-5: 7
    seed_multiplier: int  # PB-8: the seed is this × J_max
    limits: Limits

    @property
    def baccarat(self) -> BaccaratRules:
        """The main and side bets as a commission baccarat table without a shoe limit (PB-3)."""
        return BaccaratRules(pays=self.pays, decks=self.decks, big_small_rounds=10**9)

    @property
    def seed(self) -> int:
        """The pool's reset value (PB-8)."""
        return self.seed_multiplier * self.jackpot_max_bet

    @property
    def spots(self) -> frozenset[str]:
        """The spots offered: the pay table's and the jackpot bet."""
        return frozenset({*self.pays, JACKPOT})


def rules_from(data: Mapping[str, object]) -> ProgressiveRules:
    """Read a `[progressive]` settings table (config/casino/progressive.toml)."""
    pays = tables.pay_table(data, "pays", "progressive")
    for needed in ("player", "banker", "tie"):
        if needed not in pays:
            raise errors.CasinoError(errors.BAD_CONFIG, f"progressive.pays.{needed}")
    percent = Fraction(str(data.get("contribution_percent", "7")))
    j_max = tables.whole(data, "jackpot_max_bet", 0)
    if j_max <= 0 or not 0 <= percent <= 100:
        raise errors.CasinoError(errors.BAD_CONFIG, "progressive: jackpot_max_bet, percent")
    return ProgressiveRules(
        pays=pays,
        decks=tables.whole(data, "decks", 6),
        jackpot_max_bet=j_max,
        contribution_percent=percent,
        seed_multiplier=tables.whole(data, "seed_multiplier", 10_000),
        limits=tables.limits(data),
    )


def draw(rng: RandomSource, rules: ProgressiveRules) -> BaccaratOutcome:
    """One coup from a freshly shuffled shoe: no cut card, no burn (PB-1, RNG-5)."""
    return deal_coup(Shoe.shuffled(rng, rules.decks))


def check_bet(bet: Bet, rules: ProgressiveRules) -> None:
    """Refuse a spot not offered (B-16: no Either/Perfect Pair) or a stake over the limits."""
    if bet.spot not in rules.spots:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {bet.spot!r} in progressive baccarat")
    if bet.spot == JACKPOT and bet.stake > rules.jackpot_max_bet:
        raise errors.CasinoError(
            errors.ABOVE_MAXIMUM, f"jackpot bet above J_max {rules.jackpot_max_bet} (PB-4)"
        )
    rules.limits.check(bet.spot, bet.stake)


def qualifies(outcome: BaccaratOutcome) -> bool:
    """PB-6: each hand is an Ace and an 8, and all four cards are of one suit."""
    hands = (outcome.player, outcome.banker)
    if any(len(hand) != 2 or sorted(rank(c) for c in hand) != [ACE, EIGHT] for hand in hands):
        return False
    return len({suit(c) for hand in hands for c in hand}) == 1


@dataclass(frozen=True, slots=True)
class ProgressiveSettlement:
    """A settled progressive round: the bets, and the pool's movements for the ledger (L-3)."""

    settlement: Settlement
    contribution: int  # to the pool from this round's jackpot bets (PB-5)
    prizes: tuple[tuple[str, int], ...]  # (player, prize) in order of confirmation (PB-7)
    seed_topup: int  # from the seed account into the pool (PB-8)
    pool_before: int
    pool_after: int

    @property
    def bankroll(self) -> int:
        """The house bankroll's leg: stakes kept less winnings paid, less the contributions."""
        paid_from_stakes = self.settlement.paid - sum(prize for _, prize in self.prizes)
        return self.settlement.staked - paid_from_stakes - self.contribution

    @property
    def legs(self) -> dict[str, int]:
        """The round's settlement legs (L-3); they sum to zero."""
        return {
            "in_play": -self.settlement.staked,
            "players": self.settlement.paid,
            "bankroll": self.bankroll,
            "pool": self.pool_after - self.pool_before,
            "seed": -self.seed_topup,
        }


def settle(
    bets: Sequence[Bet],
    outcome: BaccaratOutcome,
    rules: ProgressiveRules,
    pool: int,
    max_win: int | None = None,
) -> ProgressiveSettlement:
    """Settle a round: baccarat bets, then contributions, prizes and the reset (L-4, PB-5 … 8).

    Jackpot prizes are paid from the pool and lie outside the cap K-12 [unsourced].
    """
    main = [bet for bet in bets if bet.spot != JACKPOT]
    jackpot = [bet for bet in bets if bet.spot == JACKPOT]
    coup = settle_coup(main, outcome, rules.baccarat)
    contribution = sum(percent_split(bet.stake, rules.contribution_percent)[0] for bet in jackpot)
    pool_with = pool + contribution  # L-4: contributions first
    won = qualifies(outcome)
    claims = [pool_with * bet.stake // rules.jackpot_max_bet for bet in jackpot]
    shares = proportional_shares(claims, pool_with) if won else [0] * len(jackpot)
    prizes = tuple((bet.player, share) for bet, share in zip(jackpot, shares, strict=True) if won)
    pool_after = pool_with - sum(shares)
    topup = max(0, rules.seed - pool_after) if won else 0  # PB-8
    pool_after += topup
    coup_lines = iter(coup.lines)
    lines = [  # in the order of the bets
        BetLine(bet.player, bet.spot, bet.stake, WIN if won else LOSE, 0)
        if bet.spot == JACKPOT
        else next(coup_lines)
        for bet in bets
    ]
    per_player: dict[str, int] = {}
    for player, prize in prizes:
        per_player[player] = per_player.get(player, 0) + prize
    return ProgressiveSettlement(
        settlement(lines, max_win, per_player), contribution, prizes, topup, pool, pool_after
    )
