"""The random source the director is handed: any object with these methods (`random.Random`).

The director never imports `random` (ARCH rule 1): the actor passes a seeded
`random.Random` in tests and simulations, or a `random.SystemRandom` in play (T-1).
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Rng(Protocol):
    """The subset of `random.Random` the director uses."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle in place."""

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        """`k` distinct elements in random order."""

    def choice(self, seq: Sequence[T]) -> T:
        """One element."""

    def randint(self, a: int, b: int) -> int:
        """An int in [a, b]."""
