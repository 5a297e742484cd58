"""Sitting out (C-3), the action clock (C-6), the time bank (C-7), disconnection (C-14)."""

from __future__ import annotations

from pokerroom.cash import TableActor
from pokerroom.ledger.kinds import wallet
from pokerroom.table.clock import refill_timebank
from tests.cash.conftest import USD, Harness, next_hand, play_hand, play_out


def seated(room: Harness, **settings: object) -> TableActor:
    """ann 0, bob 2, cat 4; hand 1 will be button 0, SB 2 (bob), BB 4 (cat); ann acts first."""
    actor = room.table(**settings)
    for number, player in ((0, "ann"), (2, "bob"), (4, "cat")):
        room.fund(player)
        room.wait(actor.sit(player, number, 200))
    return actor


def to_act(actor: TableActor) -> str:
    hand = actor.hand
    assert hand is not None and hand.actor >= 0
    return actor.players[hand.actor]


def test_sitting_out_player_keeps_the_seat_and_is_not_dealt_in(room: Harness) -> None:  # C-3
    """C-3: a sitting-out player keeps the seat and is skipped when dealing."""
    actor = seated(room)
    room.fund("dan")
    room.wait(actor.sit("dan", 5, 200))
    actor.sit_out("ann")
    assert actor.listener.of_type("player_sat_out")[-1]["player"] == "ann"
    play_hand(room, actor)
    assert 0 not in actor.order and actor.seats[0].player_id == "ann"
    actor.sit_in("ann")
    assert actor.listener.of_type("player_sat_in")[-1]["player"] == "ann"


def test_sitout_past_max_minutes_stands_up_and_cashes_out(room: Harness) -> None:  # C-3
    """C-3: after sitout_max_minutes the player is stood up; the chips go to the wallet."""
    actor = seated(room, sitout_max_minutes=15)
    room.fund("dan")
    room.wait(actor.sit("dan", 5, 200))
    before = room.balance(wallet("ann", USD))
    actor.sit_out("ann")
    room.advance(14 * 60)
    if actor.hand is not None:
        play_out(room, actor)
    assert "ann" in actor.by_player
    room.advance(61)
    if actor.hand is not None:
        play_out(room, actor)
    room.drain()
    assert "ann" not in actor.by_player
    assert room.balance(wallet("ann", USD)) == before + 200
    assert actor.listener.of_type("seat_left")[-1]["player"] == "ann"


def test_clock_folds_facing_a_bet_and_sits_the_player_out(room: Harness) -> None:  # C-6
    """C-6: time up with no bank and a bet to call: fold, then sit out (C-3)."""
    actor = seated(room, timebank_seconds=0)
    next_hand(room, actor)
    assert to_act(actor) == "ann"
    room.advance(14.9)
    assert to_act(actor) == "ann"
    room.advance(0.2)
    hand = actor.hand
    assert hand is not None and hand.folded[actor.order.index(0)]
    acted = actor.listener.of_type("player_acted")[-1]
    assert (acted["seat"], acted["action"], acted["auto"]) == (0, "fold", "timeout")
    assert actor.seats[0].sitting_out
    assert actor.listener.of_type("player_sat_out")[-1]["reason"] == "timeout"


def test_action_clock_checks_when_checking_is_free(room: Harness) -> None:  # C-6
    """C-6: time up when checking costs nothing: the player checks."""
    actor = seated(room, timebank_seconds=0)
    next_hand(room, actor)
    actor.act("ann", "call")
    actor.act("bob", "call")
    assert to_act(actor) == "cat"  # the big blind may check
    room.advance(15.1)
    acted = actor.listener.of_type("player_acted")[-1]
    assert (acted["seat"], acted["action"]) == (4, "check")
    hand = actor.hand
    assert hand is not None and not hand.folded[actor.order.index(4)]
    assert actor.seats[4].sitting_out


def test_time_bank_starts_on_its_own_announced_and_keeps_what_is_left(room: Harness) -> None:  # C-7
    """C-7: when the action time runs out the bank starts, is announced, and shrinks."""
    actor = seated(room, timebank_seconds=30)
    next_hand(room, actor)
    request = actor.listener.inbox["ann"][-1]
    assert request["type"] == "action_request" and request["timebank_ms"] == 30_000
    room.advance(15)
    started = actor.listener.of_type("timebank_started")
    assert started and started[-1]["seat"] == 0 and started[-1]["timebank_ms"] == 30_000
    assert to_act(actor) == "ann"
    room.advance(10)
    actor.act("ann", "call")
    assert actor.seats[0].timebank_ms == 20_000
    assert not actor.seats[0].sitting_out


