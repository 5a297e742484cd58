"""Entry posts, waiting for the big blind, the button rule, missed blinds, dead button.

Players sit at seats 0, 2 and 4 of a 6-max table; with the harness seed the first button is
seat 0, so hand 1 is button 0 / SB 2 / BB 4, hand 2 button 2 / SB 4 / BB 0, and so on.
"""

from __future__ import annotations

from pokerroom.cash import TableActor
from tests.cash.conftest import Harness, next_hand, play_hand, play_out, posts

BB, SB = 2, 1


def three_handed(room: Harness) -> TableActor:
    actor = room.table()
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    play_hand(room, actor)
    state = actor.button_state
    assert state is not None
    assert (state.button, state.small_blind_seat, state.big_blind_seat) == (0, 2, 4)
    return actor


def test_first_hand_deals_everyone_in_without_entry_posts(room: Harness) -> None:  # C-2
    """C-2: a game that starts deals everyone in; only the blinds are posted."""
    actor = room.table()
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    next_hand(room, actor)
    assert posts(actor.listener, actor.hand_id) == {2: [("small", SB)], 4: [("big", BB)]}
    assert actor.order == (2, 4, 0)


def test_new_player_posts_live_entry_post_equal_to_big_blind(room: Harness) -> None:  # C-2
    """C-2: a newcomer outside the button-to-blinds gap posts one big blind, live."""
    actor = three_handed(room)
    room.fund("dan")
    room.wait(actor.sit("dan", 1, 200))
    next_hand(room, actor)  # button 2, SB 4, BB 0; dan at 1 acts first
    assert posts(actor.listener, actor.hand_id) == {
        4: [("small", SB)],
        0: [("big", BB)],
        1: [("entry", BB)],
    }
    hand = actor.hand
    assert hand is not None and actor.players[hand.actor] == "dan"
    legal = hand.legal_actions(hand.actor)
    assert legal is not None and legal.call_amount == 0  # live: counts as dan's bet
    actor.act("dan", "check")
    play_out(room, actor)


def test_wait_for_big_blind_deals_in_only_at_the_big_blind(room: Harness) -> None:  # C-2
    """C-2: with wait_for_big_blind nothing is posted until the big blind reaches the seat."""
    actor = three_handed(room)
    room.fund("dan")
    room.wait(actor.sit("dan", 1, 200, wait_for_big_blind=True))
    next_hand(room, actor)  # BB is seat 0
    assert 1 not in actor.order and 1 not in posts(actor.listener, actor.hand_id)
    play_out(room, actor)
    next_hand(room, actor)  # the big blind moves on to seat 1
    assert posts(actor.listener, actor.hand_id)[1] == [("big", BB)]
    assert 1 in actor.order and not actor.seats[1].waiting


def test_new_player_between_button_and_big_blind_waits_for_the_button(room: Harness) -> None:  # C-2
    """C-2: a seat in the gap (button, big blind) is dealt in only after the button passes."""
    actor = three_handed(room)
    room.fund("dan")
    room.wait(actor.sit("dan", 3, 200))
    next_hand(room, actor)  # button 2, SB 4, BB 0: seat 3 is in the gap
    assert 3 not in actor.order
    play_out(room, actor)
    next_hand(room, actor)  # button 4, SB 0, BB 2: the button has passed seat 3
    assert posts(actor.listener, actor.hand_id)[3] == [("entry", BB)]
    assert actor.hand is not None and actor.button_state is not None
    assert actor.button_state.button == 4


def four_handed(room: Harness, **settings: object) -> TableActor:
    """ann 0, bob 2, cat 4, dan 5; after two hands: button 2, SB 4, BB 5 (ann's BB is next)."""
    actor = room.table(**settings)
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat"), (5, "dan")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    play_hand(room, actor)
    play_hand(room, actor)
    state = actor.button_state
    assert state is not None
    assert (state.button, state.small_blind_seat, state.big_blind_seat) == (2, 4, 5)
    return actor


def play_until_dealt(room: Harness, actor: TableActor, seat: int, limit: int = 6) -> None:
    """Play hands until `seat` is dealt in; the hand that deals it in is left running."""
    for _ in range(limit):
        next_hand(room, actor)
        if seat in actor.order:
            return
        play_out(room, actor)
    raise AssertionError(f"seat {seat} never dealt in")


def test_missed_big_blind_owes_a_live_big_blind(room: Harness) -> None:  # C-4
    """C-4: sitting out while the big blind passes: a live post of one big blind on return."""
    actor = four_handed(room)
    actor.sit_out("ann")
    play_hand(room, actor)  # the big blind skips seat 0 and goes to seat 2
    ann = actor.seats[0]
    assert (ann.missed_sb, ann.missed_bb) == (False, True)
    actor.sit_in("ann", post=True)
    play_until_dealt(room, actor, 0)
    assert posts(actor.listener, actor.hand_id)[0] == [("entry", BB)]
    assert not actor.seats[0].owes
    play_out(room, actor)


