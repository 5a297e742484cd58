"""Staff accounts: add, list, disable, enable, role and password changes (offline, from the
CLI), and look-ups for the endpoint.

Blocking functions over an Engine or an open Connection: the CLI calls them directly, the
admin endpoint in the ledger's thread pool (docs/ARCHITECTURE.md rule 7). Passwords are argon2id
hashes, as players' are; staff names follow the player name rule (3 to 20 of a-z, 0-9, _).
Every change writes its audit row in the same transaction (docs/ADMIN.md); a change that
changes nothing (enable an enabled account, the role it has) raises `NoChange` and writes none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin.audit import CONSOLE, Actor, write_audit
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import staff
from pokerroom.ledger.db import in_transaction, read
from pokerroom.protocol.fields import normalize_name

MIN_PASSWORD, MAX_PASSWORD = 10, 256


class StaffError(ValueError):
    """A staff account command that cannot be done (bad name, taken, unknown)."""


class NoChange(StaffError):
    """The account is already as asked: nothing changed, no audit row."""


@dataclass(frozen=True, slots=True)
class StaffMember:
    """A staff account as stored (without its hash)."""

    name: str
    role: Role
    disabled: bool
    created_ms: int
    last_login_ms: int | None

    def as_dict(self) -> dict[str, Any]:
        """The account as JSON."""
        return {
            "name": self.name,
            "role": self.role.label,
            "disabled": self.disabled,
            "created_ms": self.created_ms,
            "last_login_ms": self.last_login_ms,
        }


def staff_name(text: str) -> str:
    """The canonical staff name (the player name rule), or StaffError."""
    name = normalize_name(text)
    if name is None:
        raise StaffError(f"{text!r}: a staff name is 3 to 20 of a-z, 0-9 and _")
    return name


def _member(row: Any) -> StaffMember:
    return StaffMember(
        row.name, Role.parse(row.role), bool(row.disabled), row.created_ms, row.last_login_ms
    )


def add_staff(
    engine: Engine,
    name: str,
    role: Role,
    password_hash: str,
    now_ms: int,
    *,
    actor: Actor = CONSOLE,
    reason: str = "",
) -> StaffMember:
    """Create a staff account; audited (`staff_add`) as done by `actor`."""
    name = staff_name(name)

    def work(conn: Connection) -> StaffMember:
        if conn.execute(sa.select(staff.c.name).where(staff.c.name == name)).first():
            raise StaffError(f"staff {name!r} exists")
        values = {"name": name, "role": role.label, "password_hash": password_hash}
        conn.execute(sa.insert(staff).values(**values, created_ms=now_ms))
        write_audit(conn, actor, "staff_add", name, None, {"role": role.label}, reason, now_ms)
        return StaffMember(name, role, False, now_ms, None)

    try:
        return in_transaction(engine, work)
    except sa.exc.IntegrityError:
        raise StaffError(f"staff {name!r} exists") from None


def require_staff(bind: Engine | Connection, name: str) -> StaffMember:
    """The account named `name` (checked against the name rule first), or StaffError."""
    name = staff_name(name)
    found = find_staff(bind, name)
    if found is None:
        raise StaffError(f"no staff named {name!r}")
    return found[0]


def require_new_name(bind: Engine | Connection, name: str) -> str:
    """The canonical `name` if it is valid and no account has it yet, else StaffError."""
    name = staff_name(name)
    if find_staff(bind, name) is not None:
        raise StaffError(f"staff {name!r} exists")
    return name


_Update = Callable[[Any], tuple[dict[str, Any], Any, Any]]


def _change(
    engine: Engine,
    name: str,
    action: str,
    update: _Update,
    now_ms: int,
    actor: Actor,
    reason: str,
) -> StaffMember:
    """Change one account and write its audit row in one transaction.

    `update(row)` returns the column values to set and the audit row's before and after, or
    raises NoChange / StaffError.
    """
    name = staff_name(name)

    def work(conn: Connection) -> StaffMember:
        row = conn.execute(sa.select(staff).where(staff.c.name == name)).first()
        if row is None:
            raise StaffError(f"no staff named {name!r}")
        values, before, after = update(row)
        conn.execute(sa.update(staff).where(staff.c.name == name).values(**values))
        write_audit(conn, actor, action, name, before, after, reason, now_ms)
        changed = conn.execute(sa.select(staff).where(staff.c.name == name)).one()
        return _member(changed)

    return in_transaction(engine, work)


def disable_staff(
    engine: Engine, name: str, now_ms: int, *, actor: Actor = CONSOLE, reason: str = ""
) -> StaffMember:
    """Disable a staff account (its sessions are refused from their next request); audited."""

    def update(row: Any) -> tuple[dict[str, Any], Any, Any]:
        if row.disabled:
            raise NoChange(f"staff {row.name!r} is already disabled")
        return {"disabled": True}, {"disabled": False}, {"disabled": True}

    return _change(engine, name, "staff_disable", update, now_ms, actor, reason)


def enable_staff(
    engine: Engine, name: str, now_ms: int, *, actor: Actor = CONSOLE, reason: str = ""
) -> StaffMember:
    """Enable a disabled staff account again (it may log in); audited."""

    def update(row: Any) -> tuple[dict[str, Any], Any, Any]:
        if not row.disabled:
            raise NoChange(f"staff {row.name!r} is already enabled")
        return {"disabled": False}, {"disabled": True}, {"disabled": False}

    return _change(engine, name, "staff_enable", update, now_ms, actor, reason)


def set_role(
    engine: Engine,
    name: str,
    role: Role,
    now_ms: int,
    *,
    actor: Actor = CONSOLE,
    reason: str = "",
) -> StaffMember:
    """Give a staff account another role (an open session has it from its next request)."""

    def update(row: Any) -> tuple[dict[str, Any], Any, Any]:
        if row.role == role.label:
            raise NoChange(f"staff {row.name!r} is already {role.label}")
        return {"role": role.label}, {"role": row.role}, {"role": role.label}

    return _change(engine, name, "staff_role", update, now_ms, actor, reason)


def set_password(
    engine: Engine,
    name: str,
    password_hash: str,
    now_ms: int,
    *,
    actor: Actor = CONSOLE,
    reason: str = "",
) -> StaffMember:
    """Replace a staff account's password hash; audited without any hash."""

    def update(row: Any) -> tuple[dict[str, Any], Any, Any]:
        return {"password_hash": password_hash}, None, {"password": "changed"}

    return _change(engine, name, "staff_password", update, now_ms, actor, reason)


def list_staff(engine: Engine) -> list[StaffMember]:
    """Every staff account, by name."""
    query = sa.select(staff).order_by(staff.c.name)
    return read(engine, lambda conn: [_member(row) for row in conn.execute(query)])


def find_staff(bind: Engine | Connection, name: str) -> tuple[StaffMember, str] | None:
    """The account and its password hash, or None."""
    row = read(
        bind, lambda conn: conn.execute(sa.select(staff).where(staff.c.name == name)).first()
    )
    return None if row is None else (_member(row), row.password_hash)


def touch_login(engine: Engine, name: str, now_ms: int) -> None:
    """Remember a successful staff login."""
    stmt = sa.update(staff).where(staff.c.name == name).values(last_login_ms=now_ms)
    in_transaction(engine, lambda conn: conn.execute(stmt))
