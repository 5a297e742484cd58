"""`pokerroom admin tournament ...`, `pokerroom admin jobs ...` and `pokerroom admin table open`.

The commands of docs/ADMIN.md ("Tournaments", "Jobs") on the admin endpoint, as the other
`pokerroom admin` commands: reads take `--json`; changes ask for confirmation unless `--yes`;
money and disciplinary ones require `--reason`. Attached to the `admin` group when
`pokerroom.cli.admin_cmds` is loaded.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import click

from pokerroom.cli.admin_base import (
    admin,
    change,
    key_option,
    moment_ms,
    show,
    staff_change,
    staff_of,
    staff_read,
)
from pokerroom.cli.output import money, show_table, span, when

_AHEAD = re.compile(r"\+(\d+)([smhd])")


def start_ms(text: str) -> int:
    """`--start`: ahead of now (`+90s`, `+10m`, `+2h`), an ISO date-time (UTC if no zone), or
    epoch ms."""
    return moment_ms(text, _AHEAD, 1, "+10m, +2h, an ISO date-time or epoch ms")


def _amounts(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise click.BadParameter("cents, first place first, separated by commas") from None
    if not values:
        raise click.BadParameter("at least one amount")
    return values


# -- tournaments ---------------------------------------------------------------------------------
@admin.group("tournament")
def tournament() -> None:
    """Tournaments: show, create, delay, pause, cancel, players, prizes, outages."""


@tournament.command("list")
@staff_read
def tournament_list(ctx: click.Context, as_json: bool) -> None:
    """Every tournament: in play, then the stored ones."""
    result = staff_of(ctx).call("tournament_list")
    rows = [
        (
            t["tournament_id"],
            t["name"],
            t["status"] + (" (paused)" if t["paused"] else ""),
            when(t["starts_at_ms"]),
            t["entries"],
            t["players_left"],
            money(t["prize_pool"], t["currency"]),
            t["level"],
        )
        for t in result["tournaments"]
    ]
    columns = ["id", "name", "status", "starts (UTC)", "entries", "left", "pool", "level"]
    show(result, as_json, lambda _: show_table("tournaments", columns, rows))


@tournament.command("show")
@click.argument("tournament_id")
@staff_read
def tournament_show(ctx: click.Context, tournament_id: str, as_json: bool) -> None:
    """One tournament: clock, money, tables with stacks."""
    result = staff_of(ctx).call("tournament_show", tournament_id=tournament_id)

    def render(r: dict[str, Any]) -> None:
        paused = " (paused)" if r.get("paused") else ""
        cur = r["currency"]
        click.echo(f"{r['tournament_id']} {r['name']}: {r['status']}{paused}")
        pool = money(r["prize_pool"], cur)
        click.echo(f"  starts {when(r['starts_at_ms'])} UTC, entries {r['entries']}, "
                   f"left {r['players_left']}, prize pool {pool}")  # fmt: skip
        if "buy_in" in r:
            click.echo(f"  buy-in {span(r['buy_in'], r['fee'], cur, '+')}")
        level = r.get("level")
        if level:
            left = level.get("ms_left")
            clock = "last level" if left is None else f"{left / 1000:.0f} s left"
            blinds = (
                f" {level['small_blind']}/{level['big_blind']}" if "small_blind" in level else ""
            )
            click.echo(f"  level {level['number']}{blinds}, {clock}")
        if r.get("payouts"):
            click.echo(f"  payouts: {', '.join(money(a, cur) for a in r['payouts'])}")
        if r.get("decision"):
            click.echo(f"  decision: {r['decision']}")
        for t in r.get("tables", []):
            seats = [(s["seat"], s["player"], s["stack"]) for s in t["seats"]]
            show_table(f"table {t['table_id']}", ["seat", "player", "chips"], seats)
        if r.get("paid"):
            rows = [(p["place"], p["player"], money(p["prize"], cur)) for p in r["paid"]]
            show_table("paid", ["place", "player", "prize"], rows)

    show(result, as_json, render)


@tournament.command("create")
@click.option("--template", required=True, help="A blind-structure template (turbo, regular ...).")
@click.option("--start", "start", required=True, help="+10m, +2h, an ISO date-time, or epoch ms.")
@click.option("--buy-in", type=click.IntRange(0), required=True, help="Cents to the prize pool.")
@click.option("--fee", type=click.IntRange(0), required=True, help="Cents to the house.")
@click.option("--name", default=None, help="The lobby name (default: the template's).")
@click.option("--format", "fmt", type=click.Choice(["freezeout", "reentry", "rebuy"]),
              default="freezeout", show_default=True)  # fmt: skip
@click.option("--max-seats", type=click.IntRange(2, 10), default=9, show_default=True)
@click.option("--late-levels", type=click.IntRange(0, 100), default=0, show_default=True)
@click.option("--max-entries", type=click.IntRange(2), default=None)
@click.option("--guarantee", type=click.IntRange(0), default=0, show_default=True)
@click.option("--between-hands", type=click.FloatRange(0, 60), default=3.0, show_default=True)
@click.option("--resume-within", type=click.FloatRange(0, 1440), default=None,
              help="Minutes (T-18; default 10).")  # fmt: skip
@click.option("--reconnect", type=click.FloatRange(0, 3600), default=None,
              help="Seconds (T-18; default 30).")  # fmt: skip
@click.option("--satellite-target", default=None,
              help="A satellite: its prizes are seats in this open tournament (T-16).")  # fmt: skip
@click.option("--ticket-days", type=click.IntRange(1, 3650), default=30, show_default=True,
              help="A satellite's tickets expire after this many days.")  # fmt: skip
@staff_change("optional")
def tournament_create(
    ctx: click.Context,
    template: str,
    start: str,
    buy_in: int,
    fee: int,
    name: str | None,
    fmt: str,
    max_seats: int,
    late_levels: int,
    max_entries: int | None,
    guarantee: int,
    between_hands: float,
    resume_within: float | None,
    reconnect: float | None,
    satellite_target: str | None,
    ticket_days: int,
    reason: str | None,
    yes: bool,
) -> None:
    """Create a tournament from TEMPLATE starting at --start (T-1); with --satellite-target,
    a satellite whose prizes are seats in that tournament (T-16)."""
    at = start_ms(start)
    result = change(
        ctx,
        yes,
        f"create a {template} tournament starting {when(at)} UTC",
        "tournament_create",
        template=template, starts_at_ms=at, buy_in=buy_in, fee=fee, name=name, format=fmt,
        max_seats=max_seats, late_registration_levels=late_levels, max_entries=max_entries,
        guarantee=guarantee, between_hands_seconds=between_hands,
        resume_within_minutes=resume_within, reconnect_seconds=reconnect,
        satellite_target=satellite_target, ticket_valid_days=ticket_days, reason=reason,
    )  # fmt: skip
    click.echo(f"  {result['tournament_id']}")


@tournament.command("delay")
@click.argument("tournament_id")
@click.option("--minutes", type=click.FloatRange(0, 1440, min_open=True), required=True)
@staff_change("optional")
def tournament_delay(
    ctx: click.Context, tournament_id: str, minutes: float, reason: str | None, yes: bool
) -> None:
    """Start TOURNAMENT_ID --minutes later (T-1, before the start)."""
    result = change(
        ctx, yes, f"delay {tournament_id} by {minutes:g} min", "tournament_delay",
        tournament_id=tournament_id, minutes=minutes, reason=reason,
    )  # fmt: skip
    click.echo(f"  now starts {when(result['starts_at_ms'])} UTC")


@tournament.command("pause")
@click.argument("tournament_id")
@staff_change("optional")
def tournament_pause(ctx: click.Context, tournament_id: str, reason: str | None, yes: bool) -> None:
    """No new hand anywhere; the level clock stands still."""
    change(ctx, yes, f"pause {tournament_id}", "tournament_pause",
            tournament_id=tournament_id, reason=reason)  # fmt: skip


@tournament.command("resume")
@click.argument("tournament_id")
@staff_change("optional")
def tournament_resume(
    ctx: click.Context, tournament_id: str, reason: str | None, yes: bool
) -> None:
    """Deal again; the level clock runs on."""
    change(ctx, yes, f"resume {tournament_id}", "tournament_resume",
            tournament_id=tournament_id, reason=reason)  # fmt: skip


@tournament.command("cancel")
@click.argument("tournament_id")
@staff_change("required")
def tournament_cancel(ctx: click.Context, tournament_id: str, reason: str, yes: bool) -> None:
    """Cancel TOURNAMENT_ID; the refund job pays T-18."""
    change(ctx, yes, f"cancel {tournament_id}", "tournament_cancel",
            tournament_id=tournament_id, reason=reason)  # fmt: skip


@tournament.command("add-time")
@click.argument("tournament_id")
@click.option("--seconds", type=click.IntRange(1, 86_400), required=True)
@staff_change("optional")
def tournament_add_time(
    ctx: click.Context, tournament_id: str, seconds: int, reason: str | None, yes: bool
) -> None:
    """The current level lasts --seconds longer."""
    result = change(
        ctx, yes, f"add {seconds} s to {tournament_id}'s level", "tournament_add_time",
        tournament_id=tournament_id, seconds=seconds, reason=reason,
    )  # fmt: skip
    left = result.get("level_ms_left")
    click.echo(f"  level {result.get('level')}: {'-' if left is None else left // 1000} s left")


@tournament.command("move")
@click.argument("tournament_id")
@click.argument("player")
@click.option("--table", "table_number", type=click.IntRange(1), required=True,
              help="The table number (tournament show).")  # fmt: skip
@staff_change("optional")
def tournament_move(
    ctx: click.Context,
    tournament_id: str,
    player: str,
    table_number: int,
    reason: str | None,
    yes: bool,
) -> None:
    """Move PLAYER to another table between hands (T-10)."""
    result = change(
        ctx, yes, f"move {player} to table {table_number}", "tournament_move",
        tournament_id=tournament_id, player=player, table=table_number, reason=reason,
    )  # fmt: skip
    click.echo(f"  {player} now at {result.get('table')}")


@tournament.command("disqualify")
@click.argument("tournament_id")
@click.argument("player")
@staff_change("required")
def tournament_disqualify(
    ctx: click.Context, tournament_id: str, player: str, reason: str, yes: bool
) -> None:
    """Disqualify PLAYER: out with their chips at the end of their hand."""
    result = change(
        ctx, yes, f"disqualify {player} from {tournament_id}", "tournament_disqualify",
        tournament_id=tournament_id, player=player, reason=reason,
    )  # fmt: skip
    click.echo(f"  place {result.get('place')}, {result.get('chips_removed')} chips removed")


@tournament.command("chips")
@click.argument("tournament_id")
@click.argument("player")
@click.option("--set", "chips", type=click.IntRange(1), required=True, help="The new stack.")
@staff_change("required")
def tournament_chips(
    ctx: click.Context, tournament_id: str, player: str, chips: int, reason: str, yes: bool
) -> None:
    """Set PLAYER's stack to --set chips between hands."""
    result = change(
        ctx, yes, f"set {player}'s stack to {chips}", "tournament_chips",
        tournament_id=tournament_id, player=player, chips=chips, reason=reason,
    )  # fmt: skip
    click.echo(f"  {player}: {result.get('before')} -> {result.get('after')}")


