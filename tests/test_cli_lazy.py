"""The lazy `pokerroom` group: every command reachable, nothing heavy imported for `--help`."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import pokerroom.cli
from pokerroom.cli import SUBCOMMANDS, load_command, main

HEAVY = ("sqlalchemy", "twisted", "alembic", "rich", "structlog", "treys", "psycopg", "msgspec")


def _reachable(command: click.Command) -> set[int]:
    found = {id(command)}
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            found |= _reachable(sub)
    return found


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_each_entry_names_its_command_and_its_help(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    summary = SUBCOMMANDS[name][1].rstrip(".")
    assert (command.help or "").startswith(summary), (name, command.help)


def test_every_command_of_the_cli_modules_is_reachable_from_the_group() -> None:
    reachable: set[int] = set()
    for name in SUBCOMMANDS:
        reachable |= _reachable(load_command(name))
    for info in pkgutil.iter_modules(pokerroom.cli.__path__, "pokerroom.cli."):
        module = import_module(info.name)
        for attribute, value in vars(module).items():
            if isinstance(value, click.Command) and value is not main:
                assert id(value) in reachable, f"{info.name}.{attribute} is not reachable"


def test_no_module_keeps_a_list_of_its_commands() -> None:
    """The SUBCOMMANDS table is the one list: no `COMMANDS` left to drift from it."""
    for info in pkgutil.iter_modules(pokerroom.cli.__path__, "pokerroom.cli."):
        assert not hasattr(import_module(info.name), "COMMANDS"), info.name


def _modules_after(code: str) -> list[str]:
    """The heavy packages a fresh interpreter has imported after running `code`."""
    probe = (
        f"{code}\nimport sys, json\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_the_ledger_package_imports_its_names_on_first_use() -> None:
    """Importing one ledger module (the schema a staff command needs) pays for neither Alembic
    nor Twisted; every public name of `pokerroom.ledger` still resolves, to the object of its
    module."""
    assert _modules_after("import pokerroom.ledger.schema") == ["sqlalchemy"]
    import pokerroom.ledger as ledger
    from pokerroom.ledger import LedgerService, migrate, service

    assert LedgerService is service.LedgerService and migrate.upgrade is ledger.upgrade
    for name in ledger.__all__:
        assert getattr(ledger, name) is not None, name
    with pytest.raises(AttributeError):
        ledger.no_such_name  # noqa: B018


def test_staff_list_imports_no_alembic_twisted_or_rich(tmp_path: Path) -> None:
    """`staff list` on a database at head: SQLAlchemy and click, nothing else heavy (the at-head
    check reads the migration files' revision lines, not Alembic; a piped table is not rich)."""
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    assert CliRunner().invoke(main, ["db", "upgrade", "--db", url]).exit_code == 0
    code = (
        "from pokerroom.cli import main\n"
        f"try:\n    main(['staff', 'list', '--db', {url!r}])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
    )
    assert _modules_after(code) == ["sqlalchemy"]


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_each_commands_help_imports_nothing_heavy(name: str) -> None:
    """`pokerroom NAME --help` (a staff script's first try) imports none of the heavy packages:
    a command module imports click at its top, the rest inside the command that runs."""
    code = (
        "from pokerroom.cli import main\n"
        f"try:\n    main([{name!r}, '--help'])\nexcept SystemExit:\n    pass"
    )
    assert _modules_after(code) == []


def test_choices_written_out_are_the_real_ones() -> None:
    """`tournament simulate --format/--policy` list what the tournament code accepts."""
    from pokerroom.cli import tournament_cmds
    from pokerroom.table.bot_policy import POLICIES
    from tournaments.config import FORMATS

    assert tournament_cmds.FORMATS == FORMATS
    assert tuple(sorted(POLICIES)) == tournament_cmds.POLICIES


def test_the_head_read_from_the_files_is_alembics() -> None:
    """The quick at-head check and Alembic agree on the newest revision."""
    from pokerroom.ledger import migrate

    assert migrate._files_head() == migrate.head_revision()


def test_help_lists_every_command_without_importing_any() -> None:
    code = (
        "import sys\n"
        "from pokerroom.cli import main\n"
        "try:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "cli = sorted(m for m in sys.modules if m.startswith('pokerroom.cli.'))\n"
        "import json; print(json.dumps([heavy, cli]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    help_text, _, last = out.rstrip("\n").rpartition("\n")
    heavy, cli = json.loads(last)
    assert heavy == [] and cli == []
    for name, (_, summary) in SUBCOMMANDS.items():
        assert name in help_text and summary.split()[0] in help_text


def test_an_unknown_command_is_one_usage_error() -> None:
    result = CliRunner().invoke(main, ["sevre"])
    assert result.exit_code == 2
    assert "No such command 'sevre'" in result.output
