"""Tournament subcommands: `pokerroom tournament simulate`."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import click

from pokerroom.ledger import migrate
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.errors import LedgerError
from pokerroom.table.bot_policy import POLICIES
from tournaments.config import FORMATS
from tournaments.templates import load_structures


@click.group("tournament")
def tournament() -> None:
    """Tournament commands."""


@tournament.command("simulate")
@click.option("--entries", type=click.IntRange(2, 100_000), required=True, help="Players.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of every RNG.")
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    default=None,
    help="SQLAlchemy URL of a ledger at head (default: a new temporary SQLite file).",
)
@click.option("--structure", default="turbo", show_default=True, help="config/tournaments name.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="freezeout", show_default=True)
@click.option("--check-every", type=int, default=100, show_default=True, help="Chip audit.")
@click.option(
    "--policy",
    type=click.Choice(sorted(POLICIES)),
    default="tight",
    show_default=True,
    help="How the bots play: tight (most hands folded) or aggressive (all-in often).",
)
def simulate_command(
    entries: int,
    seed: int,
    db_url: str | None,
    structure: str,
    fmt: str,
    check_every: int,
    policy: str,
) -> None:
    """Run one tournament to the end with bots in every seat; print a JSON summary last.

    The real director, tables and ledger run on a fake clock; bots act at once when asked, by
    the policy chosen. Afterwards the database passes `pokerroom ledger check`.
    """
    from pokerroom.server.logs import configure_logging
    from tournaments.simulation import simulate

    configure_logging("console", stream=sys.stderr, level="warning")
    if structure not in load_structures():
        raise click.BadParameter(f"no structure {structure!r}", param_hint="--structure")
    if db_url is None:
        folder = Path(tempfile.mkdtemp(prefix="pokerroom-tournament-"))
        db_url = f"sqlite:///{folder / 'simulate.sqlite'}"
        engine = make_engine(db_url)
        migrate.upgrade(engine)
    else:
        try:
            engine = migrate.open_ledger_engine(db_url)
        except LedgerError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"database: {db_url}", err=True)
    try:
        report = simulate(
            engine,
            entries,
            seed,
            structure=structure,
            fmt=fmt,
            check_every=check_every,
            policy=policy,
        )
    finally:
        engine.dispose()
    problems = list(report.chip_errors) + [f"{k}: {e}" for k, e in report.failures]
    if not report.ledger_ok:
        problems.append("ledger check failed")
    for problem in problems[:20]:
        click.echo(f"PROBLEM {problem}", err=True)
    click.echo(json.dumps(report.line(), separators=(", ", ": ")))
    if problems:
        sys.exit(1)


COMMANDS = [tournament]
