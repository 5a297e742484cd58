"""The lazy `pokerroom` group: every command reachable, nothing heavy imported for `--help`."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from importlib import import_module

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
