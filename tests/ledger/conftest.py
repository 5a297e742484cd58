"""Database fixtures: every ledger test runs on SQLite and on PostgreSQL (ids say which)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred

from pokerroom.ledger.db import make_engine
from pokerroom.ledger.migrate import upgrade
from tests.postgres import fresh_pg_schema


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or a fresh PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.sqlite'}"
        return
    with fresh_pg_schema("ledger_test") as url:
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on a database upgraded to head."""
    eng = make_engine(db_url)
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


class QueueReactor:
    """Just enough reactor for deferToThreadPool: calls from threads queue up for the test."""

    def __init__(self) -> None:
        self.calls: queue.Queue[tuple[Callable[..., Any], tuple, dict]] = queue.Queue()

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.calls.put((f, args, kwargs))

    def wait(self, d: Deferred, timeout: float = 30.0) -> Any:
        """Run queued calls on this thread until `d` fires; return its result or raise."""
        done = threading.Event()
        box: list[Any] = []

        def finish(result: Any) -> None:
            box.append(result)
            done.set()

        d.addBoth(finish)
        while not done.is_set():
            f, args, kwargs = self.calls.get(timeout=timeout)
            f(*args, **kwargs)
        result = box[0]
        if hasattr(result, "raiseException"):  # a Failure
            result.raiseException()
        return result


@pytest.fixture
def reactor() -> QueueReactor:
    """A reactor stand-in whose thread callbacks run on the test thread."""
    return QueueReactor()
