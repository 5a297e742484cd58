"""The default casino tables in an in-process Room (rounds on its ledger, a seeded wheel)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

from pokerroom.casino import money
from pokerroom.casino.rounds import RoundStore
from pokerroom.ledger import transfers
from pokerroom.ledger.kinds import external
from pokerroom.server.casino_desk import CasinoDesk
from tests.server.harness import Room

#: The bankroll `casino_open` funds by default: K-12's maximum win (148,000.00 USD) for six
#: players at a table, so that a round opens (docs/CASINO.md).
FLOAT = 100_000_000


def fund_bankroll(room: Room, amount: int, currency: str = "USD", key: str = "float") -> None:
    """external → the house's casino bankroll, through the ledger (one keyed transfer)."""
    transfers.move(
        room.ledger.engine,
        key=f"casino_room:bankroll:{key}",
        kind="deposit",
        currency=currency,
        source=external(currency),
        destination=money.bankroll(currency),
        amount=amount,
    )


@contextmanager
def casino_open(room: Room, currency: str = "USD", bankroll: int = FLOAT) -> Iterator[CasinoDesk]:
    """The room's lobby gets the default casino tables (random.Random(7)), the bankroll funded
    with `bankroll` first (0: not at all); stopped at the end."""
    if bankroll:
        fund_bankroll(room, bankroll, currency)
    desk = CasinoDesk(room.clock, RoundStore(room.ledger), room.hub, currency)
    room.lobby.casino_desk = desk
    room.reactor.wait(desk.open_default(rng=random.Random(7)))
    try:
        yield desk
    finally:
        desk.stop()
