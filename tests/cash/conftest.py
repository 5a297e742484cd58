"""A cash table on a real SQLite ledger, a fake clock, a seeded deck and a recording listener.

Seed 2 makes the first button the lowest ready seat (random.Random(2).randrange(n) == 0).

The room is `tests.ledger_pump.PumpedRoom`: the ledger runs its real thread pools, their
results run on the test thread (`drain`, `wait`), so every test is deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerroom.cash import CashTableConfig, HandStore, RoomPolicies, TableActor
from pokerroom.ledger.kinds import wallet
from pokerroom.ledger.service import LedgerService
from pokerroom.protocol.events import ServerMessage, as_dict
from tests.ledger_pump import PumpedRoom

USD = "USD"


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


class Harness(PumpedRoom):
    """One room database, one ledger, any number of tables."""

    ledger_type = CountingLedger

    def __init__(
        self, path: Path, seed: int = 2, *, url: str | None = None, retries: bool = False
    ) -> None:
        """A SQLite room database under `path` (or the database at `url`); `retries`: the
        ledger retries transient failures on the fake clock (advance it to let them run)."""
        super().__init__(url or f"sqlite:///{path / 'room.sqlite'}", retries=retries)
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

    def fund(self, player: str, amount: int = 100_000) -> None:
        """A deposit from outside into the player's wallet."""
        self.deposit(f"deposit:{player}:{amount}", wallet(player, USD), amount, USD)


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
