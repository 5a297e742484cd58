"""Engines for SQLite and PostgreSQL, the default URL, and transactions with retries.

`DatabaseError` is the one error for a database that cannot be opened as asked (a wrong URL,
no such database, a server that does not answer, a refused login, an old schema): a stable
`code` and a one-line message (`describe_connect_error` turns a driver's error into one).
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.pool import ConnectionPoolEntry

from pokerroom.ledger.errors import LedgerError

ENV_VAR = "POKERROOM_DB"
DEFAULT_SQLITE_FILE = "pokerroom.sqlite"
READ_ONLY = "ledger_read_only"
T = TypeVar("T")

_PG_RETRY_STATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock


#: The backends the room runs on; any other URL scheme is refused before connecting.
BACKENDS = ("sqlite", "postgresql")
#: PostgreSQL: seconds to wait for the server to answer a new connection (rule 16), unless
#: the URL says `?connect_timeout=N`.
PG_CONNECT_TIMEOUT = 10

# The `code` of each DatabaseError (docs/OPERATIONS.md maps them to exit codes).
BAD_URL = "bad_database_url"
NO_DATABASE = "no_database"
CANNOT_CREATE = "cannot_create_database"
UNAVAILABLE = "database_unavailable"
REFUSED = "database_refused"
NOT_AT_HEAD = "schema_not_at_head"
NOT_A_DATABASE = "not_a_database"
MIGRATION_FAILED = "migration_failed"


class DatabaseError(LedgerError):
    """The database cannot be opened or used as asked; `code` says why, the message in one line."""

    code = "database_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(" ".join(message.split()))
        self.code = code


def default_url() -> str:
    """`$POKERROOM_DB`, or a SQLite file `pokerroom.sqlite` in the working directory."""
    return os.environ.get(ENV_VAR) or f"sqlite:///{DEFAULT_SQLITE_FILE}"


def resolve_url(url: str | None) -> str:
    """The URL given (else the default); a plain path (no `://`) is a SQLite file.

    The path is relative to the working directory, and `~` is expanded.
    """
    chosen = url if url else default_url()
    if "://" in chosen:
        return chosen
    return f"sqlite:///{os.path.abspath(os.path.expanduser(chosen))}"


def check_url(url: str) -> URL:
    """The parsed URL of a backend the room runs on, or DatabaseError(BAD_URL)."""
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError:
        raise DatabaseError(
            BAD_URL, f"{url!r} is not a database URL: use a file path, {EXAMPLES}"
        ) from None
    backend = parsed.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in BACKENDS:
        raise DatabaseError(
            BAD_URL,
            f"unknown database scheme {parsed.drivername!r} in {where(parsed)}: use {EXAMPLES}",
        )
    if backend == "postgresql" and not parsed.database:
        raise DatabaseError(BAD_URL, f"{where(parsed)} names no database: use {EXAMPLES}")
    return parsed


EXAMPLES = "sqlite:///PATH or postgresql://USER@HOST/DATABASE"


def where(url: str | URL) -> str:
    """How to name the database in a message: a SQLite file's absolute path, else the URL
    as typed (no password, no driver suffix)."""
    parsed = make_url(url) if isinstance(url, str) else url
    path = sqlite_path(parsed) if parsed.get_backend_name() == "sqlite" else None
    if path is not None:
        return os.path.abspath(path)
    if parsed.drivername == "postgresql+psycopg":
        parsed = parsed.set(drivername="postgresql")
    return parsed.render_as_string(hide_password=True)


_PG_PREFIXES = (
    re.compile(r"^connection failed:\s*"),
    re.compile(r"^connection to server at [^,]*, port \d+ failed:\s*"),
    re.compile(r"^connection to server on socket [^ ]* failed:\s*"),
    re.compile(r"^FATAL:\s*"),
)
_PG_NO_DATABASE = re.compile(r'database "[^"]*" does not exist')
_PG_REFUSED = re.compile(
    r'role "[^"]*" does not exist|password authentication failed|no pg_hba\.conf entry'
    r"|permission denied|no password supplied|authentication failed",
    re.IGNORECASE,
)


def describe_connect_error(url: str | URL, exc: BaseException) -> DatabaseError:
    """The DatabaseError for a failure to connect or to use the database at `url` (one line)."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    for prefix in _PG_PREFIXES:
        text = prefix.sub("", text)
    name = where(url)
    if isinstance(orig, sqlite3.DatabaseError) and "not a database" in text:
        return DatabaseError(NOT_A_DATABASE, f"{name} is not a SQLite database ({text})")
    if _PG_NO_DATABASE.search(text):
        return DatabaseError(NO_DATABASE, f"no database at {name}: {text}")
    if _PG_REFUSED.search(text):
        return DatabaseError(REFUSED, f"{name} refused the connection: {text}")
    return DatabaseError(UNAVAILABLE, f"cannot reach the database {name}: {text}")


