"""Hand strength with treys: lower rank is stronger (1 is a royal flush, 7462 the worst)."""

from __future__ import annotations

from itertools import combinations

from treys import Evaluator

from pokerroom.engine.cards import TREYS_INT

_EVALUATOR = Evaluator()
_FIVE = _EVALUATOR._five  # treys' 5-card lookup, the building block of its own 6/7-card paths
_ANY = _EVALUATOR.evaluate


def holdem_rank(hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """Rank the best five of hole + board cards (any combination)."""
    return _ANY([TREYS_INT[c] for c in hole], [TREYS_INT[c] for c in board])


def omaha_rank(hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """Rank the best hand made of exactly two hole cards and exactly three board cards."""
    hole_ints = [TREYS_INT[c] for c in hole]
    board_triples = list(combinations([TREYS_INT[c] for c in board], 3))
    best = 7463
    for pair in combinations(hole_ints, 2):
        for triple in board_triples:
            rank = _FIVE((*pair, *triple))
            if rank < best:
                best = rank
    return best


def rank_hand(omaha: bool, hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """Rank a player's hand for the variant (omaha or any-five)."""
    return omaha_rank(hole, board) if omaha else holdem_rank(hole, board)
