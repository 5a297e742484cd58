"""The admin commands: tables, players, wallets, approvals and the audit log (docs/ADMIN.md).

Each command is one typed args class, a required role and a function `fn(ctx, args)` returning
the `ok` result or a Deferred of it. A command that changes something checks what it can in
memory first, then runs its unit of work with its audit row in one transaction
(`Context.change`), and only after the commit changes what the room holds in memory (the
table's pause, the ban list, the mutes) or asks a table to stand a player up (persist, then
act: docs/ARCHITECTURE.md rule 14). A refused command changes nothing and writes no audit row
(P-1). Adding a command is one args class and one function here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from twisted.internet.defer import Deferred, gatherResults, succeed

from pokerroom.admin import audit as audit_log
from pokerroom.admin import errors as codes
from pokerroom.admin import store
from pokerroom.admin.audit import Audited
from pokerroom.admin.commands import NoArgs, arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.cash import errors as table_codes
from pokerroom.chat.service import Mute
from pokerroom.ledger.transfers import MAX_AMOUNT
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.results import CashedOut

if TYPE_CHECKING:
    from pokerroom.cash import TableActor

log = structlog.get_logger("pokerroom.admin")

PAUSED, CLOSED = "paused", "closed"
STAKES_RE = re.compile(r"[A-Z][A-Z0-9]{1,7}:[0-9]{1,13}/[0-9]{1,13}")
KEY_RE = f.TABLE_ID_RE


def signed_amount(name: str, value: object) -> int:
    """A non-zero whole number of cents, at most 10^12 either way; else `invalid_amount`."""
    if not f.is_int(value) or value == 0 or abs(value) > min(f.MAX_AMOUNT, MAX_AMOUNT):
        raise ProtocolError(
            errors.INVALID_AMOUNT,
            f"{name} must be a non-zero whole number of cents, got {errors.excerpt(value)}",
        )
    return value


TABLE = arg(f.pattern(f.TABLE_ID_RE), "the table, as the lobby lists it")
PLAYER = arg(f.player_name, "the player's name")
REASON = arg(f.text(500), "why: kept in the audit row (required)")
NOTE = arg(f.text(500), "why: kept in the audit row", default="")


# ====================================================================== tables


@dataclass(frozen=True, slots=True)
class TableArgs:
    """A table."""

    table_id: str = TABLE


@dataclass(frozen=True, slots=True)
class TableChangeArgs:
    """A table and, optionally, why."""

    table_id: str = TABLE
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class KickArgs:
    """A table, a player seated there, and why."""

    table_id: str = TABLE
    player: str = PLAYER
    reason: str = REASON


def _actor(ctx: Context, table_id: str) -> TableActor:
    actor = ctx.room.lobby.tables.get(table_id)
    if actor is None:
        raise ProtocolError(errors.UNKNOWN_TABLE, f"no table {table_id!r}")
    return actor


def _table_line(ctx: Context, table_id: str) -> dict[str, Any]:
    actor = ctx.room.lobby.tables[table_id]
    cfg = actor.config
    return {
        "table_id": table_id,
        "variant": cfg.variant,
        "max_seats": cfg.max_seats,
        "small_blind": cfg.small_blind,
        "big_blind": cfg.big_blind,
        "currency": cfg.currency,
        "stakes": cfg.stakes,
        "players": len(actor.by_player),
        "observers": len(actor.observers),
        "state": ctx.room.table_states.get(table_id, "open"),
        "hand_id": actor.hand_id if actor.hand_running else None,
    }


@command("table_list", NoArgs, Role.SUPPORT, changes=False)
def table_list(ctx: Context, args: NoArgs) -> dict[str, Any]:
    """Every cash table: stakes, players, observers, staff state (open, paused, closed), hand."""
    return {"tables": [_table_line(ctx, t) for t in sorted(ctx.room.lobby.tables)]}


@command("table_show", TableArgs, Role.SUPPORT, changes=False)
def table_show(ctx: Context, args: TableArgs) -> dict[str, Any]:
    """One table: its line and every seat (player, stack, sitting out, in hand, leaving)."""
    actor = _actor(ctx, args.table_id)
    seats = [
        {
            "seat": s.number,
            "player": s.player_id,
            "stack": s.stack,
            "pending_chips": s.pending_chips,
            "sitting_out": s.sitting_out,
            "in_hand": s.in_hand,
            "leaving": s.leaving,
            "disconnected": s.disconnected,
            "hands_played": s.hands_played,
        }
        for s in sorted(actor.seats.values(), key=lambda s: s.number)
    ]
    return {**_table_line(ctx, args.table_id), "seats": seats}


def _set_state(
    ctx: Context, args: TableChangeArgs, action: str, state: str | None
) -> Deferred[dict[str, Any]]:
    """Store the table's new staff state with its audit row, then apply it (persist, then act)."""
    actor = _actor(ctx, args.table_id)
    current = ctx.room.table_states.get(args.table_id)
    if current == state:
        raise ProtocolError(codes.NO_CHANGE, f"table {args.table_id} is already {state or 'open'}")
    if state == PAUSED and current == CLOSED:
        raise ProtocolError(table_codes.TABLE_CLOSED, f"table {args.table_id} is closed")
    before = {"state": current or "open", "players": len(actor.by_player)}
    d = ctx.change(
        action,
        args.table_id,
        args.reason,
        store.table_state_work,
        args.table_id,
        before,
        state,
        ctx.staff,
        ctx.now_ms(),
    )

    def applied(done: Audited) -> dict[str, Any] | Deferred[dict[str, Any]]:
        # A close stands everyone up: the waiters are taken BEFORE the hold applies it, so that
        # a table between hands (whose seats stand up at once) is answered with its cash-outs
        # once they are committed (persist, then tell), not with an empty list.
        outs = [stand_up(actor, p) for p in sorted(actor.by_player)] if state == CLOSED else []
        ctx.room.apply_table_state(args.table_id, state)
        answer = {"audit_id": done.audit_id, "state": state or "open"}
        if state != CLOSED:
            return answer
        return gatherResults(outs, consumeErrors=True).addCallback(
            lambda rows: {**answer, "cashed_out": [r for r in rows if r is not None]}
        )

    return d.addCallback(applied)


