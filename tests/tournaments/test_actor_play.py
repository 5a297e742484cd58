"""The floor under the actor: synchronized breaks, hand-for-hand, moves between hands, places."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments.actor_harness import Room
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director.balancing import SeatMove
from tournaments.director.structure import AnteKind, BreakMode, BreakSchedule, Level, Structure
from tournaments.ops.simulation import START, Bots
from tournaments.tables.table import TournamentTable

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=600) for i in range(12))


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


class Watcher(Bots):
    """Bots that also note when each hand started and whether moves left hands alone."""

    def __init__(self, seed: int) -> None:
        super().__init__(random.Random(seed))
        self.starts: list[tuple[float, int, int, int]] = []  # time, table, players left, tables
        self.seen: set[str] = set()
        self.bad_moves: list[SeatMove] = []
        self.moves = 0

    def turn(self, table: TournamentTable, entry: str) -> None:
        if table.hand_id not in self.seen:
            self.seen.add(table.hand_id)
            actor = self.actor
            assert actor is not None
            playing = sum(1 for t in actor.floor.tables.values() if t.count >= 2)
            self.starts.append(
                (actor.clock.seconds(), table.table_id, actor.players_left(), playing)
            )
        super().turn(table, entry)

    def moved(self, move: SeatMove) -> None:
        self.moves += 1
        actor = self.actor
        assert actor is not None
        source = actor.floor.tables.get(move.from_table)
        if source is not None and source.hand_running:
            self.bad_moves.append(move)


def run(
    room: Room, structure: Structure, players: int, seed: int
) -> tuple[TournamentActor, Watcher]:
    watcher = Watcher(seed)
    config = make_config(
        f"play{seed}", structure, buy_in=100, fee=10, starts_at=START + 60,
        between_hands_seconds=30,
    )  # fmt: skip
    actor = room.actor(config, watcher)
    for n in range(players):
        room.fund_player(f"w{n}", 1000)
    for n in range(players):
        room.wait(actor.register(f"w{n}"))
    room.run_to_end(actor)
    return actor, watcher


def test_synchronized_break_every_table_rests_and_resumes_together(room: Room) -> None:
    """T-11: no hand starts during the break; every table resumes at the common end."""
    breaks = BreakSchedule(BreakMode.AFTER_LEVELS, seconds=300, every_levels=1, synchronized=True)
    structure = Structure("brk", 1500, LEVELS, AnteKind.NONE, breaks)
    actor, watcher = run(room, structure, 40, seed=11)
    break_start, break_end = START + 60 + 600, START + 60 + 900
    during = [s for s in watcher.starts if break_start <= s[0] < break_end]
    assert not during
    after = {}
    for when, table, _, _ in watcher.starts:
        if when >= break_end and table not in after:
            after[table] = when
    assert after and set(after.values()) == {break_end}
    assert actor.status == "finished"


def test_hand_for_hand_on_the_bubble_tables_deal_together(room: Room) -> None:
    """T-11/T-9: on the bubble every table deals the round's hand at the same moment."""
    structure = Structure("h4h", 1500, LEVELS, AnteKind.NONE)
    actor, watcher = run(room, structure, 60, seed=12)
    paid = actor.prizes.paid_places if actor.prizes else 0
    bubble = [s for s in watcher.starts if s[2] == paid + 1 and s[3] > 1]
    assert bubble, "the bubble was played hand-for-hand"
    by_time: dict[float, list[tuple[int, int]]] = {}
    for when, table, _, playing in bubble:
        by_time.setdefault(when, []).append((table, playing))
    for dealt in by_time.values():
        tables = [table for table, _ in dealt]
        assert len(tables) == len(set(tables)) == dealt[0][1]  # every playing table, once
    assert sum(1 for r in actor.results if r.prize) == paid


def test_moves_happen_only_between_hands_and_places_are_complete(room: Room) -> None:
    """T-10: nobody is moved out of a hand; T-9: every place from 1 to entries is given once."""
    structure = Structure("mv", 1500, LEVELS, AnteKind.NONE)
    actor, watcher = run(room, structure, 45, seed=13)
    assert watcher.moves > 0 and not watcher.bad_moves
    assert len(actor.results) == 45
    count = Counter(r.place for r in actor.results)
    assert all(count[r.place] == r.tied for r in actor.results)  # T-9 ties share places
    covered: set[int] = set()
    for r in actor.results:
        covered.update(range(r.place, r.place + r.tied))
    assert covered == set(range(1, 46))
    assert not watcher.chip_errors and room.check()


class Away(Watcher):
    """Bots, except that one player never answers (disconnected from the start)."""

    def __init__(self, seed: int, away: str) -> None:
        super().__init__(seed)
        self.away = away
        self.asked_away = 0

    def turn(self, table: TournamentTable, entry: str) -> None:
        if entry == self.away:
            self.asked_away += 1
            return  # never acts: the clock runs (C-6, C-7), then T-12 acts for them
        super().turn(table, entry)


def test_disconnected_player_is_dealt_in_and_blinded_out(room: Room) -> None:
    """T-12: not connected, still dealt in, still posts; the clock folds or checks for them."""
    structure = Structure("away", 1500, LEVELS, AnteKind.NONE)
    away = Away(14, "w3")
    config = make_config(
        "away", structure, buy_in=100, fee=10, starts_at=START + 60, between_hands_seconds=30
    )
    actor = room.actor(config, away)
    for n in range(9):
        room.fund_player(f"w{n}", 1000)
        room.wait(actor.register(f"w{n}"))
    room.advance(61, actor)
    actor.set_presence("w3", connected=False, sitting_out=False)
    room.run_to_end(actor)
    assert away.asked_away >= 1  # asked once; after a timeout they sit out and are acted for
    (result,) = [r for r in actor.results if r.entry == "w3"]
    assert result.place >= 1
    assert actor.status == "finished" and room.check()
    assert not away.chip_errors
