"""One face for every round game (K-1): open a round, check a bet, draw once, settle.

Each class wraps a game of the pure core with its rules and its random source (RNG-1); the
card games keep their shoe between rounds and take a new one after the cut-card round (B-18,
K-21) or after a void (K-8). A drawn outcome comes with its record (RNG-9: what the round row
stores, JSON-able; its `audit` part, the shoe's burned cards and the cards dealt in order, is
kept on the row only, never told: `shoe_audit`), and a settlement with the legs the ledger
needs beyond the players' and the bankroll's (the progressive pool and its seed, PB-5 … PB-8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pokerroom.casino.core import (
    baccarat,
    baccarat_bets,
    blackjack,
    dragon_tiger,
    progressive,
    roulette,
    sicbo,
)
from pokerroom.casino.core.cards import RandomSource, Shoe, names
from pokerroom.casino.core.errors import SHOE_FINISHED, CasinoError
from pokerroom.casino.core.results import Bet, Settlement

#: The round games a casino table runs (blackjack has decision turns: not a round game here).
ROUND_GAMES = ("baccarat", "progressive", "dragon_tiger", "roulette", "sicbo")


@dataclass(frozen=True, slots=True)
class Settled:
    """A settled round: the core's settlement, the pool's movement and the seed's top-up."""

    settlement: Settlement
    pool_delta: int = 0  # + contributions − prizes + top-up (PB-5, PB-7, PB-8)
    seed_topup: int = 0  # taken from the seed account (PB-8)
    contribution: int = 0  # taken from the stakes into the pool (PB-5)


class RoundGame(Protocol):
    """What a casino table needs of its game."""

    name: str

    @property
    def spots(self) -> frozenset[str] | None:
        """The spots offered (None: too many to list, e.g. every roulette position)."""

    @property
    def window_s(self) -> float:
        """The betting window in seconds (K-2)."""

    def open_round(self) -> int:
        """Prepare a new round; its number in the shoe (1 for games without a shoe)."""

    def spot_name(self, spot: str) -> str:
        """The layout's one name of a spot (R-5: roulette numbers in order), or `unknown_spot`."""

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """Refuse a bet the table does not take (K-5), raising CasinoError."""

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """Draw the outcome once (K-20); it and its record (RNG-9; `audit`: the row's only)."""

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """Settle the round's bets on the outcome, capped per player (K-12)."""

    def void(self) -> None:
        """A void round (K-8): a card game drops its shoe; the next round takes a new one."""


class _ShoeRules(Protocol):
    """What a shoe game's rules give its table: the shoe (K-21) and the spots."""

    @property
    def decks(self) -> int: ...
    @property
    def cut_from_end(self) -> int: ...
    @property
    def burn(self) -> int | str: ...
    @property
    def spots(self) -> frozenset[str]: ...


R = TypeVar("R", bound=_ShoeRules)


@dataclass
class _ShoeGame(Generic[R]):
    """A card game dealt from a shoe kept between rounds (K-21): its rules, random source and
    betting window; the game adds its check, draw and settle."""

    rules: R
    rng: RandomSource
    window: float
    shoe: Shoe | None = field(default=None, init=False)
    start: int = field(default=0, init=False)  # the shoe's position when the round opened

    @property
    def spots(self) -> frozenset[str] | None:
        """The spots the rules offer (B-16, DT-4 … DT-6, the boxes of BJ-5)."""
        return self.rules.spots

    def spot_name(self, spot: str) -> str:
        """A spot has one name (the table checks it is offered)."""
        return spot

    @property
    def window_s(self) -> float:
        """K-2."""
        return self.window

    def open_round(self) -> int:
        """The next round of the shoe; a new shoe after the cut-card round (B-18)."""
        if self.shoe is not None:
            try:
                number = self.shoe.start_round()
                self.start = self.shoe.position
                return number
            except CasinoError as exc:
                if exc.code != SHOE_FINISHED:
                    raise
        rules = self.rules
        self.shoe = Shoe.shuffled(self.rng, rules.decks, rules.cut_from_end, rules.burn)
        self.start = self.shoe.position
        return self.shoe.start_round()

    def void(self) -> None:
        """K-8: a new shoe after a void round."""
        self.shoe = None

    def _shoe(self) -> Shoe:
        assert self.shoe is not None, "open_round first"
        return self.shoe


