"""T-12: a `tournament_sit_out` is honoured from the first hand, whenever it arrives.

Two ways it used to be lost for a hand, with the player asked to act while their clock and
bank ran: sent before the player had a seat (before the start: no table held the flag), or
sent while their clock was already running (the flag was read only when a turn began).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.engine.events import Folded
from tests.tournaments.actor_harness import Room
from tests.tournaments.test_actor_money import config
from tests.tournaments.test_table_rules import LEVELS, make_table
from tournaments.director.structure import AnteKind
from tournaments.ops.simulation import START
from tournaments.tables.floor import Players
from tournaments.tables.table import TournamentTable


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


class Callers(Players):
    """Every player calls or checks at once, except `away`, who never answers."""

    def __init__(self, away: str) -> None:
        self.away = away
        self.turns: list[tuple[str, str, float]] = []  # (entry, hand id, when asked)
        self.ended: list[str] = []

    def turn(self, table: TournamentTable, entry: str) -> None:
        self.turns.append((entry, table.driver.hand_id, table.clock.seconds()))
        if entry == self.away:
            return
        hand = table.hand
        assert hand is not None
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        table.act(entry, "call" if legal.call_amount else "check")

    def hand_ended(self, table: TournamentTable, result: object) -> None:
        self.ended.append(table.driver.hand_id)


@pytest.mark.parametrize("sng", [False, True])
def test_t12_a_sit_out_sent_before_the_start_holds_for_the_first_hand(
    room: Room, sng: bool
) -> None:
    """Registered, then `tournament_sit_out true` before any table exists: at the first hand
    the player is acted for at once (never asked, no clock), and the hand ends at the start
    time. `false` before the start undoes it for another player, who is asked as usual."""
    players = Callers(away="a")
    cfg = (
        config("so-sng", starts_at=START, sit_and_go=True, max_entries=3)
        if sng
        else config("so-mtt", starts_at=START + 60)
    )
    actor = room.actor(cfg, players)
    for name in ("a", "b", "c"):
        room.fund_player(name, 10_000)
        room.wait(actor.register(name))
        if name == "a":
            actor.set_presence("a", connected=True, sitting_out=True)
        if name == "b":
            actor.set_presence("b", connected=True, sitting_out=True)
            actor.set_presence("b", connected=True, sitting_out=False)
    if not sng:
        room.advance(60, actor)
    assert actor.status == "running"
    started = room.clock.seconds()
    first = f"{actor.tid}:1:1"
    assert players.ended and players.ended[0] == first  # over without the clock moving
    assert room.clock.seconds() == started
    assert all(entry != "a" for entry, hand, _ in players.turns if hand == first)
    assert any(entry == "b" for entry, hand, _ in players.turns if hand == first)
    assert actor.floor.presence.sitting_out("a") and not actor.floor.presence.sitting_out("b")


def test_t12_a_sit_out_during_the_players_own_turn_acts_for_them_at_once() -> None:
    """The sit-out arrives while the player's clock runs: they are acted for now (fold to the
    big blind), not when their action time and bank run out; nobody waits for the clock."""
    table, recorder, clock = make_table({1: "a", 2: "b", 3: "c"}, button=3, policy=None)
    table.start_hand(LEVELS[0], 0, AnteKind.NONE)  # a small, b big, c first to act
    assert table.to_act() == "c" and recorder.turns[-1] == "c"
    table.set_sitting_out("c", True)
    assert table.to_act() == "a"  # at once: the clock did not move
    hand = table.hand
    assert hand is not None
    assert any(isinstance(e, Folded) and table.order[e.player] == "c" for e in hand.log)
    assert clock.seconds() == 0
    table.set_sitting_out("b", True)  # not b's turn: b is acted for when it comes
    assert table.to_act() == "a"
    table.act("a", "call")
    assert table.hand is None or table.to_act() != "b"
