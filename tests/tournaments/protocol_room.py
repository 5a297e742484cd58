"""A tournament played over the protocol in-process: the real desk, tables and frames, bots
that see only what a client receives.

`ProtocolHub` stands where the server's hub stands: every message is encoded as the frame a
client would read and decoded again (JSON, docs/PROTOCOL.md section 1), then handed to the
player's bot. A bot acts only on the frames it received (`action_request`), through the desk's
`tournament_act` request, as a client would. Every delivery goes through a `LeakScan` (C-15)
and is logged per table for the hand rebuild. No TCP: a 2,000-entry tournament over sessions
and sockets would take minutes; the frames, the desk and the tables are the same.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pokerroom.engine.hand import Hand
from pokerroom.protocol.events import ServerMessage, TableEvent
from pokerroom.protocol.framing import encode_frame
from pokerroom.protocol.messages import parse_request
from tests.tournaments.actor_harness import Room
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import TournamentScheduler
from tournaments.ops.simulation import START
from tournaments.tables.table import TournamentTable
from tournaments.templates import load_structures

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def cards_in(value: Any) -> set[str]:
    """Every card-looking string anywhere in a decoded frame."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


@dataclass(frozen=True, slots=True)
class Truth:
    """The table's hand when it sent a frame: whose cards were secret then (C-15)."""

    hand: Hand | None
    players: tuple[str, ...]
    holes: tuple[tuple[str, ...] | None, ...]
    shown: frozenset[int]

    def secret_from(self, player: str) -> set[str]:
        """Every hole card not `player`'s and not shown down."""
        out: set[str] = set()
        for index, holes in enumerate(self.holes):
            if holes is not None and index not in self.shown and self.players[index] != player:
                out.update(holes)
        return out


def truth_of(table: TournamentTable | None) -> Truth:
    """The table's hand as it stands now."""
    hand = table.driver.hand if table is not None else None
    if table is None or hand is None:
        return Truth(None, (), (), frozenset())
    return Truth(hand, table.driver.players, tuple(hand.holes), frozenset(hand.shown))


class TruthFrames:
    """Wraps a table's frame listener: notes the table's hand when each frame is made, since a
    frame may reach its client later (held until what it tells is stored, rule 14)."""

    def __init__(self, inner: Any, find: Any, truths: dict[int, Truth]) -> None:
        self.inner = inner
        self.find = find
        self.truths = truths

    def send(self, player_id: str, message: ServerMessage) -> None:
        """To one player."""
        assert isinstance(message, TableEvent)  # a table sends table events only
        self.truths[id(message)] = truth_of(self.find(message.table_id))
        self.inner.send(player_id, message)

    def broadcast(self, table_id: str, message: ServerMessage, exclude: Any = None) -> None:
        """To the audience."""
        self.truths[id(message)] = truth_of(self.find(table_id))
        self.inner.broadcast(table_id, message, exclude)


@dataclass
class LeakScan:
    """C-15: no frame shows a player another player's hole cards before they are shown."""

    desk: TournamentDesk
    frames: int = 0
    checked_cards: int = 0
    leaks: list[str] = field(default_factory=list)

    def check(self, player: str, frame: dict[str, Any], truth: Truth | None = None) -> None:
        """One frame received by `player`; `truth`: its table's hand when it was made."""
        self.frames += 1
        seen = cards_in(frame)
        if not seen:
            return
        self.checked_cards += len(seen)
        if truth is None:  # not a table frame (tournament_action_request): the table now
            table_id = frame.get("table_id")
            if table_id is None and frame["type"] == "tournament_action_request":
                table_id = f"{frame['tournament_id']}.{frame['table']}"
            table = self.desk.table(table_id) if isinstance(table_id, str) else None
            truth = truth_of(table)
        if truth.hand is None:
            self.leaks.append(f"cards outside a hand to {player}: {frame}")
            return
        leaked = seen & truth.secret_from(player)
        if leaked:
            self.leaks.append(f"{player} saw {sorted(leaked)}: {frame}")


@dataclass
class Bot:
    """A client: acts on `action_request` frames only."""

    name: str
    rng: random.Random
    received: int = 0


