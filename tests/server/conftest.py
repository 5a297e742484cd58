"""Fixtures: a real SQLite ledger at head in a temp file, its service, a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.ledger import LedgerService, make_engine, upgrade
from tests.ledger.conftest import QueueReactor
from tests.postgres import fresh_pg_schema


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


class CountingLedger(LedgerService):
    """The real LedgerService; `in_flight` lets tests wait until the database work is done."""

    @property
    def in_flight(self) -> int:
        """Work handed to the ledger's thread pools (every lane) and not answered yet."""
        return self.working


@pytest.fixture
def ledger(engine: Engine, reactor: QueueReactor) -> Iterator[LedgerService]:
    """A started LedgerService on the temp database."""
    service = CountingLedger(reactor, engine)
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


@pytest.fixture
def db_url_pg() -> Iterator[str]:
    """A fresh PostgreSQL schema, dropped afterwards; skipped when no server answers."""
    with fresh_pg_schema("server_test") as url:
        yield url
