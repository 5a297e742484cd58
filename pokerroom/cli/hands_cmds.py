"""Hand history subcommands: `pokerroom hands export` (docs/HISTORIES.md).

A staff tool on the database directly (reading only: it never creates one). Without `--player`
the export is an audit and shows every hole card that was dealt; with `--player NAME` it is what
that player may see (C-15): their own cards and the hands shown down, the file a player's
tracker imports.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from pokerroom.cli.database import db_option, opened

if TYPE_CHECKING:
    from pokerroom.cash.histories import StoredHand

FORMATS = ("pokerstars", "phh")


def since_ms(text: str | None) -> int | None:
    """An ISO date or date-time (UTC unless it names its offset) as ms since the epoch."""
    if text is None:
        return None
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not an ISO date (2026-12-01 or 2026-12-01T18:30)", param_hint="--since"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _written(hands: list[StoredHand], fmt: str, player: str | None) -> tuple[str, list[str]]:
    """The export's text, and the ids of hands whose record cannot be written in `fmt`."""
    from pokerroom.cash.histories import PHH, export_text
    from pokerroom.engine.errors import EngineError
    from pokerroom.engine.pokerstars import SEPARATOR

    texts, failed = [], []
    for hand in hands:
        try:
            text = export_text(hand, fmt, player)
        except EngineError:
            failed.append(hand.hand_id)
            continue
        texts.append(f"[{hand.hand_id}]\n{text}" if fmt == PHH else text)
    return ("\n" if fmt == PHH else SEPARATOR).join(texts), failed


@click.group(name="hands")
def hands() -> None:
    """Export cash and tournament hand histories for trackers or audits (docs/HISTORIES.md)."""


@hands.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="pokerstars",
    show_default=True,
    help="PokerStars-style text (what trackers import) or PHH (a .phhs file).",
)
@click.option(
    "--player",
    metavar="NAME",
    default=None,
    help="Only this player's hands, as they may see them (C-15: their own hole cards and "
    "the ones shown down). Without it: every hand, every hole card dealt (an audit).",
)
@click.option(
    "--table",
    "table_id",
    metavar="ID",
    default=None,
    help="Only this table's hands (a tournament table as clients see it: TOURNAMENT.N).",
)
@click.option(
    "--tournament",
    "tournament_id",
    metavar="ID",
    default=None,
    help="Only this tournament's hands.",
)
@click.option(
    "--since",
    metavar="ISO-DATE",
    default=None,
    help="Only hands that ended at or after this date or time (UTC unless it says).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write to FILE (default: standard output).",
)
@db_option
def export(
    fmt: str,
    player: str | None,
    table_id: str | None,
    tournament_id: str | None,
    since: str | None,
    out: str | None,
    db_url: str | None,
) -> None:
    """Export settled hands of cash and tournament tables, oldest first, as PokerStars text
    (tournament hands in chips) or PHH.

    Exit 1 when a hand could not be written in the format (each named on stderr; the others are
    written).
    """
    from functools import partial

    from pokerroom.cash.histories import stored_hands
    from pokerroom.ledger.db import read

    start = since_ms(since)
    with opened(db_url) as engine:
        rows = read(
            engine,
            partial(
                stored_hands,
                player_id=player,
                table_id=table_id,
                since_ms=start,
                tournament_id=tournament_id,
            ),
        )
    text, failed = _written(rows, fmt, player)
    if out is None:
        sys.stdout.write(text)
    else:
        with open(out, "w", encoding="utf-8") as file:
            file.write(text)
    written = len(rows) - len(failed)
    click.echo(f"{written} hand(s) exported" + (f" to {out}" if out else ""), err=True)
    for hand_id in failed:
        click.echo(f"{hand_id}: its record cannot be written as {fmt}", err=True)
    if failed:
        raise SystemExit(1)
