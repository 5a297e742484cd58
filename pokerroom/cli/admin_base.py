"""What every `pokerroom admin ...` command shares: the `admin` group, where and as whom it
connects, and the one helper for what each command repeats (`--json` for a read; `--reason`,
`--yes` and the confirmation for a change).

The server, the staff name and the password come from flags, the environment
(POKERROOM_ADMIN_SERVER, POKERROOM_ADMIN_USER, POKERROOM_ADMIN_PASSWORD) or a TOML file
(`--config`, POKERROOM_ADMIN_CONFIG, else ~/.config/pokerroom/admin.toml if it exists: keys
server, user, password, cafile), in that order; a password is never a flag, and is asked for
(hidden) when none is set. Every read takes `--json`; every change asks for confirmation
unless `--yes`; money and disciplinary actions need `--reason`.
"""

from __future__ import annotations

import json
import os
import re
import time
import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from pokerroom.cli.output import money

DEFAULT_CONFIG = Path("~/.config/pokerroom/admin.toml").expanduser()
CONFIG_KEYS = {"server", "user", "password", "cafile"}


class Staff:
    """Where and as whom `pokerroom admin` connects (resolved lazily: --help needs none)."""

    def __init__(self, server: str | None, user: str | None, config_path: str | None) -> None:
        self.server, self.user, self.config_path = server, user, config_path

    def _config(self) -> dict[str, Any]:
        path = Path(self.config_path) if self.config_path else DEFAULT_CONFIG
        if not self.config_path and not path.exists():
            return {}
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise click.ClickException(f"cannot read {path}: {exc}") from None
        unknown = set(data) - CONFIG_KEYS
        if unknown:
            raise click.ClickException(f"{path}: unknown keys {sorted(unknown)}")
        return data

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Connect, log in, send one request; its result, or a ClickException with the code."""
        from pokerroom.admin.client import DEFAULT_SERVER, AdminClient, AdminError

        config = self._config()
        server = self.server or config.get("server") or DEFAULT_SERVER
        user = self.user or config.get("user")
        if not user:
            raise click.UsageError("no staff name: --user, POKERROOM_ADMIN_USER or the config")
        password = os.environ.get("POKERROOM_ADMIN_PASSWORD") or config.get("password")
        if not password:
            password = click.prompt(f"Password for {user}", hide_input=True, err=True)
        try:
            with AdminClient(server, cafile=config.get("cafile")) as client:
                client.login(user, password)
                return client.request(kind, **fields)
        except AdminError as exc:
            raise click.ClickException(f"{exc.code}: {exc.message}") from None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None


def staff_of(ctx: click.Context) -> Staff:
    """The connection settings the `admin` group resolved."""
    found = ctx.find_object(Staff)
    assert found is not None  # set by the `admin` group
    return found


def show(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """Print a read's result: as JSON with `--json`, else for people by `render`."""
    if as_json:
        click.echo(json.dumps(result, indent=2, sort_keys=True))
    else:
        render(result)


def change(ctx: click.Context, yes: bool, what: str, kind: str, **fields: Any) -> dict[str, Any]:
    """Confirm (unless --yes), send the change, print its audit id."""
    if not yes:
        click.confirm(f"{what}?", abort=True)
    result = staff_of(ctx).call(kind, **fields)
    click.echo(f"done: {what} (audit {result.get('audit_id')})")
    return result


def flag(value: Any) -> str:
    """A flag in a table cell: `yes`, or nothing."""
    return "yes" if value else ""


def stakes_money(stakes: str, minor: int) -> str:
    """An amount at a blind level named `CUR:small/big` (C-8, C-10 records), as money."""
    return money(minor, stakes.partition(":")[0])


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
yes_option = click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
#: P-2: the key of a staff money change; a new one unless given, the same one retries safely.
key_option = click.option(
    "--key", default=None, help="Idempotency key (default: a new one); repeat it to retry safely."
)
REASONS = {
    "required": click.option("--reason", required=True, help="Why (kept in the audit log)."),
    "optional": click.option("--reason", default=None, help="Why (kept in the audit log)."),
}


def staff_read(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What every read repeats: `--json`, and the click context (for `staff_of`)."""
    return json_option(click.pass_context(fn))


def staff_change(reason: str | None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """What every change repeats: `--reason` (`required`, `optional` or None: none), `--yes`,
    and the click context (`change` asks for the confirmation)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        wrapped = yes_option(click.pass_context(fn))
        return wrapped if reason is None else REASONS[reason](wrapped)

    return wrap


def moment_ms(text: str, span: re.Pattern[str], sign: int, hint: str) -> int:
    """A moment given as epoch ms, an ISO date-time (UTC if no zone), or a span from now that
    `span` matches (a number and a unit s, m, h or d), ahead (`sign` 1) or back (-1)."""
    if text.isdigit():
        return int(text)
    found = span.fullmatch(text.strip())
    if found:
        return int((time.time() + sign * int(found[1]) * _SECONDS[found[2]]) * 1000)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"{text!r}: use {hint}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@click.group("admin")
@click.option(
    "--server",
    envvar="POKERROOM_ADMIN_SERVER",
    help="tcp:HOST:PORT, unix:PATH or ssl:HOST:PORT (default tcp:127.0.0.1:9998).",
)
@click.option("--user", envvar="POKERROOM_ADMIN_USER", help="Your staff name.")
@click.option(
    "--config",
    "config_path",
    envvar="POKERROOM_ADMIN_CONFIG",
    type=click.Path(dir_okay=False),
    help="TOML file with server, user, password, cafile.",
)
@click.pass_context
def admin(
    ctx: click.Context, server: str | None, user: str | None, config_path: str | None
) -> None:
    """Staff commands on the running room (docs/ADMIN.md)."""
    ctx.obj = Staff(server, user, config_path)
