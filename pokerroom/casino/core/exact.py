"""Exact return to player of every bet, by full enumeration through the core's own settle.

Baccarat is enumerated by card value with multiplicities (B-3 makes 10/J/Q/K one value), every
coup weighted by the number of ordered six-card prefixes of the shoe that deal it, so the whole
8-deck shoe takes about 10^6 steps; pairs are enumerated by rank (B-13). Dragon tiger runs over
every ordered pair of cards, roulette over its 37 pockets, sic bo over its 216 rolls. Each
result is `expected amount returned / stake` as an exact fraction (house edge = 1 − it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import TypeVar

from pokerroom.casino.core import dragon_tiger, progressive, roulette, sicbo
from pokerroom.casino.core.baccarat import BaccaratOutcome, banker_draws, outcome_of
from pokerroom.casino.core.baccarat_bets import BaccaratRules
from pokerroom.casino.core.baccarat_bets import settle as settle_baccarat
from pokerroom.casino.core.money import percent_split
from pokerroom.casino.core.results import Bet, Settlement

#: (player total, banker total, player cards, banker cards)
CoupClass = tuple[int, int, int, int]
Outcome = TypeVar("Outcome")


def exact_stake(pays: Iterable[Fraction]) -> int:
    """A stake at which every pay line and every half is a whole number (no K-16 rounding)."""
    return 2 * math.lcm(*(odds.denominator for odds in pays))


def _take(counts: dict[int, int], key: int) -> int:
    """Draw one card of `key` from the remaining `counts`: the ways to draw it (the count
    before); the caller puts it back (`counts[key] += 1`) when its branch is done."""
    count = counts[key]
    counts[key] = count - 1
    return count


def baccarat_classes(decks: int) -> tuple[dict[CoupClass, int], int]:
    """Every coup class with its count of ordered six-card shoe prefixes, and their total."""
    counts = dict(enumerate([16 * decks] + [4 * decks] * 9))  # by value 0…9 (B-3)
    size = 52 * decks
    # tail[k]: the ways to fill the six-card prefix after the k cards a coup used
    tail = [math.perm(size - k, 6 - k) for k in range(7)]
    classes: Counter[CoupClass] = Counter()

    for p1 in range(10):
        w1 = _take(counts, p1)
        for b1 in range(10):
            w2 = w1 * _take(counts, b1)
            for p2 in range(10):
                w3 = w2 * _take(counts, p2)
                for b2 in range(10):
                    w4 = w3 * _take(counts, b2)
                    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
                    if w4 == 0:
                        pass
                    elif pt >= 8 or bt >= 8:  # B-6
                        classes[(pt, bt, 2, 2)] += w4 * tail[4]
                    elif pt <= 5:  # B-7
                        for p3 in range(10):
                            w5 = w4 * _take(counts, p3)
                            pt3 = (pt + p3) % 10
                            if w5 and banker_draws(bt, p3):  # B-8
                                for b3 in range(10):
                                    w6 = w5 * counts[b3]
                                    classes[(pt3, (bt + b3) % 10, 3, 3)] += w6 * tail[6]
                            elif w5:
                                classes[(pt3, bt, 3, 2)] += w5 * tail[5]
                            counts[p3] += 1
                    elif banker_draws(bt, None):
                        for b3 in range(10):
                            w5 = w4 * counts[b3]
                            classes[(pt, (bt + b3) % 10, 2, 3)] += w5 * tail[5]
                    else:
                        classes[(pt, bt, 2, 2)] += w4 * tail[4]
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    return dict(classes), tail[0]


def pair_probability(decks: int) -> Fraction:
    """The chance that a hand's first two cards are of one rank (B-13), enumerated by rank."""
    size = 52 * decks
    same = sum((4 * decks) * (4 * decks - 1) for _rank in range(13))
    return Fraction(same, size * (size - 1))


def _returns(
    spots: Iterable[str],
    outcomes: Iterable[tuple[Outcome, int]],
    settle: Callable[[list[Bet], Outcome], Settlement],
    stake: int,
) -> dict[str, Fraction]:
    """Σ weight × returned / (Σ weight × stake) per spot, settling every spot on every outcome."""
    names = list(spots)
    bets = [Bet("p", spot, stake) for spot in names]
    returned = dict.fromkeys(names, 0)
    total = 0
    for outcome, weight in outcomes:
        total += weight
        for item in settle(bets, outcome).lines:
            returned[item.spot] += weight * item.returned
    return {spot: Fraction(returned[spot], total * stake) for spot in names}


