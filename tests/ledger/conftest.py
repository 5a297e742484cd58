"""Database fixtures: every ledger test runs on SQLite and on PostgreSQL (ids say which)."""

from __future__ import annotations

import os
import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url
from twisted.internet.defer import Deferred

from pokerroom.ledger.db import make_engine
from pokerroom.ledger.migrate import upgrade

PG_URL = os.environ.get(
    "POKERROOM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@cache
def _pg_problem() -> str | None:
    """None if PostgreSQL answers, else why not."""
    engine = make_engine(make_url(PG_URL).update_query_dict({"connect_timeout": "3"}))
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
    except Exception as exc:  # any failure to connect means "unreachable"
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    finally:
        engine.dispose()
    return None


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or a fresh PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.sqlite'}"
        return
    problem = _pg_problem()
    if problem is not None:
        if os.environ.get("POKERROOM_REQUIRE_PG") == "1":
            pytest.fail(f"PostgreSQL is required (POKERROOM_REQUIRE_PG=1) but {problem}")
        pytest.skip(f"PostgreSQL unreachable at {PG_URL}: {problem}")
    schema = f"ledger_test_{uuid.uuid4().hex[:12]}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


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
