"""Test helpers: one table of either kind behind the real lobby and sessions, and a client
model written from docs/PROTOCOL.md alone.

`Tables` seats players at a cash table (`sit`) or registers them in a sit-and-go
(`tournament_register`) whose tables the lobby serves (`<tournament_id>.<n>`). `TableModel` is
what a client that has read only section 6 of the protocol knows of a table: it follows every
frame and checks, at each `hand_ended`, that the stacks it computed are the server's; it also
checks that no frame shows it another player's hidden cards (C-15).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from pokerroom.protocol.catalog import validate
from tests.server.harness import Client, Room
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.desk.desk import TournamentDesk
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.schedule import TournamentScheduler

CASH, TOURNAMENT = "cash", "tournament"
LEVELS = tuple(
    Level(10 * 2**i, 20 * 2**i, 5 * 2**i, seconds=600, action_seconds=15) for i in range(10)
)
STRUCTURE = Structure("kinds", 4000, LEVELS, AnteKind.BIG_BLIND, timebank_start_seconds=30)


@dataclass
class HandState:
    """One running hand as the client sees it."""

    hand_id: str
    stacks: dict[int, int]
    bets: dict[int, int]
    folded: set[int] = field(default_factory=set)
    shown: set[int] = field(default_factory=set)


class TableModel:
    """A table followed from the frames alone (docs/PROTOCOL.md section 6)."""

    def __init__(self, me: str, table_id: str) -> None:
        self.me = me
        self.table_id = table_id
        self.seats: dict[int, list[Any]] = {}  # seat -> [player, stack]
        self.hand: HandState | None = None
        self.my_cards: list[str] = []
        self.followed: list[str] = []  # hands whose every stack the model got right
        self.requests: list[dict[str, Any]] = []
        self.max_seats = 0

    def my_seat(self) -> int | None:
        """My seat number, if I sit here."""
        return next((s for s, (p, _) in self.seats.items() if p == self.me), None)

    def feed(self, frame: dict[str, Any]) -> None:
        """Follow one frame of this table."""
        kind = frame["type"]
        if kind == "table_snapshot":
            self.max_seats = frame["snapshot"]["max_seats"]
        if "seat" in frame and self.max_seats:  # every table numbers its seats from 0
            assert 0 <= frame["seat"] < self.max_seats, frame
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(frame)

    def _on_table_snapshot(self, frame: dict[str, Any]) -> None:
        snap = frame["snapshot"]
        self.seats = {s["seat"]: [s["player"], s["stack"]] for s in snap["seats"]}
        hand = snap["hand"]
        self.hand = None
        if hand is not None:
            seats = hand["seats"]
            self.hand = HandState(
                hand["hand_id"],
                {s["seat"]: s["stack"] for s in seats},
                {s["seat"]: s["bet"] for s in seats},
                {s["seat"] for s in seats if s["folded"]},
            )
            for s in seats:
                if "cards" in s:  # C-15: mine only, unless shown down
                    assert s["seat"] == self.my_seat(), (self.me, s)

    def _on_seat_taken(self, frame: dict[str, Any]) -> None:
        self.seats[frame["seat"]] = [frame["player"], frame["stack"]]

    def _on_seat_left(self, frame: dict[str, Any]) -> None:
        self.seats.pop(frame["seat"], None)

    def _on_hand_started(self, frame: dict[str, Any]) -> None:
        stacks = {s["seat"]: s["stack"] for s in frame["seats"]}
        for seat, stack in stacks.items():
            if seat in self.seats:
                assert self.seats[seat][1] == stack, (self.me, frame, self.seats)
        self.hand = HandState(frame["hand_id"], stacks, dict.fromkeys(stacks, 0))
        self.my_cards = []

    def _on_blind_posted(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        hand.stacks[frame["seat"]] -= frame["amount"]
        if frame["kind"] in ("small", "big", "entry"):  # live posts are bets; dead, ante not
            hand.bets[frame["seat"]] += frame["amount"]

    def _on_hole_cards(self, frame: dict[str, Any]) -> None:
        self._current(frame)
        assert self.my_seat() in self.hand.stacks  # type: ignore[union-attr]
        self.my_cards = frame["cards"]

    def _on_action_request(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        seat = frame["seat"]
        assert seat == self.my_seat(), (self.me, frame)
        owed = min(max(hand.bets.values()) - hand.bets[seat], hand.stacks[seat])
        assert frame["actions"]["call"] == owed, (self.me, frame, hand)
        assert frame["actions"]["check"] == (owed == 0)
        assert frame["deadline_ms"] > 0 and frame["timebank_ms"] >= 0
        self.requests.append(frame)

    def _on_player_acted(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        seat, action, amount = frame["seat"], frame["action"], frame["amount"]
        if action == "fold":
            hand.folded.add(seat)
        elif action == "check":
            assert hand.bets[seat] == max(hand.bets.values()) or hand.stacks[seat] == 0
        elif action == "call":
            hand.stacks[seat] -= amount
            hand.bets[seat] += amount
        else:
            added = amount - hand.bets[seat]
            assert frame.get("added", added) == added, frame
            hand.stacks[seat] -= added
            hand.bets[seat] = amount
        assert hand.stacks[seat] >= 0

    def _on_board_dealt(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        hand.bets = dict.fromkeys(hand.bets, 0)

    def _on_pot_returned(self, frame: dict[str, Any]) -> None:
        self._current(frame).stacks[frame["seat"]] += frame["amount"]

    def _on_hand_shown(self, frame: dict[str, Any]) -> None:
        self._current(frame).shown.add(frame["seat"])

    def _on_pot_awarded(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        assert sum(s["amount"] for s in frame["shares"]) == frame["amount"]
        for share in frame["shares"]:
            hand.stacks[share["seat"]] += share["amount"]

    def _on_hand_ended(self, frame: dict[str, Any]) -> None:
        hand = self._current(frame)
        told = {int(seat): chips for seat, chips in frame["stacks"].items()}
        assert told == hand.stacks, (self.me, frame["hand_id"], told, hand.stacks)
        for seat, chips in told.items():
            if seat in self.seats:
                self.seats[seat][1] = chips
        self.followed.append(hand.hand_id)
        self.hand = None

    def _current(self, frame: dict[str, Any]) -> HandState:
        hand = self.hand
        assert hand is not None and hand.hand_id == frame["hand_id"], (self.me, frame, hand)
        return hand


class Player:
    """A client and its models of the tables it has open."""

    def __init__(self, name: str, client: Client, seed: int) -> None:
        self.name = name
        self.client = client
        self.tables: dict[str, TableModel] = {}
        self.rng = random.Random(seed)
        self.frames: list[dict[str, Any]] = []
        self.acting = True
        self.seen = 0
        self.shove = 0.0  # how often to go all in when a raise is possible

    def model(self, table_id: str) -> TableModel:
        """The model of one table."""
        if table_id not in self.tables:
            self.tables[table_id] = TableModel(self.name, table_id)
        return self.tables[table_id]

    def pump(self) -> bool:
        """Follow the frames that arrived; answer an action request. True if any arrived."""
        self.client.read()
        frames = self.client.inbox[self.seen :]  # also what came while awaiting answers
        self.seen = len(self.client.inbox)
        for frame in frames:
            validate(frame)  # every frame matches its typed declaration
            self.frames.append(frame)
            if "table_id" in frame and frame["type"] not in ("ok", "error"):
                self.model(frame["table_id"]).feed(frame)
            if frame["type"] == "ok" and frame.get("re") == "observe":
                snapshot = frame["result"]["snapshot"]
                self.model(snapshot["table_id"]).feed(
                    {"type": "table_snapshot", "snapshot": snapshot}
                )
        for frame in frames:
            if frame["type"] == "action_request" and self.acting:
                self.answer(frame)
        return bool(frames)

    def answer(self, request: dict[str, Any]) -> None:
        """Call or check mostly; bet now and then (never re-raise); fold now and then."""
        actions = request["actions"]
        roll = self.rng.random()
        fields: dict[str, Any] = {"table_id": request["table_id"]}
        if actions["max_raise_to"] is not None and roll < self.shove:
            fields.update(action="raise", amount=actions["max_raise_to"])
        elif actions["min_raise_to"] is not None and actions["check"] and roll < 0.2:  # open
            top = actions["max_raise_to"] if roll < 0.01 else actions["min_raise_to"]
            fields.update(action="raise", amount=top)
        elif actions["fold"] and roll < 0.35:
            fields.update(action="fold")
        else:
            fields.update(action="check" if actions["check"] else "call")
        answer = self.client.request("act", **fields)
        # A request answered already (a stale one after a reconnect) is refused harmlessly.
        assert answer["type"] == "ok" or answer["code"] in ("not_your_turn", "no_hand"), answer


class Tables:
    """A room with one table of the chosen kind."""

    def __init__(self, room: Room, kind: str, seed: int = 4) -> None:
        self.room = room
        self.kind = kind
        self.seed = seed
        self.players: dict[str, Player] = {}
        self.actor: TournamentActor | None = None
        self.desk: TournamentDesk | None = None
        if kind == TOURNAMENT:
            self.desk = TournamentDesk(room.hub)
            self.scheduler = TournamentScheduler(room.clock, room.ledger, [])
            self.desk.scheduler = self.scheduler
            room.lobby.tournament_desk = self.desk
        else:
            room.add_table("t1", seed=seed, action_seconds=15, between_hands_seconds=1.0)

    def client(self, name: str, kind: str = "desktop") -> Player:
        """A logged-in, funded client."""
        client = self.room.client()
        client.login(name, client=kind)
        client.ok("deposit", amount=100_000, key="start")
        player = Player(name, client, self.seed + len(self.players))
        self.players[name] = player
        return player

    def open_tournament(self, entries: int, max_seats: int = 9, tid: str = "sng") -> None:
        """A sit-and-go of `entries` players, not started yet."""
        assert self.desk is not None
        config = make_config(
            tid, STRUCTURE, buy_in=100, fee=10, starts_at=self.room.clock.seconds() + 3600,
            max_entries=entries, sit_and_go=True, max_seats=max_seats,
            between_hands_seconds=1.0,
        )  # fmt: skip
        players = self.desk.for_tournament(tid)
        self.actor = TournamentActor(
            config, self.room.clock, self.room.ledger, random.Random(self.seed), players,
            on_end=self.scheduler._ended,
        )  # fmt: skip
        self.scheduler.actors[tid] = self.actor
        self.actor.open()

    def seat(self, names: list[str], max_seats: int = 9) -> list[Player]:
        """The players, seated (cash: `sit`; tournament: registered in a sit-and-go that
        starts when the last one registers)."""
        if self.kind == TOURNAMENT and self.actor is None:
            self.open_tournament(len(names), max_seats)
        players = [self.client(name) for name in names]
        for player in players:
            if self.kind == CASH:
                player.client.ok("sit", table_id="t1", buy_in=200)
            else:
                player.client.ok("tournament_register", tournament_id="sng")
        self.room.drain()
        return players

    def table_id(self, name: str) -> str:
        """The table `name` sits at."""
        if self.kind == CASH:
            return "t1"
        assert self.actor is not None
        table = self.actor.floor.table_of(name)
        assert table is not None
        return table.wire_id

    def table(self, name: str) -> Any:
        """The table object `name` sits at (cash actor or tournament table)."""
        if self.kind == CASH:
            return self.room.lobby.tables["t1"]
        assert self.actor is not None
        return self.actor.floor.table_of(name)

    def to_act(self, name: str) -> str | None:
        """Whose turn it is at `name`'s table."""
        table = self.table(name)
        hand = table.hand if table is not None else None
        if hand is None or hand.actor < 0:
            return None
        return str(table.players[hand.actor] if self.kind == CASH else table.order[hand.actor])

    def pump(self) -> bool:
        """Every client follows its frames and answers; True if anything happened."""
        any_frames = False
        for player in list(self.players.values()):
            any_frames = player.pump() or any_frames
        self.room.drain()
        return any_frames

    def run(self, done: Any, limit: int = 5_000) -> None:
        """Pump and move the clock timer by timer until `done()`."""
        for _ in range(limit):
            if done():
                return
            if self.pump():
                continue
            calls = self.room.clock.getDelayedCalls()
            assert calls, "nothing scheduled and nothing to do"
            step = max(0.0, min(c.getTime() for c in calls) - self.room.clock.seconds())
            self.room.advance(step)
        raise AssertionError("not done")

    def stop(self) -> None:
        """Stop the tournament's tables."""
        if self.actor is not None:
            self.actor.floor.stop()
