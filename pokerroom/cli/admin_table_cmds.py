"""`pokerroom admin table ...` and `pokerroom admin player ...` (docs/ADMIN.md)."""

from __future__ import annotations

from typing import Any

import click

from pokerroom.cli.admin_base import (
    admin,
    change,
    flag,
    show,
    staff_change,
    staff_of,
    staff_read,
    stakes_money,
)
from pokerroom.cli.output import money, show_table, span, when


# -- tables --------------------------------------------------------------------------------------
@admin.group("table")
def table() -> None:
    """Cash tables."""


@table.command("list")
@staff_read
def table_list(ctx: click.Context, as_json: bool) -> None:
    """Every cash table, its stakes, players and staff state."""
    result = staff_of(ctx).call("table_list")
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
    show(result, as_json, lambda _: show_table("tables", columns, rows))


@table.command("show")
@click.argument("table_id")
@staff_read
def table_show(ctx: click.Context, table_id: str, as_json: bool) -> None:
    """One table and its seats."""
    result = staff_of(ctx).call("table_show", table_id=table_id)

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

    show(result, as_json, render)


@table.command("pause")
@click.argument("table_id")
@staff_change("optional")
def table_pause(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Deal no new hand at TABLE_ID (the running one plays out)."""
    change(ctx, yes, f"pause table {table_id}", "table_pause", table_id=table_id, reason=reason)


@table.command("resume")
@click.argument("table_id")
@staff_change("optional")
def table_resume(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Deal again at TABLE_ID (also opens a closed table)."""
    change(ctx, yes, f"resume table {table_id}", "table_resume", table_id=table_id, reason=reason)


@table.command("close")
@click.argument("table_id")
@staff_change("optional")
def table_close(ctx: click.Context, table_id: str, reason: str | None, yes: bool) -> None:
    """Close TABLE_ID after the running hand; everyone is cashed out."""
    result = change(
        ctx, yes, f"close table {table_id}", "table_close", table_id=table_id, reason=reason
    )
    for out in result.get("cashed_out", []):
        click.echo(f"  {out['player']}: {money(out['amount'], out['currency'])} back to the wallet")


@table.command("kick")
@click.argument("table_id")
@click.argument("player")
@staff_change("required")
def table_kick(
    ctx: click.Context, table_id: str, player: str, reason: str | None, yes: bool
) -> None:
    """Stand PLAYER up at TABLE_ID after the running hand; the seat's money goes back."""
    result = change(
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
@staff_read
def player_show(ctx: click.Context, name: str, as_json: bool) -> None:
    """A player's wallets, tables, hit-and-run and rathole state, mutes and bans."""
    result = staff_of(ctx).call("player_show", player=name)

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

    show(result, as_json, render)


@player.command("ban")
@click.argument("name")
@staff_change("required")
def player_ban(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Ban NAME: logged out now, stood up after the running hands and cashed out."""
    result = change(ctx, yes, f"ban {name}", "player_ban", player=name, reason=reason)
    for out in result.get("cashed_out", []):
        back = money(out["amount"], out["currency"])
        click.echo(f"  {out['table_id']}: {back} back to the wallet")


@player.command("unban")
@click.argument("name")
@staff_change("required")
def player_unban(ctx: click.Context, name: str, reason: str | None, yes: bool) -> None:
    """Lift NAME's ban."""
    change(ctx, yes, f"unban {name}", "player_unban", player=name, reason=reason)


@player.group("block")
def block() -> None:
    """Hit-and-run blocks (C-8)."""


@block.command("lift")
@click.argument("name")
@click.option("--level", required=True, help="The blind level, e.g. USD:1/2 (see player show).")
@staff_change("required")
def block_lift(ctx: click.Context, name: str, level: str, reason: str | None, yes: bool) -> None:
    """End NAME's hit-and-run block at one blind level now."""
    change(
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
@staff_change("required")
def player_mute(
    ctx: click.Context, name: str, table_id: str | None, minutes: int | None, reason: str, yes: bool
) -> None:
    """Mute NAME in chat (C-13)."""
    where = f"at {table_id}" if table_id else "everywhere"
    change(
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
@staff_change("optional")
def player_unmute(
    ctx: click.Context, name: str, table_id: str | None, reason: str, yes: bool
) -> None:
    """Lift NAME's chat mutes (C-13)."""
    change(
        ctx, yes, f"unmute {name}", "player_unmute", player=name, table_id=table_id, reason=reason
    )


@player.command("moderator")
@click.argument("state", type=click.Choice(["on", "off"]))
@click.argument("name")
@staff_change("optional")
def player_moderator(
    ctx: click.Context, state: str, name: str, reason: str | None, yes: bool
) -> None:
    """Give (on) or take (off) NAME's chat moderator right; applies at their next login."""
    change(
        ctx,
        yes,
        f"moderator {state} for {name}",
        "player_moderator",
        player=name,
        on=state == "on",
        reason=reason,
    )
