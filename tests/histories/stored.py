"""A room database with settled cash hands in it: entry posts (C-2), missed blinds live and
dead (C-4), rake (C-11), all-ins and side pots, at two tables."""

from __future__ import annotations

import random
from pathlib import Path

from pokerroom.cash import TableActor
from tests.cash.conftest import Harness, play_out

PLAYERS = ("ann", "bob", "cat", "dan", "eve")


def play_random(room: Harness, actor: TableActor, rng: random.Random) -> None:
    """Play the running hand to its end with random legal actions, all-ins often."""
    for _ in range(200):
        room.drain()
        hand = actor.hand
        if hand is None or actor.phase != "playing":
            return
        player = actor.players[hand.actor]
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        roll = rng.random()
        if legal.can_fold and roll < 0.2:
            actor.act(player, "fold")
        elif legal.min_raise_to is not None and roll > 0.8:
            assert legal.max_raise_to is not None
            to = legal.max_raise_to if rng.random() < 0.3 else legal.min_raise_to
            actor.act(player, "raise" if hand.current_bet else "bet", to)
        elif legal.call_amount:
            actor.act(player, "call")
        else:
            actor.act(player, "check")
    raise AssertionError("hand did not finish")


def play_hands(room: Harness, actor: TableActor, rng: random.Random | None, count: int) -> int:
    """Deal and play up to `count` hands while two players can play (calling down without
    `rng`); how many were played."""
    for played in range(count):
        room.advance(actor.config.between_hands_seconds)
        if actor.phase != "playing":
            return played
        if rng is None:
            play_out(room, actor)
        else:
            play_random(room, actor, rng)
    return count


def room_with_hands(path: Path) -> Harness:
    """t1 (NLHE, 5 % rake): four players, a newcomer's entry post, ann sits out past both
    blinds and comes back posting them; t2: heads-up NLHE. Returns the open harness."""
    room = Harness(path)
    rng = random.Random(11)
    t1 = room.table("t1", max_seats=6, rake_bps=500)
    for seat, player in ((0, "ann"), (2, "bob"), (4, "cat"), (5, "dan")):
        room.fund(player)
        room.wait(t1.sit(player, seat, 200 if player != "cat" else 60))
    assert play_hands(room, t1, None, 2) == 2
    room.fund("eve")
    room.wait(t1.sit("eve", 1, 150))  # C-2: posts to come in
    assert play_hands(room, t1, None, 1) == 1
    t1.sit_out("ann")
    assert play_hands(room, t1, None, 5) == 5  # both blinds pass ann's seat (C-4)
    t1.sit_in("ann", post=True)
    assert play_hands(room, t1, None, 2) == 2
    play_hands(room, t1, rng, 12)
    t2 = room.table("t2", max_seats=2)
    for seat, player in ((0, "bob"), (1, "eve")):
        room.wait(t2.sit(player, seat, 100))
    play_hands(room, t2, rng, 4)
    room.advance(1)
    return room