@command("table_pause", TableChangeArgs, Role.FLOOR, changes=True)
def table_pause(ctx: Context, args: TableChangeArgs) -> Deferred[dict[str, Any]]:
    """Deal no new hand at the table; the running hand plays out. Kept across a restart."""
    return _set_state(ctx, args, "table_pause", PAUSED)


@command("table_resume", TableChangeArgs, Role.FLOOR, changes=True)
def table_resume(ctx: Context, args: TableChangeArgs) -> Deferred[dict[str, Any]]:
    """Deal again at a paused table, or open a closed one again."""
    return _set_state(ctx, args, "table_resume", None)


@command("table_close", TableChangeArgs, Role.FLOOR, changes=True)
def table_close(ctx: Context, args: TableChangeArgs) -> Deferred[dict[str, Any]]:
    """Close a table: no new hand and no new player; after the running hand everyone stands up
    and is cashed out to the wallet. Answered when every seat's cash-out is committed, with
    each one (between hands too)."""
    return _set_state(ctx, args, "table_close", CLOSED)


def stand_up(actor: TableActor, player: str) -> Deferred[dict[str, Any] | None]:
    """Stand a player up after the running hand and cash out (C-8, C-10 as for a leave);
    fires with {table_id, player, amount, currency}, or None if the player had left meanwhile."""
    try:
        d = actor.leave(player)
    except ProtocolError:  # not seated any more (left by themselves): nothing to do
        return succeed(None)

    def done(result: CashedOut) -> dict[str, Any]:
        return {
            "table_id": actor.table_id,
            "player": player,
            "amount": result.amount,
            "currency": actor.config.currency,
        }

    return d.addCallback(done)


@command("table_kick", KickArgs, Role.FLOOR, changes=True)
def table_kick(ctx: Context, args: KickArgs) -> Deferred[dict[str, Any]]:
    """Stand a player up after the running hand; the seat's money goes back to the wallet.
    Answered when the seat is cashed out: {amount}."""
    actor = _actor(ctx, args.table_id)
    number = actor.by_player.get(args.player)
    if number is None:
        raise ProtocolError(
            table_codes.NOT_SEATED, f"{args.player} does not sit at {args.table_id}"
        )
    seat = actor.seats[number]
    if seat.leaving:
        raise ProtocolError(codes.NO_CHANGE, f"{args.player} is already leaving {args.table_id}")
    before = {"table_id": args.table_id, "seat": number, "stack": seat.stack}
    after = {"table_id": args.table_id, "leaving": True}
    d = ctx.change("table_kick", args.player, args.reason, store.note_work, before, after, {})

    def kick(done: Audited) -> Deferred[dict[str, Any]]:
        def answer(out: dict[str, Any] | None) -> dict[str, Any]:
            amount = 0 if out is None else out["amount"]
            return {
                "audit_id": done.audit_id,
                "amount": amount,
                "currency": actor.config.currency,
                "left_before": out is None,
            }

        return stand_up(actor, args.player).addCallback(answer)

    return d.addCallback(kick)


# ====================================================================== players


@dataclass(frozen=True, slots=True)
class PlayerArgs:
    """A player."""

    player: str = PLAYER


