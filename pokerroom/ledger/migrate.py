"""Alembic, configured from code: upgrade, downgrade, the at-head check the server uses, and
`open_database`, the one way a command opens the database (and the one place that decides
whether it may create it).

Alembic is imported only when it is needed: a database already at head is recognised from the
`revision` lines of the migration files and the `alembic_version` row, so that reading commands
(`staff list`, `ledger balance`) do not pay for importing it.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from pokerroom.ledger.db import (
    BAD_URL,
    CANNOT_CREATE,
    DEFAULT_SQLITE_FILE,
    MIGRATION_FAILED,
    NO_DATABASE,
    NOT_A_DATABASE,
    NOT_AT_HEAD,
    REFUSED,
    DatabaseError,
    check_url,
    describe_connect_error,
    make_engine,
    resolve_url,
    sqlite_path,
    where,
)
from pokerroom.ledger.errors import SchemaNotAtHead
from pokerroom.resources import migrations_dir

if TYPE_CHECKING:
    from alembic.config import Config

#: The migrations the package ships (`migrations/` of the checkout).
MIGRATIONS_DIR = migrations_dir()


def alembic_config() -> Config:
    """An Alembic Config without an ini file, pointing at `migrations/`."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision in `migrations/versions`."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to `revision` (default: head)."""
    from alembic import command

    _run(engine, command.upgrade, revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    """Downgrade the database to `revision` (default: empty)."""
    from alembic import command

    _run(engine, command.downgrade, revision)


def _run(engine: Engine, fn: Callable[[Config, str], None], revision: str) -> None:
    config = alembic_config()
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        fn(config, revision)
        conn.commit()


def url_for_humans(engine: Engine) -> str:
    """The engine's URL without its password, as a user would type it."""
    return engine.url.render_as_string(hide_password=True)


def ensure_at_head(engine: Engine) -> None:
    """Raise `SchemaNotAtHead`, naming `pokerroom db upgrade --db URL`, unless at head (ARCH 9)."""
    current, head = current_revision(engine), head_revision()
    if current != head:
        raise SchemaNotAtHead(
            f"database {url_for_humans(engine)} is at revision {current or 'none (empty)'}, "
            f"not at {head}; run: pokerroom db upgrade --db {url_for_humans(engine)}"
        )


def is_default_file(url: str | None) -> bool:
    """True if `url` (None: the default) is the SQLite file `pokerroom.sqlite` of the working
    directory: the one database `pokerroom serve` creates on its own (README's first command)."""
    path = sqlite_path(resolve_url(url))
    return path is not None and path.resolve() == (Path.cwd() / DEFAULT_SQLITE_FILE).resolve()


def upgrade_hint(url: str | None) -> str:
    """The command that creates or migrates the database `url` (None: the default)."""
    if not url:
        return "pokerroom db upgrade"
    shown = url if "://" not in url else make_url(url).render_as_string(hide_password=True)
    return f"pokerroom db upgrade --db {shlex.quote(shown)}"


def open_database(url: str | None, *, create: bool) -> Engine:
    """An engine on the database `url` (None: `$POKERROOM_DB`, else `pokerroom.sqlite`) at head.

    The one rule for every command: with `create`, a missing SQLite file is created and
    migrated to head (a file this call created is removed again if that fails); without it
    nothing is created or migrated. Every problem is one DatabaseError with a one-line message
    (`no database at X: run pokerroom db upgrade`, a schema not at head, a wrong URL, a server
    that does not answer or refuses the login).
    """
    engine, created = _connect(url, create=create)
    try:
        if created:
            _migrate(engine)
        _require_head(engine, url)
    except BaseException:
        engine.dispose()
        _remove(created)
        raise
    return engine


@dataclass(frozen=True, slots=True)
class Upgraded:
    """What `upgrade_database` did: the database, its revision before and after."""

    where: str
    before: str | None
    after: str | None


def upgrade_database(url: str | None) -> Upgraded:
    """Create (a SQLite file) or migrate the database `url` to head; DatabaseError otherwise.

    A SQLite file this call created is removed again when the migration fails.
    """
    engine, created = _connect(url, create=True)
    try:
        before = current_revision(engine)
        _migrate(engine)
        after = current_revision(engine)
    except BaseException:
        engine.dispose()
        _remove(created)
        raise
    engine.dispose()
    return Upgraded(where(engine.url), before, after)


def open_ledger_engine(url: str) -> Engine:
    """An engine at head on an existing database (never creates): `open_database(url)`."""
    return open_database(url, create=False)


_SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def _connect(url: str | None, *, create: bool) -> tuple[Engine, list[Path]]:
    """An engine on a database that exists (or, with `create`, a new SQLite file) and answers;
    the files this call creates (to remove if what follows fails)."""
    parsed = check_url(resolve_url(url))
    path = sqlite_path(parsed)
    created: list[Path] = []
    if path is not None:
        path = Path(os.path.abspath(path))
        if path.is_dir():
            raise DatabaseError(NOT_A_DATABASE, f"{path} is a folder, not a database file")
        if not path.exists():
            if not create:
                fix = f"there is no folder {path.parent}"
                if path.parent.is_dir():
                    fix = f"run {upgrade_hint(url)}"
                raise DatabaseError(NO_DATABASE, f"no database at {path}: {fix}")
            if not path.parent.is_dir():
                raise DatabaseError(
                    CANNOT_CREATE, f"cannot create {path}: there is no folder {path.parent}"
                )
            if not os.access(path.parent, os.W_OK):
                raise DatabaseError(
                    CANNOT_CREATE, f"cannot create {path}: the folder {path.parent} is not writable"
                )
            created = [
                Path(f"{path}{side}")
                for side in _SQLITE_SIDE_FILES
                if not Path(f"{path}{side}").exists()
            ]
        elif not os.access(path, os.R_OK):
            raise DatabaseError(REFUSED, f"cannot read {path}: permission denied")
    try:
        engine = make_engine(parsed)
    except (ImportError, sa.exc.NoSuchModuleError, sa.exc.ArgumentError) as exc:
        raise DatabaseError(BAD_URL, f"cannot use {where(parsed)}: {exc}") from None
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.DBAPIError as exc:
        engine.dispose()
        _remove(created)
        raise describe_connect_error(parsed, exc) from None
    return engine, created


def _migrate(engine: Engine) -> None:
    """Upgrade to head; a failing migration is one DatabaseError(MIGRATION_FAILED)."""
    from alembic.util import CommandError

    try:
        upgrade(engine)
    except (sa.exc.SQLAlchemyError, CommandError) as exc:
        orig = getattr(exc, "orig", None) or exc
        first = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
        raise DatabaseError(
            MIGRATION_FAILED, f"migrating {where(engine.url)} failed: {first}"
        ) from exc


def _remove(created: list[Path]) -> None:
    """Remove the SQLite files a failed create left behind."""
    for path in created:
        path.unlink(missing_ok=True)


def _require_head(engine: Engine, url: str | None) -> None:
    """DatabaseError(NOT_AT_HEAD), naming the command that fixes it, unless at head (ARCH 9)."""
    if _stored_revisions(engine) == [_files_head()]:
        return  # at head, known without importing Alembic
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    name = where(engine.url)
    try:
        script = ScriptDirectory.from_config(alembic_config())
        head = script.get_current_head()
    except CommandError as exc:
        raise DatabaseError(MIGRATION_FAILED, f"cannot read the migrations: {exc}") from None
    current = current_revision(engine)
    if current == head:
        return
    try:
        known = current is None or script.get_revision(current) is not None
    except CommandError:
        known = False
    if not known:
        raise DatabaseError(
            NOT_AT_HEAD,
            f"database {name} is at revision {current}, which this version of pokerroom does not "
            f"know (a newer release migrated it): run that release",
        )
    state = "has no schema" if current is None else f"is at revision {current}, not {head}"
    raise DatabaseError(NOT_AT_HEAD, f"database {name} {state}: run {upgrade_hint(url)}")


#: `revision = "..."` and `down_revision = ...` lines of a migration file (annotated or not).
_REVISION_LINE = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=\s*(.+?)\s*$", re.M)


def _files_head() -> str | None:
    """The one head of the migration files, read from their `revision` and `down_revision`
    lines; None when that cannot be told so simply (no files, a line that is not a literal,
    several heads): the caller then asks Alembic."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        found = dict(_REVISION_LINE.findall(path.read_text(encoding="utf-8")))
        try:
            revision = ast.literal_eval(found["revision"])
            parent = ast.literal_eval(found.get("down_revision", "None"))
        except (KeyError, ValueError, SyntaxError):
            return None
        if not isinstance(revision, str):
            return None
        revisions.add(revision)
        if isinstance(parent, str):
            parents.add(parent)
        elif isinstance(parent, tuple | list):
            parents.update(str(p) for p in parent)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def _stored_revisions(engine: Engine) -> list[str]:
    """The revisions in the database's `alembic_version` table (none: an empty database)."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return []
        rows = conn.execute(sa.text("SELECT version_num FROM alembic_version"))
        return [str(row[0]) for row in rows]
