"""Blackjack hands: card values, soft and hard totals, blackjack, busts (BJ-3, BJ-4, BJ-14)."""

from __future__ import annotations

from collections.abc import Sequence

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