class ProtocolHub:
    """The hub's part for the desk and the tables: frames encoded, decoded, delivered."""

    def __init__(self, seed: int) -> None:
        self.desk: TournamentDesk | None = None
        self.scan: LeakScan | None = None
        self.bots: dict[str, Bot] = {}
        self.rng = random.Random(seed)
        self.log: dict[str, list[tuple[str | None, dict[str, Any]]]] = {}  # table -> frames
        self.keep_log = True
        self.requests = 0
        self.engine_hands: dict[str, Hand] = {}
        self.truths: dict[int, Truth] = {}  # id(message) -> its table's hand when made

    def session_of(self, player: str) -> object | None:
        """Everyone is connected."""
        return self

    def send(self, player_id: str, message: Any) -> None:
        """One frame to one player."""
        truth = self.truths.pop(id(message), None)
        frame = json.loads(encode_frame(message))
        self._log(player_id, frame, truth)
        self._deliver(player_id, frame, truth)

    def send_all(self, players: Iterable[str], message: Any) -> None:
        """One frame to several players, encoded once."""
        truth = self.truths.pop(id(message), None)
        frame = json.loads(encode_frame(message))
        self._log(None, frame, truth)
        for player in tuple(players):
            self._deliver(player, frame, truth)

    def _log(self, to: str | None, frame: dict[str, Any], truth: Truth | None) -> None:
        table_id = frame.get("table_id")
        if self.keep_log and isinstance(table_id, str):
            self.log.setdefault(table_id, []).append((to, frame))
            if frame["type"] == "hand_ended":  # the engine's hand when it was told
                assert truth is not None and truth.hand is not None
                self.engine_hands[frame["hand_id"]] = truth.hand

    def _deliver(self, player: str, frame: dict[str, Any], truth: Truth | None) -> None:
        if self.scan is not None:
            self.scan.check(player, frame, truth)
        bot = self.bots.get(player)
        if bot is None:
            return
        bot.received += 1
        if frame["type"] == "action_request":
            self._act(bot, frame)

    def _act(self, bot: Bot, request: dict[str, Any]) -> None:
        """All in 3 %, fold to a bet 45 %, otherwise check or call: `tournament_act`."""
        actions = request["actions"]
        roll = bot.rng.random()
        act: dict[str, Any]
        if actions["max_raise_to"] is not None and roll < 0.03:
            act = {"action": "raise", "amount": actions["max_raise_to"]}
        elif actions["fold"] and roll < 0.48:
            act = {"action": "fold"}
        else:
            act = {"action": "check" if actions["check"] else "call"}
        tournament_id = request["table_id"].rpartition(".")[0]
        self.requests += 1
        frame = {"type": "tournament_act", "id": self.requests, "tournament_id": tournament_id}
        assert self.desk is not None
        self.desk.handle(bot.name, parse_request({**frame, **act}))


def open_tournament(
    room: Room, entries: int, seed: int, *, keep_log: bool = True
) -> tuple[TournamentActor, ProtocolHub, LeakScan]:
    """A freezeout of `entries` bots, registered; it starts at START + 60."""
    hub = ProtocolHub(seed)
    hub.keep_log = keep_log
    desk = TournamentDesk(hub)
    scheduler = TournamentScheduler(room.clock, room.ledger, [])
    desk.scheduler = scheduler
    hub.desk = desk
    scan = hub.scan = LeakScan(desk)
    tid = f"proto-{seed}"
    config = make_config(
        tid, load_structures()["turbo"], buy_in=100, fee=10, starts_at=START + 60,
        between_hands_seconds=30.0,
    )  # fmt: skip
    players = desk.for_tournament(tid)
    frames = players.table_frames
    watched = lambda: TruthFrames(frames(), desk.table, hub.truths)  # noqa: E731
    players.table_frames = watched  # type: ignore[method-assign,assignment]
    make_request = getattr(desk, "action_request", None)
    if make_request is not None:  # the desk builds it apart from sending it: note its hand

        def noted(table: TournamentTable, entry: str) -> Any:
            """`tournament_action_request` too: the table's hand when it was made."""
            request = make_request(table, entry)
            if request is not None:
                hub.truths[id(request)] = truth_of(table)
            return request

        desk.action_request = noted  # type: ignore[method-assign]
    actor = TournamentActor(
        config, room.clock, room.ledger, random.Random(seed), players, on_end=scheduler._ended,
    )  # fmt: skip
    scheduler.actors[tid] = actor
    actor.open()
    for n in range(entries):
        name = f"bot{n:05d}"
        hub.bots[name] = Bot(name, random.Random(seed * 100_000 + n))
        room.fund_player(name, 1000)
        room.wait(actor.register(name))
    return actor, hub, scan


