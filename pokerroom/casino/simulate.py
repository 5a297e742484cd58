"""Play many rounds of one game through the pure core and compare each bet's measured return to
player with the exact one (`pokerroom casino simulate`).

Every round puts one stake of 100 minor units on each spot listed for the game (`SPOTS`), so each
spot's measured return is what that bet returned over what it staked. Baccarat and dragon tiger
deal from real shoes with their cut card and burns (a new shoe after the cut-card round, B-18);
Big/Small are bet only in the first rounds of a shoe (B-14). Blackjack plays one box from the
table's real shoe with the best play of `blackjack_exact` (the infinite-deck strategy: stand,
hit, double, split, surrender; insurance and even money only when they gain) and reports it as
one spot `box` per unit of the original bet, doubles and splits included in what it won, beside
the exact infinite-deck return of the same rules (a finite shoe plays slightly differently).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from pokerroom.casino import settings
from pokerroom.casino.core import (
    baccarat,
    baccarat_bets,
    blackjack,
    blackjack_exact,
    blackjack_hand,
    dragon_tiger,
    exact,
    progressive,
    roulette,
    sicbo,
)
from pokerroom.casino.core.cards import RandomSource, Shoe
from pokerroom.casino.core.errors import SHOE_FINISHED, CasinoError
from pokerroom.casino.core.results import Bet, Settlement

GAMES = ("baccarat", "super6", "progressive", "dragon_tiger", "roulette", "sicbo", "blackjack")
STAKE = 100

#: One spot of each kind for the games with many equivalent positions.
ROULETTE_SPOTS = (
    "straight:17", "split:17-20", "street:16-17-18", "trio:0-1-2", "corner:17-18-20-21",
    "first_four:0-1-2-3", "six_line:13-14-15-16-17-18", "column:2", "dozen:2", "red", "black",
    "odd", "even", "low", "high",
)  # fmt: skip
SICBO_SPOTS = (
    "small", "big", "odd", "even", *(f"total:{t}" for t in range(4, 11)), "triple:1",
    "any_triple", "double:1", "combo:1-2", "single:1",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SpotReport:
    """One spot: what it staked and returned over the run, and its exact return (if known)."""

    spot: str
    staked: int
    returned: int
    exact: Fraction | None

    @property
    def measured(self) -> float:
        """Returned over staked."""
        return self.returned / self.staked if self.staked else 0.0


@dataclass(frozen=True, slots=True)
class Simulation:
    """A run: the game, its rounds and each spot's report."""

    game: str
    rounds: int
    spots: tuple[SpotReport, ...]


class _Tally:
    def __init__(self) -> None:
        self.staked: dict[str, int] = {}
        self.returned: dict[str, int] = {}

    def add(self, result: Settlement) -> None:
        staked, returned = self.staked, self.returned
        for line in result.lines:
            spot = line.spot
            staked[spot] = staked.get(spot, 0) + line.stake
            returned[spot] = returned.get(spot, 0) + line.returned


class _ShoeSource:
    """Shoes of one table: a new one when the last one's cut-card round is over (B-18)."""

    def __init__(self, rng: RandomSource, decks: int, cut: int, burn: int | str) -> None:
        self.rng, self.decks, self.cut, self.burn = rng, decks, cut, burn
        self.shoe = Shoe.shuffled(rng, decks, cut, burn)

    def next_round(self) -> tuple[Shoe, int]:
        try:
            number = self.shoe.start_round()
        except CasinoError as exc:
            if exc.code != SHOE_FINISHED:
                raise
            self.shoe = Shoe.shuffled(self.rng, self.decks, self.cut, self.burn)
            number = self.shoe.start_round()
        return self.shoe, number


def _baccarat(
    rules: baccarat_bets.BaccaratRules, rounds: int, rng: RandomSource, tally: _Tally
) -> dict[str, Fraction]:
    shoes = _ShoeSource(rng, rules.decks, rules.cut_from_end, rules.burn)
    spots = sorted(rules.spots)
    every = [Bet("sim", spot, STAKE) for spot in spots]
    early = [bet for bet in every if bet.spot not in ("big", "small")]
    settle, draw, limit = baccarat_bets.settle, baccarat.draw, rules.big_small_rounds
    for _ in range(rounds):
        shoe, number = shoes.next_round()
        tally.add(settle(every if number <= limit else early, draw(shoe), rules))
    return exact.baccarat_returns(rules)


