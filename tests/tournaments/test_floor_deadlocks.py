"""Small tables must not stop a tournament (T-10, T-11): two ways a field of tables of three
used to stand still for ever, found by the crash tests of T-18.

- A hand-for-hand round whose last knockout ends hand-for-hand play is still a round: the
  tables that finished first wait for it and must be dealt again when it ends.
- Breaking a table waits for the blinds to move when its players would land in small-blind
  seats; when no other table can deal a hand, the blinds never move: any empty seat will do.
  A table of one never waits (its player could never be dealt a hand): any empty seat.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.tournaments.actor_harness import Room
from tournaments.config import make_config
from tournaments.director.balancing import TableBalancer
from tournaments.director.seating import TableSeats
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.simulation import START, Bots

LEVELS = tuple(Level(5 * 2**i, 10 * 2**i, seconds=300) for i in range(12))
STRUCTURE = Structure("three", 1000, LEVELS, AnteKind.NONE)


def test_a_table_breaks_into_blind_seats_when_no_other_table_can_deal() -> None:
    """Heads-up on two tables of three, every empty seat a blind seat: the break happens."""
    one = TableSeats(1, 3, {1: "a"}, button=1, big_blind=3)
    two = TableSeats(2, 3, {2: "b"}, button=3, big_blind=2)
    plan = TableBalancer(random.Random(1)).plan([one, two])
    assert plan.broken_tables == (2,) and plan.final_table == 1  # then the final redraw
    assert {(m.entry, m.from_table, m.to_table) for m in plan.moves} == {("a", 1, 1), ("b", 2, 1)}


def test_a_table_of_one_breaks_into_a_blind_seat_rather_than_wait() -> None:
    """T-10: the one open seat at the dealing table is its small blind's; a player alone at a
    table can never be dealt a hand, so the table breaks now (the final redraw follows)
    rather than wait for the blinds to move (it used to wait, and nothing looked again)."""
    one = TableSeats(1, 3, {1: "a", 3: "c"}, button=1, big_blind=3)
    two = TableSeats(2, 3, {2: "b"}, button=3, big_blind=2)
    plan = TableBalancer(random.Random(1)).plan([one, two])
    assert plan.broken_tables == (2,) and plan.final_table == 1
    assert {m.entry for m in plan.moves} == {"a", "b", "c"}


def test_a_break_of_two_waits_for_the_blinds_and_says_for_which_table() -> None:
    """T-10: two players whose only seats at the dealing table are small-blind seats wait a
    hand (both tables deal meanwhile); the plan names the table whose hand end is awaited."""
    one = TableSeats(1, 6, {1: "a", 2: "c", 3: "e"}, button=3, big_blind=1)
    two = TableSeats(2, 6, {2: "x", 4: "y"})
    plan = TableBalancer(random.Random(1)).plan([one, two])
    assert plan.moves == () and plan.broken_tables == () and plan.waiting_for == (1,)


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_ten_players_on_tables_of_three_play_to_the_end(tmp_path: Path, seed: int) -> None:
    """Through hand-for-hand (4 left, 3 paid) to the winner; these seeds stood still before."""
    room = Room(tmp_path)
    try:
        bots = Bots(random.Random(seed))
        config = make_config(
            f"three{seed}", STRUCTURE, buy_in=100, fee=10, starts_at=START + 60, max_seats=3,
            between_hands_seconds=0.2,
        )  # fmt: skip
        actor = room.actor(config, bots)
        for n in range(10):
            room.fund_player(f"p{n}", 1_000)
            room.wait(actor.register(f"p{n}"))
        room.run_to_end(actor, limit=5_000)
        assert actor.status == "finished" and not bots.chip_errors
        assert sorted(r.place for r in actor.results) == list(range(1, 11))
    finally:
        room.close()
