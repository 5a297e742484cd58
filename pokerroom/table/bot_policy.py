"""Bot policies: pure functions from what a player sees to one legal action.

A policy gets a `Situation` (the player's cards, the board, stacks in chips, the legal action
set) and a `roll` in [0, 1) drawn by the caller from its own seeded RNG, and returns a
`Decision`; no I/O, no clock, no global random. The in-process tournament simulation
(`tournaments.ops.simulation`, from the engine's hand: `situation_of`) and the protocol bots
(`pokerroom.server.bots`, from the frames they received) both build a `Situation` and call the
same functions.

- `aggressive`: all-in 4 % of decisions, fold to a bet 45 %, otherwise check or call (the
  field busts in about one hand per entry).
- `tight`: most hands folded before the flop by the Chen formula, with a threshold that falls
  as the table gets short-handed; raises and calls with strong hands; push or fold from
  10 big blinds down; after the flop it bets and calls by what it holds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from itertools import permutations
from typing import NamedTuple

from pokerroom.engine.cards import FULL_DECK
from pokerroom.engine.hand import Hand

RANKS = "23456789TJQKA"
PUSH_FOLD_BB = 10  # at or below this many big blinds, tight plays all-in or fold
FULL_TABLE = 9


class Situation(NamedTuple):
    """What the player to act knows, in chips; the last four fields are the legal actions.

    A named tuple: one is built for every decision of a 10,000-entry benchmark (millions).
    """

    hole: tuple[str, ...]
    board: tuple[str, ...]
    stack: int  # chips at the start of the hand
    behind: int  # chips not yet put in this hand
    big_blind: int
    pot: int  # every chip put in so far, this street's bets included
    dealt: int  # players dealt into the hand
    live: int  # players not folded, the player to act included
    can_fold: bool
    call: int  # 0: the player may check
    min_raise_to: int | None  # None: no bet or raise is allowed
    max_raise_to: int | None  # the all-in amount as a raise "to" (no-limit)


def situation_of(hand: Hand) -> Situation:
    """The situation of the player to act in a running hand (the in-process bots' view)."""
    index = hand.actor
    legal = hand.legal_actions(index)
    hole = hand.holes[index]
    if legal is None or hole is None:
        raise ValueError("nobody is to act in this hand")
    behind = hand.stacks[index]
    return Situation(
        hole, tuple(hand.board), behind + hand.contrib[index], behind, hand.config.min_bet,
        hand.pot_total(), hand.n, hand.live, legal.can_fold, legal.call_amount,
        legal.min_raise_to, legal.max_raise_to,
    )  # fmt: skip


class Decision(NamedTuple):
    """An action as a table takes it: fold, check, call, or raise (bet) to `amount`."""

    action: str
    amount: int | None = None


Policy = Callable[[Situation, float], Decision]


def check_or_call(s: Situation) -> Decision:
    """Check when free, otherwise call."""
    return Decision("call") if s.call else Decision("check")


def check_or_fold(s: Situation) -> Decision:
    """Check when free, otherwise fold."""
    return Decision("fold") if s.call and s.can_fold else check_or_call(s)


def all_in(s: Situation) -> Decision:
    """Every chip in: a raise to the maximum, or a call when no raise is open."""
    if s.max_raise_to is None:
        return check_or_call(s)
    return Decision("raise", s.max_raise_to)


def raise_to(s: Situation, target: int) -> Decision:
    """A raise to `target` within the legal bounds; all-in when it would commit half the stack."""
    if s.min_raise_to is None or s.max_raise_to is None:
        return check_or_call(s)
    amount = max(target, s.min_raise_to)
    if 2 * amount >= s.max_raise_to:
        amount = s.max_raise_to
    return Decision("raise", amount)


def aggressive(s: Situation, roll: float) -> Decision:
    """All-in 4 % of decisions, fold to a bet 45 %, otherwise check or call."""
    if s.max_raise_to is not None and roll < 0.04:
        return Decision("raise", s.max_raise_to)
    if s.can_fold and roll < 0.49:
        return Decision("fold")
    return check_or_call(s)


def _chen(high: int, low: int, suited: bool) -> int:
    points = {14: 10.0, 13: 8.0, 12: 7.0, 11: 6.0}.get(high, high / 2)
    if high == low:
        return math.ceil(max(5.0, points * 2))
    gap = high - low - 1
    points -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if suited:
        points += 2
    if gap <= 1 and high < 12:
        points += 1
    return math.ceil(points)


def _rank(card: str) -> int:
    return RANKS.index(card[0]) + 2


# Every ordered pair of cards, scored once: a policy asks on every decision before the flop.
_CHEN = {
    (a, b): _chen(max(_rank(a), _rank(b)), min(_rank(a), _rank(b)), a[1] == b[1])
    for a, b in permutations(FULL_DECK, 2)
}


def chen(hole: tuple[str, ...]) -> int:
    """The Chen formula score of two hole cards (AA 20, AKs 12, 22 5, 72o -1)."""
    return _CHEN[hole[0], hole[1]]


def made_hand(hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """What the hole cards make with the board: 3 strong (two pair, trips, straight, flush or
    better), 2 top pair or overpair, 1 a lesser pair, 0 nothing."""
    cards = hole + board
    suits = Counter(card[1] for card in cards)
    if any(n >= 5 and any(c[1] == suit for c in hole) for suit, n in suits.items()):
        return 3
    ranks = {RANKS.index(card[0]) + 2 for card in cards}
    ranks |= {1} if 14 in ranks else set()
    holes = {RANKS.index(card[0]) + 2 for card in hole}
    holes |= {1} if 14 in holes else set()
    for low in range(1, 11):
        run = set(range(low, low + 5))
        if run <= ranks and run & holes:
            return 3
    on_board = Counter(RANKS.index(card[0]) + 2 for card in board)
    top = max(on_board)
    first, second = (RANKS.index(card[0]) + 2 for card in hole)
    if first == second:
        if on_board[first]:
            return 3  # a set
        return 2 if first > top else 1
    hits = [r for r in (first, second) if on_board[r]]
    if len(hits) == 2 or (hits and on_board[hits[0]] >= 2):
        return 3  # two pair with both cards, or trips
    if hits:
        return 2 if max(hits) == top else 1
    return 0


def tight(s: Situation, roll: float) -> Decision:
    """A tight tournament player: see the module docstring."""
    if not s.board:
        return _tight_preflop(s, roll)
    return _tight_postflop(s, roll)


def _tight_preflop(s: Situation, roll: float) -> Decision:
    bb = s.big_blind
    score = chen(s.hole)
    missing = max(0, FULL_TABLE - s.dealt)  # a short-handed table plays more hands
    raised = s.call > bb or (s.min_raise_to is not None and s.min_raise_to > 2 * bb)
    depth = s.stack / bb
    if depth <= PUSH_FOLD_BB:
        push = 6 + 0.4 * depth - 0.35 * missing
        if score >= push + (2 if raised else 0):
            return all_in(s)
        return check_or_fold(s)
    if not raised:
        opening = 8 - 0.4 * missing
        if score >= opening or (score >= opening - 2 and roll < 0.15):
            return raise_to(s, 3 * bb)
        return check_or_fold(s)
    if score >= 12:  # JJ+, AKs: raise again
        return raise_to(s, 2 * s.min_raise_to if s.min_raise_to else 0)
    if score >= 9 and 8 * s.call <= s.behind:  # 99+, AK, AQ, KQs: call a cheap raise
        return check_or_call(s)
    return check_or_fold(s)


def _tight_postflop(s: Situation, roll: float) -> Decision:
    strength = made_hand(s.hole, s.board)
    if not s.call:
        if strength == 3:
            return raise_to(s, s.pot * 3 // 4)
        if strength == 2 or (s.live == 2 and roll < 0.1):
            return raise_to(s, s.pot // 2)
        return check_or_call(s)
    if strength == 3:
        return (
            raise_to(s, 2 * s.min_raise_to) if roll < 0.5 and s.min_raise_to else Decision("call")
        )
    if strength == 2 and 2 * s.call <= s.pot:  # a bet up to the pot
        return Decision("call")
    if strength == 1 and 4 * s.call <= s.pot:  # a bet up to a third of the pot
        return Decision("call")
    return check_or_fold(s)


POLICIES: dict[str, Policy] = {"tight": tight, "aggressive": aggressive}
