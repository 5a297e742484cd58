"""Fixtures for engine tests: the shared real hand histories and hand builders."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from pokerroom.engine import VARIANTS, Hand, HandConfig
from pokerroom.engine.cards import FULL_DECK

REPO = Path(__file__).resolve().parents[2]


def shared_phh_dir() -> Path:
    """Where the shared PHH data lives: ../shared/data/phh beside the repository."""
    override = os.environ.get("POKERROOM_SHARED")
    base = Path(override) if override else REPO.parent / "shared"
    return base / "data" / "phh"


@pytest.fixture(scope="session")
def phh_dir() -> Path:
    """The shared PHH folder; missing data fails in CI and skips elsewhere."""
    folder = shared_phh_dir()
    if not folder.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared hand histories missing at {folder}")
        pytest.skip(f"shared hand histories not found at {folder}")
    return folder


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
