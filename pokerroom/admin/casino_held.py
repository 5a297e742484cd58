"""K-13 staff review of large casino wins: list what is held, release it (docs/ADMIN.md).

A casino round's payout of a large win (at or above `large_win_review_threshold`) or a
jackpot prize (PB-11) goes to the player's `held` account instead of the wallet
(`pokerroom.casino.money.settlement`). Staff see every held balance (`casino_held_list`) and,
once the win is reviewed, release an amount of it to the player's wallet
(`casino_held_release`): one keyed ledger transfer `held -> wallet` of kind
`casino_release`, with its audit row in the same transaction (never below zero: the held
account cannot go negative). The same key again answers the first result and moves nothing
(P-2). Every release is limited by PB-11 (`jackpot_limits`: per withdrawal and per calendar
month per player; the held balance does not tell a jackpot prize from a K-13 large win, so
the limits apply to each release); a replay of a release is answered before the limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred

from pokerroom.admin.args import PLAYER, REASON
from pokerroom.admin.audit import Audited, Change
from pokerroom.admin.commands import NoArgs, arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.jackpot_limits import Limits, check_release, limits_in
from pokerroom.admin.money_handlers import CURRENCY, KEY, positive_amount, used_currency
from pokerroom.admin.roles import Role
from pokerroom.admin.store import account_balance, balance_change
from pokerroom.casino import money
from pokerroom.ledger import transfers
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind, TransferKind, wallet
from pokerroom.ledger.schema import accounts, journal

RELEASE_ACTION = "casino_held_release"


def release_key(staff: str, key: str) -> str:
    """The ledger key of a release (the client's key, per staff member, P-2)."""
    return f"staff:held:{staff}:{key}"


def release_work(
    conn: Connection,
    staff: str,
    key: str,
    player: str,
    amount: int,
    currency: str,
    reason: str,
    now_ms: int,
    limits: Limits,
) -> Change:
    """Move `amount` cents of `player`'s held balance to their wallet (K-13), keyed per staff
    member, within PB-11's limits (`above_withdrawal_limit`, `above_monthly_limit`);
    `insufficient_funds` when more than is held. A replay changes nothing."""
    seen = conn.execute(
        sa.select(journal.c.id).where(journal.c.idempotency_key == release_key(staff, key))
    ).first()
    if seen is None:
        check_release(conn, RELEASE_ACTION, player, amount, now_ms, limits)
    before = account_balance(conn, AccountKind.HELD, player, currency)
    done = transfers.transfer_on(
        conn,
        key=release_key(staff, key),
        kind=TransferKind.CASINO_RELEASE,
        currency=currency,
        postings=[(money.held(player, currency), -amount), (wallet(player, currency), amount)],
        reference=f"casino:held:{player}",
        memo=reason,
    )
    after = account_balance(conn, AccountKind.HELD, player, currency)
    result = {
        "player": player,
        "transfer_id": done.id,
        "held": after,
        "wallet": account_balance(conn, AccountKind.WALLET, player, currency),
        "currency": currency,
        "replayed": done.replayed,
    }
    return balance_change(done, (before, after), amount, currency, result)


def held_rows(engine: Engine) -> list[dict[str, Any]]:
    """Every player's non-zero held balance, by player and currency."""
    query = (
        sa.select(accounts.c.owner, accounts.c.currency, accounts.c.balance)
        .where(accounts.c.kind == AccountKind.HELD.value, accounts.c.balance != 0)
        .order_by(accounts.c.owner, accounts.c.currency)
    )
    rows = read(engine, lambda conn: list(conn.execute(query)))
    return [{"player": r.owner, "currency": r.currency, "amount": int(r.balance)} for r in rows]


@dataclass(frozen=True, slots=True)
class ReleaseArgs:
    """A player, a positive amount of their held balance, why, and an idempotency key."""

    player: str = PLAYER
    amount: int = arg(positive_amount, "cents, positive, at most what is held", "int")
    reason: str = REASON
    key: str = KEY
    currency: str | None = CURRENCY


@command("casino_held_list", NoArgs, Role.SUPPORT, changes=False)
def casino_held_list(ctx: Context, args: NoArgs) -> Deferred[dict[str, Any]]:
    """Every casino win held for staff review (K-13, PB-11): player, currency, amount."""
    return ctx.read(held_rows).addCallback(lambda rows: {"held": rows})


@command(RELEASE_ACTION, ReleaseArgs, Role.ADMIN, changes=True)
def casino_held_release(ctx: Context, args: ReleaseArgs) -> Deferred[dict[str, Any]]:
    """Release a reviewed casino win (K-13): `amount` from the player's held balance to
    their wallet within PB-11's limits, one keyed transfer with its audit row."""
    currency = used_currency(ctx, args.currency)
    limits = limits_in(currency)
    d = ctx.change(
        RELEASE_ACTION,
        args.player,
        args.reason,
        release_work,
        ctx.staff,
        args.key,
        args.player,
        args.amount,
        currency,
        args.reason,
        ctx.now_ms(),
        limits,
    )
    return d.addCallback(Audited.answer)
