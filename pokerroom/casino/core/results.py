"""Bets in, settlement out: what every game's `settle` returns for the ledger (L-3, L-4, K-12).

A `Settlement` holds one `BetLine` per bet (what the bet returns to its player: stake plus win,
the stake on a push, half on "loses half", nothing on a loss) and one `PlayerTotal` per player
(their stakes, what their lines return, what the per-round cap K-12 withholds, a jackpot prize
PB-7, and the net). The house's result is minus the sum of the players' nets (less any jackpot,
which is paid from the pool, not the bankroll).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from pokerroom.casino.core import errors
from pokerroom.casino.core.money import half_split, winnings

WIN = "win"
LOSE = "lose"
PUSH = "push"
HALF = "half"  # loses half: half the stake returned, rounded down (K-16)


@dataclass(frozen=True, slots=True)
class Bet:
    """A confirmed bet (K-3): `stake` minor units of `player` on `spot` (a game's spot name)."""

    player: str
    spot: str
    stake: int


class BetLine(NamedTuple):
    """How one bet settled: `result` (win, lose, push, half) and `returned` (stake included).

    A named tuple (immutable, and cheap to build: a baccarat round makes one per bet).
    """

    player: str
    spot: str
    stake: int
    result: str
    returned: int

    @property
    def net(self) -> int:
        """What the bet won (positive) or lost (negative), before the cap K-12."""
        return self.returned - self.stake


class PlayerTotal(NamedTuple):
    """One player's round (L-3): stakes, what the lines return, the cap's cut, jackpot, net."""

    player: str
    staked: int
    returned: int
    capped: int = 0  # winnings withheld by the per-round cap (K-12)
    jackpot: int = 0  # a progressive prize, paid from the pool and outside the cap (PB-7, K-12)

    @property
    def paid(self) -> int:
        """What goes to the player's wallet (or held balance, K-13) at settlement."""
        return self.returned - self.capped + self.jackpot

    @property
    def net(self) -> int:
        """The player's result of the round: paid less staked."""
        return self.paid - self.staked

    @property
    def winnings(self) -> int:
        """What was paid above the stakes returned (K-13 compares it with the review threshold)."""
        return max(0, self.net)


class Settlement(NamedTuple):
    """A settled round: a line per bet, a total per player (in order of first bet)."""

    lines: tuple[BetLine, ...]
    players: tuple[PlayerTotal, ...]

    @property
    def staked(self) -> int:
        """Every stake of the round (what leaves `in_play`, L-3)."""
        return sum(total.staked for total in self.players)

    @property
    def paid(self) -> int:
        """What the players receive in all."""
        return sum(total.paid for total in self.players)

    def player(self, name: str) -> PlayerTotal:
        """The total of one player."""
        for total in self.players:
            if total.player == name:
                return total
        raise KeyError(name)


def line(bet: Bet, result: str, odds: Fraction | None = None) -> BetLine:
    """The line of `bet` for `result`; a win is paid at `odds`, rounded down (K-16)."""
    stake = bet.stake
    if result == WIN:
        assert odds is not None
        returned = stake + winnings(stake, odds)
    elif result == PUSH:
        returned = stake
    elif result == HALF:
        returned = half_split(stake)[0]
    else:
        returned = 0
    return BetLine(bet.player, bet.spot, stake, result, returned)


def cap_cut(lines: Iterable[BetLine], max_win: int | None) -> int:
    """What the cap K-12 withholds of these lines of one player: winnings above `max_win`.

    Winnings are summed over the winning bets only (K-12); stakes return and lose as usual.
    """
    if max_win is None:
        return 0
    won = sum(item.returned - item.stake for item in lines if item.returned > item.stake)
    return max(0, won - max_win)


def settlement(
    lines: Sequence[BetLine],
    max_win: int | None = None,
    jackpots: Mapping[str, int] | None = None,
) -> Settlement:
    """Group lines by player, apply the cap per player after all bets (L-4, K-12)."""
    sums: dict[str, list[int]] = {}  # player -> [staked, returned, won]
    for item in lines:
        player, _, stake, _, returned = item
        found = sums.get(player)
        if found is None:
            found = sums[player] = [0, 0, 0]
        found[0] += stake
        found[1] += returned
        if returned > stake:
            found[2] += returned - stake
    prizes = jackpots or {}
    totals = tuple(
        PlayerTotal(
            name,
            staked,
            returned,
            0 if max_win is None or won <= max_win else won - max_win,
            prizes.get(name, 0),
        )
        for name, (staked, returned, won) in sums.items()
    )
    return Settlement(tuple(lines), totals)


def void(bets: Sequence[Bet]) -> Settlement:
    """A void round (K-7, L-5): every stake returned in full, nothing won or lost."""
    return settlement([BetLine(bet.player, bet.spot, bet.stake, PUSH, bet.stake) for bet in bets])


@dataclass(frozen=True, slots=True)
class Limits:
    """Table limits per spot kind (K-5): (minimum, maximum) in minor units."""

    default: tuple[int, int]
    spots: Mapping[str, tuple[int, int]]

    def of(self, kind: str) -> tuple[int, int]:
        """The (minimum, maximum) of a spot kind."""
        return self.spots.get(kind, self.default)

    def check(self, kind: str, stake: int) -> None:
        """Refuse a stake that is not a positive integer or lies outside the limits (K-5)."""
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise errors.CasinoError(errors.INVALID_STAKE, f"stake {stake!r} is not positive")
        low, high = self.of(kind)
        if stake < low:
            raise errors.CasinoError(errors.BELOW_MINIMUM, f"{kind}: minimum {low}, got {stake}")
        if stake > high:
            raise errors.CasinoError(errors.ABOVE_MAXIMUM, f"{kind}: maximum {high}, got {stake}")


def limits_from(data: Mapping[str, object]) -> Limits:
    """Read `[limits]` ({"default": [min, max], "<kind>": [min, max]}) from a game's settings."""

    def pair(value: object, where: str) -> tuple[int, int]:
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or not 0 < value[0] <= value[1]
        ):
            raise errors.CasinoError(errors.BAD_CONFIG, f"limits.{where}: want [min, max] > 0")
        return int(value[0]), int(value[1])

    if "default" not in data:
        raise errors.CasinoError(errors.BAD_CONFIG, "limits.default is missing")
    spots = {kind: pair(value, kind) for kind, value in data.items() if kind != "default"}
    return Limits(pair(data["default"], "default"), spots)


#: No limit but a positive stake: the default of every game's rules when none are configured.
NO_LIMITS = Limits((1, 10**12), {})
