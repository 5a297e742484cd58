"""Fixtures for engine tests: the real hand histories in tests/data/phh and hand builders."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pokerroom.engine import VARIANTS, Hand, HandConfig
from pokerroom.engine.cards import FULL_DECK

REPO = Path(__file__).resolve().parents[2]


PHH_DIR = REPO / "tests" / "data" / "phh"


@pytest.fixture(scope="session")
def phh_dir() -> Path:
    """The real hand histories kept in the repository (tests/data/phh)."""
    assert PHH_DIR.is_dir(), f"hand histories missing at {PHH_DIR}"
    return PHH_DIR


def make_hand(
    stacks: tuple[int, ...],
    blinds: tuple[int, ...] = (1, 2),
    variant: str = "NT",
    cards: list[str] | None = None,
    **extra: object,
) -> Hand:
    """A hand with blinds on the first seats (padded with zeros) and an optional stacked deck.

    `cards` lists the first cards in dealing order: each player's hole cards from
    index 0, then the board; the rest of the deck follows in a fixed shuffled order.
    """
    n = len(stacks)
    padded = tuple(blinds) + (0,) * (n - len(blinds))
    fields: dict[str, object] = {"min_bet": max(blinds)}
    if variant == "FT":
        fields.update(small_bet=max(blinds), big_bet=2 * max(blinds))
    fields.update(extra)
    config = HandConfig(VARIANTS[variant], tuple(stacks), padded, **fields)  # type: ignore[arg-type]
    cards = cards or []
    rest = [c for c in FULL_DECK if c not in cards]
    random.Random(0).shuffle(rest)
    return Hand(config, rest + list(reversed(cards)))
