"""The `--db` option and the one way a command opens the database: a problem is one line on
stderr and an exit code that says which problem (docs/OPERATIONS.md, "Exit codes").

Only `db upgrade`, `init` and `serve` may create a database (`create=True`); every other command
opens an existing one at the newest revision and creates nothing. Heavy imports stay inside the
functions: `pokerroom --help` must not pay for SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: The environment variable naming the database (pokerroom.ledger.db.ENV_VAR).
ENV_VAR = "POKERROOM_DB"
DB_HELP = (
    f"The database: a SQLAlchemy URL (sqlite:///PATH, postgresql://USER@HOST/DB) or a SQLite "
    f"file path (default: ${ENV_VAR}, else pokerroom.sqlite in the working directory)."
)
db_option = click.option("--db", "db_url", metavar="URL", default=None, help=DB_HELP)

#: Exit code of each DatabaseError code (sysexits.h values; docs/OPERATIONS.md).
EXIT_CODES = {
    "schema_not_at_head": 65,  # EX_DATAERR: the database exists but needs `db upgrade`
    "not_a_database": 65,
    "no_database": 66,  # EX_NOINPUT: no database at that place
    "database_unavailable": 69,  # EX_UNAVAILABLE: the server does not answer
    "migration_failed": 70,  # EX_SOFTWARE: a migration failed (nothing half-created is left)
    "cannot_create_database": 73,  # EX_CANTCREAT: the folder is missing or read-only
    "database_refused": 77,  # EX_NOPERM: the role or password was refused
    "bad_database_url": 78,  # EX_CONFIG: the URL is wrong (scheme, driver, syntax)
}


class DatabaseProblem(click.ClickException):
    """A DatabaseError as the CLI reports it: `Error: <one line>` and its exit code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.exit_code = EXIT_CODES.get(code, 1)  # type: ignore[misc]  # click reads the instance's


def problem(exc: Exception) -> DatabaseProblem:
    """The CLI error for a DatabaseError."""
    return DatabaseProblem(getattr(exc, "code", ""), getattr(exc, "message", str(exc)))


@contextmanager
def opened(db_url: str | None, *, create: bool = False) -> Iterator[Engine]:
    """An engine at head for the command (see `open_database`), disposed afterwards.

    Opening problems, and a connection lost or refused while the command runs, exit with one
    line and their code.
    """
    import sqlalchemy as sa

    from pokerroom.ledger.db import DatabaseError, describe_connect_error, resolve_url
    from pokerroom.ledger.migrate import open_database

    try:
        engine = open_database(db_url, create=create)
    except DatabaseError as exc:
        raise problem(exc) from None
    try:
        yield engine
    except sa.exc.OperationalError as exc:  # the server went away while we worked
        raise problem(describe_connect_error(resolve_url(db_url), exc)) from None
    finally:
        engine.dispose()
