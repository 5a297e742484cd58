"""`pokerroom staff ...`: staff accounts, on the database directly (docs/ADMIN.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click

from pokerroom.cli.admin_base import json_option, show, yes_option
from pokerroom.cli.database import db_option, opened
from pokerroom.cli.output import show_table, when

# -- staff accounts (offline) --------------------------------------------------------------------
ROLES = ("support", "floor", "director", "admin")
reason_audit = click.option("--reason", default="", help="Why (kept in the audit log).")
password_file_option = click.option(
    "--password-file",
    type=click.Path(dir_okay=False, allow_dash=True),
    default=None,
    help="Read the password from the first line of this file (- : standard input) instead of "
    "asking for it.",
)


@click.group("staff")
def staff() -> None:
    """Staff accounts, on the database directly (run on the server's machine)."""


def _terminal() -> bool:
    """True if the password can be asked for, hidden: standard input is a terminal."""
    import sys

    return sys.stdin.isatty()


def _password(password_file: str | None) -> str:
    """The new password: the first line of --password-file (- : stdin), else asked twice,
    hidden, on a terminal; never echoed. Checked against the length rule."""
    from pokerroom.admin.staff import MAX_PASSWORD, MIN_PASSWORD

    if password_file is not None:
        try:
            with click.open_file(password_file, encoding="utf-8") as stream:
                line: str = stream.readline()
            password = line.rstrip("\r\n")
        except OSError as exc:
            raise click.ClickException(f"cannot read {password_file}: {exc.strerror}") from None
    elif _terminal():
        password = str(click.prompt("Password", hide_input=True, confirmation_prompt=True))
    else:
        raise click.ClickException(
            "no terminal to ask for the password: use --password-file PATH (- for stdin)"
        )
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise click.ClickException(
            f"a staff password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        )
    return password


def _hash(password: str) -> str:
    from pokerroom.server.accounts import HashSettings

    return HashSettings().hasher().hash(password)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _staff_change(db_url: str | None, name: str, change: Callable[[Any, str], Any]) -> None:
    """Check NAME names an account, then `change(engine, canonical_name)`, audited as the OS
    user; an account already as asked prints so and exits 0, other refusals exit 1."""
    from pokerroom.admin.staff import NoChange, StaffError, require_staff

    with opened(db_url) as engine:
        try:
            member = require_staff(engine, name)
            change(engine, member.name)
        except NoChange as exc:
            click.echo(f"{exc}; nothing changed")
        except StaffError as exc:
            raise click.ClickException(str(exc)) from None


@staff.command("add")
@click.argument("name")
@click.option("--role", required=True, type=click.Choice(ROLES))
@password_file_option
@reason_audit
@db_option
def staff_add(
    name: str, role: str, password_file: str | None, reason: str, db_url: str | None
) -> None:
    """Create staff account NAME with ROLE; asks for its password (hidden, twice) on a
    terminal, else reads --password-file."""
    from pokerroom.admin.audit import console_actor
    from pokerroom.admin.roles import Role
    from pokerroom.admin.staff import StaffError, add_staff, require_new_name

    with opened(db_url) as engine:
        try:
            name = require_new_name(engine, name)  # before any prompt
            hashed = _hash(_password(password_file))
            actor, now_ms = console_actor(), _now_ms()
            member = add_staff(
                engine, name, Role.parse(role), hashed, now_ms, actor=actor, reason=reason
            )
        except StaffError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"staff {member.name}: {member.role.label}")


@staff.command("list")
@db_option
@json_option
def staff_list(db_url: str | None, as_json: bool) -> None:
    """Every staff account."""
    from pokerroom.admin.staff import list_staff

    with opened(db_url) as engine:
        members = [m.as_dict() for m in list_staff(engine)]
    rows = [
        (m["name"], m["role"], "disabled" if m["disabled"] else "", when(m["last_login_ms"]))
        for m in members
    ]
    columns = ["name", "role", "state", "last login (UTC)"]
    show({"staff": members}, as_json, lambda _: show_table("staff", columns, rows))


@staff.command("disable")
@click.argument("name")
@reason_audit
@db_option
@yes_option
def staff_disable(name: str, reason: str, db_url: str | None, yes: bool) -> None:
    """Disable staff account NAME: no login, and its open sessions are refused."""
    from pokerroom.admin.audit import console_actor
    from pokerroom.admin.staff import disable_staff

    def change(engine: Any, canonical: str) -> None:
        if not yes:
            click.confirm(f"disable staff {canonical}?", abort=True)
        disable_staff(engine, canonical, _now_ms(), actor=console_actor(), reason=reason)
        click.echo(f"staff {canonical}: disabled")

    _staff_change(db_url, name, change)


@staff.command("enable")
@click.argument("name")
@reason_audit
@db_option
def staff_enable(name: str, reason: str, db_url: str | None) -> None:
    """Enable disabled staff account NAME again: it may log in."""
    from pokerroom.admin.audit import console_actor
    from pokerroom.admin.staff import enable_staff

    def change(engine: Any, canonical: str) -> None:
        enable_staff(engine, canonical, _now_ms(), actor=console_actor(), reason=reason)
        click.echo(f"staff {canonical}: enabled")

    _staff_change(db_url, name, change)


@staff.command("role")
@click.argument("name")
@click.argument("role", type=click.Choice(ROLES))
@reason_audit
@db_option
def staff_role(name: str, role: str, reason: str, db_url: str | None) -> None:
    """Give staff account NAME another ROLE (an open session has it from its next request)."""
    from pokerroom.admin.audit import console_actor
    from pokerroom.admin.roles import Role
    from pokerroom.admin.staff import set_role

    def change(engine: Any, canonical: str) -> None:
        set_role(
            engine, canonical, Role.parse(role), _now_ms(), actor=console_actor(), reason=reason
        )
        click.echo(f"staff {canonical}: {role}")

    _staff_change(db_url, name, change)


@staff.command("password")
@click.argument("name")
@password_file_option
@reason_audit
@db_option
def staff_password(name: str, password_file: str | None, reason: str, db_url: str | None) -> None:
    """Set a new password for staff account NAME: asked twice, hidden, on a terminal, else
    read from --password-file."""
    from pokerroom.admin.audit import console_actor
    from pokerroom.admin.staff import set_password

    def change(engine: Any, canonical: str) -> None:
        hashed = _hash(_password(password_file))  # the name was checked first
        set_password(engine, canonical, hashed, _now_ms(), actor=console_actor(), reason=reason)
        click.echo(f"staff {canonical}: password changed")

    _staff_change(db_url, name, change)
