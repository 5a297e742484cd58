"""Tournaments over the protocol's requests: register and play through the desk ."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from twisted.internet.defer import Deferred

from pokerroom.protocol.catalog import validate
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import as_dict
from pokerroom.protocol.messages import parse_request
from tests.tournaments.actor_harness import Room
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler

SNG = ScheduleEntry("sng-3", "turbo", 100, 10, players=3)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


class Clients:
    """The hub's part: each player's inbox; answers action requests like a client would."""

    def __init__(self, seed: int) -> None:
        self.inbox: dict[str, list[dict[str, Any]]] = {}
        self.desk: TournamentDesk | None = None
        self.rng = random.Random(seed)
        self.serial = 0

    def request(self, player: str, frame: dict[str, Any]) -> Any:
        """Run a request; its `ok` result as the client decodes it (or a Deferred of that)."""
        self.serial += 1
        assert self.desk is not None
        answer = self.desk.handle(player, parse_request({"id": self.serial, **frame}))
        if isinstance(answer, Deferred):
            return answer.addCallback(as_dict)
        return as_dict(answer)

    def send_all(self, players: Any, message: Any) -> None:
        for player in list(players):
            self.send(player, message)

    def send(self, player: str, typed: Any) -> None:
        message = as_dict(typed)
        validate(message)  # every frame matches its declaration
        self.inbox.setdefault(player, []).append(message)
        if message["type"] == "tournament_action_request":
            actions = message["actions"]
            if actions["min_raise_to"] and self.rng.random() < 0.3:
                act = {"action": "raise", "amount": actions["min_raise_to"]}
            else:
                act = {"action": "call" if actions["call"] else "check"}
            self.request(
                player, {"type": "tournament_act", "tournament_id": message["tournament_id"], **act}
            )


def test_register_and_play_a_sit_and_go_through_the_protocol(room: Room):
    """T-1..T-3 and C-6 over requests: register, refuse a duplicate, play to the end, get paid."""
    clients = Clients(3)
    desk = TournamentDesk(clients)
    clients.desk = desk
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG], players=desk)
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (line,) = clients.request("x", {"type": "tournament_list"})["tournaments"]
        tid = line["tournament_id"]
        for name in ("ann", "bea", "cid"):
            room.fund_player(name, 1000)
            answer = room.wait(
                clients.request(name, {"type": "tournament_register", "tournament_id": tid})
            )
            assert answer == {"entry": 1, "chips": 1500}
        actor = desk._actor(tid)
        assert actor.status in ("running", "finished")
        status = clients.request("ann", {"type": "tournament_status_request", "tournament_id": tid})
        assert status["status"]["players_left"] <= 3
        room.run_to_end(actor)
        finishes = [
            m for box in clients.inbox.values() for m in box if m["type"] == "tournament_finish"
        ]
        assert sorted(m["place"] for m in finishes) == [1, 2, 3]
        assert sum(m["prize"] for m in finishes) == 300
        (results,) = [m for m in clients.inbox["ann"] if m["type"] == "tournament_results"]
        assert [r["place"] for r in results["results"]] == [1, 2, 3]  # T-8, to every player
        requests = clients.inbox["ann"]
        assert any(m["type"] == "tournament_action_request" for m in requests)
        assert all(len(m.get("hole_cards", [1, 2])) == 2 for m in requests)  # own cards only
        assert room.check()
    finally:
        scheduler.stopService()


def test_unknown_tournament_is_refused_with_a_stable_code(room: Room):
    """P-1: a request for no such tournament gets a code, and nothing changes."""
    desk = TournamentDesk(Clients(1))
    desk.scheduler = TournamentScheduler(room.clock, room.ledger, [])
    with pytest.raises(ProtocolError) as caught:
        desk.handle(
            "ann", parse_request({"type": "tournament_rebuy", "id": 1, "tournament_id": "z"})
        )
    assert caught.value.code == "unknown_tournament"  # not `not_registered`: no such tournament


class HalfConnected(Clients):
    """`bea` has no session: she never answers (T-12)."""

    def session_of(self, player: str) -> object | None:
        return None if player == "bea" else object()

    def send(self, player: str, message: Any) -> None:
        if player != "bea":
            super().send(player, message)


def test_a_player_without_a_session_is_marked_disconnected_and_blinded(room: Room):
    """T-12: not connected, still dealt in; the desk marks her disconnected for the clock."""
    clients = HalfConnected(4)
    desk = TournamentDesk(clients)
    clients.desk = desk
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG], players=desk)
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (line,) = clients.request("x", {"type": "tournament_list"})["tournaments"]
        tid = line["tournament_id"]
        for name in ("ann", "bea", "cid"):
            room.fund_player(name, 1000)
            room.wait(clients.request(name, {"type": "tournament_register", "tournament_id": tid}))
        actor = desk._actor(tid)
        seen = False
        while actor.status == "running":
            table = actor.floor.table_of("bea")
            seen = seen or (table is not None and "bea" in table.presence.disconnected)
            room.settle(actor)
            calls = room.clock.getDelayedCalls()
            room.clock.advance(max(0.0, calls[0].getTime() - room.clock.seconds()))
        room.run_to_end(actor)
        assert seen
        assert room.check()
    finally:
        scheduler.stopService()