def normalize_url(url: str | URL) -> URL:
    """Parse a URL; plain `postgresql://` means the psycopg (3) driver we ship with."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def sqlite_path(url: str | URL) -> Path | None:
    """The file of a file-backed SQLite URL, else None."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    if parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


#: SQLite: how long a write waits for another connection's write lock before "locked".
#: Past it the ledger service treats the database as out (retries, tables pause).
SQLITE_BUSY_SECONDS = 5.0


def make_engine(
    url: str | URL, *, pool_size: int = 5, busy_timeout: float = SQLITE_BUSY_SECONDS
) -> Engine:
    """Create an engine with the ledger's connection settings for its backend."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect = {"timeout": busy_timeout, "check_same_thread": False}
        engine = sa.create_engine(parsed, connect_args=connect)
        _install_sqlite_hooks(engine, busy_timeout)
        return engine
    args: dict[str, object] = {}
    if "connect_timeout" not in parsed.query:
        args["connect_timeout"] = PG_CONNECT_TIMEOUT
    return sa.create_engine(parsed, pool_size=pool_size, max_overflow=pool_size, connect_args=args)


def _install_sqlite_hooks(engine: Engine, busy_timeout: float) -> None:
    """WAL, synchronous=FULL, foreign keys, and `BEGIN IMMEDIATE` for writes.

    pysqlite's own transaction handling is switched off so that SQLAlchemy's
    `begin` event can emit the BEGIN itself (the 'pysqlite serializable' recipe).
    A write transaction takes the write lock at BEGIN, so two writers never both
    read and then fail to upgrade their lock halfway through a transfer.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = "DEFERRED" if conn.get_execution_options().get(READ_ONLY) else "IMMEDIATE"
        conn.exec_driver_sql(f"BEGIN {mode}")


def is_retryable(exc: BaseException) -> bool:
    """True for SQLite busy/locked and PostgreSQL serialization failures and deadlocks."""
    if not isinstance(exc, sa.exc.DBAPIError):
        return False
    orig = exc.orig
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if state in _PG_RETRY_STATES:
        return True
    text = str(orig).lower()
    return isinstance(exc, sa.exc.OperationalError) and ("locked" in text or "busy" in text)


def backoff(attempt: int) -> None:
    """Wait a little, with jitter, before retrying a transaction."""
    time.sleep(random.uniform(0, min(0.002 * (2**attempt), 0.1)))


def in_transaction(
    engine: Engine, work: Callable[[Connection], T], *, read_only: bool = False, attempts: int = 10
) -> T:
    """Run `work(conn)` in one transaction, retrying busy/serialization failures."""
    for attempt in range(attempts):
        try:
            with engine.connect() as conn:
                if read_only:
                    conn.execution_options(**{READ_ONLY: True})
                    if conn.dialect.name == "postgresql":
                        conn.execution_options(isolation_level="REPEATABLE READ")
                with conn.begin():
                    return work(conn)
        except sa.exc.DBAPIError as exc:
            if attempt + 1 >= attempts or not is_retryable(exc):
                raise
            backoff(attempt)
    raise AssertionError("unreachable")


class DriverCursor:
    """A cursor of the driver's own connection, for statements written once and run without
    SQLAlchemy's per-execution work (the per-hand path). Its errors are SQLAlchemy's, as
    through `Connection.execute` (`IntegrityError`, `OperationalError`, a lost connection
    flagged `connection_invalidated`), so that `faults.is_transient` and callers judge them
    alike. The transaction, its events and its commit stay SQLAlchemy's."""

    __slots__ = ("_conn", "_cursor")

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._cursor = conn.connection.cursor()

    def execute(self, statement: str, params: Sequence[Any] = ()) -> DriverCursor:
        """Run one statement with positional parameters in the driver's placeholder style."""
        try:
            self._cursor.execute(statement, params)
        except self._conn.dialect.loaded_dbapi.Error as exc:
            raise self._error(exc, statement, params) from exc
        return self

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row."""
        try:
            self._cursor.executemany(statement, rows)
        except self._conn.dialect.loaded_dbapi.Error as exc:
            raise self._error(exc, statement, rows) from exc

    def fetchall(self) -> list[Any]:
        """The rows the last statement returned."""
        return list(self._cursor.fetchall())

    def _error(self, exc: Any, statement: str, params: Any) -> sa.exc.StatementError:
        dialect = self._conn.dialect
        lost = dialect.is_disconnect(exc, self._conn.connection.dbapi_connection, self._cursor)
        error: sa.exc.StatementError = sa.exc.DBAPIError.instance(
            statement,
            params,
            exc,
            dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=dialect,
        )
        return error


def read(bind: Engine | Connection, work: Callable[[Connection], T]) -> T:
    """Run read-only `work` on a Connection, or in a snapshot transaction of an Engine."""
    if isinstance(bind, Connection):
        return work(bind)
    return in_transaction(bind, work, read_only=True)
