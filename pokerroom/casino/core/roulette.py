"""Single-zero roulette (R-1 … R-6): the layout's every valid bet, one pocket per spin.

Spot names: inside bets are the kind and the covered numbers in ascending order, joined by "-"
(`straight:17`, `split:17-20`, `street:16-17-18`, `trio:0-1-2`,
`corner:17-18-20-21`, `first_four:0-1-2-3`, `six_line:13-14-15-16-17-18`); outside bets are
`column:1`…`column:3`, `dozen:1`…`dozen:3`, `red`, `black`, `odd`, `even`, `low`, `high`.
Numbers may be given in any order (`split:20-17`); `spot_numbers` answers the canonical set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.cards import RandomSource
from pokerroom.casino.core.results import (
    HALF,
    LOSE,
    NO_LIMITS,
    WIN,
    Bet,
    BetLine,
    Limits,
    Settlement,
    settlement,
)

POCKETS = 37
#: R-1: the standard European red numbers (the sources give only the count) [unsourced list].
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
EVEN_MONEY = ("red", "black", "odd", "even", "low", "high")
KINDS = (
    "straight", "split", "street", "trio", "corner", "first_four", "six_line",
    "column", "dozen", *EVEN_MONEY,
)  # fmt: skip

DEFAULT_PAYS: dict[str, Fraction] = {
    "straight": Fraction(35),
    "split": Fraction(17),
    "street": Fraction(11),
    "trio": Fraction(11),
    "corner": Fraction(8),
    "first_four": Fraction(8),
    "six_line": Fraction(5),
    "column": Fraction(2),
    "dozen": Fraction(2),
    **{kind: Fraction(1) for kind in EVEN_MONEY},
}


def _layout() -> dict[str, tuple[str, frozenset[int]]]:
    """Every valid spot (R-2, R-3): name -> (kind, covered numbers)."""
    spots: dict[str, tuple[str, frozenset[int]]] = {}

    def add(kind: str, numbers: Sequence[int], label: str | None = None) -> None:
        name = f"{kind}:{label}" if label else f"{kind}:{'-'.join(map(str, sorted(numbers)))}"
        spots[name] = (kind, frozenset(numbers))

    for n in range(POCKETS):
        add("straight", [n])
    for n in range(1, 37):  # row r holds 3r-2, 3r-1, 3r
        if n % 3:  # side by side in a row
            add("split", [n, n + 1])
        if n <= 33:  # one above the other
            add("split", [n, n + 3])
    for n in (1, 2, 3):  # 0 borders the first row
        add("split", [0, n])
    for row in range(12):
        first = 3 * row + 1
        add("street", [first, first + 1, first + 2])
        if row < 11:
            add("six_line", list(range(first, first + 6)))
            add("corner", [first, first + 1, first + 3, first + 4])
            add("corner", [first + 1, first + 2, first + 4, first + 5])
    add("trio", [0, 1, 2])
    add("trio", [0, 2, 3])
    add("first_four", [0, 1, 2, 3])
    for k in (1, 2, 3):
        add("column", [n for n in range(1, 37) if (n - k) % 3 == 0], str(k))
        add("dozen", list(range(12 * k - 11, 12 * k + 1)), str(k))
    spots["red"] = ("red", RED)
    spots["black"] = ("black", frozenset(range(1, 37)) - RED)
    spots["odd"] = ("odd", frozenset(range(1, 37, 2)))
    spots["even"] = ("even", frozenset(range(2, 37, 2)))
    spots["low"] = ("low", frozenset(range(1, 19)))
    spots["high"] = ("high", frozenset(range(19, 37)))
    return spots


#: Every spot of the layout: 37 straights, 60 splits, 12 streets, 2 trios, 22 corners, first
#: four, 11 six lines, 3 columns, 3 dozens and the six even-money bets (R-3).
SPOTS: dict[str, tuple[str, frozenset[int]]] = _layout()


def canonical(spot: str) -> str:
    """The layout's name of a spot (numbers sorted); `unknown_spot` for an invalid one (R-5)."""
    if spot in SPOTS:
        return spot
    kind, _, numbers = spot.partition(":")
    try:
        ordered = "-".join(str(n) for n in sorted(int(part) for part in numbers.split("-")))
    except ValueError:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"{spot!r} is not a roulette bet") from None
    name = f"{kind}:{ordered}"
    if name not in SPOTS:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"{spot!r} is not on the layout (R-5)")
    return name


def spot_numbers(spot: str) -> tuple[str, frozenset[int]]:
    """(kind, covered numbers) of a spot."""
    return SPOTS[canonical(spot)]


@dataclass(frozen=True, slots=True)
class RouletteRules:
    """A roulette table's settings (R-3 pays by kind, R-4's la partage placeholder)."""

    pays: Mapping[str, Fraction] = field(default_factory=lambda: dict(DEFAULT_PAYS))
    la_partage: bool = False
    limits: Limits = NO_LIMITS


def rules_from(data: Mapping[str, object]) -> RouletteRules:
    """Read a `[roulette]` settings table."""
    pays = tables.pay_table(data, "pays", "roulette")
    missing = [kind for kind in KINDS if kind not in pays]
    if missing:
        raise errors.CasinoError(errors.BAD_CONFIG, f"roulette.pays lacks {missing}")
    return RouletteRules(
        pays=pays, la_partage=tables.flag(data, "la_partage", False), limits=tables.limits(data)
    )


def draw(rng: RandomSource) -> int:
    """One uniform pocket 0 … 36 (R-6, RNG-7)."""
    return rng.randrange(POCKETS)


def check_bet(bet: Bet, rules: RouletteRules) -> None:
    """Refuse a position off the layout (R-5) or a stake outside the kind's limits (K-5)."""
    kind, _ = spot_numbers(bet.spot)
    rules.limits.check(kind, bet.stake)


def spot_result(spot: str, pocket: int, rules: RouletteRules) -> tuple[str, str]:
    """(result, kind) of one spot on `pocket` (R-3, R-4)."""
    kind, numbers = spot_numbers(spot)
    if pocket in numbers:
        return WIN, kind
    if pocket == 0 and rules.la_partage and kind in EVEN_MONEY:
        return HALF, kind  # R-4 variant: half of an even-money stake back on zero
    return LOSE, kind


def settle(
    bets: Sequence[Bet], pocket: int, rules: RouletteRules, max_win: int | None = None
) -> Settlement:
    """Settle every bet of a spin (R-3, R-4), capped per player (K-12)."""
    if not 0 <= pocket < POCKETS:
        raise errors.CasinoError(errors.BAD_OUTCOME, f"pocket {pocket} is not on the wheel")
    lines: list[BetLine] = []
    for bet in bets:
        result, kind = spot_result(bet.spot, pocket, rules)
        stake = bet.stake
        if result == WIN:
            odds = rules.pays[kind]
            returned = stake + stake * odds.numerator // odds.denominator
        else:
            returned = stake // 2 if result == HALF else 0
        lines.append(BetLine(bet.player, bet.spot, stake, result, returned))
    return settlement(lines, max_win)
