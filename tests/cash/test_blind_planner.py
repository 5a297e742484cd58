"""Properties of the pure blind planner (C-2, C-4, dead button), with Hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.cash.seating import Seat
from pokerroom.table.positions import ButtonState, HandPlan, distance, plan_hand, strictly_between

SB, BB = 1, 2


def seat(number: int, **flags: bool) -> Seat:
    s = Seat(number=number, player_id=f"p{number}", stack=100, session="s", sat_at=0, timebank_ms=0)
    s.waiting = flags.get("waiting", False)
    s.wait_for_bb = flags.get("wait_for_bb", False)
    s.sitting_out = flags.get("sitting_out", False)
    return s


def run(seats: dict[int, Seat], max_seats: int, hands: int) -> list[HandPlan]:
    """Plan and apply `hands` hands as the actor does; return the plans."""
    plans, state = [], None
    for _ in range(hands):
        plan = plan_hand(seats, max_seats, SB, BB, state, lambda ready: ready[0])
        assert plan is not None
        for n in plan.order:
            seats[n].clear_debts()
        state = plan.state
        plans.append(plan)
    return plans


@given(
    max_seats=st.integers(3, 10),
    data=st.data(),
)
@settings(max_examples=60, deadline=None)
def test_each_steady_player_pays_each_blind_once_an_orbit(  # C-4
    max_seats: int, data: st.DataObject
) -> None:
    """With the same players every hand, an orbit of n hands gives each one BB and one SB."""
    numbers = data.draw(st.sets(st.integers(0, max_seats - 1), min_size=3, max_size=max_seats))
    seats = {n: seat(n) for n in numbers}
    plans = run(seats, max_seats, 3 * len(numbers))
    for start in range(0, len(plans), len(numbers)):
        orbit = plans[start : start + len(numbers)]
        assert sorted(p.big_blind_seat for p in orbit) == sorted(numbers)
        small = [p.small_blind_seat for p in orbit]
        assert None not in small  # steady players: never a dead small blind
        assert sorted(s for s in small if s is not None) == sorted(numbers)
    for plan in plans:
        assert plan.order[-1] == plan.button  # everyone in: the button acts last after the flop
        assert not any(plan.live_posts) and not any(plan.dead_posts)


def drawn_seats(data: st.DataObject, max_seats: int) -> dict[int, Seat]:
    """Two or more seat numbers below `max_seats`, each seated in, posting, waiting for the
    big blind or sitting out."""
    numbers = data.draw(st.sets(st.integers(0, max_seats - 1), min_size=2, max_size=max_seats))
    seats = {}
    for n in numbers:
        kind = data.draw(st.sampled_from(["in", "post", "wait", "out"]))
        seats[n] = seat(
            n,
            waiting=kind in ("post", "wait"),
            wait_for_bb=kind == "wait",
            sitting_out=kind == "out",
        )
    return seats


@given(max_seats=st.integers(3, 10), data=st.data())
@settings(max_examples=150, deadline=None)
def test_any_table_gets_a_sound_plan(max_seats: int, data: st.DataObject) -> None:  # C-2 C-4
    """Random seats and positions: the big blind plays, nobody unready plays, posters obey
    the button rule, and a continuing hand moves the big blind to the next ready seat."""
    seats = drawn_seats(data, max_seats)
    prev = None
    if data.draw(st.booleans()):
        b, s, g = (data.draw(st.integers(0, max_seats - 1)) for _ in range(3))
        prev = ButtonState(b, s, g, data.draw(st.booleans()))
    plan = plan_hand(seats, max_seats, SB, BB, prev, lambda ready: ready[0])
    ready = sorted(n for n, x in seats.items() if x.ready)
    if len(ready) < 2:
        assert plan is None
        return
    assert plan is not None and len(plan.order) >= 2
    assert plan.big_blind_seat in plan.order
    assert all(seats[n].ready for n in plan.order)
    assert len(set(plan.order)) == len(plan.order)
    assert plan.blinds[plan.order.index(plan.big_blind_seat)] == BB
    for n, live in zip(plan.order, plan.live_posts, strict=True):
        if live:  # C-2: a poster never sits between the button and the big blind
            assert not strictly_between(n, plan.button, plan.big_blind_seat, max_seats)
    if len(plan.order) == 2:
        assert plan.button == plan.small_blind_seat and plan.order[0] == plan.big_blind_seat
    if prev is not None and not plan.fresh:
        nxt = min(ready, key=lambda n: distance(prev.big_blind_seat, n, max_seats))
        assert plan.big_blind_seat == nxt
    for n, _, _ in plan.missed:
        assert seats[n].sitting_out


@given(max_seats=st.integers(2, 10), data=st.data())
@settings(max_examples=150, deadline=None)
def test_nobody_ready_waits_for_ever(max_seats: int, data: st.DataObject) -> None:  # C-2 C-4
    """With two or more ready players a hand is always dealt, and every ready player, new
    (posting or waiting for the big blind) or not, is dealt in within one orbit: the entry
    post, the button rule and waiting for the big blind never keep a seat out for good (a
    bot that sits down late at a table with others is dealt in)."""
    seats = drawn_seats(data, max_seats)
    ready = {n for n, x in seats.items() if x.ready}
    if len(ready) < 2:
        return
    state = None
    if data.draw(st.booleans()):
        b, s, g = (data.draw(st.integers(0, max_seats - 1)) for _ in range(3))
        state = ButtonState(b, s, g, data.draw(st.booleans()))
    dealt: set[int] = set()
    for _ in range(max_seats + 1):
        plan = plan_hand(seats, max_seats, SB, BB, state, lambda r: r[0])
        assert plan is not None and len(plan.order) >= 2
        for n in plan.order:
            seats[n].clear_debts()
        dealt.update(plan.order)
        state = plan.state
    assert dealt == ready
