"""A cash table that plays hands and is SIGKILLed at a chosen point of settling one (C-12).

    python -m tests.cash.settle_crash_child DB_URL FRAMES_PATH POINT

POINT is where the process dies while settling its second hand:
- `before_commit`: inside the settlement's database transaction, just before COMMIT;
- `after_commit`: the transaction committed, before any client is told the result;
- `after_tell`: `pot_awarded` and `hand_ended` were sent.
Every frame the table sends is appended to FRAMES_PATH (flushed and fsynced) before it counts
as sent, so the parent sees exactly what the clients were told. Nothing here is mocked: the
real actor, store and ledger on a real SQLite file; the kill is the real signal.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from sqlalchemy import event
from sqlalchemy.engine import Connection
from twisted.internet.task import Clock

import pokerroom.cash.store as store
from pokerroom.cash import CashTableConfig, HandStore, RoomPolicies, TableActor
from pokerroom.ledger import LedgerService, make_engine
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.transfers import move
from pokerroom.protocol.events import ServerMessage, as_dict
from pokerroom.table.driver import HandDriver
from tournaments.ops.simulation import Pump

SETTLING_HAND = "t1-2"


class Frames:
    """The clients' side: every frame written down for good before it counts as sent."""

    def __init__(self, out: TextIO, actor: Callable[[], TableActor]) -> None:
        self.out = out
        self.actor = actor

    def _write(self, to: list[str], message: ServerMessage) -> None:
        self.out.write(json.dumps({"to": to, "frame": as_dict(message)}) + "\n")
        self.out.flush()
        os.fsync(self.out.fileno())

    def send(self, player_id: str, message: ServerMessage) -> None:
        """To one player."""
        self._write([player_id], message)

    def broadcast(self, table_id: str, message: ServerMessage, exclude: Any = None) -> None:
        """To the audience."""
        self._write(sorted(self.actor().audience - set(exclude or ())), message)


def die() -> None:
    """SIGKILL: no cleanup, no flush, no shutdown code runs."""
    os.kill(os.getpid(), signal.SIGKILL)


def arm(engine: Any, point: str) -> None:
    """Die at `point` while the second hand settles."""
    if point == "before_commit":
        mark_settled = store._mark_settled

        def note(conn: Connection, hand_id: str, *args: Any, **kwargs: Any) -> None:
            # the settled status and history go on the driver's cursor (no statement events)
            mark_settled(conn, hand_id, *args, **kwargs)
            conn.info["history_of_hand"] = True

        store._mark_settled = note

        @event.listens_for(engine, "commit")
        def before_commit(conn: Connection) -> None:
            if conn.info.pop("history_of_hand", False):
                actor = ACTOR[0]
                if actor.hand_id == SETTLING_HAND:
                    die()  # the settlement's one transaction is written, not committed

    else:
        finish = HandDriver.finish

        def finishing(driver: HandDriver) -> None:
            if driver.hand_id == SETTLING_HAND and point == "after_commit":
                die()  # committed (finish runs only after the commit), nobody told yet
            finish(driver)
            if driver.hand_id == SETTLING_HAND and point == "after_tell":
                die()

        HandDriver.finish = finishing  # type: ignore[method-assign,assignment]


ACTOR: list[TableActor] = []


def main() -> None:
    """Play until killed."""
    url, frames_path, point = sys.argv[1:4]
    engine = make_engine(url)
    pump = Pump()
    clock = Clock()
    clock.advance(1_800_000_000)
    ledger = LedgerService(pump, engine)
    ledger.startService()
    store = HandStore(ledger)
    out = open(frames_path, "a")  # noqa: SIM115  (open until the kill)
    actor = TableActor(
        CashTableConfig(table_id="t1", between_hands_seconds=1.0, rake_bps=500),
        clock=clock,
        ledger=ledger,
        listener=Frames(out, lambda: ACTOR[0]),
        rng=random.Random(2),
        store=store,
        policies=RoomPolicies(store),
    )
    ACTOR.append(actor)
    pump.wait(actor.start())
    for n, player in enumerate(("ann", "bob")):
        move(
            engine,
            key=f"deposit:{player}",
            kind="deposit",
            currency="USD",
            source=external("USD"),
            destination=wallet(player, "USD"),
            amount=10_000,
        )
        pump.wait(actor.sit(player, n, 200))
    arm(engine, point)
    for _ in range(10_000):
        while not pump.calls.empty():
            f, args, kwargs = pump.calls.get()
            f(*args, **kwargs)
        hand = actor.hand
        if hand is not None and actor.phase == "playing" and hand.actor >= 0:
            who = actor.players[hand.actor]
            if hand.call_amount(hand.actor):
                actor.act(who, "call")
            elif hand.street == 3:
                actor.act(who, "bet", 20)  # a river bet: a real pot to settle
            else:
                actor.act(who, "check")
            continue
        if ledger.working or not pump.calls.empty():
            f, args, kwargs = pump.calls.get(timeout=30)
            f(*args, **kwargs)
            continue
        clock.advance(1.0)
    raise SystemExit("never killed")


if __name__ == "__main__":
    main()
