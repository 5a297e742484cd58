"""The audit log: one row per staff action, in the same transaction as the action's effect.

`audited(engine, actor, action, target, reason, now_ms, work)` runs `work(conn)` and writes its
audit row (who, role, when, what, target, before, after, reason) in one transaction: both land
or neither does. It first checks, in that transaction, that the staff account is still
enabled and its role still allows the command, so a disabled account changes nothing.
Blocking: runs in the ledger's money lane (docs/ARCHITECTURE.md rule 7).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin.roles import Role, check_role
from pokerroom.admin.schema import audit, staff
from pokerroom.ledger.db import in_transaction, read

MAX_AUDIT_ROWS = 500


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: a staff member and the role the command needs (`required`)."""

    name: str
    role: str  # a Role label, or "console" for the offline CLI
    required: Role | None = None


#: The offline CLI (`pokerroom staff ...`) when no one is named: whoever runs it on the server.
CONSOLE = Actor("(console)", "console")


def console_actor() -> Actor:
    """The offline CLI's actor: `cli:<OS user>` (the user behind `sudo`, if any), role `console`."""
    import getpass
    import os

    user = os.environ.get("SUDO_USER")
    if not user:
        try:
            user = getpass.getuser()
        except (OSError, KeyError):  # no login name and no passwd entry (a bare container)
            user = f"uid{os.getuid()}"
    return Actor(f"cli:{user}", "console")


@dataclass(frozen=True, slots=True)
class Change:
    """What a unit of work did: before and after for the audit row, the answer's result.

    `audit=False` marks a repeated request (same idempotency key) that did nothing new;
    `action` names the audit row's action when the work itself decided it (a wallet correction
    made at once or stored for approval), else the caller's is kept.
    """

    before: Any
    after: Any
    result: dict[str, Any]
    audit: bool = True
    action: str | None = None


@dataclass(frozen=True, slots=True)
class Audited:
    """A committed change: its audit row id (None for a replay) and the result."""

    audit_id: int | None
    change: Change

    def answer(self) -> dict[str, Any]:
        """The `ok` result of most changes: the audit row's id and the work's result."""
        return {"audit_id": self.audit_id, **self.change.result}


def write_audit(
    conn: Connection,
    actor: Actor,
    action: str,
    target: str,
    before: Any,
    after: Any,
    reason: str,
    now_ms: int,
) -> int:
    """Insert one audit row in the open transaction; its id."""
    key = conn.execute(
        sa.insert(audit).values(
            at_ms=now_ms,
            staff=actor.name,
            role=actor.role,
            action=action,
            target=target,
            before=before,
            after=after,
            reason=reason,
        )
    ).inserted_primary_key
    assert key is not None  # a single-row INSERT reports its key
    new_id: int = key[0]
    return new_id


class RecorderAudit:
    """The audit row of a decision that a tournament's recorder writes (docs/ADMIN.md).

    `row(before, after)` is the blocking write the tournament actor puts in the SAME group as
    the decision's own rows, so both commit in one transaction; `audit_id` is the row's id
    once written (None while not written: a refusal, or a repeated keyed change). The role
    was checked when the request arrived (the session reads the account for every request).
    """

    def __init__(self, actor: Actor, action: str, target: str, reason: str, now_ms: int) -> None:
        self.actor, self.action, self.target = actor, action, target
        self.reason, self.now_ms = reason, now_ms
        self.audit_id: int | None = None

    def __call__(self, before: Any, after: Any) -> Callable[[Connection], int]:
        """The blocking write of the row, with the decision's before and after."""

        def write(conn: Connection) -> int:
            self.audit_id = write_audit(
                conn, self.actor, self.action, self.target, before, after, self.reason,
                self.now_ms,
            )  # fmt: skip
            return self.audit_id

        return write


def current_role(conn: Connection, actor: Actor) -> Role | None:
    """The actor's role as stored now, or None if the account is gone or disabled."""
    row = conn.execute(
        sa.select(staff.c.role, staff.c.disabled).where(staff.c.name == actor.name)
    ).first()
    if row is None or row.disabled:
        return None
    return Role.parse(row.role)


def audited(
    engine: Engine,
    actor: Actor,
    action: str,
    target: str,
    reason: str,
    now_ms: int,
    work: Callable[..., Change],
    *args: Any,
) -> Audited:
    """Run `work(conn, *args)` and write its audit row in one transaction (see module doc)."""

    def unit(conn: Connection) -> Audited:
        role = check_role(current_role(conn, actor), actor.required)
        change = work(conn, *args)
        stamp = Actor(actor.name, role.label)
        return _recorded(conn, change, stamp, change.action or action, target, reason, now_ms)

    for attempt in range(2):
        try:
            return in_transaction(engine, unit)
        except sa.exc.IntegrityError:  # a twin request won a unique key: run again, replayed
            if attempt:
                raise
    raise AssertionError("unreachable")


def console_audited(
    engine: Engine,
    actor: Actor,
    action: str,
    target: str,
    reason: str,
    now_ms: int,
    work: Callable[..., Change],
    *args: Any,
) -> Audited:
    """`audited` for the offline CLI: no staff account to check, the same unit of work and the
    same audit row (as `actor`, e.g. `console_actor()`), in one transaction."""

    def unit(conn: Connection) -> Audited:
        return _recorded(conn, work(conn, *args), actor, action, target, reason, now_ms)

    return in_transaction(engine, unit)


def _recorded(
    conn: Connection,
    change: Change,
    stamp: Actor,
    action: str,
    target: str,
    reason: str,
    now_ms: int,
) -> Audited:
    """The change with its audit row written (none for a replay, `audit=False`)."""
    if not change.audit:
        return Audited(None, change)
    row = write_audit(conn, stamp, action, target, change.before, change.after, reason, now_ms)
    return Audited(row, change)


def record_end(
    engine: Engine,
    actor: Actor,
    action: str,
    target: str,
    before: Any,
    after: Any,
    reason: str,
    now_ms: int,
) -> int:
    """One audit row for the end of an effect whose start was audited (a job run): no role
    check, the effect already began under a checked role. Its id."""
    return in_transaction(
        engine,
        lambda conn: write_audit(conn, actor, action, target, before, after, reason, now_ms),
    )


def audit_rows(
    engine: Engine,
    since_ms: int | None = None,
    staff: str | None = None,
    target: str | None = None,
    action: str | None = None,
    limit: int = 100,
) -> list[dict[str, Any]]:
    """Audit rows, newest first, filtered by time, staff member, target and action."""
    query = sa.select(audit).order_by(audit.c.id.desc()).limit(min(limit, MAX_AUDIT_ROWS))
    if since_ms is not None:
        query = query.where(audit.c.at_ms >= since_ms)
    if staff is not None:
        query = query.where(audit.c.staff == staff)
    if target is not None:
        query = query.where(audit.c.target == target)
    if action is not None:
        query = query.where(audit.c.action == action)
    return read(engine, lambda conn: [dict(row._mapping) for row in conn.execute(query)])
