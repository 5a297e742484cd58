"""`pokerroom staff add|list|disable|enable|role|password` and `pokerroom player moderator`
(docs/ADMIN.md): each change and its audit row in one transaction, as `cli:<user>`; the name is
checked before any prompt; passwords from --password-file or stdin, never an echoing prompt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher
from click.testing import CliRunner, Result
from sqlalchemy.engine import Engine

from pokerroom.admin.audit import console_actor
from pokerroom.admin.schema import audit, staff
from pokerroom.cli import main, staff_cmds
from pokerroom.ledger.db import in_transaction, make_engine
from pokerroom.ledger.migrate import upgrade
from pokerroom.server.schema import players
from tests.postgres import fresh_pg_schema

PASSWORD = "a good password"
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Engine]]:
    """A database at head (SQLite file or fresh PostgreSQL schema) and an engine on it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'room.sqlite'}"
        engine = make_engine(url)
        upgrade(engine)
        yield url, engine
        engine.dispose()
        return
    with fresh_pg_schema("staff_cli") as url:
        engine = make_engine(url)
        upgrade(engine)
        yield url, engine
        engine.dispose()


@pytest.fixture(autouse=True)
def _cheap_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id at its cheapest: the CLI's cost settings are not what these tests check."""
    monkeypatch.setattr(staff_cmds, "_hash", CHEAP.hash)
    monkeypatch.setenv("SUDO_USER", "operator_ann")


def _run(url: str, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--db", url], input=input)


def _rows(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.select(audit).order_by(audit.c.id)))


def _account(engine: Engine, name: str) -> Any:
    with engine.connect() as conn:
        return conn.execute(sa.select(staff).where(staff.c.name == name)).one()


def _add(url: str, name: str = "ann", role: str = "floor") -> None:
    done = _run(
        url, "staff", "add", name, "--role", role, "--password-file", "-", input=PASSWORD + "\n"
    )
    assert done.exit_code == 0, done.output


def test_the_cli_actor_is_the_os_user() -> None:
    """The audit's `staff` for the offline CLI: `cli:` and the user behind sudo, else the
    login name; role `console`."""
    assert console_actor().name == "cli:operator_ann" and console_actor().role == "console"


def test_each_staff_change_writes_its_audit_row(room: tuple[str, Engine]) -> None:
    """add, disable, enable, role, password: the change and one audit row each (actor
    `cli:<user>`, role `console`, before/after, the reason); the password row holds no hash."""
    url, engine = room
    _add(url)
    assert _account(engine, "ann").role == "floor"
    first_hash = _account(engine, "ann").password_hash
    assert CHEAP.verify(first_hash, PASSWORD)
    assert _run(url, "staff", "disable", "ann", "--yes", "--reason", "left").exit_code == 0
    assert _account(engine, "ann").disabled
    assert _run(url, "staff", "enable", "ann", "--reason", "back").exit_code == 0
    assert not _account(engine, "ann").disabled
    assert _run(url, "staff", "role", "ann", "director").exit_code == 0
    assert _account(engine, "ann").role == "director"
    changed = _run(url, "staff", "password", "ann", "--password-file", "-", input="new secret 12\n")
    assert changed.exit_code == 0, changed.output
    new_hash = _account(engine, "ann").password_hash
    assert new_hash != first_hash and CHEAP.verify(new_hash, "new secret 12")
    rows = _rows(engine)
    assert [(r.staff, r.role, r.action, r.target) for r in rows] == [
        ("cli:operator_ann", "console", action, "ann")
        for action in ("staff_add", "staff_disable", "staff_enable", "staff_role", "staff_password")
    ]
    assert [(r.before, r.after, r.reason) for r in rows] == [
        (None, {"role": "floor"}, ""),
        ({"disabled": False}, {"disabled": True}, "left"),
        ({"disabled": True}, {"disabled": False}, "back"),
        ({"role": "floor"}, {"role": "director"}, ""),
        (None, {"password": "changed"}, ""),
    ]
    assert all("argon2" not in str(r.after) for r in rows)


def test_a_change_that_changes_nothing_writes_no_row(room: tuple[str, Engine]) -> None:
    """Enable an enabled account, the role it has, disable a disabled one: said, exit 0, no
    audit row; an unknown or invalid name exits 1 with one line."""
    url, engine = room
    _add(url)
    count = len(_rows(engine))
    for args in (("enable", "ann"), ("role", "ann", "floor")):
        done = _run(url, "staff", *args)
        assert done.exit_code == 0 and "nothing changed" in done.output, done.output
    assert _run(url, "staff", "disable", "ann", "--yes").exit_code == 0
    again = _run(url, "staff", "disable", "ann", "--yes")
    assert again.exit_code == 0 and "already disabled" in again.output
    assert len(_rows(engine)) == count + 1
    for args in (("enable", "bob"), ("role", "bob", "admin"), ("disable", "bob", "--yes")):
        done = _run(url, "staff", *args)
        assert done.exit_code == 1 and done.stderr == "Error: no staff named 'bob'\n"
    bad = _run(url, "staff", "enable", "B@D")
    assert bad.exit_code == 1 and "a staff name is 3 to 20" in bad.stderr
    assert len(_rows(engine)) == count + 1


