"""The admin commands on money (P-2) and the audit log: wallet corrections, approvals, funding
the house's accounts, audit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structlog
from twisted.internet.defer import Deferred

from pokerroom.admin import audit as audit_log
from pokerroom.admin import errors as codes
from pokerroom.admin import house_store, money_store
from pokerroom.admin.args import KEY_RE, PLAYER, REASON, signed_amount
from pokerroom.admin.audit import Audited
from pokerroom.admin.commands import NoArgs, arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.ledger.kinds import AccountKind
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError

log = structlog.get_logger("pokerroom.admin")


# ====================================================================== money (P-2)


KEY = arg(f.pattern(KEY_RE, 40), "idempotency key: the same key never moves money twice (P-2)")
CURRENCY = arg(f.pattern(f.CURRENCY_RE, 8), "default: the room's", default=None)


@dataclass(frozen=True, slots=True)
class CorrectArgs:
    """A wallet correction: the player, a signed amount, why, and an idempotency key."""

    player: str = PLAYER
    amount: int = arg(
        signed_amount, "cents: positive credits the wallet, negative debits it", "signed amount"
    )
    reason: str = REASON
    key: str = KEY
    currency: str | None = CURRENCY


def positive_amount(name: str, value: object) -> int:
    """A positive whole number of cents (at most 10^12); else `invalid_amount`."""
    amount = signed_amount(name, value)
    if amount < 0:
        raise ProtocolError(
            errors.INVALID_AMOUNT, f"{name} must be a positive whole number of cents"
        )
    return amount


@dataclass(frozen=True, slots=True)
class HouseMoveArgs:
    """A house account, a positive amount, why, and an idempotency key."""

    account: str = arg(
        f.choice(tuple(kind.value for kind in house_store.FUNDABLE)),
        "casino_bankroll | casino_jackpot_seed | house_overlay",
    )
    amount: int = arg(positive_amount, "cents, positive", "int")
    reason: str = REASON
    key: str = KEY
    currency: str | None = CURRENCY


@dataclass(frozen=True, slots=True)
class ApprovalListArgs:
    """Which approvals: pending (default), expired, done, or all."""

    status: str = arg(
        f.choice(("pending", "expired", "done", "all")),
        "pending | expired | done | all",
        default="pending",
    )


@dataclass(frozen=True, slots=True)
class ApproveArgs:
    """An approval's id."""

    approval_id: int = arg(f.integer(1, 2**53), "the approval, as `approval_list` shows it", "int")


def room_currencies(ctx: Context) -> set[str]:
    """The currencies the room uses: its own (`[server] currency`), its cash tables' and its
    casino tables'."""
    room = ctx.room
    desk = room.lobby.casino_desk
    casino = set() if desk is None else {t.config.currency for t in desk.tables.values()}
    cash = {actor.config.currency for actor in room.lobby.tables.values()}
    return {room.currency} | cash | casino


def used_currency(ctx: Context, currency: str | None) -> str:
    """`currency` (None: the room's) if the room uses it; else `unknown_currency`."""
    currency = currency or ctx.room.currency
    used = room_currencies(ctx)
    if currency not in used:
        raise ProtocolError(
            codes.UNKNOWN_CURRENCY,
            f"the room does not use {currency}: {', '.join(sorted(used))}",
            {"currencies": sorted(used)},
        )
    return currency


@command("wallet_correct", CorrectArgs, Role.ADMIN, changes=True)
def wallet_correct(ctx: Context, args: CorrectArgs) -> Deferred[dict[str, Any]]:
    """Correct a wallet by a ledger transfer of kind `correction` (never by editing a balance).
    Once the corrections made at once to the wallet within `[admin] correction_window_hours`
    would pass `correction_approval_above` cents (absolute amounts summed, by this admin and
    by all), it waits for a second admin's approval. Only the room's currencies."""
    currency = used_currency(ctx, args.currency)
    settings = ctx.room.settings
    d = ctx.change(
        money_store.CORRECT_ACTION,
        args.player,
        args.reason,
        money_store.correct_work,
        ctx.staff,
        args.key,
        args.player,
        args.amount,
        currency,
        args.reason,
        ctx.now_ms(),
        settings.correction_approval_above,
        settings.correction_window_ms,
    )
    return d.addCallback(Audited.answer)


