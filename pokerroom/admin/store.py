"""The blocking units of work behind admin commands, and the reads of `player_show`.

Each `*_work(conn, ...)` runs inside `audit.audited` (one transaction with its audit row) and
returns a `Change`, or raises a ProtocolError that rolls everything back (P-1). Money moves
only by ledger transfers of kind `correction`, keyed (P-2), through `transfers.transfer_on`
on the same connection: never by editing a balance. Blocking: the ledger's thread pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin import errors as codes
from pokerroom.admin.audit import Change
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import approvals, audit, bans, table_controls
from pokerroom.admin.schema import staff as staff_table
from pokerroom.cash.declines import DECLINE_WINDOW_SECONDS
from pokerroom.cash.store import cash_blocks, cash_declines, cash_rathole
from pokerroom.ledger import transfers
from pokerroom.ledger.db import read
from pokerroom.ledger.errors import IdempotencyConflict
from pokerroom.ledger.kinds import AccountKind, TransferKind, external, wallet
from pokerroom.ledger.schema import accounts, journal
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.schema import chat_mutes, players

#: The account on the other side of every wallet correction: money the operator puts in or
#: takes out, kept apart from deposits (`external:world`) so that reports can tell them apart.
CORRECTIONS_OWNER = "corrections"
PENDING, DONE, EXPIRED = "pending", "done", "expired"
#: The audit actions of a correction made (at once or approved) and of one asked for.
CORRECT_ACTION, REQUEST_ACTION = "wallet_correct", "wallet_correct_request"


def _no_change(what: str) -> ProtocolError:
    return ProtocolError(codes.NO_CHANGE, what)


def require_player(conn: Connection, player: str) -> Any:
    """The player's row, or `unknown_player`."""
    row = conn.execute(sa.select(players).where(players.c.name == player)).first()
    if row is None:
        raise ProtocolError(codes.UNKNOWN_PLAYER, f"no player named {player!r}")
    return row


def wallet_balance(conn: Connection, player: str, currency: str) -> int:
    """The wallet's balance in cents (0 if it was never opened)."""
    query = sa.select(accounts.c.balance).where(
        accounts.c.kind == AccountKind.WALLET.value,
        accounts.c.owner == player,
        accounts.c.currency == currency,
    )
    balance = conn.execute(query).scalar()
    return int(balance or 0)


# ---------------------------------------------------------------------- tables


def set_table_state(
    conn: Connection, table_id: str, state: str | None, staff: str, now_ms: int
) -> None:
    """Store a table's staff state (`paused`, `closed`), or forget it (None: open)."""
    conn.execute(sa.delete(table_controls).where(table_controls.c.table_id == table_id))
    if state is not None:
        conn.execute(
            sa.insert(table_controls).values(
                table_id=table_id, state=state, changed_ms=now_ms, by_staff=staff
            )
        )


def table_state_work(
    conn: Connection,
    table_id: str,
    before: Mapping[str, Any],
    state: str | None,
    staff: str,
    now_ms: int,
) -> Change:
    """Pause, close or reopen a table: its stored state and the audit row."""
    set_table_state(conn, table_id, state, staff, now_ms)
    return Change(dict(before), {"state": state or "open"}, {"state": state or "open"})


def table_states(engine: Engine) -> dict[str, str]:
    """Every table staff paused or closed: table_id -> state."""
    query = sa.select(table_controls.c.table_id, table_controls.c.state)
    return read(engine, lambda conn: {row.table_id: row.state for row in conn.execute(query)})


def note_work(conn: Connection, before: Any, after: Any, result: dict[str, Any]) -> Change:
    """An action whose effect is in the room's memory (a kick): only its audit row is written."""
    return Change(before, after, result)


# ---------------------------------------------------------------------- bans


def active_bans(engine: Engine) -> set[str]:
    """The players banned now."""
    query = sa.select(bans.c.player).where(bans.c.lifted_ms.is_(None))
    return read(engine, lambda conn: set(conn.execute(query).scalars()))


