"""Cards as two-character strings ('Ah', 'Td'), decks, and shuffling with an injected RNG."""

from __future__ import annotations

from typing import Protocol

from treys import Card as _TreysCard

import pokerroom.engine.errors as errors

RANKS = "23456789TJQKA"
SUITS = "cdhs"
FULL_DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)
CARD_SET: frozenset[str] = frozenset(FULL_DECK)

# treys' 32-bit encoding of each card, computed once (C-5 ranking uses treys).
TREYS_INT: dict[str, int] = {card: _TreysCard.new(card) for card in FULL_DECK}


class RandomSource(Protocol):
    """What shuffling needs of a random generator (secrets.SystemRandom in production, C-15)."""

    def shuffle(self, x: list[str]) -> None:
        """Shuffle the list in place."""
        ...


def shuffled_deck(rng: RandomSource) -> list[str]:
    """Return a new 52-card deck shuffled by `rng`."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


def parse_cards(text: str) -> tuple[str, ...]:
    """Parse concatenated cards ('AhKs', 'Ah Ks') into a tuple; raise `bad_cards` if malformed."""
    compact = text.replace(" ", "").replace(",", "")
    if len(compact) % 2:
        raise errors.EngineError(errors.BAD_CARDS, f"cannot read cards from {text!r}")
    cards = tuple(compact[i : i + 2] for i in range(0, len(compact), 2))
    for card in cards:
        if card not in CARD_SET:
            raise errors.EngineError(errors.BAD_CARDS, f"{card!r} is not a card")
    return cards
