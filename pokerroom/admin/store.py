"""The blocking units of work behind admin commands on tables and players, and `player_show`.

The wallet corrections and their approvals are in `pokerroom.admin.money_store`.
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
from pokerroom.admin.schema import bans, table_controls
from pokerroom.cash.declines import DECLINE_WINDOW_SECONDS
from pokerroom.cash.schema import cash_blocks, cash_declines, cash_rathole
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind
from pokerroom.ledger.schema import accounts
from pokerroom.ledger.transfers import Transfer
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.schema import chat_mutes, players


def no_change(what: str) -> ProtocolError:
    """A `no_change` refusal saying what is already so."""
    return ProtocolError(codes.NO_CHANGE, what)


def require_player(conn: Connection, player: str) -> Any:
    """The player's row, or `unknown_player`."""
    row = conn.execute(sa.select(players).where(players.c.name == player)).first()
    if row is None:
        raise ProtocolError(codes.UNKNOWN_PLAYER, f"no player named {player!r}")
    return row


def account_balance(conn: Connection, kind: AccountKind, owner: str, currency: str) -> int:
    """An account's balance in cents (0 if it was never opened)."""
    query = sa.select(accounts.c.balance).where(
        accounts.c.kind == kind.value,
        accounts.c.owner == owner,
        accounts.c.currency == currency,
    )
    balance = conn.execute(query).scalar()
    return int(balance or 0)


def wallet_balance(conn: Connection, player: str, currency: str) -> int:
    """The wallet's balance in cents (0 if it was never opened)."""
    return account_balance(conn, AccountKind.WALLET, player, currency)


def balance_change(
    done: Transfer,
    balances: tuple[int, int],
    amount: int,
    currency: str,
    result: dict[str, Any],
    *,
    action: str | None = None,
    approval: tuple[int, str] | None = None,
) -> Change:
    """The audit row of one money movement (a wallet correction, a house funding): the
    account's balance before and after (`balances`) in `currency`, and after it the amount and
    the transfer; a correction carried out by an `approval` (its id, who asked) names it. A
    replayed transfer (the same key again) changed nothing: no audit row, the same result."""
    if done.replayed:
        return Change(None, None, result, audit=False)
    before, after = balances
    noted: dict[str, Any] = {} if approval is None else {"approval_id": approval[0]}
    moved = {"amount": amount, "transfer_id": done.id, **noted}
    if approval is not None:
        moved["requested_by"] = approval[1]
    return Change(
        {"balance": before, "currency": currency, **noted},
        {"balance": after, "currency": currency, **moved},
        result,
        action=action,
    )


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
        raise no_change(f"{player} is already banned")
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
        raise no_change(f"{player} is not banned")
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
        raise no_change(f"{player} is not blocked at {stakes}")
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
        raise no_change(
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
        raise no_change(f"{player} is {'already' if flag else 'not'} a moderator")
    conn.execute(sa.update(players).where(players.c.name == player).values(is_moderator=flag))
    return Change({"moderator": not flag}, {"moderator": flag}, {"moderator": flag})


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
