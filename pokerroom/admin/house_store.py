"""The blocking units of work behind funding the house's accounts (docs/ADMIN.md, "Money").

The operator funds the house accounts that pay before they earn (`house_overlay`,
`casino_bankroll`, `casino_jackpot_seed`: none can go below zero) from `external:house`, the
world outside, and may take money back out, never below zero. Each movement is one keyed
ledger transfer of kind `house_funding` through `transfers.transfer_on`, on the connection of
`audit.audited` (one transaction with its audit row). Blocking: the ledger's thread pool.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin.audit import Actor, Change, console_audited
from pokerroom.admin.store import account_balance, balance_change
from pokerroom.ledger import transfers
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import HOUSE, AccountKind, TransferKind, external, house
from pokerroom.ledger.schema import accounts

#: The account on the other side of every funding: the operator's money outside the room.
FUNDING_OWNER = "house"
#: The house accounts staff may fund and withdraw from.
FUNDABLE = (
    AccountKind.CASINO_BANKROLL,
    AccountKind.CASINO_JACKPOT_SEED,
    AccountKind.HOUSE_OVERLAY,
)
FUND_ACTION, WITHDRAW_ACTION = "house_fund", "house_withdraw"
#: What `pokerroom demo` puts in its throwaway room's bankroll and jackpot seed (cents).
DEMO_FLOAT = 100_000_000


def funding_key(staff: str, key: str) -> str:
    """The ledger key of a funding or withdrawal (the client's key, per staff member)."""
    return f"staff:house:{staff}:{key}"


def house_move_work(
    conn: Connection,
    staff: str,
    key: str,
    kind: AccountKind,
    amount: int,
    currency: str,
    reason: str,
) -> Change:
    """Move `amount` cents from `external:house` into the house account `kind` (negative:
    back out, `insufficient_funds` below zero), keyed per staff member (P-2). The same key
    again answers the first result and changes nothing (no audit row)."""
    before = account_balance(conn, kind, HOUSE, currency)
    done = transfers.transfer_on(
        conn,
        key=funding_key(staff, key),
        kind=TransferKind.HOUSE_FUNDING,
        currency=currency,
        postings=[(external(currency, FUNDING_OWNER), -amount), (house(kind, currency), amount)],
        reference=f"house:{kind.value}",
        memo=reason,
    )
    after = account_balance(conn, kind, HOUSE, currency)
    result = {
        "account": kind.value,
        "transfer_id": done.id,
        "balance": after,
        "currency": currency,
        "replayed": done.replayed,
    }
    return balance_change(done, (before, after), amount, currency, result)


def house_rows(engine: Engine, currencies: set[str]) -> list[dict[str, Any]]:
    """Every house account (owner `house`) with its balance in cents, by account and
    currency; the fundable ones in each of `currencies` too, at 0 while never opened."""
    query = sa.select(accounts.c.kind, accounts.c.currency, accounts.c.balance).where(
        accounts.c.owner == HOUSE
    )
    found = {
        (row.kind, row.currency): int(row.balance)
        for row in read(engine, lambda conn: list(conn.execute(query)))
    }
    for currency in currencies:
        for kind in FUNDABLE:
            found.setdefault((kind.value, currency), 0)
    fundable = {kind.value for kind in FUNDABLE}
    return [
        {"account": kind, "currency": cur, "balance": bal, "fundable": kind in fundable}
        for (kind, cur), bal in sorted(found.items())
    ]


def house_balance_of(engine: Engine, kind: AccountKind, currencies: list[str]) -> dict[str, int]:
    """The house account `kind`'s balance in cents in each of `currencies` (0: never opened)."""

    def work(conn: Connection) -> dict[str, int]:
        return {cur: account_balance(conn, kind, HOUSE, cur) for cur in currencies}

    return read(engine, work)


def fund_throwaway_casino(engine: Engine, currency: str, amount: int = DEMO_FLOAT) -> None:
    """Fund the casino bankroll and jackpot seed of a throwaway room (`pokerroom demo`) with
    `amount` cents each, as `house_fund` does, audited as the console `(demo)`."""
    actor = Actor("(demo)", "console")
    now_ms = int(time.time() * 1000)
    for kind in (AccountKind.CASINO_BANKROLL, AccountKind.CASINO_JACKPOT_SEED):
        console_audited(
            engine, actor, FUND_ACTION, kind.value, "demo float", now_ms,
            house_move_work, actor.name, f"demo-{kind.value}", kind, amount, currency,
            "demo float",
        )  # fmt: skip
