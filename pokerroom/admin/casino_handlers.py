"""The admin commands on casino tables: list, close, open, void a round (docs/ADMIN.md).

Each change writes its audit row first, then acts on the table (persist, then act: ARCH rule
14). A void's audit row names the round and the stakes in it; the void itself is the table's
one keyed transaction (docs/CASINO.md, "Voids"), answered with what went back to whom. The
open/closed state of a casino table is the table's, in memory: after a restart every casino
table is open again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred

from pokerroom.admin import errors as codes
from pokerroom.admin import store
from pokerroom.admin.args import NOTE, REASON, TABLE
from pokerroom.admin.audit import Audited
from pokerroom.admin.commands import NoArgs, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

if TYPE_CHECKING:
    from pokerroom.casino.actor import CasinoTable
    from pokerroom.casino.store import Voided


@dataclass(frozen=True, slots=True)
class CasinoChangeArgs:
    """A casino table and, optionally, why."""

    table_id: str = TABLE
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class CasinoVoidArgs:
    """A casino table and why its round is void (required)."""

    table_id: str = TABLE
    reason: str = REASON


def casino_table(ctx: Context, table_id: str) -> CasinoTable:
    """The casino table `table_id`; else `unknown_table`."""
    desk = ctx.room.lobby.casino_desk
    table = None if desk is None else desk.tables.get(table_id)
    if table is None:
        raise ProtocolError(errors.UNKNOWN_TABLE, f"no casino table {table_id!r}")
    return table


def _line(table: CasinoTable) -> dict[str, Any]:
    current = table.round
    return {
        "table_id": table.table_id,
        "game": table.config.game,
        "currency": table.config.currency,
        "phase": table.phase,
        "round_id": None if current is None else current.round_id,
        "players": sorted(table.players),
        "staked": 0 if current is None else sum(b.stake for b in current.bets),
        "closed_reason": table.closed_reason,
    }


@command("casino_table_list", NoArgs, Role.SUPPORT, changes=False)
def casino_table_list(ctx: Context, args: NoArgs) -> dict[str, Any]:
    """Every casino table: game, phase, the round under way and its stakes, players."""
    desk = ctx.room.lobby.casino_desk
    tables = [] if desk is None else [desk.tables[t] for t in sorted(desk.tables)]
    return {"tables": [_line(t) for t in tables]}


@command("casino_table_close", CasinoChangeArgs, Role.FLOOR, changes=True)
def casino_table_close(ctx: Context, args: CasinoChangeArgs) -> Deferred[dict[str, Any]]:
    """Close a casino table: the round under way settles, no new round opens."""
    table = casino_table(ctx, args.table_id)
    if table.phase == "closed" or table.closing:
        raise ProtocolError(codes.NO_CHANGE, f"casino table {args.table_id} is already closed")
    before, after = _line(table), {"state": "closed"}
    d = ctx.change(
        "casino_table_close", args.table_id, args.reason, store.note_work, before, after, {}
    )

    def act(done: Audited) -> dict[str, Any]:
        table.close(args.reason or "closed by staff")
        return {"audit_id": done.audit_id, "phase": table.phase}

    return d.addCallback(act)


@command("casino_table_open", CasinoChangeArgs, Role.FLOOR, changes=True)
def casino_table_open(ctx: Context, args: CasinoChangeArgs) -> Deferred[dict[str, Any]]:
    """Open a closed casino table again (after a void, K-7, or a close)."""
    table = casino_table(ctx, args.table_id)
    if table.phase != "closed":
        raise ProtocolError(codes.NO_CHANGE, f"casino table {args.table_id} is not closed")
    before, after = _line(table), {"state": "open"}
    d = ctx.change(
        "casino_table_open", args.table_id, args.reason, store.note_work, before, after, {}
    )

    def act(done: Audited) -> dict[str, Any]:
        table.reopen()
        return {"audit_id": done.audit_id, "phase": table.phase}

    return d.addCallback(act)


@command("casino_round_void", CasinoVoidArgs, Role.FLOOR, changes=True)
def casino_round_void(ctx: Context, args: CasinoVoidArgs) -> Deferred[dict[str, Any]]:
    """Void the round under way (K-7): every confirmed stake back; the table closes."""
    table = casino_table(ctx, args.table_id)
    current = table.round
    if current is None or current.ending or table.phase not in ("betting", "settling"):
        raise ProtocolError(codes.NO_CHANGE, f"no round to void at {args.table_id}")
    before = _line(table)
    after = {"round_id": current.round_id, "state": "void"}
    d = ctx.change(
        "casino_round_void", args.table_id, args.reason, store.note_work, before, after, {}
    )

    def act(done: Audited) -> Deferred[dict[str, Any]]:
        def answer(voided: Voided) -> dict[str, Any]:
            return {
                "audit_id": done.audit_id,
                "round_id": voided.round_id,
                "refunds": [{"player": p, "amount": a} for p, a in voided.refunds],
                "partial": voided.settlement is not None,  # BJ-19: refunds are what each got
                "currency": table.config.currency,
            }

        return table.void_round(f"staff: {args.reason}").addCallback(answer)

    return d.addCallback(act)
