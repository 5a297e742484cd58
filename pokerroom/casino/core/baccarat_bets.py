"""Baccarat bets and their settlement (B-10 … B-17), pay tables as data (config/casino/).

The pay table of the table's variant (`commission` or `super6`, B-10/B-11) names every spot the
table offers; the conditions below say when each wins. Spots: player, banker, tie, player_pair,
banker_pair, small, big (B-14), super6 (B-12, Super 6 tables), fortune6 (B-15, when enabled).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.baccarat import BaccaratOutcome
from pokerroom.casino.core.money import parse_odds
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

#: Pay-table keys that are not spots: the Super 6 Banker win with 6 (B-11) and Fortune 6's two
#: lines (B-15), both paid through a spot of their own.
PAY_LINES_NOT_SPOTS = frozenset({"banker_six", "fortune6_two", "fortune6_three"})
VARIANTS = ("commission", "super6")


@dataclass(frozen=True, slots=True)
class BaccaratRules:
    """A baccarat table's settings (B-1, B-2, B-10 … B-15) with its variant's pay table."""

    variant: str = "commission"
    pays: Mapping[str, Fraction] | None = None
    decks: int = 8
    cut_from_end: int = 7
    burn: int | str = "by_value"
    big_small_rounds: int = 35  # B-14: Big/Small open only in the first N rounds of a shoe
    fortune6: bool = False  # B-15
    limits: Limits = NO_LIMITS
    #: The pay table as (numerator, denominator) pairs, computed once (settle's fast path).
    ratios: Mapping[str, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pays = self.pays or {}
        ratios = {key: (odds.numerator, odds.denominator) for key, odds in pays.items()}
        object.__setattr__(self, "ratios", ratios)

    def pay(self, key: str) -> Fraction:
        """The odds of one pay line; `unknown_spot` if the table has none."""
        table = self.pays or {}
        if key not in table:
            raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {key!r} on this baccarat table")
        return table[key]

    @property
    def spots(self) -> frozenset[str]:
        """The spots this table offers (B-16: nothing without a pay line)."""
        offered = set(self.pays or {}) - PAY_LINES_NOT_SPOTS
        if self.fortune6 and {"fortune6_two", "fortune6_three"} <= set(self.pays or {}):
            offered.add("fortune6")
        return frozenset(offered)


def rules_from(data: Mapping[str, object]) -> BaccaratRules:
    """Read a `[baccarat]` settings table (config/casino/baccarat.toml)."""
    variant = str(data.get("variant", "commission"))
    if variant not in VARIANTS:
        raise errors.CasinoError(errors.BAD_CONFIG, f"baccarat.variant {variant!r}")
    pay_tables = data.get("pays")
    if not isinstance(pay_tables, Mapping) or not isinstance(pay_tables.get(variant), Mapping):
        raise errors.CasinoError(errors.BAD_CONFIG, f"baccarat.pays.{variant} is missing")
    pays = {
        key: parse_odds(value, f"baccarat.pays.{variant}.{key}")
        for key, value in pay_tables[variant].items()
    }
    for needed in ("player", "banker", "tie"):
        if needed not in pays:
            raise errors.CasinoError(errors.BAD_CONFIG, f"baccarat.pays.{variant}.{needed}")
    if variant == "super6" and "banker_six" not in pays:
        raise errors.CasinoError(errors.BAD_CONFIG, "baccarat.pays.super6.banker_six (B-11)")
    burn = data.get("burn", "by_value")
    assert isinstance(burn, int | str)
    return BaccaratRules(
        variant=variant,
        pays=pays,
        decks=tables.whole(data, "decks", 8),
        cut_from_end=tables.whole(data, "cut_card_from_end", 7),
        burn=burn,
        big_small_rounds=tables.whole(data, "big_small_rounds", 35),
        fortune6=tables.flag(data, "fortune6", False),
        limits=tables.limits(data),
    )


def check_bet(bet: Bet, rules: BaccaratRules, round_in_shoe: int = 1) -> None:
    """Refuse a bet the table does not take now (K-5, B-12, B-14, B-16), with a stable code."""
    if bet.spot not in rules.spots:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {bet.spot!r} on this baccarat table")
    if bet.spot in ("big", "small") and round_in_shoe > rules.big_small_rounds:
        raise errors.CasinoError(
            errors.SPOT_CLOSED, f"Big/Small close after round {rules.big_small_rounds} (B-14)"
        )
    rules.limits.check(bet.spot, bet.stake)


def spot_result(spot: str, outcome: BaccaratOutcome, rules: BaccaratRules) -> tuple[str, str]:
    """(result, pay line) of one spot on `outcome`; the pay line names the odds of a win."""
    pt, bt = outcome.player_total, outcome.banker_total
    if spot == "player":  # B-10, B-11: a tie pushes Player and Banker
        return (WIN, "player") if pt > bt else (PUSH if pt == bt else LOSE, "")
    if spot == "banker":
        if bt > pt:
            if bt == 6 and rules.pays is not None and "banker_six" in rules.pays:
                return WIN, "banker_six"  # B-11: a Super 6 table pays 0.5:1 on a winning 6
            return WIN, "banker"
        return (PUSH if pt == bt else LOSE), ""
    if spot == "tie":
        return (WIN, "tie") if pt == bt else (LOSE, "")
    if spot == "player_pair":  # B-13: independent of the main result
        return (WIN, spot) if outcome.player_pair else (LOSE, "")
    if spot == "banker_pair":
        return (WIN, spot) if outcome.banker_pair else (LOSE, "")
    if spot == "small":  # B-14: by the number of cards
        return (WIN, spot) if outcome.card_count == 4 else (LOSE, "")
    if spot == "big":
        return (WIN, spot) if outcome.card_count >= 5 else (LOSE, "")
    if spot == "super6":  # B-12: the Banker wins with 6; a 6-6 tie loses
        return (WIN, spot) if bt == 6 and bt > pt else (LOSE, "")
    if spot == "fortune6":  # B-15
        if bt == 6 and bt > pt:
            return WIN, "fortune6_three" if len(outcome.banker) == 3 else "fortune6_two"
        return LOSE, ""
    raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {spot!r} in baccarat")


def settle(
    bets: Sequence[Bet],
    outcome: BaccaratOutcome,
    rules: BaccaratRules,
    max_win: int | None = None,
) -> Settlement:
    """Settle every bet of a coup (B-10 … B-17), rounding down (K-16), capped per player (K-12)."""
    ratios = rules.ratios
    lines: list[BetLine] = []
    append = lines.append
    for bet in bets:
        result, pay_line = spot_result(bet.spot, outcome, rules)
        stake = bet.stake
        if result == WIN:
            ratio = ratios.get(pay_line)
            if ratio is None:
                raise errors.CasinoError(errors.UNKNOWN_SPOT, f"no {pay_line!r} on this table")
            returned = stake + stake * ratio[0] // ratio[1]
        elif result == PUSH:
            returned = stake
        elif result == HALF:
            returned = stake // 2
        else:
            returned = 0
        append(BetLine(bet.player, bet.spot, stake, result, returned))
    return settlement(lines, max_win)
