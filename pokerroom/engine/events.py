"""Frozen events appended to a hand's log; hand histories, the ledger and clients consume them."""

from __future__ import annotations

from typing import NamedTuple


class AntePosted(NamedTuple):
    """A player put an ante (dead money) into the pot."""

    player: int
    amount: int


class BlindPosted(NamedTuple):
    """A live forced bet: a blind, a straddle or an entry/returning post (C-2, C-4)."""

    player: int
    amount: int


class DeadPosted(NamedTuple):
    """A dead post: straight into the pot, not part of the player's bet (C-4)."""

    player: int
    amount: int


class HoleDealt(NamedTuple):
    """Hole cards dealt to one player; only that player may see them (C-15)."""

    player: int
    cards: tuple[str, ...]


class BoardDealt(NamedTuple):
    """Community cards dealt before betting round `street` (1 flop, 2 turn, 3 river)."""

    street: int
    cards: tuple[str, ...]


class Folded(NamedTuple):
    """A player folded."""

    player: int


class CheckedOrCalled(NamedTuple):
    """A player checked (amount 0) or called `amount` more chips."""

    player: int
    amount: int


class BetOrRaised(NamedTuple):
    """A player bet or raised their total bet this round to `to`; `added` chips went in."""

    player: int
    to: int
    added: int
    all_in: bool


class BetReturned(NamedTuple):
    """The uncalled part of a bet went back to its player."""

    player: int
    amount: int


class HandShown(NamedTuple):
    """A player showed their hole cards at showdown."""

    player: int
    cards: tuple[str, ...]


class HandMucked(NamedTuple):
    """A player threw their hand away unseen at showdown."""

    player: int


class PotAwarded(NamedTuple):
    """One pot (0 is the main pot) paid, after `rake`, to its winners."""

    pot: int
    amount: int
    rake: int
    shares: tuple[tuple[int, int], ...]


class HandEnded(NamedTuple):
    """The hand is over; final stacks and the rake each player's contribution paid (C-11)."""

    stacks: tuple[int, ...]
    rake: int
    rake_by_player: tuple[int, ...]


Event = (
    AntePosted
    | BlindPosted
    | DeadPosted
    | HoleDealt
    | BoardDealt
    | Folded
    | CheckedOrCalled
    | BetOrRaised
    | BetReturned
    | HandShown
    | HandMucked
    | PotAwarded
    | HandEnded
)
