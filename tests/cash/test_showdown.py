"""Showdown at the table (C-5): the engine splits, the table pays what it says."""

from __future__ import annotations

import random

from pokerroom.cash import CashTableConfig, TableActor
from pokerroom.cash.store import escrow
from pokerroom.engine.cards import FULL_DECK
from tests.cash.conftest import USD, Harness, Listener, next_hand, play_out


class StackedDeck:
    """A 'shuffle' that deals the given cards first, in order (tests only)."""

    def __init__(self, first: list[str]) -> None:
        self.first = first

    def shuffle(self, x: list[str]) -> None:
        rest = [c for c in FULL_DECK if c not in self.first]
        random.Random(0).shuffle(rest)
        x[:] = rest + list(reversed(self.first))  # the engine deals from the end

    def randrange(self, n: int) -> int:
        return 0


def test_tied_hands_split_the_pot_odd_chip_left_of_the_button(room: Harness) -> None:  # C-5
    """Three play the board; the 5-chip pot of the two left splits 3/2, odd chip to the BB."""
    # Engine order for hand 1 is seat 2 (SB), seat 4 (BB), seat 0 (button).
    holes = ["2c", "3d", "4c", "5d", "6c", "7d"]
    board = ["As", "Ks", "Qs", "Js", "Ts"]
    listener = Listener()
    actor = TableActor(
        CashTableConfig(table_id="t1", rake_bps=0, between_hands_seconds=1),
        clock=room.clock,
        ledger=room.ledger,
        listener=listener,
        rng=StackedDeck(holes + board),
        store=room.store,
        policies=room.policies,
    )
    listener.actor = actor
    room.wait(actor.start())
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    next_hand(room, actor)
    actor.act("ann", "call")
    actor.act("bob", "fold")
    actor.act("cat", "check")
    play_out(room, actor)
    awarded = listener.of_type("pot_awarded")[-1]
    assert awarded["amount"] == 5
    assert sorted((s["seat"], s["amount"]) for s in awarded["shares"]) == [(0, 2), (4, 3)]
    stacks = {p: room.balance(escrow("t1", p, USD)) for p in ("ann", "bob", "cat")}
    assert stacks == {"ann": 200, "bob": 199, "cat": 201}