def play(room: Room, actor: TournamentActor, observers: int = 2, until: Any = None) -> None:
    """Timer by timer until the tournament ends (or `until()`); observers watch tables."""
    watching = False
    while actor.status in ("registering", "running") and not (until and until()):
        if not watching and actor.status == "running":
            watching = True  # observers watch the first tables (C-15: they see no hole card)
            for number in sorted(actor.floor.tables)[:observers]:
                actor.floor.tables[number].observe(f"observer{number}")
        room.settle(actor)
        calls = room.clock.getDelayedCalls()
        assert calls, "nothing scheduled: the tournament is stuck"
        room.clock.advance(max(0.0, min(c.getTime() for c in calls) - room.clock.seconds()))
    room.settle(actor)


def run_tournament(
    room: Room, entries: int, seed: int, *, observers: int = 2, keep_log: bool = True
) -> tuple[TournamentActor, ProtocolHub, LeakScan]:
    """A freezeout of `entries` bots to its end over the protocol; observers watch tables."""
    actor, hub, scan = open_tournament(room, entries, seed, keep_log=keep_log)
    play(room, actor, observers)
    return actor, hub, scan


def hand_frames(
    log: list[tuple[str | None, dict[str, Any]]],
) -> dict[str, list[tuple[str | None, dict[str, Any]]]]:
    """A table's frames grouped by hand id, in the order they were sent."""
    hands: dict[str, list[tuple[str | None, dict[str, Any]]]] = {}
    for to, frame in log:
        hand_id = frame.get("hand_id")
        if isinstance(hand_id, str):
            hands.setdefault(hand_id, []).append((to, frame))
    return hands


@dataclass
class Rebuilt:
    """A hand as the frames tell it, in the engine's terms (PHH actions, engine indexes)."""

    stacks: list[int]
    posts: list[tuple[int, int, str]]  # (index, amount, kind)
    actions: list[str]
    awards: list[list[tuple[int, int]]]
    final: list[int]


def rebuild(frames: list[tuple[str | None, dict[str, Any]]]) -> Rebuilt:
    """Rebuild one hand from its frames alone (docs/PROTOCOL.md section 6)."""
    start = next(f for _, f in frames if f["type"] == "hand_started")
    seats = [s["seat"] for s in start["seats"]]  # position order = the engine's order
    index = {seat: i for i, seat in enumerate(seats)}
    holder = {s["player"]: i for i, s in enumerate(start["seats"])}
    out = Rebuilt([s["stack"] for s in start["seats"]], [], [], [], [])
    for to, frame in frames:
        kind = frame["type"]
        if kind == "blind_posted":
            out.posts.append((index[frame["seat"]], frame["amount"], frame["kind"]))
        elif kind == "hole_cards":
            assert to is not None  # C-15: never broadcast
            out.actions.append(f"d dh p{holder[to] + 1} {''.join(frame['cards'])}")
        elif kind == "player_acted":
            p = f"p{index[frame['seat']] + 1}"
            verb = {"fold": "f", "check": "cc", "call": "cc"}.get(frame["action"], "cbr")
            out.actions.append(f"{p} {verb}" + (f" {frame['amount']}" if verb == "cbr" else ""))
        elif kind == "board_dealt":
            out.actions.append(f"d db {''.join(frame['cards'])}")
        elif kind == "hand_shown":
            out.actions.append(f"p{index[frame['seat']] + 1} sm {''.join(frame['cards'])}")
        elif kind == "hand_mucked":
            out.actions.append(f"p{index[frame['seat']] + 1} sm")
        elif kind == "pot_awarded":
            out.awards.append([(index[s["seat"]], s["amount"]) for s in frame["shares"]])
        elif kind == "hand_ended":
            by_seat = {int(seat): chips for seat, chips in frame["stacks"].items()}
            out.final = [by_seat[seat] for seat in seats]
    return out


def engine_view(hand: Hand) -> Rebuilt:
    """The same hand from the engine's own log (the history it keeps)."""
    from pokerroom.engine import events as ev
    from pokerroom.engine.phh import actions_from_log

    posts = []
    awards = []
    for event in hand.log:
        if isinstance(event, ev.BlindPosted):
            posts.append((event.player, event.amount, "blind"))
        elif isinstance(event, ev.AntePosted):
            posts.append((event.player, event.amount, "ante"))
        elif isinstance(event, ev.PotAwarded):
            awards.append([(i, a) for i, a in event.shares])
    return Rebuilt(
        list(hand.config.starting_stacks), posts, actions_from_log(hand.log), awards,
        list(hand.stacks),
    )  # fmt: skip


def tables_of(actor: TournamentActor) -> list[TournamentTable]:
    """Every table the tournament still has."""
    return list(actor.floor.tables.values())