def baccarat_returns(rules: BaccaratRules) -> dict[str, Fraction]:
    """The exact return of every spot of a baccarat table (B-10 … B-15) for `rules.decks`."""
    pays = rules.pays or {}
    stake = exact_stake(pays.values())
    classes, total = baccarat_classes(rules.decks)
    main = [spot for spot in sorted(rules.spots) if spot not in ("player_pair", "banker_pair")]
    outcomes = [
        (BaccaratOutcome((0,) * nP, (0,) * nB, pt, bt, False, False), weight)
        for (pt, bt, nP, nB), weight in classes.items()
    ]
    result = _returns(main, outcomes, lambda b, o: settle_baccarat(b, o, rules), stake)
    pair = pair_probability(rules.decks)
    for spot in ("player_pair", "banker_pair"):
        if spot in rules.spots:
            flags = spot == "player_pair", spot == "banker_pair"
            won = BaccaratOutcome((0, 0), (0, 0), 0, 0, *flags)
            lost = BaccaratOutcome((0, 0), (0, 0), 0, 0, False, False)
            scale = pair.denominator
            pairs = [(won, pair.numerator), (lost, scale - pair.numerator)]
            result.update(_returns([spot], pairs, lambda b, o: settle_baccarat(b, o, rules), stake))
    assert total == sum(classes.values())
    return result


def dragon_tiger_returns(rules: dragon_tiger.DragonTigerRules) -> dict[str, Fraction]:
    """The exact return of every dragon tiger spot over every ordered pair of cards (DT-1)."""
    copies = rules.decks
    outcomes = [
        (dragon_tiger.DragonTigerOutcome(d, t), copies * (copies - (d == t)))
        for d in range(52)
        for t in range(52)
    ]
    stake = exact_stake(rules.pays.values())
    return _returns(
        sorted(rules.spots),
        outcomes,
        lambda b, o: dragon_tiger.settle(b, o, rules),
        stake,
    )


def roulette_returns(rules: roulette.RouletteRules) -> dict[str, Fraction]:
    """The exact return of every spot of the layout over the 37 pockets (R-3, RNG-7)."""
    stake = exact_stake(rules.pays.values())
    outcomes = [(pocket, 1) for pocket in range(roulette.POCKETS)]
    return _returns(roulette.SPOTS, outcomes, lambda b, o: roulette.settle(b, o, rules), stake)


def sicbo_returns(rules: sicbo.SicBoRules) -> dict[str, Fraction]:
    """The exact return of every sic bo position over the 216 ordered rolls (S-3, RNG-8)."""
    stake = exact_stake(rules.pays.values())
    rolls = [((a, b, c), 1) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]
    return _returns(sicbo.SPOTS, rolls, lambda b, o: sicbo.settle(b, o, rules), stake)


def jackpot_probability(decks: int) -> Fraction:
    """The chance that a fresh shoe's first four cards (P, B, P, B) make a qualifying coup
    (PB-6), enumerated over every card identity through the core's own `qualifies`: the
    player's two cards, pruned to those that qualify against their own copy, then the banker's."""
    copies = dict.fromkeys(range(52), decks)
    size = 52 * decks
    found = 0

    for p1 in range(52):
        w1 = _take(copies, p1)
        for p2 in range(52):
            w2 = w1 * _take(copies, p2)
            if w2 and progressive.qualifies(outcome_of((p1, p2), (p1, p2))):
                for b1 in range(52):
                    w3 = w2 * _take(copies, b1)
                    for b2 in range(52):
                        w4 = w3 * copies[b2]
                        if w4 and progressive.qualifies(outcome_of((p1, p2), (b1, b2))):
                            found += w4
                    copies[b1] += 1
            copies[p2] += 1
        copies[p1] += 1
    return Fraction(found, math.perm(size, 4))


def jackpot_return(rules: progressive.ProgressiveRules) -> Fraction:
    """The long-run return of a jackpot bet of J_max (PB-4 … PB-8): a J_max prize is the whole
    pool, so every contribution and every seed top-up comes back as prizes; per unit staked,
    the contribution plus P(qualifying) × the seed value (the pool refilled after each win)."""
    j_max = rules.jackpot_max_bet
    contribution = percent_split(j_max, rules.contribution_percent)[0]
    return Fraction(contribution, j_max) + jackpot_probability(rules.decks) * Fraction(
        rules.seed, j_max
    )


def house_edges(returns: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """1 − return, per spot."""
    return {spot: 1 - value for spot, value in returns.items()}
