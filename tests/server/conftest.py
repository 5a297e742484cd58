"""Fixtures: a real SQLite ledger at head in a temp file, its service, a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.ledger import LedgerService, make_engine, upgrade
from tests.ledger.conftest import QueueReactor


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A SQLite file migrated to head (ledger + players + chat)."""
    eng = make_engine(f"sqlite:///{tmp_path / 'room.sqlite'}")
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


@pytest.fixture
def reactor() -> QueueReactor:
    """Thread callbacks of the ledger pool run on the test thread (see QueueReactor.wait)."""
    return QueueReactor()


@pytest.fixture
def ledger(engine: Engine, reactor: QueueReactor) -> Iterator[LedgerService]:
    """A started LedgerService on the temp database."""
    service = LedgerService(reactor, engine)
    service.startService()
    try:
        yield service
    finally:
        service.stopService()


@pytest.fixture
def clock() -> Clock:
    """The fake clock, starting at a fixed time."""
    clk = Clock()
    clk.advance(1_800_000_000)
    return clk