def test_the_name_is_checked_before_any_prompt(
    room: tuple[str, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal, `add` of a taken or invalid name and `password`/`disable` of an unknown
    one fail before asking anything (no prompt printed, no input read)."""
    url, _ = room
    _add(url)
    monkeypatch.setattr(staff_cmds, "_terminal", lambda: True)
    cases = [
        (("staff", "add", "ann", "--role", "floor"), "staff 'ann' exists"),
        (("staff", "add", "no", "--role", "floor"), "a staff name is 3 to 20"),
        (("staff", "password", "bob"), "no staff named 'bob'"),
        (("staff", "disable", "bob"), "no staff named 'bob'"),
    ]
    for args, why in cases:
        done = _run(url, *args, input=f"{PASSWORD}\n{PASSWORD}\ny\n")
        assert done.exit_code == 1 and why in done.stderr, done.output
        assert "Password" not in done.output and "?" not in done.output, done.output


def test_on_a_terminal_the_password_is_asked_twice_hidden(
    room: tuple[str, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt asks twice and echoes nothing; a mismatch asks again; a short one is
    refused."""
    url, engine = room
    monkeypatch.setattr(staff_cmds, "_terminal", lambda: True)
    done = _run(url, "staff", "add", "ann", "--role", "admin", input=f"{PASSWORD}\n{PASSWORD}\n")
    assert done.exit_code == 0, done.output
    assert PASSWORD not in done.output and done.output.count("Password") == 1
    assert CHEAP.verify(_account(engine, "ann").password_hash, PASSWORD)
    short = _run(url, "staff", "password", "ann", input="short\nshort\n")
    assert short.exit_code == 1 and "10 to 256 characters" in short.stderr
    assert CHEAP.verify(_account(engine, "ann").password_hash, PASSWORD)


def test_without_a_terminal_a_password_is_only_read_from_a_file(
    room: tuple[str, Engine], tmp_path: Path
) -> None:
    """No terminal and no --password-file: refused in one line naming --password-file,
    nothing created; a file's first line (without its newline) is the password; `-` is stdin;
    an unreadable file and a short password are refused."""
    url, engine = room
    refused = _run(url, "staff", "add", "ann", "--role", "floor", input=f"{PASSWORD}\n")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: no terminal to ask for the password: use --password-file PATH (- for stdin)\n"
    )
    assert PASSWORD not in refused.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(staff)).first() is None
    secret = tmp_path / "secret"
    secret.write_text(f"{PASSWORD} with spaces\r\nsecond line\n")
    added = _run(url, "staff", "add", "ann", "--role", "floor", "--password-file", str(secret))
    assert added.exit_code == 0, added.output
    assert CHEAP.verify(_account(engine, "ann").password_hash, f"{PASSWORD} with spaces")
    assert _run(url, "staff", "password", "ann").exit_code == 1  # no terminal again
    missing = _run(url, "staff", "password", "ann", "--password-file", str(tmp_path / "nope"))
    assert missing.exit_code == 1 and "cannot read" in missing.stderr
    short = _run(url, "staff", "password", "ann", "--password-file", "-", input="short\n")
    assert short.exit_code == 1 and "10 to 256" in short.stderr
    assert CHEAP.verify(_account(engine, "ann").password_hash, f"{PASSWORD} with spaces")
    assert [r.action for r in _rows(engine)] == ["staff_add"]


def test_player_moderator_is_audited(room: tuple[str, Engine]) -> None:
    """`pokerroom player moderator` writes the endpoint's `player_moderator` row (before and
    after) as `cli:<user>`, in the same transaction; a repeat changes nothing and writes none;
    an unknown player exits 1."""
    url, engine = room
    in_transaction(
        engine, lambda c: c.execute(players.insert().values(name="mod", password_hash="x"))
    )
    done = _run(url, "player", "moderator", "mod", "--reason", "helps in chat")
    assert done.exit_code == 0, done.output
    again = _run(url, "player", "moderator", "mod")
    assert again.exit_code == 0 and "nothing changed" in again.output
    revoked = _run(url, "player", "moderator", "mod", "--revoke")
    assert revoked.exit_code == 0, revoked.output
    rows = _rows(engine)
    assert [(r.staff, r.action, r.target, r.before, r.after, r.reason) for r in rows] == [
        (
            "cli:operator_ann",
            "player_moderator",
            "mod",
            {"moderator": False},
            {"moderator": True},
            "helps in chat",
        ),
        (
            "cli:operator_ann",
            "player_moderator",
            "mod",
            {"moderator": True},
            {"moderator": False},
            "",
        ),
    ]
    with engine.connect() as conn:
        assert conn.execute(sa.select(players.c.is_moderator)).scalar_one() is False
    unknown = _run(url, "player", "moderator", "nobody")
    assert unknown.exit_code == 1 and "no player named 'nobody'" in unknown.stderr
    assert len(_rows(engine)) == 2


def test_a_failed_audit_write_undoes_the_change(
    room: tuple[str, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change and its audit row are one transaction: when the row cannot be written the
    account is as it was."""
    url, engine = room
    _add(url)
    from pokerroom.admin import staff as staff_module

    def broken(*args: Any, **kwargs: Any) -> int:
        raise sa.exc.OperationalError("INSERT INTO audit", {}, Exception("disk full"))

    monkeypatch.setattr(staff_module, "write_audit", broken)
    done = _run(url, "staff", "role", "ann", "admin")
    assert done.exit_code != 0
    assert _account(engine, "ann").role == "floor"
    assert [r.action for r in _rows(engine)] == ["staff_add"]