def ban_work(conn: Connection, player: str, staff: str, reason: str, now_ms: int) -> Change:
    """Ban a player: one open ban row."""
    require_player(conn, player)
    open_ban = sa.select(bans.c.id).where(bans.c.player == player, bans.c.lifted_ms.is_(None))
    if conn.execute(open_ban).first() is not None:
        raise _no_change(f"{player} is already banned")
    conn.execute(
        sa.insert(bans).values(player=player, since_ms=now_ms, by_staff=staff, reason=reason)
    )
    return Change({"banned": False}, {"banned": True}, {"banned": True})


def unban_work(conn: Connection, player: str, staff: str, now_ms: int) -> Change:
    """Lift a player's ban."""
    require_player(conn, player)
    stmt = (
        sa.update(bans)
        .where(bans.c.player == player, bans.c.lifted_ms.is_(None))
        .values(lifted_ms=now_ms, lifted_by=staff)
    )
    if conn.execute(stmt).rowcount == 0:
        raise _no_change(f"{player} is not banned")
    return Change({"banned": True}, {"banned": False}, {"banned": False})


# ---------------------------------------------------------------------- C-8 blocks


def block_lift_work(conn: Connection, player: str, stakes: str, now_ms: int) -> Change:
    """End the player's running C-8 block at one blind level now (the declines stay on record)."""
    require_player(conn, player)
    running = (cash_blocks.c.player_id == player, cash_blocks.c.stakes == stakes)
    until = conn.execute(
        sa.select(sa.func.max(cash_blocks.c.until_ms)).where(
            *running, cash_blocks.c.until_ms > now_ms
        )
    ).scalar()
    if until is None:
        raise _no_change(f"{player} is not blocked at {stakes}")
    conn.execute(
        sa.update(cash_blocks)
        .where(*running, cash_blocks.c.until_ms > now_ms)
        .values(until_ms=now_ms)
    )
    return Change(
        {"stakes": stakes, "blocked_until_ms": int(until)},
        {"stakes": stakes, "blocked_until_ms": None},
        {"lifted_until_ms": int(until)},
    )


# ---------------------------------------------------------------------- chat (C-13)


def mute_work(
    conn: Connection,
    player: str,
    table_id: str | None,
    until_ms: int | None,
    staff: str,
    reason: str,
    now_ms: int,
) -> Change:
    """Mute a player at a table or everywhere, until a time or for good."""
    require_player(conn, player)
    key = conn.execute(
        sa.insert(chat_mutes).values(
            player=player,
            table_id=table_id,
            until_ms=until_ms,
            by_player=staff,
            reason=reason[:200],
            created_ms=now_ms,
        )
    ).inserted_primary_key
    assert key is not None
    mute_id = int(key[0])
    after = {"mute_id": mute_id, "table_id": table_id, "until_ms": until_ms}
    return Change(None, after, after)


def unmute_work(conn: Connection, player: str, table_id: str | None, now_ms: int) -> Change:
    """Lift the player's running mutes at `table_id` (None: the global ones)."""
    require_player(conn, player)
    where = (
        chat_mutes.c.player == player,
        chat_mutes.c.table_id.is_(None) if table_id is None else chat_mutes.c.table_id == table_id,
        chat_mutes.c.lifted_ms.is_(None),
        sa.or_(chat_mutes.c.until_ms.is_(None), chat_mutes.c.until_ms > now_ms),
    )
    ids = list(conn.execute(sa.select(chat_mutes.c.id).where(*where)).scalars())
    if not ids:
        raise _no_change(
            f"{player} is not muted {'everywhere' if table_id is None else 'at ' + table_id}"
        )
    conn.execute(sa.update(chat_mutes).where(chat_mutes.c.id.in_(ids)).values(lifted_ms=now_ms))
    return Change(
        {"mute_ids": ids, "table_id": table_id}, {"lifted": len(ids)}, {"lifted": len(ids)}
    )


def moderator_work(conn: Connection, player: str, flag: bool) -> Change:
    """Give or take the C-13 moderator right (it applies at the player's next login)."""
    row = require_player(conn, player)
    if bool(row.is_moderator) == flag:
        raise _no_change(f"{player} is {'already' if flag else 'not'} a moderator")
    conn.execute(sa.update(players).where(players.c.name == player).values(is_moderator=flag))
    return Change({"moderator": not flag}, {"moderator": flag}, {"moderator": flag})


# ---------------------------------------------------------------------- money (P-2)