@command("approval_list", ApprovalListArgs, Role.ADMIN, changes=False)
def approval_list(ctx: Context, args: ApprovalListArgs) -> Deferred[dict[str, Any]]:
    """Changes waiting for (or given) a second admin's approval, newest first; a pending one
    past `approval_expire_hours` is shown `expired`."""
    status = None if args.status == "all" else args.status
    expire_ms = ctx.room.settings.approval_expire_ms
    d = ctx.read(money_store.approval_rows, status, ctx.now_ms(), expire_ms)
    return d.addCallback(lambda rows: {"approvals": rows})


@command("approval_approve", ApproveArgs, Role.ADMIN, changes=True)
def approval_approve(ctx: Context, args: ApproveArgs) -> Deferred[dict[str, Any]]:
    """Approve a pending correction asked for by another admin: the transfer is made now."""

    def go(found: tuple[str, str] | None) -> Deferred[dict[str, Any]]:
        if found is None:
            raise ProtocolError(codes.UNKNOWN_APPROVAL, f"no approval {args.approval_id}")
        player, reason = found
        d = ctx.change(
            "wallet_correct",
            player,
            reason,
            money_store.approve_work,
            ctx.staff,
            args.approval_id,
            ctx.now_ms(),
            ctx.room.settings.approval_expire_ms,
        )
        return d.addCallback(Audited.answer)

    return ctx.read(money_store.approval_target, args.approval_id).addCallback(go)


# ====================================================================== the house's accounts


def _house_move(ctx: Context, action: str, args: HouseMoveArgs, sign: int) -> Deferred[Any]:
    """One keyed `house_funding` transfer between `external:house` and the house account,
    with its audit row (target: the account) in the same transaction."""
    currency = used_currency(ctx, args.currency)
    d = ctx.change(
        action,
        args.account,
        args.reason,
        house_store.house_move_work,
        ctx.staff,
        args.key,
        AccountKind(args.account),
        sign * args.amount,
        currency,
        args.reason,
    )
    return d.addCallback(Audited.answer)


@command("house_fund", HouseMoveArgs, Role.ADMIN, changes=True)
def house_fund(ctx: Context, args: HouseMoveArgs) -> Deferred[dict[str, Any]]:
    """Fund a house account that pays before it earns from `external:house` (the operator's
    money outside the room): one transfer of kind `house_funding`. Only the room's
    currencies."""
    return _house_move(ctx, house_store.FUND_ACTION, args, 1)


@command("house_withdraw", HouseMoveArgs, Role.ADMIN, changes=True)
def house_withdraw(ctx: Context, args: HouseMoveArgs) -> Deferred[dict[str, Any]]:
    """Take money from a house account back to `external:house`, never below zero."""
    return _house_move(ctx, house_store.WITHDRAW_ACTION, args, -1)


@command("house_balances", NoArgs, Role.SUPPORT, changes=False)
def house_balances(ctx: Context, args: NoArgs) -> Deferred[dict[str, Any]]:
    """Every house account's balance, by currency (the fundable ones in each of the room's
    currencies even while never funded)."""
    d = ctx.read(house_store.house_rows, room_currencies(ctx))
    return d.addCallback(lambda rows: {"accounts": rows})


# ====================================================================== audit


@dataclass(frozen=True, slots=True)
class AuditArgs:
    """Filters of the audit log."""

    since_ms: int | None = arg(
        f.integer(0, 2**53), "only rows at or after this time (ms)", "int", default=None
    )
    by_staff: str | None = arg(f.player_name, "only this staff member's actions", default=None)
    target: str | None = arg(
        f.text(80), "only actions on this target (player, table)", default=None
    )
    action: str | None = arg(f.pattern(f.TABLE_ID_RE, 40), "only this action", default=None)
    limit: int = arg(
        f.integer(1, audit_log.MAX_AUDIT_ROWS),
        "at most this many rows (default 100)",
        "int",
        default=100,
    )


@command("audit", AuditArgs, Role.DIRECTOR, changes=False)
def audit(ctx: Context, args: AuditArgs) -> Deferred[dict[str, Any]]:
    """The audit log, newest first."""
    d = ctx.read(
        audit_log.audit_rows, args.since_ms, args.by_staff, args.target, args.action, args.limit
    )
    return d.addCallback(lambda rows: {"rows": rows})