@tournament.command("sitouts")
@click.argument("tournament_id")
@click.option("--min-times", type=click.IntRange(1, 1000), default=3, show_default=True)
@click.option("--min-overlap", type=click.FloatRange(0, 86_400), default=30.0, show_default=True,
              help="Seconds each time.")  # fmt: skip
@staff_read
def tournament_sitouts(
    ctx: click.Context, tournament_id: str, min_times: int, min_overlap: float, as_json: bool
) -> None:
    """T-12: players who sit out together repeatedly."""
    result = staff_of(ctx).call(
        "tournament_sitouts",
        tournament_id=tournament_id,
        min_times=min_times,
        min_overlap_seconds=min_overlap,
    )
    rows = [(" + ".join(p["players"]), p["times"]) for p in result["pairs"]]
    show(
        result,
        as_json,
        lambda _: show_table("sitting out together (T-12)", ["players", "times"], rows),
    )


@tournament.command("prizes")
@click.argument("tournament_id")
@click.option("--amounts", default=None, help="Cents per place, first first: 5000,3000,2000.")
@click.option("--seats-in-cash", is_flag=True, help="Pay a satellite's seats in cash (T-15).")
@click.option("--rounding", type=click.IntRange(0), default=None, help="The new house rounding.")
@key_option
@staff_change("required")
def tournament_prizes(
    ctx: click.Context,
    tournament_id: str,
    amounts: str | None,
    seats_in_cash: bool,
    rounding: int | None,
    key: str | None,
    reason: str,
    yes: bool,
) -> None:
    """T-15: change TOURNAMENT_ID's prizes (the house adds the difference)."""
    if amounts is None:
        current = staff_of(ctx).call("tournament_show", tournament_id=tournament_id)
        if not current.get("payouts"):
            raise click.UsageError("--amounts: the prize table is not fixed yet")
        values = list(current["payouts"])
    else:
        values = _amounts(amounts)
    shown = ", ".join(str(v) for v in values)
    result = change(
        ctx, yes, f"change {tournament_id}'s prizes to {shown} (cents)", "tournament_prizes",
        tournament_id=tournament_id, amounts=values, reason=reason, key=key or uuid.uuid4().hex,
        rounding=rounding, seats_in_cash=seats_in_cash or None,
    )  # fmt: skip
    cur = result["currency"]
    payouts = ", ".join(money(a, cur) for a in result["payouts"])
    click.echo(f"  payouts {payouts}; added {money(result['added'], cur)}")


@tournament.command("outage")
@click.argument("tournament_id")
@click.option("--resume", "choice", flag_value="resume", help="Play on after all (T-18).")
@click.option("--refund", "choice", flag_value="refund", help="Cancel for outage (T-18).")
@staff_change("required")
def tournament_outage(
    ctx: click.Context, tournament_id: str, choice: str | None, reason: str, yes: bool
) -> None:
    """Override the start-up's choice after a crash: --resume or --refund."""
    if choice is None:
        raise click.UsageError("give --resume or --refund")
    result = change(
        ctx, yes, f"{choice} {tournament_id} after the outage", "tournament_outage",
        tournament_id=tournament_id, choice=choice, reason=reason,
    )  # fmt: skip
    click.echo(f"  {tournament_id}: {result.get('status')}")
