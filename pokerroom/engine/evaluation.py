"""Hand strength with treys: lower rank is stronger (1 is a royal flush, 7462 the worst)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from treys import Evaluator

from pokerroom.engine.cards import TREYS_INT

_EVALUATOR = Evaluator()
# treys has no py.typed marker, so mypy sees it as untyped (pyproject's mypy overrides);
# the two entry points used here are typed as treys annotates them.
# `_five` is treys' 5-card lookup, the building block of its own 6/7-card paths.
_FIVE: Callable[[Sequence[int]], int] = _EVALUATOR._five
_ANY: Callable[[list[int], list[int]], int] = _EVALUATOR.evaluate


_PRIME: dict[str, int] = {card: value & 0xFF for card, value in TREYS_INT.items()}
# Without a flush, the best five of seven depend only on the ranks, and the product of
# the rank primes names the ranks exactly: treys' answer is remembered per product
# (at most 49,205 entries, one per multiset of seven ranks).
_NO_FLUSH_SEVEN: dict[int, int] = {}
_UNSUITED: dict[int, int] = _EVALUATOR.table.unsuited_lookup
_FIVE_OF_SEVEN = tuple(combinations(range(7), 5))


def holdem_rank(hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """Rank the best five of hole + board cards (any combination)."""
    cards = hole + board
    if len(cards) == 7:
        suits = "".join([c[1] for c in cards])
        if (
            suits.count("c") < 5
            and suits.count("d") < 5
            and suits.count("h") < 5
            and (suits.count("s") < 5)
        ):
            p = _PRIME
            key = p[cards[0]] * p[cards[1]] * p[cards[2]] * p[cards[3]] * p[cards[4]]
            key *= p[cards[5]] * p[cards[6]]
            rank = _NO_FLUSH_SEVEN.get(key)
            if rank is None:
                primes = [p[c] for c in cards]
                rank = _NO_FLUSH_SEVEN[key] = min(
                    _UNSUITED[primes[a] * primes[b] * primes[c] * primes[d] * primes[e]]
                    for a, b, c, d, e in _FIVE_OF_SEVEN
                )
            return rank
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
