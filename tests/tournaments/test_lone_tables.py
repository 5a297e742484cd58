"""T-10: a table with one player never waits: it is filled or broken before its next hand.

The case seen from outside (about one MTT in eight): two players heads-up at table 1, whose
button sits just after the big blind so that every empty seat lies between them (all blind
seats); a late entrant found no allowed seat, opened table 2 alone, and was dealt nothing
for minutes, through a break: breaking table 2 waited for table 1's blinds to move, and
nothing looked again. Then a sweep over late entries and re-entries: whenever no hand is
being played, no table holds one player while the players fit on fewer tables or another
table has one to spare.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments.actor_harness import Room
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director.balancing import lone_table_can_play
from tournaments.director.seating import TableSeats, allowed_seats, seat_newcomer
from tournaments.director.structure import AnteKind, BreakMode, BreakSchedule, Level, Structure
from tournaments.ops.simulation import START, Bots
from tournaments.tables.knockouts import HandResult
from tournaments.tables.table import TournamentTable

LEVELS = tuple(Level(5 * 2**i, 10 * 2**i, seconds=120) for i in range(14))
BREAKS = BreakSchedule(BreakMode.AFTER_LEVELS, seconds=60, every_levels=2)
STRUCTURE = Structure("lone", 5000, LEVELS, AnteKind.NONE, breaks=BREAKS)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


class Dealt(Bots):
    """Bots that fold or check at once (no knockouts: the test decides who plays), and note
    who was dealt each hand."""

    def __init__(self, seed: int) -> None:
        super().__init__(random.Random(seed))
        self.dealt: list[tuple[float, int, frozenset[str]]] = []  # (when, table, players)

    def turn(self, table: TournamentTable, entry: str) -> None:
        hand = table.hand
        assert hand is not None
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        table.act(entry, "fold" if legal.can_fold and legal.call_amount else "check")

    def hand_ended(self, table: TournamentTable, result: HandResult) -> None:
        clock = table.clock.seconds()
        self.dealt.append((clock, table.table_id, frozenset(result.start_stacks)))
        super().hand_ended(table, result)


def lone_waiting(actor: TournamentActor) -> list[int]:
    """Tables of one that could be broken or filled, when no table is in a hand."""
    tables = actor.floor.tables
    if any(t.hand_running for t in tables.values()):
        return []
    counts = {t.table_id: t.count for t in tables.values()}
    if lone_table_can_play(counts, actor.config.max_seats):
        return [tid for tid, count in counts.items() if count == 1]
    return []


def test_t10_a_late_entrant_takes_a_blind_seat_rather_than_a_table_alone() -> None:
    """Heads-up at a table of three, its one empty seat a blind seat: the late entrant sits
    there (dealt in from the next hand), not alone at a new table; a new table only when
    every table is full."""
    heads_up = TableSeats(1, 3, {1: "a", 3: "c"}, button=1, big_blind=3)
    assert allowed_seats(heads_up) == []
    seating, new = seat_newcomer([heads_up], "late", random.Random(0), 3, next_table_id=2)
    assert (seating.table_id, seating.seat, new) == (1, 2, None)
    full = TableSeats(1, 3, {1: "a", 2: "b", 3: "c"}, button=1, big_blind=3)
    seating, new = seat_newcomer([full], "late", random.Random(0), 3, next_table_id=2)
    assert new is not None and seating.table_id == 2


def test_t10_a_late_entrant_at_a_heads_up_table_is_dealt_in(room: Room) -> None:
    """Two at a table of three, its empty seat a blind seat when a late entrant registers:
    the entrant is dealt a hand within table 1's next two hands (before: table 2 opened for
    them alone and dealt nothing for the rest of the test, through a break)."""
    bots = Dealt(3)
    config = make_config(
        "lone", STRUCTURE, buy_in=100, fee=10, starts_at=START + 60, fmt="reentry",
        late_registration_levels=6, between_hands_seconds=2, max_seats=3,
    )  # fmt: skip
    actor = room.actor(config, bots)
    for name in ("a", "b"):
        room.fund_player(name, 10_000)
        room.wait(actor.register(name))
    room.advance(61, actor, step=0.5)
    assert actor.status == "running" and len(actor.floor.tables) == 1
    (one,) = actor.floor.tables.values()
    for _ in range(20):  # until table 1 sits so that its one empty seat is a blind seat
        if not allowed_seats(one.seats_view()):
            break
        room.advance(2, actor, step=2)
    assert not allowed_seats(one.seats_view()), "the blinds never sat that way"
    room.fund_player("late", 10_000)
    room.wait(actor.register("late"))
    registered_at = room.clock.seconds()
    assert lone_waiting(actor) == []
    room.advance(400, actor, step=0.5)  # more than a level, a break, and many hands
    hands = [(when, tid, who) for when, tid, who in bots.dealt if when >= registered_at]
    played = [when for when, _, who in hands if "late" in who]
    assert played, "the late entrant was never dealt a hand"
    at_one = [when for when, tid, _ in hands if tid == 1]
    assert played[0] <= at_one[min(2, len(at_one) - 1)], "dealt in within two of table 1's hands"
    assert all(len(who) >= 2 for _, _, who in hands)


@pytest.mark.parametrize(
    ("seed", "max_seats", "fmt"),
    [(1, 9, "reentry"), (2, 9, "rebuy"), (3, 6, "reentry"), (4, 3, "reentry"), (5, 2, "reentry"),
     (6, 9, "reentry"), (7, 6, "reentry"), (8, 3, "reentry")],
)  # fmt: skip
def test_t10_no_table_of_one_waits_through_late_entries_and_reentries(
    room: Room, seed: int, max_seats: int, fmt: str
) -> None:
    """A field of 2 to 12 with late entries at random moments and bots re-entering when they
    bust (or rebuying): after every half second of play, whenever no hand is running, no table
    holds one player that could be seated elsewhere or joined by another; the tournament ends
    with every chip accounted for."""
    rng = random.Random(seed)
    bots = Bots(random.Random(seed + 100))
    config = make_config(
        f"sweep{seed}", STRUCTURE, buy_in=100, fee=10, starts_at=START + 30, fmt=fmt,
        late_registration_levels=4, max_seats=max_seats, between_hands_seconds=1,
    )  # fmt: skip
    actor = room.actor(config, bots)
    first = rng.randint(2, 12)
    late = rng.randint(2, 8)
    names = [f"s{seed}p{n}" for n in range(first + late)]
    for name in names:
        room.fund_player(name, 100_000)
    for name in names[:first]:
        room.wait(actor.register(name))
    room.advance(31, actor, step=0.5)
    arrivals = sorted(rng.uniform(0, 4 * 120) for _ in range(late))
    waiting: list[tuple[float, list[int]]] = []
    elapsed = 0.0
    while actor.status == "running" and room.clock.seconds() < START + 4000:
        while arrivals and arrivals[0] <= elapsed:
            arrivals.pop(0)
            name = names[first]
            first += 1
            actor.register(name).addErrback(lambda _: None)
        room.advance(0.5, actor, step=0.5)
        elapsed += 0.5
        lone = lone_waiting(actor)
        if lone:
            waiting.append((room.clock.seconds(), lone))
    assert not waiting, waiting[:5]
    room.run_to_end(actor, limit=20_000)
    assert actor.status == "finished" and not bots.chip_errors and room.check()
