"""Job subcommands: `pokerroom jobs run JOB [--dry-run] [--json]`, `pokerroom jobs list`.

A run takes the job's lock (one runner at a time across processes and servers: another runner
exits 0 saying so), writes a `job_runs` row and does the job; `--dry-run` moves and writes
nothing and prints what a run would pay. docs/OPERATIONS.md: by hand, cron, systemd timer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from pokerroom.cli.database import db_option, opened

if TYPE_CHECKING:
    from rich.console import Console

    from pokerroom.jobs import refunds as refund_job

#: The jobs `jobs run` and `jobs list --job` know (pokerroom.jobs.JOBS; a test keeps them equal).
JOB_NAMES = ("refunds",)
COLUMNS = (
    ("fee", "fee"),
    ("buy_in", "buy-in"),
    ("pool_equal_share", "pool equal"),
    ("pool_chip_share", "pool chips"),
    ("next_prize", "next prize"),
    ("bounty", "bounty"),
)

json_option = click.option("--json", "as_json", is_flag=True, help="One JSON document.")


def _console() -> Console:
    """Rich output on stdout; wide enough for the tables when stdout is not a terminal."""
    from rich.console import Console

    return Console(file=sys.stdout, width=None if sys.stdout.isatty() else 160)


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


@click.group("jobs")
def jobs() -> None:
    """Scheduled jobs: run one now, or list the recent runs (amounts in minor units)."""


@jobs.command("run")
@click.argument("job", type=click.Choice(JOB_NAMES))
@db_option
@click.option("--dry-run", is_flag=True, help="Print who would get what; move nothing.")
@json_option
@click.option(
    "--batch",
    type=click.IntRange(1, 10_000),
    default=200,
    show_default=True,
    help="Refund components paid per database transaction.",
)
@click.option("--verbose", is_flag=True, help="Print progress as batches are paid.")
def jobs_run(
    job: str, db_url: str | None, dry_run: bool, as_json: bool, batch: int, verbose: bool
) -> None:
    """Run JOB now; exit 0 when done or when another runner holds the lock (it does the job).

    refunds: pays the T-18 refunds of every cancelled tournament, each component once.
    """
    import time

    from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
    from pokerroom.jobs import refunds as refund_job
    from pokerroom.jobs.lock import runner_name

    with opened(db_url) as engine:
        if dry_run:
            previews = refund_job.preview(engine)
            if as_json:
                click.echo(json.dumps(_preview_json(previews), indent=2))
            else:
                _print_preview(previews)
            return
        say = (lambda line: click.echo(line, err=True)) if verbose else None
        ctx = JobContext(time.time, JobSettings(batch=batch), progress=say)
        report = run_blocking(engine, job_run(RefundsJob(), runner_name(), ctx))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "job": report.job,
                    "run_id": report.run_id,
                    "outcome": report.outcome,
                    "message": report.message,
                    "tournaments": list(report.tournaments),
                    "amounts": dict(report.amounts),
                    "transfers": report.transfers,
                    "errors": [list(e) for e in report.errors],
                },
                indent=2,
            )
        )
    else:
        click.echo(report.message)
        for item, what in report.errors:
            click.echo(f"  {item}: {what}", err=True)
    raise SystemExit(report.exit_code)


def _preview_json(previews: Sequence[refund_job.Preview]) -> dict[str, Any]:
    """The dry run for machines."""
    return {
        "dry_run": True,
        "tournaments": [
            {
                "id": p.tournament_id,
                "currency": p.currency,
                "reason": p.reason,
                "phase": p.phase,
                "plan_stored": p.stored,
                "error": p.error,
                "to_pay": sum(r.amount for r in p.rows if not r.paid),
                "refunds": [
                    {
                        "player": r.player,
                        "component": r.component,
                        "amount": r.amount,
                        "source": r.source,
                        "to": [list(d) for d in r.destinations],
                        "paid": r.paid,
                    }
                    for r in p.rows
                ],
            }
            for p in previews
        ],
    }


def _print_preview(previews: Sequence[refund_job.Preview]) -> None:
    """The dry run for people: one table per tournament, one line per player."""
    from rich.table import Table

    from tournaments.store import HOUSE_ROW

    console = _console()
    if not previews:
        console.print("refunds (dry run): no cancelled tournament waits for refunds")
        return
    for p in previews:
        title = f"{p.tournament_id}: cancelled ({p.reason or '?'}), {p.phase or '?'}, {p.currency}"
        if p.error is not None:
            console.print(f"[bold]{title}[/bold]: NOT refundable now: {p.error}")
            continue
        table = Table(title=title, caption="dry run: nothing moved; amounts in minor units")
        table.add_column("player")
        for _, heading in COLUMNS:
            table.add_column(heading, justify="right")
        table.add_column("total", justify="right")
        table.add_column("to")
        table.add_column("state")
        players: dict[str, dict[str, Any]] = {}
        for row in p.rows:
            line = players.setdefault(row.player, {"to": {}, "paid": 0, "rows": 0})
            line[row.component] = row.amount
            line["rows"] += 1
            line["paid"] += 1 if row.paid else 0
            for account, _ in row.destinations:
                line["to"][account] = None
        for player, line in sorted(players.items(), key=lambda kv: kv[0] == HOUSE_ROW):
            amounts = [line.get(component, 0) for component, _ in COLUMNS]
            if player == HOUSE_ROW:
                amounts = [0] * len(COLUMNS)
                total = line.get("rounding", 0) + line.get("overlay", 0)
                player = "house (rounding, overlay)"
            else:
                total = sum(amounts)
            state = "paid" if line["paid"] == line["rows"] else "to pay"
            if 0 < line["paid"] < line["rows"]:
                state = f"{line['paid']}/{line['rows']} paid"
            table.add_row(
                player,
                *(str(a) if a else "" for a in amounts),
                str(total),
                ", ".join(line["to"]),
                state,
            )
        console.print(table)
        to_pay = sum(r.amount for r in p.rows if not r.paid and r.player != HOUSE_ROW)
        console.print(f"players to be paid {to_pay} {p.currency} in {len(players)} line(s)")


@jobs.command("list")
@db_option
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option(
    "--job", "job_name", type=click.Choice(JOB_NAMES), default=None, help="Only this job."
)
@json_option
def jobs_list(db_url: str | None, limit: int, job_name: str | None, as_json: bool) -> None:
    """The most recent job runs, newest first (a `running` row with no end was killed)."""
    from rich.table import Table

    from pokerroom.jobs.runs import recent_runs

    with opened(db_url) as engine:
        rows = recent_runs(engine, limit, job_name)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "job": r.job,
                        "runner": r.runner,
                        "started_at_ms": r.started_at_ms,
                        "ended_at_ms": r.ended_at_ms,
                        "outcome": r.outcome,
                        "tournaments": list(r.tournaments),
                        "amounts": dict(r.amounts),
                        "transfers": r.transfers,
                        "error": r.error,
                    }
                    for r in rows
                ],
                indent=2,
            )
        )
        return
    table = Table(title="job runs (newest first; amounts in minor units)")
    for heading in ("id", "job", "started (UTC)", "ended", "outcome", "tournaments", "paid"):
        table.add_column(heading)
    table.add_column("transfers", justify="right")
    table.add_column("runner")
    table.add_column("error")
    for r in rows:
        paid = ", ".join(f"{n} {cur}" for cur, n in sorted(r.amounts.items()))
        table.add_row(
            str(r.id),
            r.job,
            _when(r.started_at_ms),
            _when(r.ended_at_ms),
            r.outcome,
            str(len(r.tournaments)),
            paid or "-",
            str(r.transfers),
            r.runner,
            (r.error or "")[:80],
        )
    _console().print(table)


COMMANDS = [jobs]
