"""The admin commands on players: show, ban, unban, block lift, mute, unmute, moderator."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import structlog
from twisted.internet.defer import Deferred, gatherResults

from pokerroom.admin import store
from pokerroom.admin.args import NOTE, PLAYER, REASON
from pokerroom.admin.audit import Audited
from pokerroom.admin.commands import arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.admin.table_handlers import table_actor
from pokerroom.chat.service import Mute
from pokerroom.protocol import fields as f

log = structlog.get_logger("pokerroom.admin")


STAKES_RE = re.compile(r"[A-Z][A-Z0-9]{1,7}:[0-9]{1,13}/[0-9]{1,13}")


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
        ctx.room.lift_ban(args.player)
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
    return d.addCallback(Audited.answer)


@command("player_mute", MuteArgs, Role.SUPPORT, changes=True)
def player_mute(ctx: Context, args: MuteArgs) -> Deferred[dict[str, Any]]:
    """Mute a player in chat at a table or everywhere, for minutes or for good (C-13)."""
    if args.table_id is not None:
        table_actor(ctx, args.table_id)
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
        return done.answer()

    return d.addCallback(lifted)


@command("player_moderator", ModeratorArgs, Role.SUPPORT, changes=True)
def player_moderator(ctx: Context, args: ModeratorArgs) -> Deferred[dict[str, Any]]:
    """Give or take the chat moderator right (C-13); it applies at the player's next login."""
    d = ctx.change(
        "player_moderator", args.player, args.reason, store.moderator_work, args.player, args.on
    )
    return d.addCallback(Audited.answer)