@dataclass
class BaccaratGame(_ShoeGame[baccarat_bets.BaccaratRules]):
    """Baccarat, commission or Super 6 (B-)."""

    name = "baccarat"

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """B-14's Big/Small close, B-16, K-5."""
        baccarat_bets.check_bet(bet, self.rules, round_in_shoe)

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """A coup from the shoe (B-5 … B-8)."""
        shoe = self._shoe()
        outcome = baccarat.draw(shoe)
        return outcome, {**_coup_record(outcome, shoe), "audit": shoe_audit(shoe, self.start)}

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """B-10 … B-15."""
        return Settled(baccarat_bets.settle(bets, outcome, self.rules, max_win))


@dataclass
class DragonTigerGame(_ShoeGame[dragon_tiger.DragonTigerRules]):
    """Dragon tiger (DT-)."""

    name = "dragon_tiger"

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """K-5."""
        dragon_tiger.check_bet(bet, self.rules)

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """Dragon's card, then Tiger's (DT-2)."""
        shoe = self._shoe()
        outcome = dragon_tiger.draw(shoe)
        record = {
            "dragon": names([outcome.dragon]),
            "tiger": names([outcome.tiger]),
            "shoe": shoe.commitment(),
            "position": shoe.position,
            "audit": shoe_audit(shoe, self.start),
        }
        return outcome, record

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """DT-3 … DT-6."""
        return Settled(dragon_tiger.settle(bets, outcome, self.rules, max_win))


@dataclass
class _RngGame:
    """A game drawn straight from the random source after the close (RNG-2)."""

    rng: RandomSource
    window: float

    @property
    def window_s(self) -> float:
        """K-2."""
        return self.window

    def spot_name(self, spot: str) -> str:
        """A spot has one name (the table checks it is offered)."""
        return spot

    def open_round(self) -> int:
        """No shoe: every round is the first."""
        return 1

    def void(self) -> None:
        """Nothing to reset."""


@dataclass
class RouletteGame(_RngGame):
    """Single-zero roulette (R-)."""

    rules: roulette.RouletteRules = field(default_factory=roulette.RouletteRules)
    name: str = "roulette"

    @property
    def spots(self) -> frozenset[str] | None:
        """Every layout position (R-5): too many to list here."""
        return None

    def spot_name(self, spot: str) -> str:
        """R-5: `split:20-17` is `split:17-20`; a position off the layout is `unknown_spot`."""
        return roulette.canonical(spot)

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """R-5, K-5."""
        roulette.check_bet(bet, self.rules)

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """One pocket (R-6)."""
        pocket = roulette.draw(self.rng)
        return pocket, {"pocket": pocket}

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """R-3, R-4."""
        return Settled(roulette.settle(bets, outcome, self.rules, max_win))


@dataclass
class SicBoGame(_RngGame):
    """Sic bo (S-)."""

    rules: sicbo.SicBoRules | None = None
    name: str = "sicbo"

    @property
    def spots(self) -> frozenset[str] | None:
        """The 52 positions (S-2)."""
        return frozenset(sicbo.SPOT_SET)

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """S-5, K-5."""
        assert self.rules is not None
        sicbo.check_bet(bet, self.rules)

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """Three dice (S-6)."""
        dice = sicbo.draw(self.rng)
        return dice, {"dice": list(dice)}

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """S-2, S-3."""
        assert self.rules is not None
        return Settled(sicbo.settle(bets, outcome, self.rules, max_win))


