"""Hypothesis properties of breaking and balancing (T-10): nobody lost, seated twice, moved
into the small blind (unless from or to a table of one), or taken from a table in a hand;
tables within the tolerance; no table of one left waiting when it could be broken or filled."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director.balancing import (
    BalancePlan,
    BalanceSettings,
    MoveReason,
    TableBalancer,
    apply_plan,
    lone_table_can_play,
)
from tournaments.director.seating import TableSeats, allowed_seats, blind_areas, draw_seats

PROPERTY = settings(derandomize=True, max_examples=300, deadline=None)


@st.composite
def tournaments(draw: st.DrawFn) -> list[TableSeats]:
    """Random tables: 1-10 tables of one size, any occupancy, blinds anywhere, some in a hand."""
    max_seats = draw(st.sampled_from([2, 6, 9, 10]))
    tables = []
    for table_id in range(1, draw(st.integers(1, 10)) + 1):
        seats = draw(st.sets(st.integers(1, max_seats), max_size=max_seats))
        button = draw(st.none() | st.integers(1, max_seats))
        big_blind = None if button is None else draw(st.integers(1, max_seats))
        in_hand = bool(seats) and draw(st.booleans())
        entries = {seat: f"e{table_id}.{seat}" for seat in seats}
        tables.append(TableSeats(table_id, max_seats, entries, button, big_blind, in_hand))
    return tables


def check_plan(before: list[TableSeats], plan: BalancePlan, tolerance: int) -> list[TableSeats]:
    """The invariants of one balancing step; returns the tables after it."""
    after = apply_plan(before, plan)
    seated = [entry for t in after for entry in t.seats.values()]
    assert len(seated) == len(set(seated)), "somebody seated twice"
    assert sorted(seated) == sorted(e for t in before for e in t.seats.values()), "somebody lost"
    by_id = {t.table_id: t for t in before}
    for move in plan.moves:
        source = by_id[move.from_table]
        assert not source.in_hand, "a player taken from a table in a hand"
        assert source.seats[move.from_seat] == move.entry
        lone = source.count == 1 or by_id[move.to_table].count == 1  # a table of one never waits
        if move.reason is not MoveReason.FINAL_REDRAW and not lone:
            assert move.to_seat not in blind_areas(by_id[move.to_table])[0], "into the small blind"
    for t in before:
        if t.in_hand:
            now = {x.table_id: x for x in after}[t.table_id]
            assert all(now.seats.get(s) == e for s, e in t.seats.items()), "hand disturbed"
    assert all(t.count <= t.max_seats for t in after)
    if not any(t.in_hand for t in before) and len({t.max_seats for t in before}) == 1:
        counts = {t.table_id: t.count for t in after}
        assert not lone_table_can_play(counts, before[0].max_seats), "a table of one left waiting"
    if not any(t.in_hand for t in before) and len(after) > 1:
        shortest = min(t.count for t in after)
        for long in after:
            if long.count - shortest > tolerance:  # only if no helping table has a fair seat
                assert not any(long.count - t.count >= 2 and allowed_seats(t) for t in after), (
                    "tables left unbalanced"
                )
    return after


@PROPERTY
@given(tables=tournaments(), tolerance=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_t10_one_balancing_step_keeps_everyone_and_respects_hands(
    tables: list[TableSeats], tolerance: int, seed: int
) -> None:
    """T-10: any tables, any blinds, any hands running: one plan keeps every invariant."""
    balancer = TableBalancer(Random(seed), BalanceSettings(tolerance=tolerance))
    after = check_plan(tables, balancer.plan(tables), tolerance)
    ended = [TableSeats(t.table_id, t.max_seats, t.seats, t.button, t.big_blind) for t in after]
    check_plan(ended, balancer.plan(ended, final_redrawn=True), tolerance)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(
    entries=st.integers(2, 400),
    max_seats=st.sampled_from([6, 9]),
    tolerance=st.integers(1, 2),
    seed=st.integers(0, 2**32),
)
def test_t10_whole_tournament_of_bust_outs(
    entries: int, max_seats: int, tolerance: int, seed: int
) -> None:
    """T-10: bust players out until one is left, some tables mid-hand at every step."""
    rng = Random(seed)
    balancer = TableBalancer(Random(seed + 1), BalanceSettings(tolerance=tolerance))
    tables = draw_seats([f"p{i}" for i in range(entries)], max_seats, rng)
    redrawn = len(tables) == 1
    while sum(t.count for t in tables) > 1:
        stepped = []
        for t in tables:
            seats = dict(t.seats)
            if seats and rng.random() < 0.5:
                for seat in rng.sample(sorted(seats), rng.randint(0, min(2, len(seats) - 1))):
                    del seats[seat]
            button = rng.choice(sorted(seats)) if seats else None
            big_blind = rng.randint(1, max_seats) if seats else None
            in_hand = len(seats) > 1 and rng.random() < 0.3
            stepped.append(TableSeats(t.table_id, max_seats, seats, button, big_blind, in_hand))
        if sum(t.count for t in stepped) < 1:
            break
        plan = balancer.plan(stepped, final_redrawn=redrawn)
        redrawn = redrawn or plan.final_table is not None
        tables = check_plan(stepped, plan, tolerance)
        assert len(tables) >= -(-sum(t.count for t in tables) // max_seats)
    assert redrawn or entries <= max_seats
