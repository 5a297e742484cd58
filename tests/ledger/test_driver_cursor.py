"""`DriverCursor`: statements on the driver's own cursor fail with SQLAlchemy's errors, so that
an outage is still told from a refusal (faults.is_transient) on the per-hand path (P-2, rule 16).

A bare driver cursor raises the driver's own exceptions (sqlite3, psycopg), which
`is_transient` does not know: a lost connection in the middle of a settlement batch would then
fail every hand of it for good instead of being tried again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger.db import READ_ONLY, DriverCursor, make_engine
from pokerroom.ledger.faults import is_transient
from pokerroom.ledger.migrate import upgrade

INSERT = (
    "INSERT INTO journal (idempotency_key, kind, currency, reference, memo, content_hash)"
    " VALUES ({m}, 'deposit', 'USD', '', '', 'h')"
)


def mark(engine: Engine) -> str:
    """The driver's positional placeholder."""
    return "?" if engine.dialect.name == "sqlite" else "%s"


def test_a_refusal_is_sqlalchemys_integrity_error_and_not_transient(engine: Engine) -> None:
    """A key stored twice: `sa.exc.IntegrityError` (what `Connection.execute` raises), final."""
    sql = INSERT.format(m=mark(engine))
    with engine.begin() as conn:
        DriverCursor(conn).execute(sql, ("k1",))
    with pytest.raises(sa.exc.IntegrityError) as caught, engine.begin() as conn:
        DriverCursor(conn).executemany(sql, [("k2",), ("k1",)])
    assert not is_transient(caught.value)
    with engine.connect() as conn:
        keys = conn.exec_driver_sql("SELECT idempotency_key FROM journal").scalars().all()
    assert keys == ["k1"]  # the failed transaction kept nothing


def test_rows_come_back(engine: Engine) -> None:
    """`fetchall` gives the statement's rows."""
    sql = INSERT.format(m=mark(engine)) + " RETURNING idempotency_key"
    with engine.begin() as conn:
        assert DriverCursor(conn).execute(sql, ("k3",)).fetchall() == [("k3",)]


def test_a_locked_sqlite_file_is_transient(tmp_path: Path) -> None:
    """Another connection holds the write lock past the busy timeout: OperationalError,
    transient (the batch is tried again, not failed hand by hand)."""
    url = f"sqlite:///{tmp_path / 'locked.sqlite'}"
    upgrade(make_engine(url))
    holder, waiter = make_engine(url), make_engine(url, busy_timeout=0.05)
    with holder.begin() as held:
        held.exec_driver_sql("DELETE FROM journal")  # BEGIN IMMEDIATE: the write lock is held
        with pytest.raises(sa.exc.OperationalError) as caught, waiter.connect() as conn:
            conn.execution_options(**{READ_ONLY: True})  # BEGIN DEFERRED: no lock taken yet
            with conn.begin():
                DriverCursor(conn).execute(INSERT.format(m="?"), ("k4",))
    assert "locked" in str(caught.value.orig)
    assert is_transient(caught.value)


@pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgresql)], indirect=True
)
def test_a_lost_postgresql_connection_is_transient(engine: Engine) -> None:
    """The server ends the session mid-transaction: flagged `connection_invalidated`,
    transient; the engine's next connection works."""
    assert engine.dialect.name == "postgresql"
    with pytest.raises(sa.exc.DBAPIError) as caught, engine.connect() as conn, conn.begin():
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with engine.connect() as other:
            other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        DriverCursor(conn).execute(INSERT.format(m="%s"), ("k5",))
    assert caught.value.connection_invalidated
    assert is_transient(caught.value)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
