"""What a casino table tells its players (the protocol layer turns these into frames).

Public events go to everyone at the table; `OwnSettlement` only to its player (others see
only each player's totals in `RoundResult`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pokerroom.casino.core.results import Settlement


@dataclass(frozen=True, slots=True)
class BettingOpened:
    """A round opened; bets are taken until `closes_ms` (K-2)."""

    table_id: str
    round_id: str
    closes_ms: int
    round_in_shoe: int


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """No more bets (K-2); the outcome is drawn after this (RNG-2)."""

    table_id: str
    round_id: str


@dataclass(frozen=True, slots=True)
class PlayerTotal:
    """One player's round as everyone sees it: stakes and what was paid."""

    player: str
    staked: int
    paid: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The recorded outcome (K-6) and every player's totals."""

    table_id: str
    round_id: str
    outcome: dict[str, Any]
    totals: tuple[PlayerTotal, ...]


@dataclass(frozen=True, slots=True)
class SettledLine:
    """One of the player's bets as settled."""

    spot: str
    stake: int
    result: str
    returned: int


@dataclass(frozen=True, slots=True)
class OwnSettlement:
    """A player's own settlement: each bet, the cap's cut (K-12), a jackpot, held (K-13)."""

    table_id: str
    round_id: str
    lines: tuple[SettledLine, ...]
    staked: int
    paid: int
    capped: int
    jackpot: int
    held: bool


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """The round is void: every stake returned (K-7, L-5); the table closes until reopened.

    `partial`: a blackjack round cancelled by BJ-19 instead; each player's `OwnSettlement`
    follows."""

    table_id: str
    round_id: str
    reason: str
    partial: bool = False


@dataclass(frozen=True, slots=True)
class TableState:
    """The table opened or closed (staff, or a void: K-7), or waits for the bankroll."""

    table_id: str
    open: bool
    reason: str


@dataclass(frozen=True, slots=True)
class BlackjackMove:
    """Blackjack: a card dealt, a decision, the peek or the dealer's play (BJ-5 … BJ-14).

    `box` 0 is the dealer; `stake` is what a decision added (double, split, insurance)."""

    table_id: str
    round_id: str
    kind: str
    box: int
    hand: int
    cards: tuple[str, ...]
    stake: int


@dataclass(frozen=True, slots=True)
class DecisionDue:
    """Blackjack: a box decides now, until `deadline_ms` (BJ-16); the actions it may take."""

    table_id: str
    round_id: str
    box: int
    hand: int
    player: str
    actions: tuple[str, ...]
    deadline_ms: int


CasinoEvent = (
    BettingOpened
    | BettingClosed
    | RoundResult
    | OwnSettlement
    | RoundVoided
    | TableState
    | BlackjackMove
    | DecisionDue
)


def own_settlements(
    table_id: str, round_id: str, done: Settlement, held: Collection[str]
) -> list[tuple[str, OwnSettlement]]:
    """Each player with their own settlement of a round (their lines and totals; `held`: K-13)."""
    return [
        (
            total.player,
            OwnSettlement(
                table_id,
                round_id,
                tuple(
                    SettledLine(line.spot, line.stake, line.result, line.returned)
                    for line in done.lines
                    if line.player == total.player
                ),
                total.staked,
                total.paid,
                total.capped,
                total.jackpot,
                total.player in held,
            ),
        )
        for total in done.players
    ]
