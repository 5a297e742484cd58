"""The admin commands on cash tables: list, show, pause, resume, close, kick (docs/ADMIN.md).

A change is stored with its audit row first, then applied to the table in memory (persist,
then act: docs/ARCHITECTURE.md rule 14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from twisted.internet.defer import Deferred, gatherResults, succeed

from pokerroom.admin import errors as codes
from pokerroom.admin import store
from pokerroom.admin.args import NOTE, PLAYER, REASON, TABLE
from pokerroom.admin.audit import Audited
from pokerroom.admin.commands import NoArgs, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.cash import errors as table_codes
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.results import CashedOut

if TYPE_CHECKING:
    from pokerroom.cash import TableActor

log = structlog.get_logger("pokerroom.admin")


PAUSED, CLOSED = "paused", "closed"


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


def table_actor(ctx: Context, table_id: str) -> TableActor:
    """The cash table `table_id`; else `unknown_table`."""
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
    actor = table_actor(ctx, args.table_id)
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
    actor = table_actor(ctx, args.table_id)
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
    actor = table_actor(ctx, args.table_id)
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