@dataclass(frozen=True, slots=True)
class PlayerReasonArgs:
    """A player, and why."""

    player: str = PLAYER
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class BlockLiftArgs:
    """A player, a blind level (`USD:1/2`), and why."""

    player: str = PLAYER
    level: str = arg(
        f.pattern(STAKES_RE, 40), "the blind level, as `player_show` lists it: USD:1/2"
    )
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class MuteArgs:
    """A player, where (a table, or everywhere), how long, and why."""

    player: str = PLAYER
    reason: str = REASON
    table_id: str | None = arg(f.pattern(f.TABLE_ID_RE), "only at this table", default=None)
    minutes: int | None = arg(
        f.integer(1, 525_600), "how long; absent or null: for good", "int", default=None
    )


@dataclass(frozen=True, slots=True)
class UnmuteArgs:
    """A player, where (a table, or the global mute), and why."""

    player: str = PLAYER
    reason: str = NOTE
    table_id: str | None = arg(f.pattern(f.TABLE_ID_RE), "the table mute to lift", default=None)


@dataclass(frozen=True, slots=True)
class ModeratorArgs:
    """A player and whether they are a chat moderator (C-13)."""

    player: str = PLAYER
    on: bool = arg(f.boolean, "true: give the right; false: take it", "bool")
    reason: str = NOTE


@command("player_show", PlayerArgs, Role.SUPPORT, changes=False)
def player_show(ctx: Context, args: PlayerArgs) -> Deferred[dict[str, Any]]:
    """A player: wallets, open tables, C-8 declines and blocks, C-10 rathole records, mutes,
    bans, moderator right, whether connected."""
    tables = []
    for table_id, actor in sorted(ctx.room.lobby.tables.items()):
        number = actor.by_player.get(args.player)
        if number is not None:
            seat = actor.seats[number]
            tables.append(
                {
                    "table_id": table_id,
                    "seat": number,
                    "stack": seat.stack,
                    "currency": actor.config.currency,
                    "sitting_out": seat.sitting_out,
                }
            )
        elif args.player in actor.observers:
            tables.append(
                {
                    "table_id": table_id,
                    "seat": None,
                    "stack": 0,
                    "currency": actor.config.currency,
                    "sitting_out": False,
                }
            )
    connected = ctx.room.hub.session_of(args.player) is not None
    d = ctx.read(store.player_record, args.player, ctx.now_ms())
    return d.addCallback(lambda record: {**record, "tables": tables, "connected": connected})


@command("player_ban", PlayerReasonArgs, Role.SUPPORT, changes=True)
def player_ban(ctx: Context, args: PlayerReasonArgs) -> Deferred[dict[str, Any]]:
    """Ban a player: logged out at once (goodbye `banned`), stood up after the running hands
    and cashed out; logins are refused with `banned`. Answered once every seat is cashed out."""
    d = ctx.change(
        "player_ban",
        args.player,
        args.reason,
        store.ban_work,
        args.player,
        ctx.staff,
        args.reason,
        ctx.now_ms(),
    )

    def enforce(done: Audited) -> Deferred[dict[str, Any]]:
        outs = ctx.room.enforce_ban(args.player)
        return gatherResults(outs, consumeErrors=True).addCallback(
            lambda rows: {
                "audit_id": done.audit_id,
                "cashed_out": [r for r in rows if r is not None],
            }
        )

    return d.addCallback(enforce)


@command("player_unban", PlayerReasonArgs, Role.SUPPORT, changes=True)
def player_unban(ctx: Context, args: PlayerReasonArgs) -> Deferred[dict[str, Any]]:
    """Lift a player's ban: they may log in again."""
    d = ctx.change(
        "player_unban",
        args.player,
        args.reason,
        store.unban_work,
        args.player,
        ctx.staff,
        ctx.now_ms(),
    )

    def lifted(done: Audited) -> dict[str, Any]:
        ctx.room.banned.discard(args.player)
        return {"audit_id": done.audit_id}

    return d.addCallback(lifted)


@command("player_block_lift", BlockLiftArgs, Role.SUPPORT, changes=True)
def player_block_lift(ctx: Context, args: BlockLiftArgs) -> Deferred[dict[str, Any]]:
    """End a player's running hit-and-run block (C-8) at one blind level now."""
    d = ctx.change(
        "player_block_lift",
        args.player,
        args.reason,
        store.block_lift_work,
        args.player,
        args.level,
        ctx.now_ms(),
    )
    return d.addCallback(lambda done: {"audit_id": done.audit_id, **done.change.result})


