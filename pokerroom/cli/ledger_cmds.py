"""Ledger subcommands: `db upgrade`, `ledger check`, `ledger balance`, `ledger statement`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from pokerroom.cli.database import db_option, opened, problem

if TYPE_CHECKING:
    from pokerroom.ledger import reports

ACCOUNT_HELP = "ACCOUNT is a numeric id or kind:owner:currency, e.g. wallet:alice:USD."


def _ledger_error(exc: Exception) -> click.ClickException:
    """A ledger refusal (an unknown account, ...) as one line, exit 1."""
    return click.ClickException(str(exc))


@click.group("db")
def db() -> None:
    """Database schema commands."""


@db.command("upgrade")
@db_option
def db_upgrade(db_url: str | None) -> None:
    """Create or upgrade the database schema to the newest revision.

    A SQLite file is created if missing (in an existing folder); a file this command created is
    removed again when a migration fails.
    """
    from pokerroom.ledger.db import DatabaseError
    from pokerroom.ledger.migrate import upgrade_database

    try:
        done = upgrade_database(db_url)
    except DatabaseError as exc:
        raise problem(exc) from None
    if done.before == done.after:
        click.echo(f"{done.where}: already at head ({done.after})")
    else:
        click.echo(f"{done.where}: upgraded {done.before or 'empty'} -> {done.after}")


@click.group("ledger")
def ledger() -> None:
    """Staff reports on the money ledger (amounts in minor units, e.g. cents)."""


@ledger.command("check")
@db_option
def ledger_check(db_url: str | None) -> None:
    """Verify the ledger; exit 0 only if every invariant holds (P-2)."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.db import where

    with opened(db_url) as engine:
        report = reports.check_ledger(engine)
        click.echo(f"ledger check: {where(engine.url)}")
    click.echo(f"{report.entries} entries, {report.postings} postings, {report.accounts} accounts")
    click.echo("totals per currency (must be 0):")
    for currency, total in sorted(report.currency_totals.items()):
        click.echo(f"  {currency:<8} {total:>16}")
    click.echo("totals per account kind:")
    for (currency, kind), total in sorted(report.kind_totals.items()):
        click.echo(f"  {currency:<8} {kind:<16} {total:>16}")
    problems = _problems(report)
    for line in problems:
        click.echo(f"PROBLEM {line}")
    if problems:
        click.echo(f"FAILED: {len(problems)} problem(s)")
        raise SystemExit(1)
    click.echo("OK: every entry balances, every balance matches its postings, none negative")


def _problems(report: reports.CheckReport) -> list[str]:
    lines = [f"entry {jid} sums to {total}" for jid, total in report.unbalanced_entries]
    lines += [f"entry {jid} has fewer than two postings" for jid in report.short_entries]
    lines += [f"entry {jid} posts to another currency" for jid in report.mixed_currency_entries]
    lines += [
        f"account {name} balance {cached} != postings {posted}"
        for name, cached, posted in report.balance_mismatches
    ]
    lines += [f"account {name} is negative: {bal}" for name, bal in report.negative_accounts]
    lines += [
        f"currency {cur} totals {total}, not 0"
        for cur, total in sorted(report.currency_totals.items())
        if total
    ]
    return lines


@ledger.command("balance", epilog=ACCOUNT_HELP)
@click.argument("account")
@db_option
def ledger_balance(account: str, db_url: str | None) -> None:
    """Show one account's balance."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.errors import LedgerError

    with opened(db_url) as engine:
        try:
            found = reports.balance(engine, account)
        except LedgerError as exc:
            raise _ledger_error(exc) from None
    click.echo(f"{found.identifier} (id {found.id}): {found.balance}")


@ledger.command("statement", epilog=ACCOUNT_HELP)
@click.argument("account")
@click.option("--limit", default=50, show_default=True, help="How many latest postings.")
@db_option
def ledger_statement(account: str, limit: int, db_url: str | None) -> None:
    """Show one account's latest postings, oldest first."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.errors import LedgerError

    with opened(db_url) as engine:
        try:
            result = reports.statement(engine, account, limit)
        except LedgerError as exc:
            raise _ledger_error(exc) from None
    acct = result.account
    click.echo(f"{acct.identifier} (id {acct.id}): balance {acct.balance}")
    click.echo(f"{'transfer':>9}  {'when':<19}  {'kind':<16} {'amount':>12} {'after':>12}  key")
    for line in result.lines:
        when = str(line.created_at)[:19]
        note = f" (reverses {line.reverses_id})" if line.reverses_id else ""
        click.echo(
            f"{line.transfer_id:>9}  {when:<19}  {line.kind:<16} {line.amount:>12} "
            f"{line.balance_after:>12}  {line.key}{note}"
        )


COMMANDS = [db, ledger]
