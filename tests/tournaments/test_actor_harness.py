"""The actor harness itself: `Room.settle` returns only once every piece of ledger work has
answered on the test thread, counted by the tournament or not (a ticket read, a refund job's
step, a cash settlement), so no test races the database thread however loaded the machine."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from tests.tournaments.actor_harness import Room
from tests.tournaments.test_actor_money import config


def test_settle_waits_for_ledger_work_the_tournament_does_not_count(tmp_path: Path) -> None:
    """A read the actor knows nothing of is held in its database thread until another thread
    lets it go: `settle` waits for its answer (a settle that looked only at the tournament's
    own transfers returned at once, before it), and returns as soon as it came."""
    room = Room(tmp_path)
    try:
        actor = room.actor(config("hs"))
        room.settle(actor)
        release = threading.Event()

        def held(engine: Engine) -> int:
            assert release.wait(10), "never released"
            return 42

        answered: list[Any] = []
        room.ledger.read(held).addCallback(answered.append)
        assert room.ledger.working == 1
        releaser = threading.Timer(0.05, release.set)  # another thread, while settle waits
        releaser.start()
        room.settle(actor)
        assert answered == [42] and room.ledger.working == 0
        releaser.join()
    finally:
        room.close()
