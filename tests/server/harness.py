"""A room without a TCP listener: sessions on StringTransports, a real SQLite ledger."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from pokerroom.cash import CashTableConfig, HandStore, RoomPolicies, TableActor
from pokerroom.chat import ChatRules, ChatService
from pokerroom.ledger import LedgerService
from pokerroom.protocol.connection import SessionSettings
from pokerroom.protocol.framing import encode_frame
from pokerroom.protocol.session import RoomFactory, RoomSession
from pokerroom.server.accounts import HashSettings, PlayerAccounts
from pokerroom.server.hub import Hub
from pokerroom.server.lobby import Lobby
from tests.ledger.conftest import QueueReactor

#: The cheapest argon2id: tests check the flow, not the cost.
CHEAP_HASH = HashSettings(time_cost=1, memory_kib=8, parallelism=1)


class Room:
    """Hub, lobby, accounts and chat wired as the server wires them."""

    def __init__(
        self, reactor: QueueReactor, clock: Clock, ledger: LedgerService, **lobby_kw: Any
    ) -> None:
        self.reactor, self.clock, self.ledger = reactor, clock, ledger
        self.accounts = PlayerAccounts(reactor, ledger, CHEAP_HASH)
        self.accounts.startService()
        self.hub = Hub(clock)
        self.chat = ChatService(clock, ledger, ChatRules())
        lobby_kw.setdefault("allow_deposit", True)
        self.store = HandStore(ledger)
        self.policies = RoomPolicies(self.store)
        lobby_kw.setdefault("histories", self.store.history_page)
        self.lobby = Lobby(self.hub, self.accounts, self.chat, **lobby_kw)
        self.settings = SessionSettings(
            heartbeat_seconds=30, idle_timeout_seconds=90, outbound_queue_max=20
        )
        self.factory = RoomFactory(self.hub, self.lobby, self.accounts, clock, self.settings)

    def stop(self) -> None:
        """Stop the hashing threads and the tables."""
        for actor in self.lobby.tables.values():
            actor.close()
        self.accounts.stopService()

    def add_table(self, table_id: str, seed: int = 7, **settings: Any) -> TableActor:
        """A real cash-table actor, started, registered with the lobby."""
        settings.setdefault("between_hands_seconds", 1.0)
        config = CashTableConfig(table_id=table_id, **settings)
        actor = TableActor(
            config,
            clock=self.clock,
            ledger=self.ledger,
            listener=self.hub,
            rng=random.Random(seed),
            store=self.store,
            policies=self.policies,
        )
        self.reactor.wait(actor.start())
        self.lobby.add_table(table_id, actor, {"variant": config.variant})
        return actor

    def drain(self) -> None:
        """Run ledger results on this thread until no ledger work is in flight."""
        while self.ledger.in_flight or not self.reactor.calls.empty():  # type: ignore[attr-defined]
            f, args, kwargs = self.reactor.calls.get(timeout=5)
            f(*args, **kwargs)

    def advance(self, seconds: float) -> None:
        """Move the fake clock and let the ledger answer."""
        self.clock.advance(seconds)
        self.drain()

    def client(self) -> Client:
        """A new connection."""
        return Client(self)


class Client:
    """One connection: send frames, read frames, wait for answers."""

    _ids = itertools.count(1)

    def __init__(self, room: Room) -> None:
        self.room = room
        self.transport = StringTransport()
        self.session: RoomSession = room.factory.buildProtocol(None)
        self.session.makeConnection(self.transport)
        self.inbox: list[dict[str, Any]] = []

    def raw(self, data: bytes) -> None:
        """Feed bytes as they came off the wire."""
        self.session.dataReceived(data)

    def read(self) -> list[dict[str, Any]]:
        """Frames written since the last read (also kept in `inbox`)."""
        data = self.transport.value()
        self.transport.clear()
        frames = [json.loads(line) for line in data.splitlines() if line.strip()]
        self.inbox += frames
        return frames

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request and wait (running ledger-pool callbacks) for its answer."""
        request_id = next(self._ids)
        self.raw(encode_frame({"type": kind, "id": request_id, **fields}))
        return self.answer(request_id)

    def answer(self, request_id: object) -> dict[str, Any]:
        """The ok/error frame for `request_id`, pumping thread callbacks until it comes."""
        while True:
            self.read()
            for frame in self.inbox:
                if frame.get("type") in ("ok", "error") and frame.get("id") == request_id:
                    return frame
            f, args, kwargs = self.room.reactor.calls.get(timeout=5)
            f(*args, **kwargs)

    def ok(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request that must succeed; its result."""
        frame = self.request(kind, **fields)
        assert frame["type"] == "ok", frame
        return frame["result"]

    def error(self, kind: str, **fields: Any) -> str:
        """Send a request that must fail; its code."""
        frame = self.request(kind, **fields)
        assert frame["type"] == "error", frame
        return frame["code"]

    def login(self, name: str, client: str = "desktop", password: str = "correct horse") -> dict:
        """hello + register (or login if the name exists)."""
        self.ok("hello", version=1, client=client)
        frame = self.request("register", name=name, password=password)
        if frame["type"] == "error":
            return self.ok("login", name=name, password=password)
        return frame["result"]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """Every frame of one type received so far."""
        self.read()
        return [frame for frame in self.inbox if frame.get("type") == kind]

    @property
    def closed(self) -> bool:
        """True once the server closed the connection."""
        return self.transport.disconnecting or self.transport.disconnected
