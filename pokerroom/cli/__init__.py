"""The `pokerroom` console script: one click group, one module per family of subcommands."""

from __future__ import annotations

import click

from pokerroom import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pokerroom")
def main() -> None:
    """Run and operate the poker room."""


def _register() -> None:
    """Attach every subcommand family to the main group."""
    from pokerroom.cli import engine_cmds

    for command in engine_cmds.COMMANDS:
        main.add_command(command)
    from pokerroom.cli import jobs_cmds

    for command in jobs_cmds.COMMANDS:
        main.add_command(command)
    from pokerroom.cli import ledger_cmds

    for command in ledger_cmds.COMMANDS:
        main.add_command(command)
    from pokerroom.cli import server_cmds

    for command in server_cmds.COMMANDS:
        main.add_command(command)
    from pokerroom.cli import tournament_cmds

    for command in tournament_cmds.COMMANDS:
        main.add_command(command)
    from pokerroom.cli import admin_cmds

    for command in admin_cmds.COMMANDS:
        main.add_command(command)


_register()
