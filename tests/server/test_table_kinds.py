"""The table protocol of docs/PROTOCOL.md section 6, at a cash table and at a tournament table.

Each scenario runs at both kinds of table through the real lobby and sessions: a client that
has read only the protocol document follows every hand (its stacks match each `hand_ended`),
after a reconnect (C-14) and after a move to another table (T-10), and never sees another
player's hidden cards (C-15).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.python.failure import Failure

from pokerroom.ledger import LedgerService
from pokerroom.protocol import errors
from tests.ledger.conftest import QueueReactor
from tests.server.harness import Room
from tests.server.table_kinds import CASH, TOURNAMENT, Player, Tables


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: LedgerService) -> Iterator[Room]:
    """A room without tables (each test adds the table of its kind)."""
    room = Room(reactor, clock, ledger)
    yield room
    room.stop()


@pytest.fixture(params=[CASH, TOURNAMENT])
def tables(request: pytest.FixtureRequest, room: Room) -> Iterator[Tables]:
    """A cash table `t1`, or a sit-and-go whose table the lobby serves."""
    tables = Tables(room, request.param)
    yield tables
    tables.stop()


def test_a_client_follows_every_hand_from_the_frames_alone(tables: Tables) -> None:
    """Section 6: players and an observer rebuild every stack of every hand from the frames."""
    ann, bob, cat = tables.seat(["ann", "bob", "cat"])
    table_id = tables.table_id("ann")
    watcher = tables.client("watcher")
    watcher.client.ok("observe", table_id=table_id)
    watcher.acting = False
    model = watcher.model(table_id)
    tables.run(lambda: len(model.followed) >= 12 or _over(tables))
    assert len(model.followed) >= 6
    for player in (ann, bob, cat):
        followed = player.model(table_id).followed
        assert followed and set(followed) <= set(model.followed)
        assert player.model(table_id).requests  # asked to act, with deadline and bank
    seen = [f for f in watcher.frames if f["type"] == "hole_cards"]
    assert seen == []  # C-15: an observer never gets hole cards


def _over(tables: Tables) -> bool:
    return tables.actor is not None and tables.actor.status == "finished"


def test_out_of_turn_and_bad_actions_get_codes_and_change_nothing(tables: Tables) -> None:
    """P-1: out of turn, bad sizes, bad names and strangers are refused; the hand is untouched."""
    players = {p.name: p for p in tables.seat(["ann", "bob", "cat"])}
    for p in players.values():
        p.acting = False
    tables.run(lambda: tables.to_act("ann") is not None)
    table_id = tables.table_id("ann")
    mover_name = tables.to_act("ann")
    assert mover_name is not None
    hand = tables.table("ann").hand
    before = (hand.actor, list(hand.bets), list(hand.stacks))
    waiting_player = players[waiting_name(players, mover_name)]
    waiting = waiting_player.client
    assert waiting.error("act", table_id=table_id, action="fold") == "not_your_turn"
    mover = players[mover_name].client
    assert mover.error("act", table_id=table_id, action="raise", amount=1) == "below_min_raise"
    assert mover.error("act", table_id=table_id, action="raise", amount=-3) == errors.INVALID_AMOUNT
    assert mover.error("act", table_id=table_id, action="check") == "cannot_check"
    stranger = tables.client("stranger")
    assert stranger.client.error("act", table_id=table_id, action="fold") == "not_seated"
    assert (hand.actor, list(hand.bets), list(hand.stacks)) == before
    mover.ok("act", table_id=table_id, action="call")
    tables.pump()
    assert any(f["type"] == "player_acted" for f in waiting_player.frames)


def waiting_name(players: dict[str, Player], mover: str) -> str:
    """Someone who is not to act."""
    return next(n for n in players if n != mover)


def test_c14_a_dropped_player_follows_again_after_resume(tables: Tables) -> None:
    """C-14: a player drops mid-hand; the clock runs on; on resume the snapshot comes back
    (own cards only) and the client follows the rest of that hand and the next ones."""
    ann, bob, _cat = tables.seat(["ann", "bob", "cat"])
    table_id = tables.table_id("ann")
    tables.run(lambda: tables.to_act("ann") is not None)
    login = [f for f in ann.client.inbox if f.get("re") in ("register", "login")][-1]
    ann.client.session.connectionLost(Failure(ConnectionDone()))  # the drop, mid-hand
    del tables.players["ann"]
    tables.run(lambda: len(bob.model(table_id).followed) >= 1 or _over(tables))
    tables.run(lambda: tables.to_act("ann") is not None or _over(tables))  # resume mid-hand
    if _over(tables):
        pytest.skip("the tournament ended while ann was away")
    again = tables.room.client()
    again.ok("hello", version=1, client="desktop")
    assert table_id in again.ok("resume", token=login["result"]["token"])["tables"]
    back = Player("ann", again, 99)
    tables.players["ann"] = back
    tables.pump()
    (snapshot,) = [f for f in back.frames if f["type"] == "table_snapshot"]
    assert snapshot["table_id"] == table_id
    running = snapshot["snapshot"]["hand"]
    assert running is not None  # resumed mid-hand: the model picks the hand up from here
    model = back.model(table_id)
    tables.run(lambda: len(model.followed) >= 3 or (_over(tables) and not model.hand))
    assert model.followed[0] == running["hand_id"]  # the hand it came back into
    assert len(model.followed) >= 2


def test_c6_c7_clock_and_time_bank_are_announced_over_the_protocol(tables: Tables) -> None:
    """C-6, C-7: `action_request` carries the deadline and the bank; when the clock runs out
    the table says the bank started; when that is spent the table checks or folds for the
    player (`auto: timeout`) and says they sit out."""
    players = {p.name: p for p in tables.seat(["ann", "bob", "cat"])}
    for p in players.values():
        p.acting = False
    tables.run(lambda: tables.to_act("ann") is not None)
    tables.pump()
    name = tables.to_act("ann")
    assert name is not None
    mover, other = players[name], players[waiting_name(players, name)]
    request = [f for f in mover.frames if f["type"] == "action_request"][-1]
    now_ms = int(tables.room.clock.seconds() * 1000)
    assert request["deadline_ms"] == now_ms + 15_000 and request["timebank_ms"] == 30_000
    assert not [f for f in other.frames if f["type"] == "action_request"]  # only the actor
    tables.room.advance(15)
    tables.pump()
    started = [f for f in other.frames if f["type"] == "timebank_started"]
    assert started and started[-1]["timebank_ms"] == 30_000
    assert started[-1]["deadline_ms"] == now_ms + 45_000
    tables.room.advance(30)
    tables.pump()
    acted = [f for f in other.frames if f["type"] == "player_acted"][-1]
    assert acted["auto"] == "timeout" and acted["action"] in ("fold", "check")
    out = [f for f in other.frames if f["type"] == "player_sat_out"]
    assert out and out[-1]["player"] == name and out[-1]["reason"] == "timeout"


def test_t10_a_moved_player_follows_the_new_table(room: Room) -> None:
    """T-10: a player moved when a table breaks gets `tournament_seat`, then the new table's
    snapshot, and follows the hands there from the frames alone."""
    tables = Tables(room, TOURNAMENT, seed=11)
    try:
        names = [f"player{n}" for n in range(6)]
        players = tables.seat(names, max_seats=3)
        assert tables.actor is not None and len(tables.actor.floor.tables) == 2
        for player in players:
            player.shove = 0.3
        moved: list[tuple[Player, dict[str, Any]]] = []

        def a_move() -> bool:
            for player in tables.players.values():
                seats = [f for f in player.frames if f["type"] == "tournament_seat"]
                if seats:
                    moved.append((player, seats[0]))
                    return True
            return _over(tables)

        tables.run(a_move)
        assert moved, "nobody was moved"
        player, move = moved[0]
        new_table = f"sng.{move['table']}"
        after = player.frames[player.frames.index(move) :]
        first = next(f for f in after if f.get("table_id") == new_table)
        assert first["type"] in ("seat_taken", "table_snapshot")
        snapshot = next(f for f in after if f["type"] == "table_snapshot")
        assert snapshot["table_id"] == new_table
        mine = [s for s in snapshot["snapshot"]["seats"] if s["player"] == player.name]
        assert mine and mine[0]["seat"] == move["seat"]  # seats from 0 in every frame
        model = player.model(new_table)
        for p in tables.players.values():
            p.shove = 0.0
        tables.run(lambda: bool(model.followed) or _over(tables))
        assert model.followed or _over(tables)
    finally:
        tables.stop()


def test_c1_tournament_tables_count_toward_the_table_cap(room: Room) -> None:
    """C-1: a seat at a tournament table is an open table; a mobile client at its cap cannot
    observe one more, and a tournament table can be watched like a cash table."""
    tables = Tables(room, TOURNAMENT)
    try:
        room.add_table("c1")
        room.add_table("c2")
        room.add_table("c3")
        players = tables.seat(["ann", "bob"])
        phone = tables.client("phone", kind="mobile")
        table_id = tables.table_id("ann")
        for cash in ("c1", "c2", "c3"):
            phone.client.ok("observe", table_id=cash)
        phone.client.ok("observe", table_id=table_id)  # the fourth: a tournament table
        assert room.lobby.open_tables("phone") == sorted(["c1", "c2", "c3", table_id])
        room.add_table("c4")
        assert phone.client.error("observe", table_id="c4") == errors.TABLE_CAP_REACHED
        assert room.lobby.open_tables("ann") == [table_id]  # seated: open for the player
        assert players[0].client.error("sit", table_id=table_id, buy_in=200) == "not_a_cash_table"
        assert players[0].client.error("unobserve", table_id=table_id) == "still_seated"
    finally:
        tables.stop()
