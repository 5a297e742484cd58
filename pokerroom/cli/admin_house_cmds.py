"""`pokerroom admin house ...`: fund the house's accounts, take money back, list them
(docs/ADMIN.md, "Money")."""

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

#: The house accounts staff may fund (pokerroom.admin.house_store.FUNDABLE, without importing
#: the server side: the CLI stays quick to start).
FUNDABLE = ("casino_bankroll", "casino_jackpot_seed", "house_overlay")


def bankroll_hints(bankrolls: dict[str, int]) -> list[str]:
    """`serve`'s start-up hint for each casino currency whose bankroll is empty: its tables wait
    (`waiting_for_bankroll`) until it covers a round (K-12, docs/CASINO.md)."""
    return [
        f"  casino bankroll is {money(0, currency)}: fund it with pokerroom admin house fund"
        f" casino_bankroll AMOUNT --currency {currency} --reason ..."
        for currency, balance in sorted(bankrolls.items())
        if balance == 0
    ]


@admin.group("house")
def house() -> None:
    """The house's accounts (fund and withdraw: admin)."""


def _move(verb: str) -> click.Command:
    """`house fund` or `house withdraw`: one command each, one code path."""
    kind = f"house_{verb}"
    direction = "into" if verb == "fund" else "out of"

    @click.argument("account", type=click.Choice(FUNDABLE))
    @click.argument("amount", type=click.IntRange(1))
    @click.option("--currency", required=True, help="One the room uses, e.g. USD.")
    @key_option
    @staff_change("required")
    def run(
        ctx: click.Context,
        account: str,
        amount: int,
        currency: str,
        key: str | None,
        reason: str,
        yes: bool,
    ) -> None:
        what = f"move {money(amount, currency)} {direction} {account}"
        result = change(
            ctx,
            yes,
            what,
            kind,
            account=account,
            amount=amount,
            currency=currency,
            reason=reason,
            key=key or uuid.uuid4().hex,
        )
        balance = money(result["balance"], result["currency"])
        click.echo(f"  {account} now {balance} (transfer {result.get('transfer_id')})")

    run.__doc__ = f"Move AMOUNT cents {direction} ACCOUNT " + (
        "from external:house." if verb == "fund" else "to external:house, never below 0."
    )
    return house.command(verb)(run)


house_fund = _move("fund")
house_withdraw = _move("withdraw")


@house.command("list")
@staff_read
def house_list(ctx: click.Context, as_json: bool) -> None:
    """Every house account's balance."""
    result = staff_of(ctx).call("house_balances")
    rows = [
        (a["account"], money(a["balance"], a["currency"]), "yes" if a["fundable"] else "")
        for a in result["accounts"]
    ]
    columns = ["account", "balance", "fundable"]
    show(result, as_json, lambda _: show_table("house accounts", columns, rows))
