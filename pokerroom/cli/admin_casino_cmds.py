"""`pokerroom admin casino ...`: the casino tables (docs/ADMIN.md, docs/CASINO.md)."""

from __future__ import annotations

import uuid

import click

from pokerroom.cli.admin_base import (
    admin,
    change,
    key_option,
    show,
    staff_change,
    staff_of,
    staff_read,
)
from pokerroom.cli.output import money, show_table


@admin.group("casino")
def casino() -> None:
    """Casino tables."""


@casino.command("list")
@staff_read
def casino_list(ctx: click.Context, as_json: bool) -> None:
    """Every casino table: game, phase, the round under way and its stakes, players."""
    result = staff_of(ctx).call("casino_table_list")
    rows = [
        (
            t["table_id"],
            t["game"],
            t["phase"],
            t["round_id"] or "-",
            money(t["staked"], t["currency"]),
            len(t["players"]),
        )
        for t in result["tables"]
    ]
    columns = ["table", "game", "phase", "round", "staked", "players"]
    show(result, as_json, lambda _: show_table("casino tables", columns, rows))


@casino.command("close")
@click.argument("table_id")
@staff_change("optional")
def casino_close(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Close TABLE_ID: the round under way settles, no new round opens."""
    fields = {"table_id": table_id} | ({"reason": reason} if reason else {})
    change(ctx, yes, f"close casino table {table_id}", "casino_table_close", **fields)


@casino.command("open")
@click.argument("table_id")
@staff_change("optional")
def casino_open(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Open TABLE_ID again (after a void or a close)."""
    fields = {"table_id": table_id} | ({"reason": reason} if reason else {})
    change(ctx, yes, f"open casino table {table_id}", "casino_table_open", **fields)


@casino.command("void")
@click.argument("table_id")
@staff_change("required")
def casino_void(ctx: click.Context, table_id: str, reason: str, yes: bool) -> None:
    """Void the round under way at TABLE_ID (K-7): every stake back; the table closes."""
    result = change(
        ctx, yes, f"void the round at {table_id}", "casino_round_void", table_id=table_id,
        reason=reason,
    )  # fmt: skip
    for back in result.get("refunds", []):
        click.echo(f"  {back['player']}: {money(back['amount'], result['currency'])} back")


@casino.command("held")
@staff_read
def casino_held(ctx: click.Context, as_json: bool) -> None:
    """Every casino win held for staff review (K-13): player and amount."""
    result = staff_of(ctx).call("casino_held_list")
    rows = [(h["player"], money(h["amount"], h["currency"])) for h in result["held"]]
    show(result, as_json, lambda _: show_table("held casino wins", ["player", "held"], rows))


@casino.command("release")
@click.argument("name")
@click.option("--amount", type=int, required=True, help="Cents to release, at most what is held.")
@click.option("--currency", default=None, help="Default: the room's.")
@key_option
@staff_change("required")
def casino_release(
    ctx: click.Context,
    name: str,
    amount: int,
    currency: str | None,
    key: str | None,
    reason: str,
    yes: bool,
) -> None:
    """Release AMOUNT of NAME's held casino wins to the wallet once reviewed (K-13)."""
    what = f"{amount} cents" if currency is None else money(amount, currency)
    result = change(
        ctx, yes, f"release {what} of {name}'s held wins", "casino_held_release", player=name,
        amount=amount, currency=currency, reason=reason, key=key or uuid.uuid4().hex,
    )  # fmt: skip
    cur = result["currency"]
    click.echo(f"  held {money(result['held'], cur)}, wallet {money(result['wallet'], cur)}")
