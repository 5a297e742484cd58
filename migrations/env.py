"""Alembic environment: run with a connection handed in by `pokerroom.ledger.migrate`."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from pokerroom.schema import all_metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=all_metadata(),  # every feature's tables, for autogenerate
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # Called without a connection (e.g. the alembic CLI with -x db=URL): build one.
    from pokerroom.ledger.db import make_engine, resolve_url

    url = context.get_x_argument(as_dictionary=True).get("db")
    engine = make_engine(resolve_url(url))
    with engine.connect() as conn:
        _run(conn)
        conn.commit()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; pass a database")
_main()
