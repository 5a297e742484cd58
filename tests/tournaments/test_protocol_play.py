"""A bots' tournament over the protocol: every hand rebuilt from the frames is the engine's
hand, and no frame shows anyone a hole card that is not theirs before it is shown (C-15)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments.actor_harness import Room
from tests.tournaments.protocol_room import (
    engine_view,
    hand_frames,
    open_tournament,
    play,
    rebuild,
    run_tournament,
)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def test_every_hand_rebuilt_from_the_frames_is_the_engines(room: Room) -> None:
    """Section 6 at tournament tables: from `hand_started`, `blind_posted`, each holder's
    `hole_cards`, `player_acted`, `board_dealt`, `hand_shown`, `pot_awarded` and `hand_ended`
    alone, each hand of a 40-entry tournament (moves and broken tables included) is rebuilt,
    and it is the hand the engine dealt: stacks, forced bets, every card and action in order,
    every pot share and the final stacks."""
    actor, hub, scan = run_tournament(room, 40, seed=7)
    assert actor.status == "finished" and room.check()
    rebuilt = 0
    for log in hub.log.values():
        for hand_id, frames in hand_frames(log).items():
            if not any(f["type"] == "hand_ended" for _, f in frames):
                continue
            mine = rebuild(frames)
            truth = engine_view(hub.engine_hands[hand_id])
            assert mine.stacks == truth.stacks, hand_id
            assert [(i, a) for i, a, _ in mine.posts] == [(i, a) for i, a, _ in truth.posts]
            assert mine.actions == truth.actions, hand_id
            assert mine.awards == truth.awards, hand_id
            assert mine.final == truth.final, hand_id
            rebuilt += 1
    assert rebuilt == actor.floor.hands == len(hub.engine_hands)
    assert len(hub.log) > 4  # several tables: balancing moved players (T-10)
    assert scan.leaks == [] and scan.checked_cards > 0


@pytest.mark.slow
def test_no_hole_card_leaks_in_a_two_thousand_entry_tournament(room: Room) -> None:
    """C-15 over a 2,000-entry tournament played through the desk, the tables' frames and the
    `tournament_act` request (in-process, JSON round trip per frame): no player and no observer
    ever receives a hole card that is not theirs before it is shown down."""
    actor, _hub, scan = run_tournament(room, 2000, seed=11, observers=4, keep_log=False)
    assert actor.status == "finished" and room.check()
    assert actor.floor.tables_max > 200
    assert scan.leaks == []
    assert scan.frames > 500_000 and scan.checked_cards > 100_000


def test_the_leak_scan_sees_another_players_card(room: Room) -> None:
    """The scan itself: a frame naming another player's hidden card is a leak; the holder's
    own cards, and cards once shown, are not."""
    actor, hub, scan = open_tournament(room, 3, seed=5)
    hub.bots.pop("bot00000")  # never answers: its turn waits on the clock
    play(
        room,
        actor,
        until=lambda: any(t.to_act() == "bot00000" for t in actor.floor.tables.values()),
    )
    (table,) = actor.floor.tables.values()
    hand = table.driver.hand
    assert hand is not None
    own = list(hand.holes[table.driver.index_of("bot00001") or 0] or ())
    other = list(hand.holes[table.driver.index_of("bot00000") or 0] or ())
    frame = {"type": "chat", "table_id": table.wire_id, "player": "x", "text": "hi", "at_ms": 0}
    scan.check("bot00001", {**frame, "note": own})
    assert scan.leaks == []
    scan.check("bot00001", {**frame, "note": [other[0]]})
    assert len(scan.leaks) == 1
    scan.check("observer", {**frame, "note": own})
    assert len(scan.leaks) == 2  # an observer holds no cards at all
