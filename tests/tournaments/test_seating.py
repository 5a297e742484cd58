"""Random seats (T-1), positions to the blinds, balancing and breaking scenarios (T-10)."""

from __future__ import annotations

from random import Random

from tournaments.director.balancing import (
    BalanceSettings,
    MoveReason,
    TableBalancer,
    apply_plan,
    next_big_blind_seat,
)
from tournaments.director.seating import (
    TableSeats,
    allowed_seats,
    blind_areas,
    draw_button,
    draw_seats,
    hands_until_big_blind,
    seat_newcomer,
)


def table(
    table_id: int,
    seats: list[int],
    button: int | None = None,
    bb: int | None = None,
    in_hand: bool = False,
    max_seats: int = 9,
) -> TableSeats:
    """A table with entries named `t<id>s<seat>` in `seats`."""
    return TableSeats(
        table_id, max_seats, {s: f"t{table_id}s{s}" for s in seats}, button, bb, in_hand
    )


def everyone(tables: list[TableSeats]) -> list[str]:
    """Every seated entry, sorted."""
    return sorted(e for t in tables for e in t.seats.values())


def test_t1_seats_are_drawn_at_random_and_balanced() -> None:
    """T-1: 100 entries on 9-max tables: 12 tables of 8 or 9, each entry once, RNG decides."""
    entries = [f"p{i}" for i in range(100)]
    tables = draw_seats(entries, 9, Random(1))
    assert len(tables) == 12 and {t.count for t in tables} <= {8, 9}
    assert everyone(tables) == sorted(entries)
    again = draw_seats(entries, 9, Random(1))
    other = draw_seats(entries, 9, Random(2))
    assert [t.seats for t in again] == [t.seats for t in tables]
    assert [t.seats for t in other] != [t.seats for t in tables]
    assert draw_button(tables[0], Random(3)) in tables[0].seats


def test_t10_positions_relative_to_the_blinds() -> None:
    """T-10: seat after the big blind is the next big blind; (button, bb] seats are blind seats."""
    t = table(1, [1, 2, 3, 5, 7, 8], button=2, bb=5)  # seat 3 was the small blind
    assert next_big_blind_seat(t) == 7
    assert hands_until_big_blind(t, 6) == 0  # empty seat right after the big blind
    assert hands_until_big_blind(t, 8) == 1
    small_blind_seats, button_seats = blind_areas(t)
    assert small_blind_seats == {4} and button_seats == set()
    assert 4 not in allowed_seats(t)
    heads_up_gap = table(2, [1, 5], button=1, bb=5)  # seats 2-4 would post the small blind
    assert blind_areas(heads_up_gap)[0] == {2, 3, 4}


def test_t10_balancing_moves_the_next_big_blind_to_the_same_position() -> None:
    """T-10: 9 v 6 players: the next big blind moves, to the seat that is big blind next."""
    long = table(1, list(range(1, 10)), button=3, bb=5)
    short = table(2, [1, 2, 4, 6, 7, 9], button=1, bb=4)
    plan = TableBalancer(Random(0)).plan([long, short])
    assert len(plan.moves) == 1
    (move,) = plan.moves
    assert (move.entry, move.to_table, move.to_seat) == ("t1s6", 2, 5)
    assert move.reason is MoveReason.BALANCE
    after = apply_plan([long, short], plan)
    assert [t.count for t in after] == [8, 7]


def test_t10_never_moved_into_the_small_blind() -> None:
    """T-10: the only seat in the mover's position would post the small blind: take another."""
    long = table(1, list(range(1, 10)), button=3, bb=5)
    short = table(2, [1, 2, 4, 5, 6, 7], button=1, bb=4)  # empty: 3 (small blind), 8, 9
    (move,) = TableBalancer(Random(0)).plan([long, short]).moves
    assert move.to_seat in {8, 9} and move.to_seat != 3


