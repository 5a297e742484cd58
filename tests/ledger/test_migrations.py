"""Migrations: empty -> head -> empty on both databases; the at-head check names the command."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from pokerroom.ledger import migrate
from pokerroom.ledger.db import DatabaseError, make_engine
from pokerroom.ledger.errors import SchemaNotAtHead
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.transfers import move
from pokerroom.schema import all_metadata

LEDGER_TABLES = {"accounts", "journal", "postings"}


def _tables(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


def test_upgrade_from_empty_to_head_and_down_again(db_url: str) -> None:
    """Head builds exactly the declared schema of every feature, and downgrade removes it."""
    engine = make_engine(db_url)
    try:
        assert migrate.current_revision(engine) is None
        migrate.upgrade(engine)
        assert migrate.current_revision(engine) == migrate.head_revision()
        assert _tables(engine) >= LEDGER_TABLES
        with engine.connect() as conn:  # head builds exactly what every schema module declares
            context = MigrationContext.configure(conn)
            assert compare_metadata(context, all_metadata()) == []
        migrate.ensure_at_head(engine)
        migrate.downgrade(engine)
        assert migrate.current_revision(engine) is None
        assert not (LEDGER_TABLES & _tables(engine))
        migrate.upgrade(engine)  # and up again: the downgrade left nothing behind
        assert migrate.current_revision(engine) == migrate.head_revision()
    finally:
        engine.dispose()


def test_not_at_head_names_the_upgrade_command(db_url: str) -> None:
    """ARCH 9: a database not at head is refused with the command that fixes it."""
    engine = make_engine(db_url)
    try:
        with pytest.raises(SchemaNotAtHead) as info:
            migrate.ensure_at_head(engine)
        assert info.value.code == "schema_not_at_head"
        assert "pokerroom db upgrade --db" in str(info.value)
    finally:
        engine.dispose()


def test_journal_and_postings_are_append_only(engine: sa.Engine) -> None:
    """P-2: the database itself refuses UPDATE and DELETE on journal and postings."""
    move(
        engine,
        key="k1",
        kind="deposit",
        currency="USD",
        source=external("USD"),
        destination=wallet("alice", "USD"),
        amount=100,
    )
    for statement in (
        "UPDATE journal SET memo = 'x'",
        "DELETE FROM journal",
        "UPDATE postings SET amount = 5",
        "DELETE FROM postings",
    ):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), engine.begin() as conn:
            conn.exec_driver_sql(statement)


def test_negative_balance_is_refused_by_the_named_check(engine: sa.Engine) -> None:
    """The CHECK constraint is named, so a bug that bypasses the code still cannot go negative."""
    move(
        engine,
        key="k1",
        kind="deposit",
        currency="USD",
        source=external("USD"),
        destination=wallet("alice", "USD"),
        amount=100,
    )
    refused = pytest.raises(sa.exc.IntegrityError, match="ck_accounts_balance_nonnegative")
    with refused, engine.begin() as conn:
        conn.exec_driver_sql("UPDATE accounts SET balance = -1 WHERE kind = 'wallet'")


def test_only_a_creating_open_makes_a_database_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`open_database(create=False)` never creates a file; `create=True` creates and migrates
    a missing SQLite file to head; a file that exists but has no schema is refused (ARCH 9)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POKERROOM_DB", raising=False)
    with pytest.raises(DatabaseError) as caught:
        migrate.open_database(None, create=False)
    assert caught.value.code == "no_database" and list(tmp_path.iterdir()) == []
    engine = migrate.open_database(None, create=True)
    try:
        assert migrate.current_revision(engine) == migrate.head_revision()
    finally:
        engine.dispose()
    assert (tmp_path / "pokerroom.sqlite").exists()
    (tmp_path / "other.sqlite").touch()
    with pytest.raises(DatabaseError) as caught:
        migrate.open_database(f"sqlite:///{tmp_path / 'other.sqlite'}", create=True)
    assert caught.value.code == "schema_not_at_head"
    assert "run pokerroom db upgrade --db" in caught.value.message
