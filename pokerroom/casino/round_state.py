"""A casino round as its table holds it: bets, drafts (K-3) and confirmation answers (P-2)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure

from pokerroom.casino import codes
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet
from pokerroom.ledger.errors import IdempotencyConflict, InsufficientFunds


@dataclass(frozen=True, slots=True)
class Confirmed:
    """A confirmation's answer: the bets it added and the player's stakes in the round."""

    round_id: str
    bets: tuple[tuple[str, int], ...]
    staked: int
    replayed: bool


@dataclass
class Answer:
    """A confirmation's answer, kept for the round so that a repeated key gets it again."""

    result: Confirmed | None = None
    waiting: list[Deferred[Confirmed]] = field(default_factory=list)

    def wait(self) -> Deferred[Confirmed]:
        """The answer (P-2: a replay is marked `replayed`), now or when the ledger answers."""
        if self.result is not None:
            return succeed(replace(self.result, replayed=True))
        waiter: Deferred[Confirmed] = Deferred()
        self.waiting.append(waiter)
        return waiter

    def give(self, result: Confirmed) -> None:
        """Answer everyone waiting."""
        self.result = result
        waiting, self.waiting = self.waiting, []
        for number, waiter in enumerate(waiting):
            waiter.callback(result if number == 0 else replace(result, replayed=True))

    def fail(self, failure: Failure) -> None:
        """Refuse everyone waiting."""
        waiting, self.waiting = self.waiting, []
        for waiter in waiting:
            waiter.errback(failure)


@dataclass
class RoundState:
    """The round under way: its confirmed bets, the drafts, the answers by key, the posts."""

    round_id: str
    in_shoe: int
    closes_ms: int
    bets: list[Bet] = field(default_factory=list)
    #: Each player's unconfirmed chips (spot, amount) in the order placed (K-3: Undo).
    drafts: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)
    inflight: list[Deferred[Any]] = field(default_factory=list)
    ending: bool = False  # its settlement or void is under way: nothing else may end it

    def draft(self, player: str) -> dict[str, int]:
        """The player's draft, chips on one spot merged (K-5: one bet per spot)."""
        merged: dict[str, int] = {}
        for spot, amount in self.drafts.get(player, ()):
            merged[spot] = merged.get(spot, 0) + amount
        return merged

    def on_spot(self, player: str, spot: str) -> int:
        """The player's confirmed stake on a spot (K-5: chips on one spot are one bet)."""
        return sum(b.stake for b in self.bets if b.player == player and b.spot == spot)

    def staked(self, player: str) -> int:
        """The player's confirmed stakes."""
        return sum(b.stake for b in self.bets if b.player == player)


def refusal(failure: Failure) -> Failure:
    """The ledger's refusal as the table's stable code."""
    exc = failure.value
    if isinstance(exc, InsufficientFunds):
        return Failure(CasinoError(codes.INSUFFICIENT_FUNDS, "the wallet does not cover it (K-4)"))
    if isinstance(exc, IdempotencyConflict):
        return Failure(CasinoError(codes.KEY_REUSED, "this key was used for another request"))
    if isinstance(exc, CasinoError):
        return failure
    return Failure(CasinoError(codes.UNAVAILABLE, "the bet could not be taken now (K-5)"))
