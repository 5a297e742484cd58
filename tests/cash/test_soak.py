"""A seeded random session: players come, go, sit out, top up, time out and bet at random.

Invariants after every hand (P-2, C-9, C-12): each seat's stack equals its escrow balance,
money inside the room never changes, the table never halts, and the ledger check passes.
"""

from __future__ import annotations

import random

import pytest

from pokerroom.cash import TableActor
from pokerroom.cash.store import escrow
from pokerroom.ledger.reports import check_ledger
from pokerroom.protocol.errors import ProtocolError
from tests.cash.conftest import USD, Harness
from tests.cash.test_money import money_inside

PLAYERS = [f"p{i}" for i in range(9)]


def random_action(actor: TableActor, rng: random.Random) -> None:
    hand = actor.hand
    assert hand is not None
    index = hand.actor
    player = actor.players[index]
    legal = hand.legal_actions(index)
    assert legal is not None
    roll = rng.random()
    if roll < 0.05:
        actor.leave(player)  # folds or checks for them, stands up after the hand
    elif roll < 0.15:
        return  # let the clock run: the time bank, then C-6
    elif legal.can_fold and roll < 0.3:
        actor.act(player, "fold")
    elif legal.min_raise_to is not None and roll > 0.75:
        assert legal.max_raise_to is not None
        to = rng.choice([legal.min_raise_to, legal.max_raise_to])
        actor.act(player, "raise" if hand.current_bet else "bet", to)
    else:
        actor.act(player, "call" if legal.call_amount else "check")


def between_hands(room: Harness, actor: TableActor, rng: random.Random) -> None:
    for player in PLAYERS:
        roll = rng.random()
        seat = actor.by_player.get(player)
        try:
            if seat is None and roll < 0.3:
                room.wait(actor.sit(player, None, rng.choice([40, 120, 200]), roll < 0.1))
            elif seat is not None and actor.seats[seat].sitting_out and roll < 0.5:
                if actor.seats[seat].stack == 0:
                    room.wait(actor.top_up(player, 100))
                actor.sit_in(player, post=roll < 0.3)
            elif seat is not None and roll < 0.05:
                actor.sit_out(player)
            elif seat is not None and roll < 0.1:
                room.wait(actor.top_up(player, rng.choice([10, 50])))
        except ProtocolError as exc:
            assert exc.code in {
                "table_full",
                "above_table_max",
                "blocked",
                "rathole_minimum",
                "leaving",
                "no_chips",
            }, exc


@pytest.mark.parametrize("seed", [1, 2])
def test_random_session_keeps_every_invariant(room: Harness, seed: int) -> None:  # P-2 C-12
    """Random sits, leaves, sit-outs, top-ups, timeouts and bets; the invariants hold."""
    rng = random.Random(seed)
    actor = room.table(seed=seed, rake_bps=500, max_seats=6, timebank_seconds=5)
    for player in PLAYERS:
        room.fund(player, 5_000)
    total = money_inside(room)
    hands = 0
    for _ in range(400):
        room.drain()
        assert actor.phase != "halted"
        if actor.phase == "playing":
            before = len(actor.hand.log) if actor.hand else 0
            random_action(actor, rng)
            if actor.hand is not None and len(actor.hand.log) == before:
                room.advance(20.0)  # nobody acted: the clock acts (C-6, C-7)
            continue
        if actor.phase == "idle":
            hands += 1
            for seat in actor.seats.values():
                assert seat.stack == room.balance(escrow("t1", seat.player_id, USD))
            assert money_inside(room) == total
            between_hands(room, actor, rng)
            room.advance(actor.config.between_hands_seconds)
    assert hands > 40
    assert check_ledger(room.engine).ok