@command("player_mute", MuteArgs, Role.SUPPORT, changes=True)
def player_mute(ctx: Context, args: MuteArgs) -> Deferred[dict[str, Any]]:
    """Mute a player in chat at a table or everywhere, for minutes or for good (C-13)."""
    if args.table_id is not None:
        _actor(ctx, args.table_id)
    now = ctx.now_ms()
    until = None if args.minutes is None else now + args.minutes * 60_000
    d = ctx.change(
        "player_mute",
        args.player,
        args.reason,
        store.mute_work,
        args.player,
        args.table_id,
        until,
        ctx.staff,
        args.reason,
        now,
    )

    def muted(done: Audited) -> dict[str, Any]:
        result = done.change.result
        ctx.room.chat.remember(Mute(result["mute_id"], args.player, args.table_id, until))
        return {"audit_id": done.audit_id, "until_ms": until}

    return d.addCallback(muted)


@command("player_unmute", UnmuteArgs, Role.SUPPORT, changes=True)
def player_unmute(ctx: Context, args: UnmuteArgs) -> Deferred[dict[str, Any]]:
    """Lift a player's mutes at a table (table_id) or the global ones."""
    d = ctx.change(
        "player_unmute",
        args.player,
        args.reason,
        store.unmute_work,
        args.player,
        args.table_id,
        ctx.now_ms(),
    )

    def lifted(done: Audited) -> dict[str, Any]:
        ctx.room.chat.forget(args.player, args.table_id)
        return {"audit_id": done.audit_id, **done.change.result}

    return d.addCallback(lifted)


@command("player_moderator", ModeratorArgs, Role.SUPPORT, changes=True)
def player_moderator(ctx: Context, args: ModeratorArgs) -> Deferred[dict[str, Any]]:
    """Give or take the chat moderator right (C-13); it applies at the player's next login."""
    d = ctx.change(
        "player_moderator", args.player, args.reason, store.moderator_work, args.player, args.on
    )
    return d.addCallback(lambda done: {"audit_id": done.audit_id, **done.change.result})


# ====================================================================== money (P-2)


@dataclass(frozen=True, slots=True)
class CorrectArgs:
    """A wallet correction: the player, a signed amount, why, and an idempotency key."""

    player: str = PLAYER
    amount: int = arg(
        signed_amount, "cents: positive credits the wallet, negative debits it", "signed amount"
    )
    reason: str = REASON
    key: str = arg(
        f.pattern(KEY_RE, 40), "idempotency key: the same key never moves money twice (P-2)"
    )
    currency: str | None = arg(f.pattern(f.CURRENCY_RE, 8), "default: the room's", default=None)


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
    """The currencies the room uses: its own (`[server] currency`) and its cash tables'."""
    room = ctx.room
    return {room.currency} | {actor.config.currency for actor in room.lobby.tables.values()}


@command("wallet_correct", CorrectArgs, Role.ADMIN, changes=True)
def wallet_correct(ctx: Context, args: CorrectArgs) -> Deferred[dict[str, Any]]:
    """Correct a wallet by a ledger transfer of kind `correction` (never by editing a balance).
    Once the corrections made at once to the wallet within `[admin] correction_window_hours`
    would pass `correction_approval_above` cents (absolute amounts summed, by this admin and
    by all), it waits for a second admin's approval. Only the room's currencies."""
    currency = args.currency or ctx.room.currency
    used = room_currencies(ctx)
    if currency not in used:
        raise ProtocolError(
            codes.UNKNOWN_CURRENCY,
            f"the room does not use {currency}: {', '.join(sorted(used))}",
            {"currencies": sorted(used)},
        )
    settings = ctx.room.settings
    d = ctx.change(
        store.CORRECT_ACTION,
        args.player,
        args.reason,
        store.correct_work,
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
    return d.addCallback(lambda done: {"audit_id": done.audit_id, **done.change.result})


@command("approval_list", ApprovalListArgs, Role.ADMIN, changes=False)
def approval_list(ctx: Context, args: ApprovalListArgs) -> Deferred[dict[str, Any]]:
    """Changes waiting for (or given) a second admin's approval, newest first; a pending one
    past `approval_expire_hours` is shown `expired`."""
    status = None if args.status == "all" else args.status
    expire_ms = ctx.room.settings.approval_expire_ms
    d = ctx.read(store.approval_rows, status, ctx.now_ms(), expire_ms)
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
            store.approve_work,
            ctx.staff,
            args.approval_id,
            ctx.now_ms(),
            ctx.room.settings.approval_expire_ms,
        )
        return d.addCallback(lambda done: {"audit_id": done.audit_id, **done.change.result})

    return ctx.read(store.approval_target, args.approval_id).addCallback(go)


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


# The tournament commands and the room's operation (jobs, opening a table) are registered by
# their own modules; imported last, as they use the fields above.
from pokerroom.admin import ops_handlers, tournament_handlers  # noqa: E402, F401
