"""How commands open the database (docs/OPERATIONS.md, "The database, and the exit codes"):
every problem is one line on stderr with its own exit code, reading commands never create or
migrate a database, and `db upgrade` leaves no file behind when it fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result
from sqlalchemy.engine import make_url

from pokerroom.cli import jobs_cmds, main
from pokerroom.cli.database import ENV_VAR, EXIT_CODES
from pokerroom.jobs import JOBS
from pokerroom.ledger import db, migrate
from pokerroom.ledger.db import make_engine
from tests.postgres import PG_URL, pg_problem

CLI = [sys.executable, "-c", "from pokerroom.cli import main; main()"]


@pytest.fixture(autouse=True)
def _empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test runs in an empty working folder, without $POKERROOM_DB."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV_VAR, raising=False)
    return tmp_path


def _run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def _one_line(result: Result, code: int, *words: str) -> str:
    """The result failed with `code` and exactly one line on stderr (no traceback)."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*"))


def test_the_cli_copies_are_the_ledgers_and_every_code_has_its_exit() -> None:
    """The CLI's copies of the variable name and job names are the real ones; every error code
    has an exit code of its own range."""
    assert ENV_VAR == db.ENV_VAR
    codes = {
        db.BAD_URL,
        db.NO_DATABASE,
        db.CANNOT_CREATE,
        db.UNAVAILABLE,
        db.REFUSED,
        db.NOT_AT_HEAD,
        db.NOT_A_DATABASE,
        db.MIGRATION_FAILED,
    }
    assert set(EXIT_CODES) == codes
    assert all(code not in (0, 1, 2) for code in EXIT_CODES.values())
    assert tuple(JOBS) == jobs_cmds.JOB_NAMES  # the CLI's copy, kept so --help imports no jobs


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("ledger", "check", "--db", "sqlite:///missing/x.sqlite"), 66, ["no folder", "missing"]),
        (("staff", "list", "--db", "sqlite:///missing/x.sqlite"), 66, ["no database at"]),
        (("db", "upgrade", "--db", "sqlite:///missing/x.sqlite"), 73, ["cannot create"]),
        (("ledger", "check", "--db", "foo://bar"), 78, ["unknown database scheme 'foo'"]),
        (("db", "upgrade", "--db", "foo://bar"), 78, ["foo://bar"]),
        (("jobs", "list", "--db", "mysql://u@h/d"), 78, ["'mysql'"]),
        (("jobs", "list", "--db", "postgresql://u@h"), 78, ["names no database"]),
        (("ledger", "check", "--db", "postgresql+nodriver://u@h/d"), 78, ["cannot use"]),
        # port 1 of the loopback: refused at once, whether or not PostgreSQL runs here
        (("ledger", "check", "--db", "postgresql://u@127.0.0.1:1/d"), 69, ["cannot reach"]),
        (("db", "upgrade", "--db", "postgresql://u:secret@127.0.0.1:1/d"), 69, ["***"]),
    ],
)
def test_each_database_problem_is_one_line_with_its_exit_code(
    _empty_folder: Path, args: tuple[str, ...], code: int, words: list[str]
) -> None:
    """A missing folder, an unknown scheme or driver, a server that does not answer: one line
    on stderr, the exit code of docs/OPERATIONS.md, no file created, no password shown."""
    line = _one_line(_run(*args), code, *words)
    assert "secret" not in line
    assert _files(_empty_folder) == []


def _pg(user: str | None = None, database: str | None = None) -> str:
    """PG_URL with another user or database."""
    problem = pg_problem()
    if problem is not None:
        pytest.skip(f"PostgreSQL unreachable: {problem}")
    url = make_url(PG_URL).set(drivername="postgresql")
    if user is not None:
        url = url.set(username=user)
    if database is not None:
        url = url.set(database=database)
    return url.render_as_string(hide_password=False)


@pytest.mark.postgresql
def test_an_unknown_postgresql_role_or_database_is_one_line() -> None:
    """An unknown role is refused (77); an unknown database is `no database` (66), for reading
    commands and for `db upgrade` alike (pokerroom never runs CREATE DATABASE)."""
    role = _pg(user="nobody_pokerroom", database="nonexistent")
    _one_line(_run("ledger", "check", "--db", role), 77, 'role "nobody_pokerroom"')
    _one_line(_run("staff", "list", "--db", role), 77, "refused")
    missing = _pg(database="nonexistent_pokerroom")
    _one_line(_run("jobs", "list", "--db", missing), 66, '"nonexistent_pokerroom" does not')
    _one_line(_run("db", "upgrade", "--db", missing), 66, "no database at")


READING = [
    ("ledger", "check"),
    ("ledger", "balance", "wallet:alice:USD"),
    ("ledger", "statement", "wallet:alice:USD"),
    ("staff", "list"),
    ("staff", "add", "ann", "--role", "floor", "--password-file", "-"),
    ("staff", "disable", "ann", "--yes"),
    ("staff", "enable", "ann"),
    ("staff", "role", "ann", "admin"),
    ("staff", "password", "ann", "--password-file", "-"),
    ("jobs", "list"),
    ("jobs", "run", "refunds"),
    ("jobs", "run", "refunds", "--dry-run"),
    ("player", "moderator", "ann"),
]


