"""The blocking units of work behind the wallet corrections (P-2) and their approvals.

Each `*_work(conn, ...)` runs inside `audit.audited` (one transaction with its audit row) and
returns a `Change`, or raises a ProtocolError that rolls everything back (P-1). Money moves
only by ledger transfers of kind `correction`, keyed (P-2), through `transfers.transfer_on`
on the same connection: never by editing a balance. Blocking: the ledger's thread pool.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin import errors as codes
from pokerroom.admin.audit import Change
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import approvals, audit
from pokerroom.admin.schema import staff as staff_table
from pokerroom.admin.store import balance_change, require_player, wallet_balance
from pokerroom.ledger import transfers
from pokerroom.ledger.db import read
from pokerroom.ledger.errors import IdempotencyConflict
from pokerroom.ledger.kinds import TransferKind, external, wallet
from pokerroom.ledger.schema import journal
from pokerroom.protocol.errors import ProtocolError
from pokerroom.server.schema import players

#: The account on the other side of every wallet correction: money the operator puts in or
#: takes out, kept apart from deposits (`external:world`) so that reports can tell them apart.
CORRECTIONS_OWNER = "corrections"
PENDING, DONE, EXPIRED = "pending", "done", "expired"
#: The audit actions of a correction made (at once or approved) and of one asked for.
CORRECT_ACTION, REQUEST_ACTION = "wallet_correct", "wallet_correct_request"


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
    return balance_change(done, (before, after), amount, currency, result, action=CORRECT_ACTION)


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
    result = {
        "status": DONE,
        "transfer_id": done.id,
        "balance": after_balance,
        "currency": row.currency,
        "player": row.target,
    }
    balances = (before, after_balance)
    asked = (approval_id, row.requested_by)
    return balance_change(done, balances, int(row.amount), row.currency, result, approval=asked)


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