def correction_key(staff: str, key: str) -> str:
    """The ledger key of a wallet correction made at once (the client's key, per staff member)."""
    return f"staff:correct:{staff}:{key}"


def approval_key(approval_id: int) -> str:
    """The ledger key of the correction an approval carries out."""
    return f"staff:approval:{approval_id}"


def _correct(
    conn: Connection, key: str, player: str, amount: int, currency: str, reason: str
) -> transfers.Transfer:
    """One `correction` transfer between the corrections account and the wallet (P-2)."""
    return transfers.transfer_on(
        conn,
        key=key,
        kind=TransferKind.CORRECTION,
        currency=currency,
        postings=[
            (external(currency, CORRECTIONS_OWNER), -amount),
            (wallet(player, currency), amount),
        ],
        reference=f"player:{player}",
        memo=reason,
    )


def correction_window_sum(
    conn: Connection, player: str, currency: str, since_ms: int, staff: str | None = None
) -> int:
    """The corrections made at once (no second admin) to one wallet since `since_ms`: the sum
    of their absolute amounts, by `staff` only or by every admin (None). Read from their audit
    rows (action `wallet_correct` without an approval), on the caller's transaction."""
    query = sa.select(audit.c.staff, audit.c.after).where(
        audit.c.action == CORRECT_ACTION,
        audit.c.target == player,
        audit.c.at_ms > since_ms,
    )
    if staff is not None:
        query = query.where(audit.c.staff == staff)
    total = 0
    for row in conn.execute(query):
        after = row.after if isinstance(row.after, dict) else {}
        if after.get("currency") != currency or after.get("approval_id") is not None:
            continue
        total += abs(int(after.get("amount", 0)))
    return total


def _lock_wallet_owner(conn: Connection, player: str) -> None:
    """Hold the player's row until the transaction ends (PostgreSQL `FOR UPDATE`), so that two
    corrections to one player are checked against the window one after the other. SQLite's
    `BEGIN IMMEDIATE` already makes every write transaction wait for the one before it."""
    found = conn.execute(
        sa.select(players.c.name).where(players.c.name == player).with_for_update()
    ).first()
    if found is None:
        raise ProtocolError(codes.UNKNOWN_PLAYER, f"no player named {player!r}")


def correct_work(
    conn: Connection,
    staff: str,
    key: str,
    player: str,
    amount: int,
    currency: str,
    reason: str,
    now_ms: int,
    limit: int,
    window_ms: int,
) -> Change:
    """A wallet correction: made at once while the corrections made at once to this wallet in
    the last `window_ms` (by this admin, and by every admin) stay at most `limit` cents in
    absolute value with it; else stored for a second admin's approval. The same key again is
    answered with its first result (done or pending) and changes nothing. The check and the
    write are one transaction, the player's row held (docs/ADMIN.md, "Money")."""
    _lock_wallet_owner(conn, player)
    ledger_key = correction_key(staff, key)
    made = conn.execute(
        sa.select(journal.c.id).where(journal.c.idempotency_key == ledger_key)
    ).first()
    asked = conn.execute(
        sa.select(approvals.c.id).where(approvals.c.request_key == f"{staff}:{key}")
    ).first()
    if made is None and asked is None:
        since = now_ms - window_ms
        mine = correction_window_sum(conn, player, currency, since, staff)
        everyone = correction_window_sum(conn, player, currency, since)
        if max(mine, everyone) + abs(amount) > limit:
            return request_work(conn, staff, key, player, amount, currency, reason, now_ms)
    elif made is None:
        return request_work(conn, staff, key, player, amount, currency, reason, now_ms)
    before = wallet_balance(conn, player, currency)
    done = _correct(conn, ledger_key, player, amount, currency, reason)
    after = wallet_balance(conn, player, currency)
    result = {
        "status": DONE,
        "transfer_id": done.id,
        "balance": after,
        "currency": currency,
        "replayed": done.replayed,
    }
    if done.replayed:
        return Change(None, None, result, audit=False)
    return Change(
        {"balance": before, "currency": currency},
        {"balance": after, "currency": currency, "amount": amount, "transfer_id": done.id},
        result,
        action=CORRECT_ACTION,
    )


