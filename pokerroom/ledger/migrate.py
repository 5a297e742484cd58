"""Alembic, configured from code: upgrade, downgrade, and the at-head check the server uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from pokerroom.ledger.db import DEFAULT_SQLITE_FILE, make_engine, sqlite_path
from pokerroom.ledger.errors import SchemaNotAtHead
from pokerroom.resources import migrations_dir

#: The migrations the package ships (`migrations/` of the checkout).
MIGRATIONS_DIR = migrations_dir()


def alembic_config() -> Config:
    """An Alembic Config without an ini file, pointing at `migrations/`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision in `migrations/versions`."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to `revision` (default: head)."""
    _run(engine, command.upgrade, revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    """Downgrade the database to `revision` (default: empty)."""
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


def is_brand_new_default(url: str) -> bool:
    """True if `url` is the default SQLite file and that file does not exist yet."""
    path = sqlite_path(url)
    if path is None or path.exists():
        return False
    return path.resolve() == (Path.cwd() / DEFAULT_SQLITE_FILE).resolve()


def open_ledger_engine(url: str) -> Engine:
    """An engine at head: a brand-new default SQLite file is created and upgraded on the spot."""
    brand_new = is_brand_new_default(url)
    engine = make_engine(url)
    if brand_new:
        upgrade(engine)
    ensure_at_head(engine)
    return engine
