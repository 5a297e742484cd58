"""Migration 0003 builds exactly the cash tables of schema.py and removes them again (C-12)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from pokerroom.cash import schema
from pokerroom.ledger import migrate
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.schema import metadata

CASH_TABLES = {t.name for t in metadata.sorted_tables if t.name.startswith("cash_")}


def test_cash_migration_matches_the_store_tables(tmp_path: Path) -> None:  # C-12
    """The revision and the Core definitions agree; downgrading past it drops the tables."""
    assert schema.cash_hands.name in CASH_TABLES and len(CASH_TABLES) == 9
    engine = make_engine(f"sqlite:///{tmp_path / 'schema.sqlite'}")
    try:
        migrate.upgrade(engine)

        def cash_only(obj: object, name: str | None, type_: str, *_: object) -> bool:
            table = obj if type_ == "table" else getattr(obj, "table", None)
            return getattr(table, "name", name) in CASH_TABLES

        only_cash = {"include_object": cash_only}
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts=only_cash)
            assert compare_metadata(context, metadata) == []
        migrate.downgrade(engine, "0002_players_chat")
        assert not CASH_TABLES & set(sa.inspect(engine).get_table_names())
        migrate.upgrade(engine)
        assert set(sa.inspect(engine).get_table_names()) >= CASH_TABLES
    finally:
        engine.dispose()