@dataclass
class ProgressiveGame(_RngGame):
    """Progressive baccarat (PB-): a fresh shoe every round, a jackpot pool."""

    rules: progressive.ProgressiveRules | None = None
    name: str = "progressive"

    @property
    def spots(self) -> frozenset[str] | None:
        """PB-2 … PB-4."""
        assert self.rules is not None
        return self.rules.spots

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """PB-3, PB-4, K-5."""
        assert self.rules is not None
        progressive.check_bet(bet, self.rules)

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """A coup from a fresh shoe (PB-1)."""
        assert self.rules is not None
        shoe = Shoe.shuffled(self.rng, self.rules.decks)  # as progressive.draw: no cut, no burn
        outcome = baccarat.draw(shoe)
        return outcome, {**_coup_record(outcome, None), "audit": shoe_audit(shoe, 0)}

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """PB-5 … PB-8 with the main bets (L-4)."""
        assert self.rules is not None
        done = progressive.settle(bets, outcome, self.rules, pool, max_win)
        return Settled(
            done.settlement, done.pool_after - done.pool_before, done.seed_topup, done.contribution
        )


@dataclass
class BlackjackGame(_ShoeGame[blackjack.BlackjackRules]):
    """Blackjack (BJ-): the shoe and the rules; the round itself is `BlackjackRound`, driven by
    `pokerroom.casino.blackjack_table.BlackjackTable` through its decisions."""

    name = "blackjack"
    insurance_s: float = 10.0  # BJ-16
    decision_s: float = 8.0  # BJ-16

    def check(self, bet: Bet, round_in_shoe: int) -> None:
        """A box of the table, within the limits (K-5)."""
        blackjack.check_bet(bet, self.rules)

    def shoe_now(self) -> Shoe:
        """The shoe the round deals from."""
        return self._shoe()

    def draw(self) -> tuple[Any, dict[str, Any]]:
        """Not a one-draw game: the table deals through `BlackjackRound`."""
        raise CasinoError("bad_config", "blackjack is dealt by its table")

    def settle(self, bets: Sequence[Bet], outcome: Any, max_win: int | None, pool: int) -> Settled:
        """Not a one-draw game: `BlackjackRound.settle` settles it."""
        raise CasinoError("bad_config", "blackjack is settled by its round")


def shoe_audit(shoe: Shoe, start: int) -> dict[str, Any]:
    """RNG-9's part of a round dealt from `shoe` from position `start`: the shoe (its
    commitment, RNG-2), its burned cards, the round's number in it, the positions and the cards
    dealt in order (a replay deals them again: `pokerroom.casino.replay`)."""
    return {
        "shoe": shoe.commitment(),
        "round_in_shoe": shoe.rounds,
        "burned": names(shoe.burned),
        "start": start,
        "end": shoe.position,
        "dealt": names(shoe.cards[start : shoe.position]),
    }


def _coup_record(outcome: baccarat.BaccaratOutcome, shoe: Shoe | None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "player": names(outcome.player),
        "banker": names(outcome.banker),
        "player_total": outcome.player_total,
        "banker_total": outcome.banker_total,
        "winner": outcome.winner,
    }
    if shoe is not None:
        record["shoe"] = shoe.commitment()
        record["position"] = shoe.position
    return record


def make_game(game: str, settings: Mapping[str, Any], rng: RandomSource) -> RoundGame:
    """The round game `game` from its settings table (config/casino/<game>.toml)."""
    window = float(settings.get("bet_window_s", 20))
    if game == "baccarat":
        return BaccaratGame(baccarat_bets.rules_from(settings), rng, window)
    if game == "dragon_tiger":
        return DragonTigerGame(dragon_tiger.rules_from(settings), rng, window)
    if game == "roulette":
        return RouletteGame(rng, window, roulette.rules_from(settings))
    if game == "sicbo":
        return SicBoGame(rng, window, sicbo.rules_from(settings))
    if game == "progressive":
        return ProgressiveGame(rng, window, progressive.rules_from(settings))
    if game == "blackjack":
        return BlackjackGame(
            blackjack.rules_from(settings),
            rng,
            float(settings.get("bet_window_s", 30)),
            float(settings.get("insurance_window_s", 10)),
            float(settings.get("decision_s", 8)),
        )
    raise CasinoError("bad_config", f"{game!r} is not a casino game")
