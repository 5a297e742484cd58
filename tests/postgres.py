"""PostgreSQL for tests: where it is, whether it answers, and a fresh schema per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from pokerroom.ledger.db import make_engine

PG_URL = os.environ.get(
    "POKERROOM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@cache
def pg_problem() -> str | None:
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


@contextmanager
def fresh_pg_schema(prefix: str) -> Iterator[str]:
    """A URL on a new, empty schema, dropped afterwards.

    Without a server the test skips with the reason, or fails when CI requires PostgreSQL
    (POKERROOM_REQUIRE_PG=1).
    """
    problem = pg_problem()
    if problem is not None:
        if os.environ.get("POKERROOM_REQUIRE_PG") == "1":
            pytest.fail(f"PostgreSQL is required (POKERROOM_REQUIRE_PG=1) but {problem}")
        pytest.skip(f"PostgreSQL unreachable at {PG_URL}: {problem}")
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
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
