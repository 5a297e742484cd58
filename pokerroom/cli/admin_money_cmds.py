"""`pokerroom admin wallet ...`, `approvals ...` (P-2) and `audit` (docs/ADMIN.md)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

import click

from pokerroom.cli.admin_base import (
    admin,
    change,
    key_option,
    moment_ms,
    show,
    staff_change,
    staff_of,
    staff_read,
)
from pokerroom.cli.output import money, show_table, when


# -- money ---------------------------------------------------------------------------------------
@admin.group("wallet")
def wallet() -> None:
    """Wallets (admin)."""


@wallet.command("correct")
@click.argument("name")
@click.option(
    "--amount", type=int, required=True, help="Cents: +N credits the wallet, -N debits it."
)
@click.option("--currency", default=None, help="Default: the room's.")
@key_option
@staff_change("required")
def wallet_correct(
    ctx: click.Context,
    name: str,
    amount: int,
    currency: str | None,
    key: str | None,
    reason: str,
    yes: bool,
) -> None:
    """Correct NAME's wallet by a ledger transfer of kind `correction`."""
    key = key or uuid.uuid4().hex
    by = (
        f"{amount:+d} cents"
        if currency is None
        else ("+" if amount > 0 else "") + money(amount, currency)
    )
    result = change(
        ctx,
        yes,
        f"correct {name}'s wallet by {by}",
        "wallet_correct",
        player=name,
        amount=amount,
        currency=currency,
        reason=reason,
        key=key,
    )
    if result.get("status") == "pending":
        click.echo(f"  waiting for a second admin: approval {result['approval_id']}")
    else:
        balance = money(result["balance"], result["currency"])
        click.echo(f"  balance now {balance} (transfer {result.get('transfer_id')})")


@admin.group("approvals")
def approvals() -> None:
    """Changes that need a second admin."""


@approvals.command("list")
@click.option(
    "--status",
    type=click.Choice(["pending", "expired", "done", "all"]),
    default="pending",
    show_default=True,
)
@staff_read
def approvals_list(ctx: click.Context, status: str, as_json: bool) -> None:
    """Approvals, newest first."""
    result = staff_of(ctx).call("approval_list", status=status)
    rows = [
        (
            a["id"],
            a["action"],
            a["target"],
            money(a["amount"], a["currency"]),
            a["requested_by"],
            a["status"],
            a["decided_by"],
            a["reason"],
        )
        for a in result["approvals"]
    ]
    columns = ["id", "action", "player", "amount", "asked by", "status", "approved by", "reason"]
    show(result, as_json, lambda _: show_table(f"approvals ({status})", columns, rows))


@approvals.command("approve")
@click.argument("approval_id", type=click.IntRange(1))
@staff_change(None)
def approvals_approve(ctx: click.Context, approval_id: int, yes: bool) -> None:
    """Approve (and carry out) a change another admin asked for."""
    result = change(ctx, yes, f"approve {approval_id}", "approval_approve", approval_id=approval_id)
    balance = money(result["balance"], result["currency"])
    click.echo(f"  {result.get('player')}: balance now {balance}")


# -- audit ---------------------------------------------------------------------------------------
_SPAN = re.compile(r"(\d+)([smhd])")


def since_ms(text: str) -> int:
    """`--since`: a span back from now (`30m`, `2h`, `7d`), an ISO date-time, or epoch ms."""
    return moment_ms(text, _SPAN, -1, "30m, 2h, 7d, an ISO date-time or epoch ms")


@admin.command("audit")
@click.option("--since", default=None, help="30m, 2h, 7d, an ISO date-time, or epoch ms.")
@click.option("--staff", "by_staff", default=None, help="Only this staff member's actions.")
@click.option("--target", default=None, help="Only actions on this player or table.")
@click.option("--action", default=None, help="Only this action (e.g. player_ban).")
@click.option("--limit", type=click.IntRange(1, 500), default=100, show_default=True)
@staff_read
def audit(
    ctx: click.Context,
    since: str | None,
    by_staff: str | None,
    target: str | None,
    action: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """The audit log, newest first."""
    fields = {
        "since_ms": since_ms(since) if since else None,
        "by_staff": by_staff,
        "target": target,
        "action": action,
        "limit": limit,
    }
    result = staff_of(ctx).call("audit", **fields)
    show(result, as_json, lambda r: _print_audit(r["rows"]))


def _print_audit(rows: list[dict[str, Any]]) -> None:
    """The audit log for people, newest first: a line per row and, indented under it, what
    changed (long values would make a table unreadable in a pipe or at 80 columns)."""
    if not rows:
        click.echo("audit: none")
        return
    for r in rows:
        reason = f": {r['reason']}" if r["reason"] else ""
        click.echo(
            f"{r['id']}  {when(r['at_ms'])}  {r['staff']} ({r['role']})  {r['action']} "
            f"{r['target']}{reason}"
        )
        change = audit_change(r["before"], r["after"])
        if change:
            click.echo(f"    {change}")


#: Keys of an audit row's before/after that hold money (in the row's `currency`).
MONEY_KEYS = frozenset({"amount", "balance", "buy_in", "fee", "guarantee", "prize", "added"})


def _audit_value(key: str, value: Any, currency: str | None) -> str:
    if currency and key in MONEY_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return money(value, currency)
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def audit_change(before: Any, after: Any) -> str:
    """What an audit row changed, short: each key whose value differs, `key old -> new`
    (money as money where the row names its currency); not a mapping: `old -> new` as JSON."""
    if not isinstance(before, Mapping) and not isinstance(after, Mapping):
        if before is None and after is None:
            return ""
        return f"{_audit_value('', before, None)} -> {_audit_value('', after, None)}"
    old = dict(before) if isinstance(before, Mapping) else {}
    new = dict(after) if isinstance(after, Mapping) else {}
    currency = new.get("currency") or old.get("currency")
    parts = []
    for key in [*old, *(k for k in new if k not in old)]:
        if key == "currency" and currency and old.get(key, currency) == new.get(key, currency):
            continue
        if key in old and key in new and old[key] == new[key]:
            continue
        shown = [_audit_value(key, side[key], currency) for side in (old, new) if key in side]
        parts.append(f"{key} {' -> '.join(shown)}")
    return ", ".join(parts)
