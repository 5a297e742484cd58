"""`pokerroom admin ...` (staff commands over the admin endpoint) and `pokerroom staff ...`
(staff accounts, offline). docs/ADMIN.md describes both.

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
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from pokerroom.cli.database import db_option, opened
from pokerroom.cli.output import money, show_table, span, when

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


def _staff(ctx: click.Context) -> Staff:
    found = ctx.find_object(Staff)
    assert found is not None  # set by the `admin` group
    return found


def _show(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        click.echo(json.dumps(result, indent=2, sort_keys=True))
    else:
        render(result)


def flag(value: Any) -> str:
    """A flag in a table cell: `yes`, or nothing."""
    return "yes" if value else ""


def stakes_money(stakes: str, minor: int) -> str:
    """An amount at a blind level named `CUR:small/big` (C-8, C-10 records), as money."""
    return money(minor, stakes.partition(":")[0])


def _change(ctx: click.Context, yes: bool, what: str, kind: str, **fields: Any) -> dict[str, Any]:
    """Confirm (unless --yes), send the change, print its audit id."""
    if not yes:
        click.confirm(f"{what}?", abort=True)
    result = _staff(ctx).call(kind, **fields)
    click.echo(f"done: {what} (audit {result.get('audit_id')})")
    return result


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
yes_option = click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
reason_required = click.option("--reason", required=True, help="Why (kept in the audit log).")
reason_optional = click.option("--reason", default=None, help="Why (kept in the audit log).")


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


# -- tables --------------------------------------------------------------------------------------
@admin.group("table")
def table() -> None:
    """Cash tables."""


@table.command("list")
@json_option
@click.pass_context
def table_list(ctx: click.Context, as_json: bool) -> None:
    """Every cash table, its stakes, players and staff state."""
    result = _staff(ctx).call("table_list")
    rows = [
        (
            t["table_id"],
            t["variant"],
            span(t["small_blind"], t["big_blind"], t["currency"]),
            t["players"],
            t["observers"],
            t["state"],
            t["hand_id"],
        )
        for t in result["tables"]
    ]
    columns = ["table", "game", "blinds", "players", "observers", "state", "hand"]
    _show(result, as_json, lambda _: show_table("tables", columns, rows))


@table.command("show")
@click.argument("table_id")
@json_option
@click.pass_context
def table_show(ctx: click.Context, table_id: str, as_json: bool) -> None:
    """One table and its seats."""
    result = _staff(ctx).call("table_show", table_id=table_id)

    def render(r: dict[str, Any]) -> None:
        hand = r["hand_id"] or "-"
        blinds = span(r["small_blind"], r["big_blind"], r["currency"])
        click.echo(f"{r['table_id']}: {r['variant']} {blinds}, {r['state']}, hand {hand}")
        rows = [
            (
                s["seat"],
                s["player"],
                money(s["stack"], r["currency"]),
                flag(s["sitting_out"]),
                flag(s["in_hand"]),
                flag(s["leaving"]),
                flag(s["disconnected"]),
            )
            for s in r["seats"]
        ]
        columns = ["seat", "player", "stack", "out", "in hand", "leaving", "dropped"]
        show_table("seats", columns, rows)

    _show(result, as_json, render)


@table.command("pause")
@click.argument("table_id")
@reason_optional
@yes_option
@click.pass_context
def table_pause(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Deal no new hand at TABLE_ID (the running one plays out)."""
    _change(ctx, yes, f"pause table {table_id}", "table_pause", table_id=table_id, reason=reason)


