"""A first hand end to end: sit, deal, play, settle."""

from tests.cash.conftest import Harness, play_out, sit_all


def test_three_players_play_a_hand(room: Harness) -> None:
    actor = room.table()
    sit_all(room, actor, ["alice", "bob", "carol"])
    room.advance(1)
    assert actor.phase == "playing", actor.phase
    play_out(room, actor)
    room.drain()
    assert actor.phase == "idle"
    assert sum(s.stack for s in actor.seats.values()) <= 600