def test_t10_tolerance_is_a_setting() -> None:
    """T-10: with tolerance 2, tables of 9 and 7 stay as they are; 9 and 6 do not."""
    balancer = TableBalancer(Random(0), BalanceSettings(tolerance=2))
    assert not balancer.plan([table(1, list(range(1, 10))), table(2, list(range(1, 8)))]).moves
    assert balancer.plan([table(1, list(range(1, 10))), table(2, list(range(1, 7)))]).moves


def test_t10_the_smallest_table_breaks_when_its_players_fit() -> None:
    """T-10: 9, 5 and 3 players on 9-max tables need 2 tables: the 3 are reseated at random."""
    tables = [table(1, list(range(1, 10))), table(2, [1, 3, 5, 7, 9]), table(3, [2, 4, 6])]
    plan = TableBalancer(Random(5)).plan(tables)
    assert plan.broken_tables == (3,)
    breaks = [m for m in plan.moves if m.reason is MoveReason.BREAK]
    assert sorted(m.entry for m in breaks) == ["t3s2", "t3s4", "t3s6"]
    after = apply_plan(tables, plan)
    assert [t.table_id for t in after] == [1, 2] and sorted(t.count for t in after) == [8, 9]
    assert everyone(after) == everyone(tables)


def test_t10_a_table_in_a_hand_is_left_alone_until_its_hand_ends() -> None:
    """T-10: the long table is in a hand: no move now, it is waited for; then it moves."""
    long = table(1, list(range(1, 10)), button=1, bb=3, in_hand=True)
    short = table(2, [1, 2, 3, 4, 5, 6], button=1, bb=3)
    plan = TableBalancer(Random(0)).plan([long, short])
    assert plan.moves == () and plan.waiting_for == (1,)
    later = TableBalancer(Random(0)).plan(
        [long.__class__(**{**_fields(long), "in_hand": False}), short]
    )
    assert len(later.moves) == 1


def _fields(t: TableSeats) -> dict[str, object]:
    """The constructor arguments of a table."""
    return {
        "table_id": t.table_id,
        "max_seats": t.max_seats,
        "seats": t.seats,
        "button": t.button,
        "big_blind": t.big_blind,
        "in_hand": t.in_hand,
    }


def test_t10_final_table_redraw() -> None:
    """T-10: down to 9 players: the last other table breaks and the final table is redrawn."""
    tables = [table(1, [1, 2, 3, 4, 5], button=2, bb=4), table(2, [3, 6, 9, 1], button=3, bb=9)]
    plan = TableBalancer(Random(9)).plan(tables)
    assert plan.broken_tables == (2,) and plan.final_table == 1
    assert {m.reason for m in plan.moves} == {MoveReason.FINAL_REDRAW} and len(plan.moves) == 9
    (final,) = apply_plan(tables, plan)
    assert everyone([final]) == everyone(tables) and final.button == plan.final_button
    assert TableBalancer(Random(9)).plan([final], final_redrawn=True).moves == ()


def test_t5_late_entry_is_seated_on_a_short_table_or_a_new_one() -> None:
    """T-5/T-1: a late entry sits at random on the shortest table; all full opens a new one."""
    tables = [table(1, list(range(1, 10))), table(2, [1, 2, 3, 4])]
    seating, new = seat_newcomer(tables, "late", Random(0), 9, next_table_id=3)
    assert seating.table_id == 2 and seating.seat not in tables[1].seats and new is None
    full = [table(1, list(range(1, 10)))]
    seating, new = seat_newcomer(full, "late", Random(0), 9, next_table_id=2)
    assert new is not None and seating.table_id == 2


def test_t10_no_final_redraw_while_tables_outside_the_subset_play() -> None:
    """T-10: an actor passing two of five tables gets the break but no final-table redraw."""
    tables = [table(1, [1, 2, 3, 4, 5], button=2, bb=4), table(2, [3, 6, 9, 1], button=3, bb=9)]
    plan = TableBalancer(Random(9)).plan(tables, tables_in_play=5)
    assert plan.broken_tables == (2,) and plan.final_table is None
    assert {m.reason for m in plan.moves} == {MoveReason.BREAK}
    (last,) = apply_plan(tables, plan)
    assert TableBalancer(Random(9)).plan([last], tables_in_play=4).moves == ()