def run(game: str, rounds: int, rng: RandomSource, folder: Path | None = None) -> Simulation:
    """Play `rounds` rounds of `game` with the settings of `folder` (default: the shipped ones)."""
    tally = _Tally()
    exact_returns: Mapping[str, Fraction]
    if game in ("baccarat", "super6"):
        data = dict(settings.game_table("baccarat", folder))
        data["variant"] = "super6" if game == "super6" else "commission"
        exact_returns = _baccarat(baccarat_bets.rules_from(data), rounds, rng, tally)
    elif game == "progressive":
        exact_returns = _progressive(rounds, rng, tally, folder)
    elif game == "dragon_tiger":
        dt = dragon_tiger.rules_from(settings.game_table("dragon_tiger", folder))
        shoes = _ShoeSource(rng, dt.decks, dt.cut_from_end, dt.burn)
        bets = [Bet("sim", spot, STAKE) for spot in sorted(dt.spots)]
        for _ in range(rounds):
            tally.add(dragon_tiger.settle(bets, dragon_tiger.draw(shoes.next_round()[0]), dt))
        exact_returns = exact.dragon_tiger_returns(dt)
    elif game == "roulette":
        wheel = roulette.rules_from(settings.game_table("roulette", folder))
        _independent(
            rounds, tally, ROULETTE_SPOTS, lambda b: roulette.settle(b, roulette.draw(rng), wheel)
        )
        exact_returns = exact.roulette_returns(wheel)
    elif game == "sicbo":
        dice = sicbo.rules_from(settings.game_table("sicbo", folder))
        _independent(rounds, tally, SICBO_SPOTS, lambda b: sicbo.settle(b, sicbo.draw(rng), dice))
        exact_returns = exact.sicbo_returns(dice)
    elif game == "blackjack":
        exact_returns = _blackjack(rounds, rng, tally, folder)
    else:
        raise ValueError(f"unknown game {game!r}")
    reports = tuple(
        SpotReport(spot, tally.staked[spot], tally.returned[spot], exact_returns.get(spot))
        for spot in sorted(tally.staked)
    )
    return Simulation(game, rounds, reports)


def _independent(
    rounds: int,
    tally: _Tally,
    spots: tuple[str, ...],
    play: Callable[[list[Bet]], Settlement],
) -> None:
    bets = [Bet("sim", spot, STAKE) for spot in spots]
    for _ in range(rounds):
        tally.add(play(bets))


def _progressive(
    rounds: int, rng: RandomSource, tally: _Tally, folder: Path | None
) -> dict[str, Fraction]:
    """Main and side bets, and the jackpot bet at J_max with the pool starting at the seed."""
    rules = progressive.rules_from(settings.game_table("progressive", folder))
    bets = [Bet("sim", spot, STAKE) for spot in sorted(rules.pays)]
    bets.append(Bet("sim", progressive.JACKPOT, rules.jackpot_max_bet))
    pool = rules.seed
    prizes = 0
    for _ in range(rounds):
        result = progressive.settle(bets, progressive.draw(rng, rules), rules, pool)
        pool = result.pool_after
        prizes += sum(prize for _, prize in result.prizes)
        tally.add(result.settlement)
    tally.returned[progressive.JACKPOT] += prizes  # the prizes come from the pool (PB-7)
    return {
        **exact.baccarat_returns(rules.baccarat),
        progressive.JACKPOT: exact.jackpot_return(rules),
    }


def _blackjack(
    rounds: int, rng: RandomSource, tally: _Tally, folder: Path | None
) -> dict[str, Fraction]:
    rules = blackjack.rules_from(settings.game_table("blackjack", folder))
    exact_rules = blackjack_exact.rules_of(rules)
    insure = blackjack_exact.takes_insurance(exact_rules)
    even = blackjack_exact.takes_even_money(exact_rules)
    shoes = _ShoeSource(rng, rules.decks, rules.cut_from_end, rules.burn)
    bets = [Bet("sim", "box:1", STAKE)]
    value = blackjack_hand.VALUE
    for _ in range(rounds):
        game = blackjack.BlackjackRound(rules, bets, shoes.next_round()[0])
        up = value[game.up_card]
        while game.phase != blackjack.OVER:
            if game.phase == blackjack.INSURANCE:
                if even and game.can_take_even_money(1):
                    game.take_even_money(1)
                elif insure and game.can_insure(1):
                    game.insure(1)
                else:
                    game.decline_insurance(1)
                continue
            turn = game.turn
            assert turn is not None
            box = game.boxes[0]
            hand = box.hands[turn[1]]
            card = value[hand.cards[0]]
            if game.can_split(1) and blackjack_exact.should_split(exact_rules, up, card):
                game.split(1)
                continue
            kind = blackjack_exact.ORIGINAL if len(box.hands) == 1 else 1 + turn[1]
            hard = sum(value[c] for c in hand.cards)
            ace = any(value[c] == 1 for c in hand.cards)
            action = blackjack_exact.best_action(exact_rules, up, hard, ace, len(hand.cards), kind)
            getattr(game, action)(1)
        net = game.settle().player("sim").net
        tally.staked["box"] = tally.staked.get("box", 0) + STAKE
        tally.returned["box"] = tally.returned.get("box", 0) + STAKE + net
    return {"box": blackjack_exact.exact_return(exact_rules).rtp}
