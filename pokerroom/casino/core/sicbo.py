"""Sic bo (S-1 … S-8): three dice, 52 bet positions, the pay table as data ([unsourced]).

Spots: `small`, `big`, `odd`, `even`, `total:4` … `total:17`, `triple:1` … `triple:6`,
`any_triple`, `double:1` … `double:6`, `combo:a-b` (1 <= a < b <= 6), `single:1` … `single:6`.
Pay lines: as the spots, except that totals pay by `total:N`, triples by `triple`, doubles by
`double`, combinations by `combo`, and a single number by `single_1`, `single_2`, `single_3`
(the number showing on one, two or three dice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.cards import RandomSource
from pokerroom.casino.core.results import (
    LOSE,
    NO_LIMITS,
    WIN,
    Bet,
    BetLine,
    Limits,
    Settlement,
    settlement,
)

Dice = tuple[int, int, int]

#: Every position of the layout (S-3, S-4): 4 + 14 totals + 6 triples + any triple + 6 doubles +
#: 15 combinations + 6 singles = 52 (source 001's count).
SPOTS: tuple[str, ...] = (
    "small",
    "big",
    "odd",
    "even",
    *(f"total:{t}" for t in range(4, 18)),
    *(f"triple:{n}" for n in range(1, 7)),
    "any_triple",
    *(f"double:{n}" for n in range(1, 7)),
    *(f"combo:{a}-{b}" for a in range(1, 7) for b in range(a + 1, 7)),
    *(f"single:{n}" for n in range(1, 7)),
)
SPOT_SET = frozenset(SPOTS)
PAY_LINES: tuple[str, ...] = (
    "small", "big", "odd", "even", *(f"total:{t}" for t in range(4, 18)),
    "triple", "any_triple", "double", "combo", "single_1", "single_2", "single_3",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SicBoRules:
    """A sic bo table's settings: the chosen pay table (S-3: `standard` or `high`)."""

    pays: Mapping[str, Fraction]
    paytable: str = "standard"
    limits: Limits = NO_LIMITS


def rules_from(data: Mapping[str, object]) -> SicBoRules:
    """Read a `[sicbo]` settings table: `paytable` names one of the tables under `pays`."""
    name = str(data.get("paytable", "standard"))
    tables_ = data.get("pays")
    if not isinstance(tables_, Mapping):
        raise errors.CasinoError(errors.BAD_CONFIG, "sicbo.pays is missing")
    pays = tables.pay_table(tables_, name, "sicbo.pays")
    missing = [key for key in PAY_LINES if key not in pays]
    if missing:
        raise errors.CasinoError(errors.BAD_CONFIG, f"sicbo.pays.{name} lacks {missing}")
    return SicBoRules(pays=pays, paytable=name, limits=tables.limits(data))


def draw(rng: RandomSource) -> Dice:
    """Three independent uniform dice (S-6, RNG-8)."""
    return (rng.randrange(6) + 1, rng.randrange(6) + 1, rng.randrange(6) + 1)


def kind(spot: str) -> str:
    """The limits kind of a spot: the part before ':' (`total`, `double`, …)."""
    return spot.partition(":")[0]


def check_bet(bet: Bet, rules: SicBoRules) -> None:
    """Refuse a position that is not on the layout or a stake outside the limits (K-5, S-5)."""
    if bet.spot not in SPOT_SET:
        raise errors.CasinoError(errors.UNKNOWN_SPOT, f"{bet.spot!r} is not a sic bo position")
    rules.limits.check(kind(bet.spot), bet.stake)


def pay_line(spot: str, dice: Dice) -> str | None:
    """The pay line a spot wins on with `dice`, or None when it loses (S-2, S-3)."""
    a, b, c = dice
    t = a + b + c
    triple = a == b == c
    if spot in ("small", "big", "odd", "even"):
        if triple:  # S-2
            return None
        won = {
            "small": 4 <= t <= 10,
            "big": 11 <= t <= 17,
            "odd": t % 2 == 1,
            "even": t % 2 == 0,
        }[spot]
        return spot if won else None
    name, _, arg = spot.partition(":")
    if name == "total":
        return spot if t == int(arg) else None
    if name == "triple":
        return "triple" if triple and a == int(arg) else None
    if spot == "any_triple":
        return spot if triple else None
    if name == "double":
        return "double" if dice.count(int(arg)) >= 2 else None
    if name == "combo":  # paid once even if a number shows twice
        x, _, y = arg.partition("-")
        return "combo" if int(x) in dice and int(y) in dice else None
    if name == "single":
        count = dice.count(int(arg))
        return f"single_{count}" if count else None
    raise errors.CasinoError(errors.UNKNOWN_SPOT, f"{spot!r} is not a sic bo position")


def settle(
    bets: Sequence[Bet], dice: Dice, rules: SicBoRules, max_win: int | None = None
) -> Settlement:
    """Settle every bet of a roll (S-2, S-3), capped per player (K-12)."""
    if len(dice) != 3 or not all(1 <= die <= 6 for die in dice):
        raise errors.CasinoError(errors.BAD_OUTCOME, f"{dice!r} are not three dice")
    lines: list[BetLine] = []
    for bet in bets:
        if bet.spot not in SPOT_SET:
            raise errors.CasinoError(errors.UNKNOWN_SPOT, f"{bet.spot!r} is not a position")
        won = pay_line(bet.spot, dice)
        stake = bet.stake
        if won is None:
            lines.append(BetLine(bet.player, bet.spot, stake, LOSE, 0))
        else:
            odds = rules.pays[won]
            returned = stake + stake * odds.numerator // odds.denominator
            lines.append(BetLine(bet.player, bet.spot, stake, WIN, returned))
    return settlement(lines, max_win)
