"""Simultaneous knockouts (T-9), places, the bubble and hand-for-hand, T-8 end, T-14 credit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director.eliminations import (
    Knockout,
    PotResult,
    bubble_burst,
    hand_for_hand,
    in_the_money,
    knockout_pot_winners,
    next_hand_may_start,
    on_the_bubble,
    order_from_button,
    place_knockouts,
    split_bounty,
    tournament_over,
)
from tournaments.director.payouts import prize_table, tied_prizes


def test_t9_more_chips_at_the_start_of_the_hand_finishes_higher() -> None:
    """T-9: two out in one hand with 10 left: 1,000 chips finishes 9th, 500 chips 10th."""
    finishes = place_knockouts(
        10, [Knockout("big", 1, 1000, 1, ("w",)), Knockout("small", 1, 500, 2, ("w",))]
    )
    assert {f.entry: f.place for f in finishes} == {"small": 10, "big": 9}
    assert all(f.tied == 1 and f.busted_by == ("w",) for f in finishes)


def test_t9_equal_stacks_first_left_of_the_button_finishes_lowest() -> None:
    """T-9: equal stacks: the player seated first to the left of the button finishes lowest."""
    order = order_from_button(button=5, seats_dealt=[1, 3, 5, 6, 8], max_seats=9)
    assert order == {6: 1, 8: 2, 1: 3, 3: 4, 5: 5}
    knockouts = [Knockout(f"seat{s}", 1, 300, order[s]) for s in (1, 6, 8)]
    places = {f.entry: f.place for f in place_knockouts(20, knockouts)}
    assert places == {"seat6": 20, "seat8": 19, "seat1": 18}


def test_t9_hand_for_hand_knockouts_across_tables() -> None:
    """T-9: one hand-for-hand round, three tables: stacks rank first, then order from button."""
    knockouts = [
        Knockout("a", 1, 800, 2),
        Knockout("b", 2, 400, 5),
        Knockout("c", 3, 800, 1),
    ]
    places = {f.entry: f.place for f in place_knockouts(16, knockouts)}
    assert places == {"b": 16, "c": 15, "a": 14}


def test_t9_exact_tie_across_tables_shares_the_places_and_prizes() -> None:
    """T-9 (silent case): equal stacks and equal order at two tables tie and split (T-7)."""
    finishes = place_knockouts(3, [Knockout("a", 1, 500, 3), Knockout("b", 2, 500, 3)])
    assert [(f.place, f.tied) for f in finishes] == [(2, 2), (2, 2)]
    table = prize_table(9, 1001)
    assert tied_prizes(table, 2, 2) == ((300 + 200) // 2, 0)


def test_bubble_hand_for_hand_and_the_money() -> None:
    """T-5: 16 paid: 17 left is the bubble, hand-for-hand on 2+ tables; 16 left in the money."""
    assert on_the_bubble(17, 16) and not in_the_money(17, 16) and in_the_money(16, 16)
    assert hand_for_hand(17, 16, tables=2) and not hand_for_hand(17, 16, tables=1)
    assert not hand_for_hand(18, 16, tables=2) and not hand_for_hand(16, 16, tables=2)
    assert bubble_burst(17, 15, 16) and not bubble_burst(16, 15, 16)
    assert not next_hand_may_start({1}, {1, 2}) and next_hand_may_start({1, 2}, {1, 2})


def test_t8_satellite_ends_at_its_number_of_seats() -> None:
    """T-8: 4 seats, 6 left, 3 out in one hand: places 6, 5, 4; 4th still wins a seat; over."""
    knockouts = [Knockout("x", 1, 100, 1), Knockout("y", 1, 200, 2), Knockout("z", 1, 300, 3)]
    places = {f.entry: f.place for f in place_knockouts(6, knockouts)}
    assert places == {"x": 6, "y": 5, "z": 4}
    assert tournament_over(3, satellite_seats=4) and tournament_over(4, satellite_seats=4)
    assert not tournament_over(5, satellite_seats=4)
    assert tournament_over(1) and not tournament_over(2)


def test_t14_knockout_credit_goes_to_the_winners_of_the_highest_pot() -> None:
    """T-14: the busted player's highest pot decides who busted them; a split pot splits."""
    pots = [
        PotResult(frozenset({"a", "b", "c"}), ("b",)),
        PotResult(frozenset({"a", "b", "c"}), ("b", "c")),
        PotResult(frozenset({"b", "c"}), ("c",)),
    ]
    assert knockout_pot_winners("a", pots) == ("b", "c")
    shares, rest = split_bounty(1001, ("b", "c"))
    assert shares == {"b": 500, "c": 500} and rest == 1


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    stacks=st.lists(st.integers(1, 5), min_size=1, max_size=8),
    extra=st.integers(0, 20),
)
def test_t9_property_places_are_consistent(stacks: list[int], extra: int) -> None:
    """T-9: places cover exactly the worst places; a bigger starting stack never finishes lower."""
    left = len(stacks) + extra
    knockouts = [Knockout(f"p{i}", i % 3, s, i // 3 + 1) for i, s in enumerate(stacks)]
    finishes = {f.entry: f for f in place_knockouts(left, knockouts)}
    by_place: dict[int, list[int]] = {}
    for f in finishes.values():
        by_place.setdefault(f.place, []).append(f.tied)
    covered = []
    for place, ties in by_place.items():
        assert ties == [len(ties)] * len(ties)  # a tie of k names k players
        covered += range(place, place + len(ties))
    assert sorted(covered) == list(range(extra + 1, left + 1))
    for a in knockouts:
        for b in knockouts:
            if a.stack_at_start > b.stack_at_start:
                assert finishes[a.entry].place < finishes[b.entry].place
