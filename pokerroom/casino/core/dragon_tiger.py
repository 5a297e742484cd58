"""Dragon tiger (DT-1 … DT-7; every number [unsourced], settings in config/casino/).

One card to Dragon, one to Tiger (DT-2); A lowest, K highest, suits do not rank (DT-3). Spots:
dragon, tiger, tie, suited_tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.cards import Shoe
from pokerroom.casino.core.results import (
    HALF,
    LOSE,
    NO_LIMITS,
    PUSH,
    WIN,
    Bet,
    BetLine,
    Limits,
    Settlement,
    settlement,
)

DEFAULT_PAYS: dict[str, Fraction] = {
    "dragon": Fraction(1),
    "tiger": Fraction(1),
    "tie": Fraction(8),
    "suited_tie": Fraction(50),
}


@dataclass(frozen=True, slots=True)
class DragonTigerRules:
    """A dragon tiger table's settings (DT-1, DT-4 … DT-6)."""

    pays: Mapping[str, Fraction] = field(default_factory=lambda: dict(DEFAULT_PAYS))
    tie_main: str = "lose_half"  # DT-5: "lose_half" or "push"
    decks: int = 8
    cut_from_end: int = 7
    burn: int | str = "by_value"
    limits: Limits = NO_LIMITS

    @property
    def spots(self) -> frozenset[str]:
        """The spots offered: those with a pay line (DT-6's suited tie can be switched off)."""
        return frozenset(self.pays)


def rules_from(data: Mapping[str, object]) -> DragonTigerRules:
    """Read a `[dragon_tiger]` settings table."""
    pays = tables.pay_table(data, "pays", "dragon_tiger")
    for needed in ("dragon", "tiger", "tie"):
        if needed not in pays:
            raise errors.CasinoError(errors.BAD_CONFIG, f"dragon_tiger.pays.{needed}")
    if not tables.flag(data, "suited_tie", True):
        pays.pop("suited_tie", None)
    burn = data.get("burn", "by_value")
    assert isinstance(burn, int | str)
    return DragonTigerRules(
        pays=pays,
        tie_main=tables.choice(data, "tie_main", "lose_half", ("lose_half", "push")),
        decks=tables.whole(data, "decks", 8),
        cut_from_end=tables.whole(data, "cut_card_from_end", 7),
        burn=burn,
        limits=tables.limits(data),
    )


@dataclass(frozen=True, slots=True)
class DragonTigerOutcome:
    """The two cards (DT-2)."""

    dragon: int
    tiger: int


def draw(shoe: Shoe) -> DragonTigerOutcome:
    """Deal Dragon's card, then Tiger's (DT-2)."""
    return DragonTigerOutcome(shoe.deal(), shoe.deal())


def check_bet(bet: Bet, rules: DragonTigerRules) -> None:
    """Refuse a spot the table does not offer or a stake outside the limits (K-5)."""
    if bet.spot not in rules.pays:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {bet.spot!r} in dragon tiger")
    rules.limits.check(bet.spot, bet.stake)


def spot_result(spot: str, outcome: DragonTigerOutcome, rules: DragonTigerRules) -> str:
    """win, lose, push or half for one spot (DT-3 … DT-6)."""
    dragon, tiger = outcome.dragon >> 2, outcome.tiger >> 2  # rank A=0 … K=12 (DT-3)
    if spot in ("dragon", "tiger"):
        if dragon == tiger:
            return HALF if rules.tie_main == "lose_half" else PUSH  # DT-5
        return WIN if (dragon > tiger) == (spot == "dragon") else LOSE
    if spot == "tie":
        return WIN if dragon == tiger else LOSE
    if spot == "suited_tie":  # DT-6: same rank and suit
        return WIN if outcome.dragon == outcome.tiger else LOSE
    raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {spot!r} in dragon tiger")


def settle(
    bets: Sequence[Bet],
    outcome: DragonTigerOutcome,
    rules: DragonTigerRules,
    max_win: int | None = None,
) -> Settlement:
    """Settle every bet of a round, rounding down (K-16), capped per player (K-12)."""
    lines: list[BetLine] = []
    for bet in bets:
        result = spot_result(bet.spot, outcome, rules)
        stake = bet.stake
        if result == WIN:
            odds = rules.pays.get(bet.spot)
            if odds is None:
                raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {bet.spot!r} on this table")
            returned = stake + stake * odds.numerator // odds.denominator
        else:
            returned = stake if result == PUSH else stake // 2 if result == HALF else 0
        lines.append(BetLine(bet.player, bet.spot, stake, result, returned))
    return settlement(lines, max_win)
