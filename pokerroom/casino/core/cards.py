"""Cards, shoes, the cut card and burns (K-21, B-1, B-2, B-18, BJ-1, BJ-2, RNG-2 … RNG-5).

A card is an int 0…51: rank `card >> 2` (0 = A … 12 = K), suit `card & 3` (c, d, h, s). Text
is the engine's two characters ("As", "Td"). A shoe is N decks shuffled once by the injected
random source (a Fisher–Yates shuffle, RNG-3) and dealt strictly in order; the burned cards and
the cut position are part of its record (RNG-9).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from pokerroom.casino.core import errors

RANKS = "A23456789TJQK"
SUITS = "cdhs"
DECK: tuple[int, ...] = tuple(range(52))


class RandomSource(Protocol):
    """What the casino core needs of a random generator (RNG-1).

    `secrets.SystemRandom()` in production (a CSPRNG whose `randrange` rejects rather than
    reduces modulo, and whose `shuffle` is Fisher–Yates); a seeded `random.Random` in tests.
    """

    def shuffle(self, x: list[Any], /) -> None:
        """Shuffle the list in place."""
        ...

    def randrange(self, stop: int, /) -> int:
        """A uniform integer in 0 … stop − 1."""
        ...


def rank(card: int) -> int:
    """The rank index, 0 (Ace) … 12 (King)."""
    return card >> 2


def suit(card: int) -> int:
    """The suit index, 0 … 3."""
    return card & 3


def card(text: str) -> int:
    """One card from its two characters ("As", "Td", "10d" too); `bad_cards` otherwise."""
    body = text.strip()
    if body[:2] == "10":
        body = "T" + body[2:]
    if len(body) != 2 or body[0].upper() not in RANKS or body[1].lower() not in SUITS:
        raise errors.CasinoError(errors.BAD_CARDS, f"{text!r} is not a card")
    return RANKS.index(body[0].upper()) * 4 + SUITS.index(body[1].lower())


def cards(text: str) -> tuple[int, ...]:
    """Cards separated by spaces or commas ("9s Kh 7d")."""
    return tuple(card(part) for part in text.replace(",", " ").split())


def name(value: int) -> str:
    """The two characters of a card."""
    return RANKS[value >> 2] + SUITS[value & 3]


def names(values: Sequence[int]) -> str:
    """Cards as text, space-separated."""
    return " ".join(name(value) for value in values)


def burn_value(value: int) -> int:
    """How many cards the exposed first card of a shoe burns: A = 1 … 9, 10/J/Q/K = 10 (B-2)."""
    return min(rank(value) + 1, 10)


class Shoe:
    """A shoe dealt in order, with its cut card (K-21, RNG-4) and start-of-shoe burn (B-2, BJ-2).

    The card dealt at index `cut_index` or later lies beyond the cut card: once one is dealt the
    current round is the shoe's last (`cut_reached`) and `start_round` refuses another (B-18).
    """

    __slots__ = ("burned", "cards", "cut_index", "position", "rounds")

    def __init__(self, order: Sequence[int], cut_from_end: int = 0, burn: int | str = 0) -> None:
        self.cards = list(order)
        if not 0 <= cut_from_end <= len(self.cards):
            raise errors.CasinoError(errors.BAD_CONFIG, f"cut card {cut_from_end} from the end")
        self.cut_index = len(self.cards) - cut_from_end
        self.position = 0
        self.rounds = 0
        count: int
        if burn == "by_value":  # B-2: expose the first card, burn as many as its value
            first = self.cards[0] if self.cards else 0
            count = 1 + burn_value(first) if self.cards else 0
        elif isinstance(burn, int) and not isinstance(burn, bool) and burn >= 0:
            count = burn
        else:
            raise errors.CasinoError(errors.BAD_CONFIG, f"burn {burn!r}: 'by_value' or a count")
        if count > len(self.cards):
            raise errors.CasinoError(errors.SHOE_EXHAUSTED, "the burn takes the whole shoe")
        self.burned: tuple[int, ...] = tuple(self.cards[:count])
        self.position = count

    @classmethod
    def shuffled(
        cls, rng: RandomSource, decks: int, cut_from_end: int = 0, burn: int | str = 0
    ) -> Shoe:
        """A new shoe of `decks` × 52 cards shuffled by `rng` (RNG-3), burned and cut."""
        if decks < 1:
            raise errors.CasinoError(errors.BAD_CONFIG, f"{decks} decks")
        order = list(DECK) * decks
        rng.shuffle(order)
        return cls(order, cut_from_end, burn)

    def commitment(self) -> str:
        """SHA-256 of the shoe's order, burn and cut, stored before any card is shown (RNG-2).

        An audit recomputes it from the round records to show that nothing was redrawn (K-20).
        """
        text = f"{names(self.cards)}|burned {len(self.burned)}|cut {self.cut_index}"
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    @property
    def cut_reached(self) -> bool:
        """True once a card beyond the cut card has been dealt: this round is the last (B-18)."""
        return self.position > self.cut_index

    @property
    def remaining(self) -> int:
        """Cards left to deal."""
        return len(self.cards) - self.position

    def start_round(self) -> int:
        """Open the next round of this shoe and return its number (1, 2, …; B-14 counts them).

        Refused with `shoe_finished` after the cut-card round (B-18, K-21): take a new shoe.
        """
        if self.cut_reached:
            raise errors.CasinoError(errors.SHOE_FINISHED, "the cut card was reached: new shoe")
        self.rounds += 1
        return self.rounds

    def deal(self) -> int:
        """The next card (B-5, RNG-6: strictly in order)."""
        position = self.position
        if position >= len(self.cards):
            raise errors.CasinoError(errors.SHOE_EXHAUSTED, "no card left in the shoe")
        self.position = position + 1
        return self.cards[position]