def test_time_bank_spent_then_the_clock_rule_applies(room: Harness) -> None:  # C-7 C-6
    """C-7 then C-6: action time plus the whole bank, then fold and sit out."""
    actor = seated(room, timebank_seconds=30)
    next_hand(room, actor)
    room.advance(15 + 29.9)
    assert to_act(actor) == "ann"
    room.advance(0.2)
    assert actor.seats[0].sitting_out and actor.seats[0].timebank_ms == 0


def test_time_bank_refills_every_n_hands_up_to_the_max(room: Harness) -> None:  # C-7
    """C-7: +refill seconds every refill_hands hands, never above the maximum."""
    assert refill_timebank(30_000, 9, 10, 5_000, 60_000) == (35_000, 0)
    assert refill_timebank(58_000, 9, 10, 5_000, 60_000) == (60_000, 0)
    assert refill_timebank(30_000, 3, 10, 5_000, 60_000) == (30_000, 4)
    actor = seated(
        room,
        timebank_seconds=30,
        timebank_refill_seconds=5,
        timebank_refill_hands=2,
        timebank_max_seconds=40,
    )
    banks = []
    for _ in range(6):
        play_hand(room, actor)
        banks.append(actor.seats[0].timebank_ms)
    assert banks == [30_000, 35_000, 35_000, 40_000, 40_000, 40_000]


def test_disconnected_player_keeps_the_seat_and_the_clock_runs(room: Harness) -> None:  # C-14
    """C-14: a dropped player keeps the seat; the clock runs; reconnecting resends the state."""
    actor = seated(room, timebank_seconds=0)
    next_hand(room, actor)
    actor.disconnected("ann")
    assert actor.seats[0].disconnected and "ann" in actor.by_player
    actor.act("ann", "call")  # a queued action still counts
    actor.disconnected("bob")
    room.advance(15.1)  # bob's clock ran out: fold and sit out
    assert actor.seats[2].sitting_out
    actor.listener.inbox["cat"] = []
    actor.disconnected("cat")
    actor.reconnected("cat")
    snapshot, request = actor.listener.inbox["cat"][-2:]
    assert snapshot["type"] == "table_snapshot" and request["type"] == "action_request"
    seats = snapshot["snapshot"]["hand"]["seats"]
    cards = {s["seat"]: s.get("cards") for s in seats}
    assert cards[4] is not None and cards[0] is None and cards[2] is None  # C-15


def test_a_timed_out_player_who_acts_again_is_back_in(room: Harness) -> None:  # C-6
    """C-6: the player is sat out by the clock only until they act again."""
    actor = seated(room, timebank_seconds=0)
    next_hand(room, actor)
    actor.act("ann", "call")
    actor.act("bob", "call")
    room.advance(15.1)  # cat checks by the clock and is sat out
    assert actor.seats[4].sitting_out
    while actor.hand is not None and to_act(actor) != "cat":
        actor.act(to_act(actor), "check")
    actor.act("cat", "check")
    assert not actor.seats[4].sitting_out
    assert actor.listener.of_type("player_sat_in")[-1]["player"] == "cat"


def test_the_next_decision_moves_the_same_timer_and_times_out_at_its_own_deadline(
    room: Harness,
) -> None:  # C-6
    """C-6, C-7: an action moves the clock's one pending call to the next player's deadline
    (no second timer left behind); the next player's time still runs out at their own
    deadline (their bank then starts)."""
    actor = seated(room)
    next_hand(room, actor)
    clock = actor.action_clock
    first = clock._call
    pending = len(room.clock.getDelayedCalls())
    room.advance(5)
    actor.act("ann", "call")
    assert to_act(actor) == "bob"
    assert clock._call is first and clock._parked is None  # the same call, moved
    assert len(room.clock.getDelayedCalls()) == pending
    assert first is not None and first.getTime() == room.clock.seconds() + 15
    room.advance(14.9)
    assert to_act(actor) == "bob" and not actor.listener.of_type("timebank_started")
    room.advance(0.2)  # bob's own 15 s, not ann's: the moved call runs once, at bob's deadline
    started = actor.listener.of_type("timebank_started")
    assert [m["seat"] for m in started] == [2] and to_act(actor) == "bob"


def test_a_hand_that_ends_on_an_action_leaves_no_clock_call(room: Harness) -> None:  # C-6
    """C-6: the call parked by the hand's last action is cancelled when no decision takes it."""
    actor = seated(room)
    next_hand(room, actor)
    actor.act("ann", "fold")
    actor.act("bob", "fold")  # cat wins: nobody is asked again
    clock = actor.action_clock
    assert not clock.running and clock._parked is None
    assert all(c.func != clock._action_time_up for c in room.clock.getDelayedCalls())
