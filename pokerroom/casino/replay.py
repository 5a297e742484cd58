"""RNG-9: replay a settled casino round from its stored record alone and recompute each payout.

The record is the round's row (`outcome`, `audit`) and its bet rows (player, spot, stake,
`confirmed_ms`). A card game's cards are dealt again, in order, from the `audit`'s `dealt`
cards by the game's own code and must give the stored outcome; the shoe's `burned` cards must
be as many as its rules burn (B-2: the exposed card's value, BJ-2: a count) and lie before the
round's `start`; a blackjack round applies its timed `decisions` in order. A record missing any
of these is refused with `RecordIncomplete`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pokerroom.casino.core import blackjack
from pokerroom.casino.core.baccarat import BaccaratOutcome
from pokerroom.casino.core.baccarat import draw as deal_coup
from pokerroom.casino.core.blackjack import BlackjackRound
from pokerroom.casino.core.cards import Shoe, burn_value, cards, names
from pokerroom.casino.core.dragon_tiger import DragonTigerOutcome
from pokerroom.casino.core.results import Bet, Settlement
from pokerroom.casino.games import make_game

#: a blackjack decision's name -> the round's method
DECISIONS = {
    "hit": "hit",
    "stand": "stand",
    "double": "double",
    "split": "split",
    "surrender": "surrender",
    "insure": "insure",
    "decline": "decline_insurance",
    "even_money": "take_even_money",
}


class RecordIncomplete(ValueError):
    """The stored record lacks what RNG-9 names, or does not give the stored outcome."""


@dataclass(frozen=True, slots=True)
class StoredBet:
    """One bet row: who, where, how much, and when the table accepted it (RNG-9)."""

    player: str
    spot: str
    stake: int
    confirmed_ms: int


def _need(record: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in record or record[key] is None:
        raise RecordIncomplete(f"the record has no {key!r} ({what})")
    return record[key]


def _burn_count(settings: Mapping[str, Any], burned: tuple[int, ...]) -> int:
    burn = settings.get("burn", 0)
    if burn == "by_value":
        if not burned:
            raise RecordIncomplete("no burned card: the shoe burns by the first card's value")
        return 1 + burn_value(burned[0])
    return int(burn)


def _dealt(game: str, settings: Mapping[str, Any], audit: Mapping[str, Any]) -> Shoe:
    """The round's cards as a shoe to deal again, after checking the burned cards."""
    burned = cards(_need(audit, "burned", "the shoe's burned cards"))
    expected = 0 if game == "progressive" else _burn_count(settings, burned)
    if len(burned) != expected:
        raise RecordIncomplete(f"{len(burned)} burned cards recorded, the shoe burns {expected}")
    start, end = int(_need(audit, "start", "position")), int(_need(audit, "end", "position"))
    dealt = cards(_need(audit, "dealt", "the cards dealt"))
    if start < len(burned) or end - start != len(dealt):
        raise RecordIncomplete(f"positions {start}..{end} do not hold {len(dealt)} cards")
    return Shoe(dealt)


def _bets(bets: Sequence[StoredBet]) -> list[Bet]:
    for placed in bets:
        if placed.confirmed_ms <= 0:
            raise RecordIncomplete(f"{placed.player}'s bet on {placed.spot} has no time")
    return [Bet(b.player, b.spot, b.stake) for b in bets]


def _outcome(game: str, shoe: Shoe | None, outcome: Mapping[str, Any]) -> Any:
    if game == "roulette":
        return int(_need(outcome, "pocket", "the pocket"))
    if game == "sicbo":
        return tuple(int(die) for die in _need(outcome, "dice", "the dice"))
    assert shoe is not None
    drawn: DragonTigerOutcome | BaccaratOutcome
    if game == "dragon_tiger":
        pair = DragonTigerOutcome(shoe.deal(), shoe.deal())
        drawn, again = pair, {"dragon": names([pair.dragon]), "tiger": names([pair.tiger])}
    else:
        coup = deal_coup(shoe)
        drawn, again = coup, {"player": names(coup.player), "banker": names(coup.banker)}
    if any(outcome.get(key) != value for key, value in again.items()) or shoe.remaining:
        raise RecordIncomplete(f"the dealt cards give {again}, not the stored outcome")
    return drawn


def _blackjack(
    settings: Mapping[str, Any], audit: Mapping[str, Any], bets: list[Bet], shoe: Shoe
) -> Settlement:
    boxes = [b for b in bets if b.spot.count(":") == 1]  # box:N; box:N:double etc. are decisions
    hand = BlackjackRound(blackjack.rules_from(settings), boxes, shoe)
    for decision in _need(audit, "decisions", "the decisions"):
        _need(decision, "at_ms", "a decision's time")
        action = str(decision["action"])
        if action == "timeout":
            hand.timeout()
        else:
            getattr(hand, DECISIONS[action])(int(decision["box"]))
    if shoe.remaining:
        raise RecordIncomplete(f"{shoe.remaining} dealt cards left over")
    return hand.settle(audit.get("max_win"))


def replay(
    game: str,
    settings: Mapping[str, Any],
    outcome: Mapping[str, Any],
    audit: Mapping[str, Any],
    bets: Sequence[StoredBet],
) -> dict[str, int]:
    """Each player's payout of a settled round recomputed from its record alone (RNG-9)."""
    placed = _bets(bets)
    shoe = None if game in ("roulette", "sicbo") else _dealt(game, settings, audit)
    if game == "blackjack":
        assert shoe is not None
        done = _blackjack(settings, audit, placed, shoe)
    else:
        drawn = _outcome(game, shoe, outcome)
        fresh = make_game(game, settings, _NoRandom())
        pool = int(audit.get("pool", 0))
        done = fresh.settle(placed, drawn, audit.get("max_win"), pool).settlement
    return {t.player: t.paid for t in done.players}


class _NoRandom:
    """A replay draws nothing."""

    def shuffle(self, x: list[Any], /) -> None:
        """Never called."""
        raise AssertionError("a replay draws nothing")

    def randrange(self, stop: int, /) -> int:
        """Never called."""
        raise AssertionError("a replay draws nothing")
