"""The `pokerroom` console script: one click group, one module per family of subcommands.

The group is lazy: a subcommand's module (and what it imports: Twisted, SQLAlchemy, Alembic,
rich) is imported only when that subcommand runs, so `pokerroom --help` and `--version` cost
little more than click itself (bench/cli_startup.py). `SUBCOMMANDS` names where each command
lives and the one line `--help` shows for it (tests/test_cli_lazy.py keeps both true).
"""

from __future__ import annotations

from importlib import import_module

import click

from pokerroom import __version__

#: name -> ("module:attribute", the one line `pokerroom --help` shows).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "admin": (
        "pokerroom.cli.admin_cmds:admin",
        "Staff commands on the running room (docs/ADMIN.md).",
    ),
    "bots": ("pokerroom.cli.server_cmds:bots", "Bot clients over the real protocol."),
    "casino": (
        "pokerroom.cli.casino_cmds:casino",
        "Casino tables: simulate rounds through the pure core.",
    ),
    "check-config": (
        "pokerroom.cli.config_cmds:check_config",
        "Check a room config and its schedule: what they define, or one line per problem.",
    ),
    "cluster": (
        "pokerroom.cli.cluster_cmds:cluster",
        "Cluster nodes and leases: status, drain or forget a node (docs/OPERATIONS.md).",
    ),
    "db": ("pokerroom.cli.ledger_cmds:db", "Database schema commands."),
    "demo": (
        "pokerroom.cli.server_cmds:demo",
        "A server on a temporary database with bots at a few tables.",
    ),
    "hands": (
        "pokerroom.cli.hands_cmds:hands",
        "Export cash and tournament hand histories for trackers or audits (docs/HISTORIES.md).",
    ),
    "init": (
        "pokerroom.cli.config_cmds:init",
        "Write an editable room.toml and schedule.toml into FOLDER (default: here).",
    ),
    "jobs": (
        "pokerroom.cli.jobs_cmds:jobs",
        "Scheduled jobs: run one now, or list the recent runs.",
    ),
    "ledger": ("pokerroom.cli.ledger_cmds:ledger", "Staff reports on the money ledger."),
    "player": ("pokerroom.cli.server_cmds:player", "Player accounts (staff)."),
    "replay": ("pokerroom.cli.engine_cmds:replay_command", "Replay every hand of PHH/PHHS files."),
    "serve": ("pokerroom.cli.server_cmds:serve", "Run the poker room server."),
    "simulate": (
        "pokerroom.cli.engine_cmds:simulate_command",
        "Play independent hands with a seeded policy.",
    ),
    "staff": ("pokerroom.cli.staff_cmds:staff", "Staff accounts, on the database directly."),
    "tournament": ("pokerroom.cli.tournament_cmds:tournament", "Tournament commands."),
}


def load_command(name: str) -> click.Command:
    """Import the module of subcommand `name` and return its click command."""
    module, _, attribute = SUBCOMMANDS[name][0].partition(":")
    command = getattr(import_module(module), attribute)
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    """A click group whose subcommands are imported only when one of them runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every subcommand's name, sorted."""
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The subcommand, imported now; None for an unknown name (click says so)."""
        return load_command(cmd_name) if cmd_name in SUBCOMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `--help`, from the table: no subcommand is imported."""
        rows = [(name, SUBCOMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pokerroom")
def main() -> None:
    """Run and operate the poker room."""
