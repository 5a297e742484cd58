"""Play hands with a simple policy: the engine's own workout, and a source of PHH for referees."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pokerroom.engine import events as ev
from pokerroom.engine.cards import shuffled_deck
from pokerroom.engine.config import HandConfig
from pokerroom.engine.hand import Hand
from pokerroom.engine.phh import HandHistory, history_fields
from pokerroom.engine.variants import VARIANTS, Betting


class SimulationRandom(Protocol):
    """What the simulator needs of a seeded random generator (random.Random)."""

    def shuffle(self, x: list[str]) -> None:
        """Shuffle in place."""
        ...

    def random(self) -> float:
        """A float in [0, 1)."""
        ...

    def randint(self, a: int, b: int) -> int:
        """An int in [a, b]."""
        ...


def call_policy(hand: Hand, rng: SimulationRandom) -> None:
    """Everyone checks or calls to the end."""
    hand.check_or_call(hand.actor)


def random_policy(hand: Hand, rng: SimulationRandom) -> None:
    """A random legal action: fold, check/call, or bet/raise (often all-in, so side pots occur)."""
    player = hand.actor
    legal = hand.legal_actions(player)
    assert legal is not None
    roll = rng.random()
    if legal.can_fold and roll < 0.2:
        hand.fold(player)
    elif legal.min_raise_to is not None and roll > 0.6:
        low, high = legal.min_raise_to, legal.max_raise_to
        assert high is not None
        pick = rng.random()
        to = low if pick < 0.35 else high if pick > 0.7 else rng.randint(low, high)
        hand.bet_or_raise(player, to)
    else:
        hand.check_or_call(player)


POLICIES: dict[str, Callable[[Hand, SimulationRandom], None]] = {
    "call": call_policy,
    "random": random_policy,
}


def table_config(
    variant_code: str,
    stacks: tuple[int, ...],
    small_blind: int,
    big_blind: int,
    ante: int = 0,
) -> HandConfig:
    """Terms for a hand at a table with the given blinds (fixed limit: bets of 1 and 2 BB)."""
    variant = VARIANTS[variant_code]
    n = len(stacks)
    # Heads-up, index 0 is the big blind and index 1 the button on the small blind (PHH order).
    blinds = (big_blind, small_blind) if n == 2 else (small_blind, big_blind) + (0,) * (n - 2)
    fixed = variant.betting is Betting.FIXED_LIMIT
    return HandConfig(
        variant=variant,
        starting_stacks=stacks,
        blinds_or_straddles=blinds,
        antes=(ante,) * n if ante else (),
        min_bet=big_blind,
        small_bet=big_blind if fixed else 0,
        big_bet=2 * big_blind if fixed else 0,
    )


@dataclass(slots=True)
class SimulationSummary:
    """Counts from a simulation run."""

    hands: int = 0
    showdowns: int = 0
    side_pots: int = 0
    all_ins: int = 0
    chips_conserved: bool = True
    histories: list[HandHistory] = field(default_factory=list)


def simulate(
    variant_code: str,
    players: int,
    hands: int,
    rng: SimulationRandom,
    policy: str = "call",
    stack: int = 200,
    small_blind: int = 1,
    big_blind: int = 2,
    keep_histories: bool = False,
    name_prefix: str = "sim",
) -> SimulationSummary:
    """Play `hands` independent hands; with the random policy stacks vary so side pots occur."""
    act = POLICIES[policy]
    summary = SimulationSummary()
    vary = policy == "random"
    for number in range(1, hands + 1):
        if vary:
            stacks = tuple(rng.randint(max(1, stack // 4), stack) for _ in range(players))
        else:
            stacks = (stack,) * players
        hand = Hand(table_config(variant_code, stacks, small_blind, big_blind), shuffled_deck(rng))
        while not hand.is_over:
            act(hand, rng)
        if sum(hand.stacks) != sum(stacks):
            summary.chips_conserved = False
        summary.hands += 1
        awards = [e for e in hand.log if type(e) is ev.PotAwarded]
        summary.side_pots += len(awards) - 1
        if any(type(e) is ev.HandShown for e in hand.log):
            summary.showdowns += 1
        if any(s == 0 for s in hand.stacks):
            summary.all_ins += 1
        if keep_histories:
            fields = history_fields(hand, number)
            summary.histories.append(HandHistory(f"{name_prefix}/{number}.phh", fields))
    return summary
