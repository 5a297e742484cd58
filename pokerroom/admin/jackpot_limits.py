"""PB-11: the withdrawal limits of a held casino win, per release and per calendar month.

`config/casino/progressive.toml` gives `jackpot_withdraw_each_usd` and
`jackpot_withdraw_month_usd` in US cents; a release in another currency compares with them
converted at `[casino.rates]` of `casino.toml` ("USD:<currency>", rounded down, as K-12 and
K-13). The month is the calendar month (UTC) of the room's clock at the release; its releases
are the audit rows of `casino_held_release` for the player in that currency (each row's
`amount`), read after the player's held account is locked, so two releases cannot both pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.admin import errors as codes
from pokerroom.admin.schema import audit
from pokerroom.casino import settings
from pokerroom.casino.caps import convert
from pokerroom.ledger.kinds import AccountKind
from pokerroom.ledger.schema import accounts
from pokerroom.protocol.errors import ProtocolError

LIMITS_CURRENCY = "USD"


@dataclass(frozen=True, slots=True)
class Limits:
    """PB-11's limits in minor units of one currency."""

    each: int
    month: int
    currency: str


def limits_in(currency: str, folder: Path | None = None) -> Limits:
    """The PB-11 limits converted to `currency` (rounded down; `bad_config` without a rate)."""
    table = settings.game_table("progressive", folder)
    rates = settings.game_table("casino", folder).get("rates", {})
    each = int(table["jackpot_withdraw_each_usd"])
    month = int(table["jackpot_withdraw_month_usd"])
    return Limits(
        convert(each, LIMITS_CURRENCY, currency, rates),
        convert(month, LIMITS_CURRENCY, currency, rates),
        currency,
    )


def month_bounds(now_ms: int) -> tuple[int, int]:
    """The first ms of the calendar month (UTC) holding `now_ms`, and of the next one."""
    now = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
    start = datetime(now.year, now.month, 1, tzinfo=UTC)
    end = datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=UTC)
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def released_in_month(
    conn: Connection, action: str, player: str, currency: str, now_ms: int
) -> int:
    """What staff released to `player` in `currency` in the calendar month of `now_ms`."""
    start, end = month_bounds(now_ms)
    rows = conn.execute(
        sa.select(audit.c.after).where(
            audit.c.action == action,
            audit.c.target == player,
            audit.c.at_ms >= start,
            audit.c.at_ms < end,
        )
    ).all()
    return sum(
        int(after.get("amount", 0))
        for (after,) in rows
        if isinstance(after, dict) and after.get("currency") == currency
    )


def check_release(
    conn: Connection, action: str, player: str, amount: int, now_ms: int, limits: Limits
) -> None:
    """Refuse a release above the per-withdrawal limit or past the month's (PB-11)."""
    if amount > limits.each:
        raise ProtocolError(
            codes.ABOVE_WITHDRAWAL_LIMIT,
            f"{amount} is above the per-withdrawal limit of {limits.each} {limits.currency}",
            {"limit": limits.each, "currency": limits.currency},
        )
    conn.execute(  # one release of this player at a time: the month's sum stays true
        sa.select(accounts.c.id)
        .where(
            accounts.c.kind == AccountKind.HELD.value,
            accounts.c.owner == player,
            accounts.c.currency == limits.currency,
        )
        .with_for_update()
    ).all()
    done = released_in_month(conn, action, player, limits.currency, now_ms)
    if done + amount > limits.month:
        raise ProtocolError(
            codes.ABOVE_MONTHLY_LIMIT,
            f"{done} {limits.currency} released this month; {amount} more passes the limit"
            f" of {limits.month}",
            {"limit": limits.month, "released": done, "currency": limits.currency},
        )