@pytest.mark.parametrize("args", READING, ids=[" ".join(a[:2]) for a in READING])
@pytest.mark.parametrize("how", ["default", "plain path", "url"])
def test_commands_other_than_db_upgrade_create_nothing(
    _empty_folder: Path, args: tuple[str, ...], how: str
) -> None:
    """In an empty folder every reading (and staff) command says `no database at X: run
    pokerroom db upgrade` (exit 66) and creates no file, whichever way the database is named."""
    extra = {
        "default": [],
        "plain path": ["--db", "room.sqlite"],
        "url": ["--db", "sqlite:///r.db"],
    }
    result = _run(*args, *extra[how], input="a good password\n")
    line = _one_line(result, 66, "no database at", "run pokerroom db upgrade")
    if how == "default":
        assert line.endswith(f"{_empty_folder / 'pokerroom.sqlite'}: run pokerroom db upgrade")
    assert _files(_empty_folder) == []


def test_a_database_not_at_head_is_refused_and_left_as_it_was(_empty_folder: Path) -> None:
    """ARCH 9: a database one revision behind (or with no schema) is one line naming `pokerroom
    db upgrade --db …` (exit 65); the reading command migrates nothing."""
    engine = make_engine("sqlite:///old.sqlite")
    migrate.upgrade(engine)
    migrate.downgrade(engine, "-1")
    behind = migrate.current_revision(engine)
    line = _one_line(_run("staff", "list", "--db", "old.sqlite"), 65, f"at revision {behind}")
    assert line.endswith("run pokerroom db upgrade --db old.sqlite")
    assert migrate.current_revision(engine) == behind
    with engine.connect() as conn:  # an existing file with no schema at all
        conn.exec_driver_sql("SELECT 1")
    empty = make_engine("sqlite:///empty.sqlite")
    with empty.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        conn.commit()
    _one_line(_run("jobs", "list", "--db", "empty.sqlite"), 65, "has no schema")
    assert migrate.current_revision(empty) is None
    (_empty_folder / "junk.sqlite").write_bytes(b"not a database, just some bytes" * 10)
    _one_line(_run("ledger", "check", "--db", "junk.sqlite"), 65, "not a SQLite database")
    engine.dispose()
    empty.dispose()


def test_a_plain_path_is_a_sqlite_file_relative_to_the_folder_and_tilde_expanded(
    _empty_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--db pokerroom.sqlite` is the SQLite file of the working folder; `--db ~/x` is under
    $HOME; $POKERROOM_DB may be a plain path too."""
    assert _run("db", "upgrade", "--db", "pokerroom.sqlite").exit_code == 0
    assert _files(_empty_folder) == ["pokerroom.sqlite"]
    done = _run("ledger", "check")  # the default is that same file
    assert done.exit_code == 0 and f"ledger check: {_empty_folder}" in done.output
    home = _empty_folder / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    upgraded = _run("db", "upgrade", "--db", "~/room.sqlite")
    assert upgraded.exit_code == 0 and (home / "room.sqlite").exists(), upgraded.output
    monkeypatch.setenv(ENV_VAR, "~/room.sqlite")
    assert _run("staff", "list", "--json").output.startswith('{\n  "staff": []')


def test_db_upgrade_that_fails_leaves_no_file_it_created(
    _empty_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migrations that cannot be read (the wheel without them) or a migration failing halfway:
    one line, exit 70, and the SQLite file (and its -wal, -shm) is gone; a file that was there
    before is kept."""
    shipped = migrate.MIGRATIONS_DIR
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", _empty_folder / "no-migrations")
    _one_line(_run("db", "upgrade"), 70, "migrating", "no-migrations")
    assert _files(_empty_folder) == []
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", shipped)
    real = migrate.upgrade

    def halfway(engine: sa.Engine, revision: str = "head") -> None:
        from alembic.script import ScriptDirectory

        script = ScriptDirectory.from_config(migrate.alembic_config())
        first = script.get_base()
        assert first is not None
        real(engine, first)
        raise sa.exc.OperationalError("ALTER TABLE", {}, Exception("disk I/O error"))

    monkeypatch.setattr(migrate, "upgrade", halfway)
    _one_line(_run("db", "upgrade", "--db", "room.sqlite"), 70, "disk I/O error")
    assert _files(_empty_folder) == []
    make_engine("sqlite:///kept.sqlite").connect().close()
    _one_line(_run("db", "upgrade", "--db", "kept.sqlite"), 70)
    assert _files(_empty_folder) == ["kept.sqlite"]


def test_serve_creates_only_the_default_file() -> None:
    """The rule in one place: `serve` may create the default pokerroom.sqlite of the working
    folder (first run), not a database named elsewhere."""
    assert migrate.is_default_file(None)
    assert migrate.is_default_file("pokerroom.sqlite")
    assert migrate.is_default_file("sqlite:///pokerroom.sqlite")
    assert not migrate.is_default_file("other.sqlite")
    assert not migrate.is_default_file("postgresql://u@h/pokerroom")


def test_a_real_process_prints_one_line_and_no_traceback(_empty_folder: Path) -> None:
    """The installed entry point, as an operator runs it: `ledger check` in the wrong folder."""
    done = subprocess.run(
        [*CLI, "ledger", "check"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 66
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: no database at {_empty_folder / 'pokerroom.sqlite'}: run pokerroom db upgrade\n"
    )
    assert _files(_empty_folder) == []
