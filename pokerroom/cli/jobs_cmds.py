"""Job subcommands: `pokerroom jobs run JOB [--dry-run] [--json]`, `pokerroom jobs list`.

A run takes the job's lock (one runner at a time across processes and servers: another runner
exits 0 saying so), writes a `job_runs` row and does the job; `--dry-run` moves and writes
nothing and prints what a run would pay. docs/OPERATIONS.md: by hand, cron, systemd timer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

from pokerroom.cli.database import db_option, opened
from pokerroom.cli.output import amount, money, show_table, when

if TYPE_CHECKING:
    from pokerroom.jobs import refunds as refund_job
    from pokerroom.jobs.runner import RunReport

#: The jobs `jobs run` and `jobs list --job` know (pokerroom.jobs.JOBS; a test keeps them equal).
JOB_NAMES = ("refunds", "pending_bets")
COLUMNS = (
    ("fee", "fee"),
    ("buy_in", "buy-in"),
    ("pool_equal_share", "pool equal"),
    ("pool_chip_share", "pool chips"),
    ("next_prize", "next prize"),
    ("bounty", "bounty"),
)

json_option = click.option(
    "--json", "as_json", is_flag=True, help="One JSON document; amounts in integer minor units."
)


def paid(amounts: Mapping[str, int]) -> str:
    """What a run paid, as money per currency: `58.37 USD, 4.00 T$`; `nothing`."""
    return ", ".join(money(n, cur) for cur, n in sorted(amounts.items())) or "nothing"


def run_line(report: Mapping[str, Any]) -> str:
    """A run's report (`jobs run`, `admin jobs run`) in one line for people, money as money;
    a run the lock turned away (no `summary`) by its message."""
    from pokerroom.jobs.runner import report_line

    if not report.get("summary"):
        return str(report["message"])
    return report_line(
        report["job"],
        report["outcome"],
        report["summary"],
        report["transfers"],
        report["amounts"],
        report.get("error"),
        paid_or_empty,
    )


def paid_or_empty(amounts: Mapping[str, int]) -> str:
    """`paid` of some amounts; "" for none."""
    return paid(amounts) if amounts else ""


@click.group("jobs")
def jobs() -> None:
    """Scheduled jobs: run one now, or list the recent runs."""


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
    pending_bets: voids casino rounds left unsettled past `pending_bet_days` (K-11), once.
    """
    import time

    from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
    from pokerroom.jobs import refunds as refund_job
    from pokerroom.jobs.lock import runner_name

    if job == "pending_bets":
        _run_pending_bets(db_url, dry_run, as_json, verbose)
        return
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
    _report(report, as_json)


def _report(report: RunReport, as_json: bool) -> NoReturn:
    """Print a run's report (its line and errors, or JSON) and exit with its code."""
    fields = report.as_dict()
    if as_json:
        click.echo(json.dumps(fields, indent=2))
    else:
        click.echo(run_line(fields))
        for item, what in report.errors:
            click.echo(f"  {item}: {what}", err=True)
    raise SystemExit(report.exit_code)


def _run_pending_bets(db_url: str | None, dry_run: bool, as_json: bool, verbose: bool) -> None:
    """`jobs run pending_bets`: the K-11 job through the same runner, lock and run row."""
    import time

    from pokerroom.jobs import (
        JobContext,
        JobSettings,
        PendingBetsJob,
        job_run,
        pending_bets,
        run_blocking,
    )
    from pokerroom.jobs.lock import runner_name

    with opened(db_url) as engine:
        if dry_run:
            rounds = pending_bets.preview(engine, int(time.time() * 1000))
            if as_json:
                click.echo(json.dumps({"dry_run": True, "rounds": list(rounds)}, indent=2))
            else:
                click.echo(f"{len(rounds)} round(s) to void: {', '.join(rounds) or 'none'}")
            return
        say = (lambda line: click.echo(line, err=True)) if verbose else None
        ctx = JobContext(time.time, JobSettings(), progress=say)
        report = run_blocking(engine, job_run(PendingBetsJob(), runner_name(), ctx))
    _report(report, as_json)


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


def _to(account: str, player: str, currency: str) -> str:
    """A refund's destination, short: `wallet` (the player's own), `wallet:bob` (another's)."""
    kind, _, rest = account.partition(":")
    owner, _, cur = rest.rpartition(":")
    if cur != currency:
        return account
    return kind if owner == player else f"{kind}:{owner}"


def _print_preview(previews: Sequence[refund_job.Preview]) -> None:
    """The dry run for people: one table per tournament, one line per player, money as money."""
    from tournaments.store import HOUSE_ROW

    if not previews:
        click.echo("refunds (dry run): no cancelled tournament waits for refunds")
        return
    click.echo("refunds (dry run): nothing moved")
    for p in previews:
        title = f"{p.tournament_id}: cancelled ({p.reason or '?'}), {p.phase or '?'}"
        if p.error is not None:
            click.echo(f"{title}: NOT refundable now: {p.error}")
            continue
        players: dict[str, dict[str, Any]] = {}
        for row in p.rows:
            line = players.setdefault(row.player, {"to": {}, "paid": 0, "rows": 0})
            line[row.component] = row.amount
            line["rows"] += 1
            line["paid"] += 1 if row.paid else 0
            for account, _ in row.destinations:
                line["to"][_to(account, row.player, p.currency)] = None
        rows = []
        for player, line in sorted(players.items(), key=lambda kv: kv[0] == HOUSE_ROW):
            amounts = [line.get(component, 0) for component, _ in COLUMNS]
            if player == HOUSE_ROW:
                amounts = [0] * len(COLUMNS)
                total = line.get("rounding", 0) + line.get("overlay", 0)
                player = "house"  # its rounding and overlay
            else:
                total = sum(amounts)
            state = "paid" if line["paid"] == line["rows"] else "to pay"
            if 0 < line["paid"] < line["rows"]:
                state = f"{line['paid']}/{line['rows']} paid"
            rows.append(
                (
                    player,
                    *(amount(a, p.currency) if a else "" for a in amounts),
                    amount(total, p.currency),
                    ", ".join(line["to"]),
                    state,
                )
            )
        columns = ["player", *(heading for _, heading in COLUMNS), "total", "to", "state"]
        show_table(f"{title}, amounts in {p.currency}", columns, rows)
        to_pay = sum(r.amount for r in p.rows if not r.paid and r.player != HOUSE_ROW)
        click.echo(f"players to be paid {money(to_pay, p.currency)} in {len(players)} line(s)")


@jobs.command("list")
@db_option
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option(
    "--job", "job_name", type=click.Choice(JOB_NAMES), default=None, help="Only this job."
)
@json_option
def jobs_list(db_url: str | None, limit: int, job_name: str | None, as_json: bool) -> None:
    """The most recent job runs, newest first (a `running` row with no end was killed)."""
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
    show_table(
        "job runs (newest first)",
        ["id", "job", "started (UTC)", "took", "outcome", "tourn.", "paid", "transfers", "runner"],
        [
            (
                r.id,
                r.job,
                when(r.started_at_ms),
                _took(r.started_at_ms, r.ended_at_ms),
                r.outcome,
                len(r.tournaments),
                paid(r.amounts) if r.amounts else "-",
                r.transfers,
                r.runner,
            )
            for r in rows
        ],
    )
    for r in rows:
        if r.error:
            click.echo(f"run {r.id}: {r.error}")


def _took(started_ms: int, ended_ms: int | None) -> str:
    """How long a run took (`1.2 s`); `-` for a run with no end (still running, or killed)."""
    return "-" if ended_ms is None else f"{(ended_ms - started_ms) / 1000:.1f} s"