@table.command("resume")
@click.argument("table_id")
@reason_optional
@yes_option
@click.pass_context
def table_resume(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Deal again at TABLE_ID (also opens a closed table)."""
    _change(ctx, yes, f"resume table {table_id}", "table_resume", table_id=table_id, reason=reason)


@table.command("close")
@click.argument("table_id")
@reason_optional
@yes_option
@click.pass_context
def table_close(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Close TABLE_ID after the running hand; everyone is cashed out."""
    result = _change(
        ctx, yes, f"close table {table_id}", "table_close", table_id=table_id, reason=reason
    )
    for out in result.get("cashed_out", []):
        click.echo(f"  {out['player']}: {money(out['amount'], out['currency'])} back to the wallet")


@table.command("kick")
@click.argument("table_id")
@click.argument("player")
@reason_required
@yes_option
@click.pass_context
def table_kick(
    ctx: click.Context, table_id: str, player: str, reason: str | None, yes: bool
) -> None:
    """Stand PLAYER up at TABLE_ID after the running hand; the seat's money goes back."""
    result = _change(
        ctx,
        yes,
        f"kick {player} from {table_id}",
        "table_kick",
        table_id=table_id,
        player=player,
        reason=reason,
    )
    back = money(result.get("amount", 0), result["currency"])
    click.echo(f"  {player}: {back} back to the wallet")


# -- players -------------------------------------------------------------------------------------
@admin.group("player")
def player() -> None:
    """Players: show, ban, blocks, mutes, moderators."""


@player.command("show")
@click.argument("name")
@json_option
@click.pass_context
def player_show(ctx: click.Context, name: str, as_json: bool) -> None:
    """A player's wallets, tables, hit-and-run and rathole state, mutes and bans."""
    result = _staff(ctx).call("player_show", player=name)

    def render(r: dict[str, Any]) -> None:
        flags = [k for k in ("connected", "moderator", "banned") if r.get(k)]
        last = r["last_login_at"] or "-"
        click.echo(f"{r['player']}: {', '.join(flags) or 'no flags'}; last login {last}")
        wallets = [(money(cents, cur),) for cur, cents in sorted(r["wallets"].items())]
        show_table("wallets", ["balance"], wallets)
        show_table(
            "tables",
            ["table", "seat", "stack", "out"],
            [
                (t["table_id"], t["seat"], money(t["stack"], t["currency"]), flag(t["sitting_out"]))
                for t in r["tables"]
            ],
        )
        declines = [(s, n) for s, n in sorted(r["declines"].items())]
        show_table("hit and run (C-8): declines in 12 h", ["level", "declines"], declines)
        show_table(
            "blocks (C-8)",
            ["level", "until", "decline"],
            [(b["stakes"], when(b["until_ms"]), b["decline_number"]) for b in r["blocks"]],
        )
        show_table(
            "rathole (C-10)",
            ["level", "left with", "left at"],
            [
                (h["stakes"], stakes_money(h["stakes"], h["amount"]), when(h["left_at_ms"]))
                for h in r["rathole"]
            ],
        )
        show_table(
            "mutes (C-13)",
            ["table", "until", "by", "reason"],
            [
                (
                    m["table_id"] or "everywhere",
                    when(m["until_ms"]) or "for good",
                    m["by"],
                    m["reason"],
                )
                for m in r["mutes"]
            ],
        )
        show_table(
            "bans",
            ["since", "by", "reason", "lifted"],
            [(when(b["since_ms"]), b["by"], b["reason"], when(b["lifted_ms"])) for b in r["bans"]],
        )

    _show(result, as_json, render)


@player.command("ban")
@click.argument("name")
@reason_required
@yes_option
@click.pass_context
def player_ban(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Ban NAME: logged out now, stood up after the running hands and cashed out."""
    result = _change(ctx, yes, f"ban {name}", "player_ban", player=name, reason=reason)
    for out in result.get("cashed_out", []):
        back = money(out["amount"], out["currency"])
        click.echo(f"  {out['table_id']}: {back} back to the wallet")


@player.command("unban")
@click.argument("name")
@reason_required
@yes_option
@click.pass_context
def player_unban(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Lift NAME's ban."""
    _change(ctx, yes, f"unban {name}", "player_unban", player=name, reason=reason)


@player.group("block")
def block() -> None:
    """Hit-and-run blocks (C-8)."""


@block.command("lift")
@click.argument("name")
@click.option("--level", required=True, help="The blind level, e.g. USD:1/2 (see player show).")
@reason_required
@yes_option
@click.pass_context
def block_lift(ctx: click.Context, name: str, level: str, reason: str | None, yes: bool) -> None:
    """End NAME's hit-and-run block at one blind level now."""
    _change(
        ctx,
        yes,
        f"lift {name}'s block at {level}",
        "player_block_lift",
        player=name,
        level=level,
        reason=reason,
    )


@player.command("mute")
@click.argument("name")
@click.option("--table", "table_id", default=None, help="Only at this table (default: everywhere).")
@click.option(
    "--minutes", type=click.IntRange(1, 525_600), default=None, help="How long (default: for good)."
)
@reason_required
@yes_option
@click.pass_context
def player_mute(
    ctx: click.Context, name: str, table_id: str | None, minutes: int | None, reason: str, yes: bool
) -> None:
    """Mute NAME in chat (C-13)."""
    where = f"at {table_id}" if table_id else "everywhere"
    _change(
        ctx,
        yes,
        f"mute {name} {where}",
        "player_mute",
        player=name,
        table_id=table_id,
        minutes=minutes,
        reason=reason,
    )


@player.command("unmute")
@click.argument("name")
@click.option(
    "--table", "table_id", default=None, help="The table mute to lift (default: the global one)."
)
@reason_optional
@yes_option
@click.pass_context
def player_unmute(
    ctx: click.Context, name: str, table_id: str | None, reason: str, yes: bool
) -> None:
    """Lift NAME's chat mutes (C-13)."""
    _change(
        ctx, yes, f"unmute {name}", "player_unmute", player=name, table_id=table_id, reason=reason
    )


@player.command("moderator")
@click.argument("state", type=click.Choice(["on", "off"]))
@click.argument("name")
@reason_optional
@yes_option
@click.pass_context
def player_moderator(
    ctx: click.Context, state: str, name: str, reason: str | None, yes: bool
) -> None:
    """Give (on) or take (off) NAME's chat moderator right; applies at their next login."""
    _change(
        ctx,
        yes,
        f"moderator {state} for {name}",
        "player_moderator",
        player=name,
        on=state == "on",
        reason=reason,
    )


# -- money ---------------------------------------------------------------------------------------
@admin.group("wallet")
def wallet() -> None:
    """Wallets (admin)."""


@wallet.command("correct")
@click.argument("name")
@click.option(
    "--amount", type=int, required=True, help="Cents: +N credits the wallet, -N debits it."
)
@click.option("--currency", default=None, help="Default: the room's.")
@click.option(
    "--key", default=None, help="Idempotency key (default: a new one); repeat it to retry safely."
)
@reason_required
@yes_option
@click.pass_context
def wallet_correct(
    ctx: click.Context,
    name: str,
    amount: int,
    currency: str | None,
    key: str | None,
    reason: str,
    yes: bool,
) -> None:
    """Correct NAME's wallet by a ledger transfer of kind `correction`."""
    key = key or uuid.uuid4().hex
    by = (
        f"{amount:+d} cents"
        if currency is None
        else ("+" if amount > 0 else "") + money(amount, currency)
    )
    result = _change(
        ctx,
        yes,
        f"correct {name}'s wallet by {by}",
        "wallet_correct",
        player=name,
        amount=amount,
        currency=currency,
        reason=reason,
        key=key,
    )
    if result.get("status") == "pending":
        click.echo(f"  waiting for a second admin: approval {result['approval_id']}")
    else:
        balance = money(result["balance"], result["currency"])
        click.echo(f"  balance now {balance} (transfer {result.get('transfer_id')})")


@admin.group("approvals")
def approvals() -> None:
    """Changes that need a second admin."""


@approvals.command("list")
@click.option(
    "--status",
    type=click.Choice(["pending", "expired", "done", "all"]),
    default="pending",
    show_default=True,
)
@json_option
@click.pass_context
def approvals_list(ctx: click.Context, status: str, as_json: bool) -> None:
    """Approvals, newest first."""
    result = _staff(ctx).call("approval_list", status=status)
    rows = [
        (
            a["id"],
            a["action"],
            a["target"],
            money(a["amount"], a["currency"]),
            a["requested_by"],
            a["status"],
            a["decided_by"],
            a["reason"],
        )
        for a in result["approvals"]
    ]
    columns = ["id", "action", "player", "amount", "asked by", "status", "approved by", "reason"]
    _show(result, as_json, lambda _: show_table(f"approvals ({status})", columns, rows))


@approvals.command("approve")
@click.argument("approval_id", type=click.IntRange(1))
@yes_option
@click.pass_context
def approvals_approve(ctx: click.Context, approval_id: int, yes: bool) -> None:
    """Approve (and carry out) a change another admin asked for."""
    result = _change(
        ctx, yes, f"approve {approval_id}", "approval_approve", approval_id=approval_id
    )
    balance = money(result["balance"], result["currency"])
    click.echo(f"  {result.get('player')}: balance now {balance}")


# -- audit ---------------------------------------------------------------------------------------
_SPAN = re.compile(r"(\d+)([smhd])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def since_ms(text: str) -> int:
    """`--since`: a span back from now (`30m`, `2h`, `7d`), an ISO date-time, or epoch ms."""
    if text.isdigit():
        return int(text)
    span = _SPAN.fullmatch(text.strip())
    if span:
        return int((time.time() - int(span[1]) * _SECONDS[span[2]]) * 1000)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: use 30m, 2h, 7d, an ISO date-time or epoch ms"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


@admin.command("audit")
@click.option("--since", default=None, help="30m, 2h, 7d, an ISO date-time, or epoch ms.")
@click.option("--staff", "by_staff", default=None, help="Only this staff member's actions.")
@click.option("--target", default=None, help="Only actions on this player or table.")
@click.option("--action", default=None, help="Only this action (e.g. player_ban).")
@click.option("--limit", type=click.IntRange(1, 500), default=100, show_default=True)
@json_option
@click.pass_context
def audit(
    ctx: click.Context,
    since: str | None,
    by_staff: str | None,
    target: str | None,
    action: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """The audit log, newest first."""
    fields = {
        "since_ms": since_ms(since) if since else None,
        "by_staff": by_staff,
        "target": target,
        "action": action,
        "limit": limit,
    }
    result = _staff(ctx).call("audit", **fields)
    _show(result, as_json, lambda r: _print_audit(r["rows"]))


def _print_audit(rows: list[dict[str, Any]]) -> None:
    """The audit log for people, newest first: a line per row and, indented under it, what
    changed (long values would make a table unreadable in a pipe or at 80 columns)."""
    if not rows:
        click.echo("audit: none")
        return
    for r in rows:
        reason = f": {r['reason']}" if r["reason"] else ""
        click.echo(
            f"{r['id']}  {when(r['at_ms'])}  {r['staff']} ({r['role']})  {r['action']} "
            f"{r['target']}{reason}"
        )
        change = audit_change(r["before"], r["after"])
        if change:
            click.echo(f"    {change}")


#: Keys of an audit row's before/after that hold money (in the row's `currency`).
MONEY_KEYS = frozenset({"amount", "balance", "buy_in", "fee", "guarantee", "prize", "added"})


def _audit_value(key: str, value: Any, currency: str | None) -> str:
    if currency and key in MONEY_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return money(value, currency)
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def audit_change(before: Any, after: Any) -> str:
    """What an audit row changed, short: each key whose value differs, `key old -> new`
    (money as money where the row names its currency); not a mapping: `old -> new` as JSON."""
    if not isinstance(before, Mapping) and not isinstance(after, Mapping):
        if before is None and after is None:
            return ""
        return f"{_audit_value('', before, None)} -> {_audit_value('', after, None)}"
    old = dict(before) if isinstance(before, Mapping) else {}
    new = dict(after) if isinstance(after, Mapping) else {}
    currency = new.get("currency") or old.get("currency")
    parts = []
    for key in [*old, *(k for k in new if k not in old)]:
        if key == "currency" and currency and old.get(key, currency) == new.get(key, currency):
            continue
        if key in old and key in new and old[key] == new[key]:
            continue
        shown = [_audit_value(key, side[key], currency) for side in (old, new) if key in side]
        parts.append(f"{key} {' -> '.join(shown)}")
    return ", ".join(parts)


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
    _show({"staff": members}, as_json, lambda _: show_table("staff", columns, rows))


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


# The tournament, jobs and `table open` commands attach themselves to the groups above.
from pokerroom.cli import admin_tournament_cmds  # noqa: E402, F401
