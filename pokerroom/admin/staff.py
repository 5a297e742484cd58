"""Staff accounts: add, list, disable (offline, from the CLI), and look-ups for the endpoint.

Blocking functions over an Engine or an open Connection: the CLI calls them directly, the
admin endpoint in the ledger's thread pool (docs/ARCHITECTURE.md rule 7). Passwords are argon2id
hashes, as players' are; staff names follow the player name rule (3 to 20 of a-z, 0-9, _).
"""

from __future__ import annotations

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
    engine: Engine, name: str, role: Role, password_hash: str, now_ms: int
) -> StaffMember:
    """Create a staff account; audited as done at the console."""
    name = staff_name(name)

    def work(conn: Connection) -> StaffMember:
        if conn.execute(sa.select(staff.c.name).where(staff.c.name == name)).first():
            raise StaffError(f"staff {name!r} exists")
        values = {"name": name, "role": role.label, "password_hash": password_hash}
        conn.execute(sa.insert(staff).values(**values, created_ms=now_ms))
        write_audit(conn, CONSOLE, "staff_add", name, None, {"role": role.label}, "", now_ms)
        return StaffMember(name, role, False, now_ms, None)

    try:
        return in_transaction(engine, work)
    except sa.exc.IntegrityError:
        raise StaffError(f"staff {name!r} exists") from None


def disable_staff(engine: Engine, name: str, now_ms: int) -> StaffMember:
    """Disable a staff account (its sessions are refused from their next request); audited."""
    name = staff_name(name)

    def work(conn: Connection) -> StaffMember:
        row = conn.execute(sa.select(staff).where(staff.c.name == name)).first()
        if row is None:
            raise StaffError(f"no staff named {name!r}")
        if row.disabled:
            raise StaffError(f"staff {name!r} is already disabled")
        conn.execute(sa.update(staff).where(staff.c.name == name).values(disabled=True))
        write_audit(
            conn,
            CONSOLE,
            "staff_disable",
            name,
            {"disabled": False},
            {"disabled": True},
            "",
            now_ms,
        )
        return StaffMember(name, Role.parse(row.role), True, row.created_ms, row.last_login_ms)

    return in_transaction(engine, work)


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


def current_role(conn: Connection, actor: Actor) -> Role | None:
    """The actor's role as stored now, or None if the account is gone or disabled."""
    row = conn.execute(
        sa.select(staff.c.role, staff.c.disabled).where(staff.c.name == actor.name)
    ).first()
    if row is None or row.disabled:
        return None
    return Role.parse(row.role)