def test_missed_both_blinds_posts_live_bb_and_dead_sb(room: Harness) -> None:  # C-4
    """C-4: both blinds missed: a live big blind plus a dead small blind, not part of the bet."""
    actor = four_handed(room)
    actor.sit_out("ann")
    play_hand(room, actor)  # BB skips seat 0: missed big
    play_hand(room, actor)  # the small blind moves past seat 0: missed small too
    ann = actor.seats[0]
    assert (ann.missed_sb, ann.missed_bb) == (True, True)
    actor.sit_in("ann", post=True)
    play_until_dealt(room, actor, 0)
    hand = actor.hand
    assert hand is not None
    assert sorted(posts(actor.listener, actor.hand_id)[0]) == [("dead", SB), ("entry", BB)]
    i = actor.order.index(0)
    assert hand.contrib[i] == BB + SB and hand.dead[i] == SB  # the dead part is nobody's bet
    play_out(room, actor)


def test_returning_player_may_wait_for_the_big_blind_instead(room: Harness) -> None:  # C-4
    """C-4: waiting for the big blind instead of posting clears the debt when it is posted."""
    actor = four_handed(room)
    actor.sit_out("ann")
    play_hand(room, actor)
    assert actor.seats[0].missed_bb
    actor.sit_in("ann", post=False)
    play_until_dealt(room, actor, 0)
    assert posts(actor.listener, actor.hand_id)[0] == [("big", BB)]
    assert not actor.seats[0].owes


def test_missed_blinds_are_remembered_after_leaving_and_rejoining(room: Harness) -> None:  # C-4
    """C-4: leaving does not clear the debt within missed_blind_memory_minutes."""
    actor = room.table(hit_and_run=False)
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat"), (5, "dan")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    play_hand(room, actor)
    actor.sit_out("bob")
    for _ in range(4):
        play_hand(room, actor)
    assert actor.seats[2].missed_sb and actor.seats[2].missed_bb
    room.wait(actor.leave("bob"))
    room.wait(actor.sit("bob", 2, 200))
    assert actor.seats[2].missed_sb and actor.seats[2].missed_bb
    room.wait(actor.leave("bob"))  # at once, before being dealt in: still owing
    room.clock.advance(31 * 60)  # past missed_blind_memory_minutes
    room.drain()
    if actor.hand is not None:
        play_out(room, actor)
    room.wait(actor.sit("bob", 2, 200))
    assert not actor.seats[2].owes


def test_dead_button_when_the_button_seat_empties(room: Harness) -> None:  # C-2 C-4
    """Dead button: the big blind moves one seat; the button may stay on an empty seat."""
    actor = room.table(hit_and_run=False)
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat"), (5, "dan")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    play_hand(room, actor)  # button 0, SB 2, BB 4
    room.wait(actor.leave("bob"))  # seat 2 (the small blind) empties
    next_hand(room, actor)  # BB 5, SB on seat 4, button on the empty seat 2
    state = actor.button_state
    assert state is not None
    assert (state.button, state.small_blind_seat, state.big_blind_seat) == (2, 4, 5)
    assert posts(actor.listener, actor.hand_id) == {4: [("small", SB)], 5: [("big", BB)]}
    play_out(room, actor)
    next_hand(room, actor)  # BB 0, SB on seat 5, button 4
    assert posts(actor.listener, actor.hand_id) == {5: [("small", SB)], 0: [("big", BB)]}


def test_heads_up_button_posts_the_small_blind(room: Harness) -> None:  # C-2
    """Heads-up: the button posts the small blind and acts first before the flop."""
    actor = room.table()
    for number, player in ((1, "ann"), (3, "bob")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    next_hand(room, actor)
    state = actor.button_state
    assert state is not None
    sb_seat = state.button
    assert posts(actor.listener, actor.hand_id)[sb_seat] == [("small", SB)]
    hand = actor.hand
    assert hand is not None and actor.order[hand.actor] == sb_seat
    play_out(room, actor)
    next_hand(room, actor)
    assert actor.button_state is not None and actor.button_state.button != sb_seat


def test_blinds_passing_during_heads_up_are_missed_too(room: Harness) -> None:  # C-4
    """C-4: while the others play heads-up, a sitting-out player still misses the blinds."""
    actor = three_handed(room)  # button 0, SB 2, BB 4
    actor.sit_out("ann")
    play_hand(room, actor)  # heads-up bob/cat: the big blind skips seat 0
    play_hand(room, actor)
    play_hand(room, actor)
    ann = actor.seats[0]
    assert ann.missed_bb and ann.missed_sb
    actor.sit_in("ann", post=True)
    play_until_dealt(room, actor, 0)
    assert sorted(posts(actor.listener, actor.hand_id)[0]) in (
        [("big", BB)],
        [("dead", SB), ("entry", BB)],
    )
