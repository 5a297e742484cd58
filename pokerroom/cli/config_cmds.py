"""`pokerroom init` and `pokerroom check-config`: an operator's own configuration, and its check.

`init` writes an editable copy of the shipped `room.toml` and tournament schedule into a folder
(never over a file that exists); `check-config` reads a room config and its schedule and says
what they define, or one line per problem naming the file, the key and what it expects.
Only click is imported here; everything else is imported by the command that runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from pokerroom.cli.output import money, span

if TYPE_CHECKING:
    from pathlib import Path

    from pokerroom.server.settings import RoomSettings
    from tournaments.ops.schedule import Schedule, ScheduleEntry

#: The line of the shipped room.toml that names the shipped schedule, and what `init` writes.
SHIPPED_SCHEDULE_LINE = 'schedule = "tournaments/schedule/schedule.toml"'
WRITTEN_SCHEDULE_LINE = 'schedule = "schedule.toml"'
#: Exit status of `init` when a file is in the way (click's own for usage errors).
EXISTS = 2


@click.command("init")
@click.argument("folder", type=click.Path(file_okay=False), default=".")
def init(folder: str) -> None:
    """Write an editable room.toml and schedule.toml into FOLDER (default: here)."""
    from pathlib import Path

    from pokerroom import __version__
    from pokerroom.resources import default_config, default_schedule

    target = Path(folder)
    room, schedule = target / "room.toml", target / "schedule.toml"
    for path in (room, schedule):
        if path.exists() or path.is_symlink():
            click.echo(f"pokerroom init: {path} exists; nothing written", err=True)
            raise SystemExit(EXISTS)
    config_text = default_config().read_text()
    if SHIPPED_SCHEDULE_LINE not in config_text:  # the shipped file and this command disagree
        raise click.ClickException("the shipped room.toml names no schedule; nothing written")
    header = f"# Written by `pokerroom init` ({__version__}) from the shipped defaults.\n"
    texts = {
        room: header + config_text.replace(SHIPPED_SCHEDULE_LINE, WRITTEN_SCHEDULE_LINE, 1),
        schedule: header + default_schedule().read_text(),
    }
    try:
        target.mkdir(parents=True, exist_ok=True)
        for path, text in texts.items():
            with path.open("x") as handle:  # "x": never over a file made meanwhile
                handle.write(text)
    except FileExistsError as exc:
        click.echo(f"pokerroom init: {exc.filename} exists; not overwritten", err=True)
        raise SystemExit(EXISTS) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {exc.filename}: {exc.strerror}") from None
    for path in texts:
        click.echo(f"wrote {path}")
    where = target.resolve()
    config = where / "room.toml"
    db = f"sqlite:///{where / 'pokerroom.sqlite'}"
    click.echo("\nnext:")
    for line in (
        f"pokerroom check-config --config {config}",
        f"pokerroom db upgrade --db {db}",
        f"pokerroom staff add NAME --role admin --db {db}",
        f"pokerroom serve --config {config} --db {db}",
    ):
        click.echo(f"  {line}")


@click.command("check-config")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Room settings TOML (default: the shipped room.toml).",
)
@click.option(
    "--schedule",
    "schedule_path",
    type=click.Path(dir_okay=False),
    default=None,
    help='Tournament schedule TOML (default: [tournaments] schedule of the config; "" for none).',
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object; money in integer cents.")
def check_config(config_path: str | None, schedule_path: str | None, as_json: bool) -> None:
    """Check a room config and its schedule: what they define, or one line per problem."""
    from pokerroom.server.settings import SettingsError, load_settings
    from pokerroom.typed_config import ConfigProblems
    from tournaments.ops.schedule import load_schedule_file

    problems: list[str] = []
    settings = None
    try:
        settings = load_settings(config_path)
    except SettingsError as exc:
        problems.extend(exc.problems)
    schedule_file = _schedule_file(config_path, schedule_path, settings)
    schedule = None
    if schedule_file is not None:
        try:
            schedule = load_schedule_file(schedule_file)
        except ConfigProblems as exc:
            problems.extend(exc.problems)
    if problems:
        if as_json:
            click.echo(_json({"ok": False, "problems": problems}))
        else:
            for line in problems:
                click.echo(line)
        raise SystemExit(1)
    assert settings is not None
    report = _report(config_path, settings, schedule_file, schedule)
    click.echo(_json(report) if as_json else "\n".join(_lines(report)))


def _schedule_file(
    config_path: str | None, schedule_path: str | None, settings: RoomSettings | None
) -> Path | None:
    """The schedule `serve` would run with these options; None for no tournaments. When the
    config itself is wrong, its `[tournaments] schedule` is still followed if it is a string."""
    import tomllib
    from pathlib import Path

    from pokerroom.resources import default_config, default_schedule

    if schedule_path is not None:
        return Path(schedule_path) if schedule_path else None
    if settings is not None:
        named = settings.schedule
    else:
        config = Path(config_path) if config_path else default_config()
        try:
            found = tomllib.loads(config.read_text()).get("tournaments", {}).get("schedule")
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(found, str):
            return None
        named = str(config.parent / found) if found else ""
    if named == "":
        return None
    return default_schedule() if named is None else Path(named)


def _entry(entry: ScheduleEntry) -> dict[str, Any]:
    """One schedule entry as the report shows it (money in cents)."""
    from tournaments.actor.bounty_book import FORMAT_OF

    return {
        "name": entry.name,
        "kind": "sit_and_go" if entry.sit_and_go else "mtt",
        "structure": entry.structure,
        "buy_in": entry.buy_in,
        "fee": entry.fee,
        "players": entry.players or None,
        "every_minutes": None if entry.sit_and_go else entry.every_minutes,
        "at_minute": None if entry.sit_and_go else entry.at_minute,
        "format": entry.fmt,
        "guarantee": entry.guarantee,
        "bounty": None
        if entry.bounty is None
        else {"format": FORMAT_OF.get(entry.bounty.kind), "share_bps": entry.bounty.share_bps},
        "deals": entry.deals is not None and entry.deals.allowed,
    }


def _report(
    config_path: str | None,
    settings: RoomSettings,
    schedule_file: Path | None,
    schedule: Schedule | None,
) -> dict[str, Any]:
    """What a config and its schedule define, as plain data (money in cents)."""
    from pokerroom.resources import default_config

    entries = schedule.entries if schedule is not None else ()
    return {
        "ok": True,
        "config": str(config_path or default_config()),
        "schedule": None if schedule_file is None else str(schedule_file),
        "currency": settings.currency,
        "players_endpoint": f"{settings.host}:{settings.port}",
        "admin_endpoint": settings.admin.endpoint or None,
        "allow_deposit": settings.allow_deposit,
        "tables": [
            {
                "table_id": t.table_id,
                "variant": t.variant,
                "max_seats": t.max_seats,
                "small_blind": t.small_blind,
                "big_blind": t.big_blind,
                "min_buy_in": t.min_buy_in,
                "max_buy_in": t.max_buy_in,
                "currency": t.currency,
            }
            for t in settings.tables
        ],
        "tournaments": [_entry(entry) for entry in entries],
    }


def _lines(report: dict[str, Any]) -> list[str]:
    """The report for people: one short line per thing, under 80 columns where it can be."""
    currency = report["currency"]
    deposits = "ON: clients can fund wallets" if report["allow_deposit"] else "off"
    lines = [
        f"config: {report['config']}",
        f"schedule: {report['schedule'] or 'none (no tournaments)'}",
        f"players: {report['players_endpoint']} (plain TCP)",
        f"staff: {report['admin_endpoint'] or 'none (no [admin] endpoint)'}",
        f"currency: {currency}; deposits: {deposits}",
        f"cash tables: {len(report['tables'])}",
    ]
    for t in report["tables"]:
        blinds = span(t["small_blind"], t["big_blind"], t["currency"])
        buy_in = span(t["min_buy_in"], t["max_buy_in"], t["currency"], "-")
        lines.append(
            f"  {t['table_id']}: {t['variant']} {t['max_seats']} seats, blinds {blinds}, "
            f"buy-in {buy_in}"
        )
    lines.append(f"tournaments: {len(report['tournaments'])}")
    for e in report["tournaments"]:
        when = (
            f"sit-and-go of {e['players']}"
            if e["kind"] == "sit_and_go"
            else f"MTT every {e['every_minutes']:g} min from minute {e['at_minute']:g}"
        )
        parts = [
            when,
            e["structure"],
            e["format"],
            f"buy-in {span(e['buy_in'], e['fee'], currency, '+')}",
        ]
        if e["guarantee"]:
            parts.append(f"guarantee {money(e['guarantee'], currency)} (the house pays overlay)")
        if e["bounty"]:
            parts.append(f"bounty {e['bounty']['format']} {e['bounty']['share_bps'] / 100:g}%")
        if e["deals"]:
            parts.append("deals")
        lines.append(f"  {e['name']}: " + ", ".join(parts))
    return lines


def _json(data: Any) -> str:
    """One JSON object on one line."""
    import json

    return json.dumps(data, separators=(",", ":"))
