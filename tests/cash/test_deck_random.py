"""C-15: the production shuffle (`DeckRandom`) is secrets.SystemRandom's, read from the OS in
one call per deck; every permutation stays equally likely."""

from __future__ import annotations

import itertools
import os
import secrets
from collections import Counter
from pathlib import Path

import pytest

from pokerroom.engine.cards import FULL_DECK, shuffled_deck
from pokerroom.table import deck_random
from pokerroom.table.deck_random import DeckRandom


def test_a_deck_is_a_permutation_read_from_the_os_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """C-15: one `os.urandom` call per 52-card deck (the chunk covers the rejections)."""
    calls: list[int] = []
    real = os.urandom

    def counted(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(deck_random, "urandom", counted)
    rng = DeckRandom()
    assert isinstance(rng, secrets.SystemRandom)
    decks = [shuffled_deck(rng) for _ in range(200)]
    assert all(sorted(d) == sorted(FULL_DECK) for d in decks)
    assert len({tuple(d) for d in decks}) == 200
    assert len(calls) < 210  # a second read only when a deck's rejections use 128 bytes up


def test_a_chunk_used_up_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes that are all rejected (0xff: out of range for every swap of 5) force new reads."""
    reads = iter([b"\xff" * deck_random.CHUNK, bytes(range(deck_random.CHUNK))])
    monkeypatch.setattr(deck_random, "urandom", lambda n: next(reads))
    cards = list("abcde")
    DeckRandom().shuffle(cards)
    assert sorted(cards) == list("abcde")


def test_every_permutation_is_equally_likely() -> None:
    """C-15: 4 items, 120,000 shuffles: each of the 24 orders within 6 % of 5,000 (over 7
    standard deviations apart would be needed to fail by chance)."""
    rng = DeckRandom()
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(120_000):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert set(counts) == set(itertools.permutations(range(4)))
    assert all(4_700 <= n <= 5_300 for n in counts.values()), counts


def test_the_rest_is_system_randoms() -> None:
    rng = DeckRandom()
    assert all(0 <= rng.randrange(6) < 6 for _ in range(100))


def test_every_table_the_room_builds_shuffles_with_deck_random() -> None:
    """C-15, one source: no part of the room that builds a poker table gives it a
    `secrets.SystemRandom()` of its own (the room's tables, a cluster node's, staff's
    `table_open`: DeckRandom; the casino's RNG-1 source is another rule's)."""
    root = Path(__file__).resolve().parents[2] / "pokerroom"
    builders = [path for path in root.rglob("*.py") if "TableActor(" in path.read_text()]
    assert len(builders) >= 3  # the room (service), staff (admin ops), a cluster node (tables)
    own = [str(p.relative_to(root)) for p in builders if "SystemRandom()" in p.read_text()]
    assert own == []
