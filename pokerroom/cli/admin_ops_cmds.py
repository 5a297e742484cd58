"""`pokerroom admin jobs ...` and `pokerroom admin table open` (docs/ADMIN.md)."""

from __future__ import annotations

from typing import Any

import click

from pokerroom.cli.admin_base import admin, change, show, staff_change, staff_of, staff_read
from pokerroom.cli.admin_table_cmds import table
from pokerroom.cli.jobs_cmds import paid, run_line
from pokerroom.cli.output import show_table, when


# -- jobs ----------------------------------------------------------------------------------------
@admin.group("jobs")
def jobs() -> None:
    """Scheduled jobs of the running server (admin)."""


@jobs.command("list")
@click.option("--job", default=None, help="Only this job's runs.")
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True)
@staff_read
def jobs_list(ctx: click.Context, job: str | None, limit: int, as_json: bool) -> None:
    """The jobs and their latest runs."""
    result = staff_of(ctx).call("job_list", job=job, limit=limit)

    def render(r: dict[str, Any]) -> None:
        every = [(j["job"], j["interval_seconds"]) for j in r["jobs"]]
        show_table("jobs", ["job", "every (s)"], every)
        rows = [
            (x["id"], x["job"], when(x["started_at_ms"]), x["outcome"], len(x["tournaments"]),
             paid(x["amounts"]) if x["amounts"] else "-", x["transfers"])
            for x in r["runs"]
        ]  # fmt: skip
        columns = ["id", "job", "started (UTC)", "outcome", "tourn.", "paid", "transfers"]
        show_table("runs", columns, rows)
        for x in r["runs"]:
            if x["error"]:
                click.echo(f"run {x['id']}: {x['error']}")

    show(result, as_json, render)


@jobs.command("run")
@click.argument("name")
@staff_change("optional")
def jobs_run(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Run job NAME now in the running server; prints its report."""
    result = change(ctx, yes, f"run job {name}", "job_run", job=name, reason=reason)
    click.echo(f"  {run_line(result)}")


# -- cash tables ---------------------------------------------------------------------------------
@table.command("open")
@click.option("--from-config", "name", required=True, help="A [tables.NAME] of the room's config.")
@staff_change("optional")
def table_open(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Open a cash table that the room's config file names (read again now)."""
    change(ctx, yes, f"open table {name}", "table_open", table_id=name, reason=reason)
