"""The default casino tables in an in-process Room (rounds on its ledger, a seeded wheel)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

from pokerroom.casino.rounds import RoundStore
from pokerroom.server.casino_desk import CasinoDesk
from tests.server.harness import Room


@contextmanager
def casino_open(room: Room, currency: str = "USD") -> Iterator[CasinoDesk]:
    """The room's lobby gets the default casino tables (random.Random(7)); stopped at the end."""
    desk = CasinoDesk(room.clock, RoundStore(room.ledger), room.hub, currency)
    room.lobby.casino_desk = desk
    room.reactor.wait(desk.open_default(rng=random.Random(7)))
    try:
        yield desk
    finally:
        desk.stop()