def request_work(
    conn: Connection,
    staff: str,
    key: str,
    player: str,
    amount: int,
    currency: str,
    reason: str,
    now_ms: int,
) -> Change:
    """A correction above the limit: stored, pending a second admin's approval."""
    require_player(conn, player)
    request_key = f"{staff}:{key}"
    found = conn.execute(sa.select(approvals).where(approvals.c.request_key == request_key)).first()
    if found is not None:
        if (found.target, found.amount, found.currency) != (player, amount, currency):
            raise IdempotencyConflict(f"key {key!r} was used for another correction request")
        result = {"status": found.status, "approval_id": found.id, "replayed": True}
        return Change(None, None, result, audit=False)
    new = conn.execute(
        sa.insert(approvals).values(
            created_ms=now_ms,
            requested_by=staff,
            action=CORRECT_ACTION,
            target=player,
            currency=currency,
            amount=amount,
            reason=reason,
            request_key=request_key,
            status=PENDING,
        )
    ).inserted_primary_key
    assert new is not None
    approval_id = int(new[0])
    balance = wallet_balance(conn, player, currency)
    after = {"approval_id": approval_id, "status": PENDING, "amount": amount, "currency": currency}
    result = {"status": PENDING, "approval_id": approval_id, "replayed": False}
    return Change({"balance": balance, "currency": currency}, after, result, action=REQUEST_ACTION)


def approve_work(
    conn: Connection, staff: str, approval_id: int, now_ms: int, expire_ms: int
) -> Change:
    """Carry out a pending correction asked for by another admin: the transfer and the row.

    Refused when the approval has expired (`approval_expired`: older than `expire_ms`) or the
    admin who asked for it is disabled or no longer an admin (`requester_disabled`); the
    approving admin is checked by `audited` itself."""
    row = conn.execute(
        sa.select(approvals).where(approvals.c.id == approval_id).with_for_update()
    ).first()
    if row is None:
        raise ProtocolError(codes.UNKNOWN_APPROVAL, f"no approval {approval_id}")
    if row.status != PENDING:
        raise ProtocolError(codes.APPROVAL_NOT_PENDING, f"approval {approval_id} is {row.status}")
    if row.requested_by == staff:
        raise ProtocolError(codes.OWN_APPROVAL, "another admin must approve a change you asked for")
    if now_ms - int(row.created_ms) >= expire_ms:
        raise ProtocolError(
            codes.APPROVAL_EXPIRED,
            f"approval {approval_id} expired at {int(row.created_ms) + expire_ms} ms",
            {"expired_ms": int(row.created_ms) + expire_ms},
        )
    asker = conn.execute(
        sa.select(staff_table.c.role, staff_table.c.disabled).where(
            staff_table.c.name == row.requested_by
        )
    ).first()
    if asker is None or asker.disabled or not Role.parse(asker.role).allows(Role.ADMIN):
        raise ProtocolError(
            codes.REQUESTER_DISABLED,
            f"{row.requested_by}, who asked for approval {approval_id}, is disabled or no longer"
            " an admin",
        )
    before = wallet_balance(conn, row.target, row.currency)
    done = _correct(
        conn, approval_key(approval_id), row.target, row.amount, row.currency, row.reason
    )
    marked = conn.execute(
        sa.update(approvals)
        .where(approvals.c.id == approval_id, approvals.c.status == PENDING)
        .values(status=DONE, decided_by=staff, decided_ms=now_ms, transfer_id=done.id)
    ).rowcount
    if marked != 1:  # a twin approval won the row: roll this one back
        raise ProtocolError(
            codes.APPROVAL_NOT_PENDING, f"approval {approval_id} was just carried out"
        )
    after_balance = wallet_balance(conn, row.target, row.currency)
    return Change(
        {"balance": before, "currency": row.currency, "approval_id": approval_id},
        {
            "balance": after_balance,
            "currency": row.currency,
            "amount": int(row.amount),
            "transfer_id": done.id,
            "approval_id": approval_id,
            "requested_by": row.requested_by,
        },
        {
            "status": DONE,
            "transfer_id": done.id,
            "balance": after_balance,
            "currency": row.currency,
            "player": row.target,
        },
    )


