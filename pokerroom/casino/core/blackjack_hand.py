"""Blackjack hands: card values, soft and hard totals, blackjack, busts (BJ-3, BJ-4, BJ-14), and
the `Hand` and `Box` a round plays."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: BJ-3: 2-10 face value, J/Q/K 10, an Ace 1 here (counted 11 by `total` when it fits).
VALUE: tuple[int, ...] = tuple(min(card // 4 + 1, 10) for card in range(52))


def total(cards: Sequence[int]) -> tuple[int, bool]:
    """The hand's best total and whether it is soft (an Ace counted 11) (BJ-3)."""
    hard = sum(VALUE[card] for card in cards)
    if any(VALUE[card] == 1 for card in cards) and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def points(cards: Sequence[int]) -> int:
    """The best total alone."""
    return total(cards)[0]


def is_blackjack(cards: Sequence[int], from_split: bool = False) -> bool:
    """BJ-4: an Ace and a 10-value card as the first two cards of a hand that was not split."""
    return not from_split and len(cards) == 2 and points(cards) == 21


def is_bust(cards: Sequence[int]) -> bool:
    """Over 21 (BJ-9: a bust ends the hand)."""
    return points(cards) > 21


def dealer_draws(cards: Sequence[int]) -> bool:
    """BJ-14: the dealer draws on 16 or less and stands on 17 or more, soft 17 included."""
    return points(cards) <= 16


@dataclass(slots=True)
class Hand:
    """One hand of a box: its cards, its stake and what was done to it."""

    cards: list[int]
    stake: int
    doubled: int = 0  # the added stake of a double (BJ-10)
    from_split: bool = False
    done: bool = False
    surrendered: bool = False

    @property
    def total(self) -> int:
        """Its best total (BJ-3)."""
        return points(self.cards)

    @property
    def blackjack(self) -> bool:
        """BJ-4."""
        return is_blackjack(self.cards, self.from_split)


@dataclass(slots=True)
class Box:
    """A box with a bet: its hands (two after a split), insurance and even money."""

    number: int
    player: str
    stake: int
    hands: list[Hand]
    insurance: int = 0
    insurance_decided: bool = False
    even_money: bool = False
