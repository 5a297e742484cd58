"""Ledger subcommands: `db upgrade`, `ledger check`, `ledger balance`, `ledger statement`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from pokerroom.cli.database import db_option, opened, problem
from pokerroom.cli.output import amount, money, show_table

if TYPE_CHECKING:
    from pokerroom.ledger import reports
    from pokerroom.ledger.accounts import Account

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
    """Staff reports on the money ledger (amounts as money; `--json`: integer minor units)."""


json_option = click.option(
    "--json", "as_json", is_flag=True, help="One JSON document; amounts in integer minor units."
)


@ledger.command("check")
@db_option
@json_option
def ledger_check(db_url: str | None, as_json: bool) -> None:
    """Verify the ledger; exit 0 only if every invariant holds (P-2)."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.db import where

    with opened(db_url) as engine:
        report = reports.check_ledger(engine)
        database = where(engine.url)
    problems = _problems(report)
    if as_json:
        click.echo(json.dumps(_check_json(database, report, problems), indent=2))
    else:
        _print_check(database, report, problems)
    if problems:
        raise SystemExit(1)


def _check_json(database: str, report: reports.CheckReport, problems: list[str]) -> dict[str, Any]:
    """The check for machines."""
    return {
        "database": database,
        "ok": not problems,
        "entries": report.entries,
        "postings": report.postings,
        "accounts": report.accounts,
        "currency_totals": dict(sorted(report.currency_totals.items())),
        "kind_totals": [
            {"currency": currency, "kind": kind, "total": total}
            for (currency, kind), total in sorted(report.kind_totals.items())
        ],
        "problems": problems,
    }


def _print_check(database: str, report: reports.CheckReport, problems: list[str]) -> None:
    """The check for people: counts, totals as money, one line per problem, the verdict."""
    click.echo(f"ledger check: {database}")
    click.echo(f"{report.entries} entries, {report.postings} postings, {report.accounts} accounts")
    show_table(
        "totals per currency (must be 0)",
        ["currency", "total"],
        [(cur, money(total, cur)) for cur, total in sorted(report.currency_totals.items())],
    )
    show_table(
        "totals per account kind",
        ["currency", "kind", "total"],
        [
            (cur, kind, money(total, cur))
            for (cur, kind), total in sorted(report.kind_totals.items())
        ],
    )
    for line in problems:
        click.echo(f"PROBLEM {line}")
    if problems:
        click.echo(f"FAILED: {len(problems)} problem(s)")
    else:
        click.echo("OK: every entry balances, every balance matches its postings, none negative")


def _currency_of(account: str) -> str:
    """The currency of an account named kind:owner:currency (the owner may hold colons)."""
    return account.rpartition(":")[2]


def _problems(report: reports.CheckReport) -> list[str]:
    lines = [
        f"entry {jid} sums to {total} minor units, not 0"
        for jid, total in report.unbalanced_entries
    ]
    lines += [f"entry {jid} has fewer than two postings" for jid in report.short_entries]
    lines += [f"entry {jid} posts to another currency" for jid in report.mixed_currency_entries]
    lines += [
        f"account {name} balance {money(cached, _currency_of(name))} "
        f"!= postings {money(posted, _currency_of(name))}"
        for name, cached, posted in report.balance_mismatches
    ]
    lines += [
        f"account {name} is negative: {money(bal, _currency_of(name))}"
        for name, bal in report.negative_accounts
    ]
    lines += [
        f"currency {cur} totals {money(total, cur)}, not 0"
        for cur, total in sorted(report.currency_totals.items())
        if total
    ]
    return lines


def _account_json(account: Account) -> dict[str, Any]:
    return {
        "account": account.identifier,
        "id": account.id,
        "kind": str(account.kind),
        "owner": account.owner,
        "currency": account.currency,
        "balance": account.balance,
    }


@ledger.command("balance", epilog=ACCOUNT_HELP)
@click.argument("account")
@db_option
@json_option
def ledger_balance(account: str, db_url: str | None, as_json: bool) -> None:
    """Show one account's balance."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.errors import LedgerError

    with opened(db_url) as engine:
        try:
            found = reports.balance(engine, account)
        except LedgerError as exc:
            raise _ledger_error(exc) from None
    if as_json:
        click.echo(json.dumps(_account_json(found), indent=2))
    else:
        click.echo(f"{found.identifier} (id {found.id}): {money(found.balance, found.currency)}")


@ledger.command("statement", epilog=ACCOUNT_HELP)
@click.argument("account")
@click.option("--limit", default=50, show_default=True, help="How many latest postings.")
@db_option
@json_option
def ledger_statement(account: str, limit: int, db_url: str | None, as_json: bool) -> None:
    """Show one account's latest postings, oldest first."""
    from pokerroom.ledger import reports
    from pokerroom.ledger.errors import LedgerError

    with opened(db_url) as engine:
        try:
            result = reports.statement(engine, account, limit)
        except LedgerError as exc:
            raise _ledger_error(exc) from None
    acct, cur = result.account, result.account.currency
    if as_json:
        lines = [
            {
                "transfer_id": line.transfer_id,
                "posting_id": line.posting_id,
                "created_at": str(line.created_at),
                "kind": line.kind,
                "amount": line.amount,
                "balance_after": line.balance_after,
                "key": line.key,
                "reference": line.reference,
                "reverses_id": line.reverses_id,
            }
            for line in result.lines
        ]
        click.echo(json.dumps({**_account_json(acct), "postings": lines}, indent=2))
        return
    click.echo(f"{acct.identifier} (id {acct.id}): balance {money(acct.balance, cur)}")
    show_table(
        f"postings in {cur}, oldest first",
        ["transfer", "when", "kind", "amount", "after", "key"],
        [
            (
                line.transfer_id,
                str(line.created_at)[:19],
                line.kind,
                amount(line.amount, cur),
                amount(line.balance_after, cur),
                line.key + (f" (reverses {line.reverses_id})" if line.reverses_id else ""),
            )
            for line in result.lines
        ],
    )