def approval_target(engine: Engine, approval_id: int) -> tuple[str, str] | None:
    """(player, reason) of an approval, for its audit row's target and reason."""
    query = sa.select(approvals.c.target, approvals.c.reason).where(approvals.c.id == approval_id)
    row = read(engine, lambda conn: conn.execute(query).first())
    return None if row is None else (row.target, row.reason)


def approval_rows(
    engine: Engine, status: str | None, now_ms: int, expire_ms: int
) -> list[dict[str, Any]]:
    """Approvals, newest first; `status` pending, expired or done (None: all). A pending row
    older than `expire_ms` is shown `expired` (it can no longer be approved)."""
    query = sa.select(approvals).order_by(approvals.c.id.desc()).limit(500)
    oldest = now_ms - expire_ms
    if status == PENDING:
        query = query.where(approvals.c.status == PENDING, approvals.c.created_ms > oldest)
    elif status == EXPIRED:
        query = query.where(approvals.c.status == PENDING, approvals.c.created_ms <= oldest)
    elif status is not None:
        query = query.where(approvals.c.status == status)

    def shown(row: Any) -> dict[str, Any]:
        line = dict(row._mapping)
        if line["status"] == PENDING and line["created_ms"] <= oldest:
            line["status"] = EXPIRED
        return line

    return read(engine, lambda conn: [shown(r) for r in conn.execute(query)])


# ---------------------------------------------------------------------- player_show


def player_record(engine: Engine, player: str, now_ms: int) -> dict[str, Any]:
    """What the database knows of a player: account, wallets, C-8 declines and blocks, C-10
    rathole records, C-13 mutes and bans. `unknown_player` if there is none."""

    def work(conn: Connection) -> dict[str, Any]:
        row = require_player(conn, player)
        wallets = {
            r.currency: int(r.balance)
            for r in conn.execute(
                sa.select(accounts.c.currency, accounts.c.balance).where(
                    accounts.c.kind == AccountKind.WALLET.value, accounts.c.owner == player
                )
            )
        }
        since = now_ms - DECLINE_WINDOW_SECONDS * 1000
        declines: dict[str, int] = {}
        for stakes, count in conn.execute(
            sa.select(cash_declines.c.stakes, sa.func.count())
            .where(cash_declines.c.player_id == player, cash_declines.c.at_ms > since)
            .group_by(cash_declines.c.stakes)
        ):
            declines[stakes] = int(count)
        blocks = [
            {"stakes": r.stakes, "until_ms": int(r.until_ms), "decline_number": r.decline_number}
            for r in conn.execute(
                sa.select(cash_blocks)
                .where(cash_blocks.c.player_id == player, cash_blocks.c.until_ms > now_ms)
                .order_by(cash_blocks.c.until_ms)
            )
        ]
        rathole = [
            {"stakes": r.stakes, "amount": int(r.amount), "left_at_ms": int(r.left_at_ms)}
            for r in conn.execute(sa.select(cash_rathole).where(cash_rathole.c.player_id == player))
        ]
        mutes = [
            {
                "mute_id": r.id,
                "table_id": r.table_id,
                "until_ms": r.until_ms,
                "by": r.by_player,
                "reason": r.reason,
            }
            for r in conn.execute(
                sa.select(chat_mutes).where(
                    chat_mutes.c.player == player,
                    chat_mutes.c.lifted_ms.is_(None),
                    sa.or_(chat_mutes.c.until_ms.is_(None), chat_mutes.c.until_ms > now_ms),
                )
            )
        ]
        ban_rows = [
            {
                "since_ms": r.since_ms,
                "by": r.by_staff,
                "reason": r.reason,
                "lifted_ms": r.lifted_ms,
                "lifted_by": r.lifted_by,
            }
            for r in conn.execute(
                sa.select(bans).where(bans.c.player == player).order_by(bans.c.id)
            )
        ]
        return {
            "player": player,
            "moderator": bool(row.is_moderator),
            "created_at": row.created_at.isoformat() if row.created_at else None,
            "last_login_at": row.last_login_at.isoformat() if row.last_login_at else None,
            "wallets": wallets,
            "declines": declines,
            "blocks": blocks,
            "rathole": rathole,
            "mutes": mutes,
            "banned": any(b["lifted_ms"] is None for b in ban_rows),
            "bans": ban_rows,
        }

    return read(engine, work)
