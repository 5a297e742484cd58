"""`pokerroom serve`: run the room (ledger, tables, TCP listener) until interrupted."""

from __future__ import annotations

import click

from pokerroom.ledger import migrate
from pokerroom.ledger.db import ENV_VAR, resolve_url
from pokerroom.ledger.errors import LedgerError

DB_HELP = (
    f"SQLAlchemy URL of the database (default: ${ENV_VAR}, else sqlite:///pokerroom.sqlite in "
    "the working directory, created and migrated on first run)."
)


@click.command("serve")
@click.option("--db", "db_url", metavar="URL", default=None, help=DB_HELP)
@click.option("--port", type=int, default=None, help="TCP port (default: config, 9999; 0: any).")
@click.option("--host", default=None, help="Interface to listen on (default: config).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Room settings TOML (default: config/room.toml).",
)
def serve(db_url: str | None, port: int | None, host: str | None, config_path: str | None) -> None:
    """Run the poker room server: cash tables from the config, clients over TCP."""
    import dataclasses

    from pokerroom.server.logs import configure_logging
    from pokerroom.server.settings import SettingsError, load_settings

    try:
        settings = load_settings(config_path)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    if host is not None:
        settings = dataclasses.replace(settings, host=host)
    configure_logging(settings.log_format)
    try:
        engine = migrate.open_ledger_engine(resolve_url(db_url))  # ARCH 9: refused if not at head
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from None
    raise SystemExit(run_server(engine, settings, port))


def run_server(engine: object, settings: object, port: int | None) -> int:
    """Start the reactor with a RoomService; returns the exit status."""
    from twisted.internet import reactor  # only here: never at module level (ARCH 3)

    from pokerroom.server.service import RoomService

    room = RoomService(reactor, engine, settings, port=port)  # type: ignore[arg-type]
    status = {"code": 0}

    def started(listening: object) -> None:
        address = listening.getHost()  # type: ignore[attr-defined]
        click.echo(f"pokerroom listening on {address.host}:{address.port}", err=False)

    def failed(failure: object) -> None:
        click.echo(f"pokerroom: could not start: {failure.value}", err=True)  # type: ignore[attr-defined]
        status["code"] = 1
        reactor.stop()  # type: ignore[attr-defined]

    def start() -> None:
        try:
            room.startService()
        except LedgerError as exc:
            click.echo(f"pokerroom: {exc}", err=True)
            status["code"] = 1
            reactor.stop()  # type: ignore[attr-defined]
            return
        room.ready.addCallbacks(started, failed)
        reactor.addSystemEventTrigger("before", "shutdown", room.stopService)  # type: ignore[attr-defined]

    reactor.callWhenRunning(start)  # type: ignore[attr-defined]
    reactor.run()  # type: ignore[attr-defined]
    return status["code"]


COMMANDS = [serve]
