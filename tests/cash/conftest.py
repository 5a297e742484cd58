"""A cash table on a real SQLite ledger, a fake clock, a seeded deck and a recording listener.

Seed 2 makes the first button the lowest ready seat (random.Random(2).randrange(n) == 0).

The ledger runs its real thread pool; its results come back through `Pump.callFromThread`
and are run on the test thread by `Harness.drain`, so every test is deterministic.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.cash import CashTableConfig, HandStore, RoomPolicies, TableActor
from pokerroom.ledger import transfers
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.service import LedgerService
from pokerroom.protocol.events import ServerMessage, as_dict

USD = "USD"


class Pump:
    """The reactor's thread-call side: results from the ledger threads queue up here."""

    def __init__(self) -> None:
        self.calls: queue.Queue[tuple[Callable[..., Any], tuple, dict]] = queue.Queue()

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.calls.put((f, args, kwargs))


class CountingLedger(LedgerService):
    """The real LedgerService; `in_flight` lets tests wait until the database work is done."""

    @property
    def in_flight(self) -> int:
        """Work handed to the ledger's thread pools (every lane) and not answered yet."""
        return self.working


class Listener:
    """The session layer's part: records what each player receives, as the client decodes it
    (plain dicts, `type` included)."""

    def __init__(self) -> None:
        self.inbox: dict[str, list[dict[str, Any]]] = {}
        self.public: list[dict[str, Any]] = []
        self.actor: TableActor | None = None

    def send(self, player_id: str, message: ServerMessage) -> None:
        self.inbox.setdefault(player_id, []).append(as_dict(message))

    def broadcast(self, table_id: str, message: ServerMessage, exclude: set[str] = set()) -> None:  # noqa: B006
        assert self.actor is not None
        frame = as_dict(message)
        self.public.append(frame)
        for player in self.actor.audience - exclude:
            self.inbox.setdefault(player, []).append(frame)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """Public messages of one type."""
        return [m for m in self.public if m["type"] == kind]


class Harness:
    """One room database, one ledger, any number of tables."""

    def __init__(
        self, path: Path, seed: int = 2, *, url: str | None = None, retries: bool = False
    ) -> None:
        """A SQLite room database under `path` (or the database at `url`); `retries`: the
        ledger retries transient failures on the fake clock (advance it to let them run)."""
        self.url = url or f"sqlite:///{path / 'room.sqlite'}"
        self.engine = make_engine(self.url)
        upgrade(self.engine)
        self.pump = Pump()
        self.clock = Clock()
        self.clock.advance(1_800_000_000)  # a realistic epoch for ms timestamps
        self.ledger = CountingLedger(self.pump, self.engine, clock=self.clock if retries else None)
        self.ledger.startService()
        self.store = HandStore(self.ledger)
        self.policies = RoomPolicies(self.store)
        self.seed = seed

    def table(self, table_id: str = "t1", seed: int | None = None, **settings: Any) -> TableActor:
        """A started table actor with its own recording listener."""
        settings.setdefault("between_hands_seconds", 1.0)
        config = CashTableConfig(table_id=table_id, **settings)
        listener = Listener()
        actor = TableActor(
            config,
            clock=self.clock,
            ledger=self.ledger,
            listener=listener,
            rng=random.Random(self.seed if seed is None else seed),
            store=self.store,
            policies=self.policies,
        )
        listener.actor = actor
        self.wait(actor.start())
        return actor

    def drain(self, timeout: float = 20.0) -> None:
        """Run ledger results on this thread until no ledger work is in flight."""
        while self.ledger.in_flight or not self.pump.calls.empty():
            f, args, kwargs = self.pump.calls.get(timeout=timeout)
            f(*args, **kwargs)

    def wait(self, d: Deferred[Any] | Any) -> Any:
        """The result of a Deferred (or a plain value), raising its failure."""
        if not isinstance(d, Deferred):
            return d
        box: list[Any] = []
        d.addBoth(box.append)
        while not box:
            f, args, kwargs = self.pump.calls.get(timeout=20.0)
            f(*args, **kwargs)
        self.drain()
        result = box[0]
        if hasattr(result, "raiseException"):
            result.raiseException()
        return result

    def advance(self, seconds: float) -> None:
        """Move the fake clock and let the ledger answer."""
        self.clock.advance(seconds)
        self.drain()

    def fund(self, player: str, amount: int = 100_000) -> None:
        """A deposit from outside into the player's wallet."""
        transfers.move(
            self.engine,
            key=f"deposit:{player}:{amount}",
            kind="deposit",
            currency=USD,
            source=external(USD),
            destination=wallet(player, USD),
            amount=amount,
        )

    def balance(self, ref: Any) -> int:
        """An account's balance (0 if never opened)."""
        from pokerroom.ledger.accounts import get_account
        from pokerroom.ledger.errors import UnknownAccount

        try:
            return get_account(self.engine, ref).balance
        except UnknownAccount:
            return 0

    def close(self) -> None:
        self.ledger.stopService()
        self.engine.dispose()


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Harness]:
    """A fresh room database with its ledger running."""
    harness = Harness(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def sit_all(room: Harness, actor: TableActor, players: list[str], buy_in: int = 200) -> None:
    """Fund and seat players in seats 0, 1, 2... in order."""
    for number, player in enumerate(players):
        room.fund(player)
        room.wait(actor.sit(player, number, buy_in))


def play_out(room: Harness, actor: TableActor, policy: str = "call", limit: int = 200) -> None:
    """Act for whoever is to act until the current hand is settled."""
    for _ in range(limit):
        room.drain()
        hand = actor.hand
        if hand is None or actor.phase != "playing":
            return
        player = actor.players[hand.actor]
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        if policy == "fold" and legal.can_fold:
            actor.act(player, "fold")
        elif legal.call_amount:
            actor.act(player, "call")
        else:
            actor.act(player, "check")
    raise AssertionError("hand did not finish")


def next_hand(room: Harness, actor: TableActor) -> None:
    """Let the pause between hands pass; the next hand is dealt."""
    room.advance(actor.config.between_hands_seconds)
    assert actor.phase == "playing", actor.phase


def play_hand(room: Harness, actor: TableActor, policy: str = "call") -> None:
    """Deal the next hand and play it to the end."""
    next_hand(room, actor)
    play_out(room, actor, policy)


def posts(listener: Listener, hand_id: str) -> dict[int, list[tuple[str, int]]]:
    """The forced bets of one hand: seat -> [(kind, amount)]."""
    out: dict[int, list[tuple[str, int]]] = {}
    for m in listener.public:
        if m["type"] == "blind_posted" and m["hand_id"] == hand_id:
            out.setdefault(m["seat"], []).append((m["kind"], m["amount"]))
    return out
