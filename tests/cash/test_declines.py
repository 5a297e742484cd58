"""Hit-and-run (C-8): declines per blind level over a rolling 12 hours, blocks, exemptions."""

from __future__ import annotations

import pytest

from pokerroom.cash import TableActor
from pokerroom.cash.declines import decline_block_minutes, is_decline
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.results import CashedOut
from tests.cash.conftest import Harness, play_hand, play_out

MINUTE = 60


def test_block_lengths_by_decline_count() -> None:  # C-8
    """C-8: 1st none, 2nd 5, 3rd 15, 4th 30, 5th and later 60 minutes."""
    assert [decline_block_minutes(n) for n in range(1, 8)] == [0, 5, 15, 30, 60, 60, 60]


def test_what_counts_as_a_decline() -> None:  # C-8
    """C-8: at least one hand and fewer than ten; not alone; not when all others sit out."""
    assert is_decline(1, 10, others_seated=2, others_sitting_out=0)
    assert is_decline(9, 10, others_seated=2, others_sitting_out=1)
    assert not is_decline(0, 10, others_seated=2, others_sitting_out=0)
    assert not is_decline(10, 10, others_seated=2, others_sitting_out=0)
    assert not is_decline(3, 10, others_seated=0, others_sitting_out=0)
    assert not is_decline(3, 10, others_seated=2, others_sitting_out=2)


def hit_and_run(room: Harness, actor: TableActor, seat: int = 0) -> CashedOut:
    """ann sits, plays one hand (after waiting for the button if she must, C-2), and leaves."""
    room.wait(actor.sit("ann", seat, 200))
    for _ in range(4):
        play_hand(room, actor)
        if actor.seats[seat].hands_played:
            break
    assert actor.seats[seat].hands_played == 1
    return room.wait(actor.leave("ann"))


def test_second_decline_blocks_the_blind_level_for_five_minutes(room: Harness) -> None:  # C-8
    """C-8: the 2nd decline in 12 h blocks every table of that level; the error says until when."""
    one, two = room.table("t1"), room.table("t2")
    other_level = room.table("t3", small_blind=2, big_blind=4, min_buy_in=80, max_buy_in=400)
    room.fund("ann")
    for number, player in ((2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(one.sit(player, number, 200))
    first = hit_and_run(room, one)
    assert (first.decline_number, first.blocked_until_ms) == (1, None)
    second = hit_and_run(room, one)
    until = second.blocked_until_ms
    assert second.decline_number == 2
    assert until == round(room.clock.seconds() * 1000) + 5 * MINUTE * 1000
    with pytest.raises(ProtocolError) as info:
        room.wait(two.sit("ann", 0, 200))
    assert info.value.code == "blocked" and info.value.details["until_ms"] == until
    room.wait(other_level.sit("ann", 0, 200))  # another blind level is open
    room.clock.advance(5 * MINUTE)
    room.drain()
    room.wait(two.sit("ann", 0, 200))


def test_declines_older_than_twelve_hours_do_not_count(room: Harness) -> None:  # C-8
    """C-8: the window is a rolling 12 hours."""
    actor = room.table()
    room.fund("ann")
    for number, player in ((2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    assert hit_and_run(room, actor).decline_number == 1
    room.clock.advance(12 * 3600 + 1)
    room.drain()
    if actor.hand is not None:  # bob and cat's heads-up hand dealt as the clock jumped
        play_out(room, actor)
    result = hit_and_run(room, actor)
    assert (result.decline_number, result.blocked_until_ms) == (1, None)


def test_leaving_is_not_a_decline_when_the_others_sit_out(room: Harness) -> None:  # C-8
    """C-8: no decline if every other player sits out, or the leaver is alone."""
    actor = room.table()
    room.fund("ann")
    for number, player in ((2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    room.wait(actor.sit("ann", 0, 200))
    play_hand(room, actor)
    actor.sit_out("bob")
    actor.sit_out("cat")
    assert room.wait(actor.leave("ann")).decline_number == 0
    room.wait(actor.sit("ann", 0, 200))
    actor.sit_in("bob")
    play_hand(room, actor)
    room.wait(actor.leave("bob"))  # bob's own decline; ann is now alone with sitting-out cat
    room.wait(actor.leave("cat"))
    assert room.wait(actor.leave("ann")).decline_number == 0


def test_ten_hands_played_is_not_a_decline(room: Harness) -> None:  # C-8
    """C-8: after decline_hands hands leaving is free."""
    actor = room.table(decline_hands=3)
    room.fund("ann")
    for number, player in ((2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    room.wait(actor.sit("ann", 0, 200))
    for _ in range(3):
        play_hand(room, actor)
    assert room.wait(actor.leave("ann")).decline_number == 0


def test_fast_fold_pools_are_exempt(room: Harness) -> None:  # C-8
    """C-8: a table with hit_and_run off (fast-fold pools) records no declines."""
    actor = room.table(hit_and_run=False)
    room.fund("ann")
    for number, player in ((2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    assert hit_and_run(room, actor).decline_number == 0
