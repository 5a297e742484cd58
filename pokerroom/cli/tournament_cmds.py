"""Tournament subcommands: `pokerroom tournament simulate`."""

from __future__ import annotations

import json
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click

from pokerroom.cli.database import opened
from pokerroom.cli.output import money

#: The temporary folder of a simulation without --db (removed at the end).
TEMPORARY_PREFIX = "pokerroom-tournament-"
#: tournaments.config.FORMATS and the names of pokerroom.table.bot_policy.POLICIES, written out
#: so that `--help` imports neither (tests/test_cli_lazy.py keeps them equal).
FORMATS = ("freezeout", "reentry", "rebuy")
POLICIES = ("aggressive", "tight")


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
    help="A database at head: a SQLAlchemy URL or a SQLite file path (default: a temporary "
    "SQLite file, removed afterwards).",
)
@click.option("--structure", default="turbo", show_default=True, help="config/tournaments name.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="freezeout", show_default=True)
@click.option("--check-every", type=int, default=100, show_default=True, help="Chip audit.")
@click.option(
    "--policy",
    type=click.Choice(POLICIES),
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
    from tournaments.ops.simulation import CURRENCY, simulate
    from tournaments.templates import load_structures

    configure_logging("console", stream=sys.stderr, level="warning")
    if structure not in load_structures():
        raise click.BadParameter(f"no structure {structure!r}", param_hint="--structure")
    with ExitStack() as stack:
        url, note = db_url, ""
        if url is None:  # a temporary SQLite file, removed with its folder at the end
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix=TEMPORARY_PREFIX))
            url, note = f"sqlite:///{Path(folder) / 'simulate.sqlite'}", " (temporary)"
        engine = stack.enter_context(opened(url, create=db_url is None))
        click.echo(f"database: {url}{note}", err=True)
        report = simulate(
            engine,
            entries,
            seed,
            structure=structure,
            fmt=fmt,
            check_every=check_every,
            policy=policy,
        )
    problems = list(report.chip_errors) + [f"{k}: {e}" for k, e in report.failures]
    if not report.ledger_ok:
        problems.append("ledger check failed")
    for problem in problems[:20]:
        click.echo(f"PROBLEM {problem}", err=True)
    click.echo(_summary(report.line(), CURRENCY), err=True)
    click.echo(json.dumps(report.line(), separators=(", ", ": ")))
    if problems:
        sys.exit(1)


def _summary(line: dict[str, Any], currency: str) -> str:
    """The JSON summary for people (stderr): money as money."""
    return (
        f"{line['entries']} entries, {line['hands']} hands, at most {line['tables_max']} tables; "
        f"prize pool {money(line['prize_pool'], currency)}, paid "
        f"{money(line['paid_total'], currency)}"
    )
