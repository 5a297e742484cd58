"""Hand histories: each settled hand kept as PHH fields; a player reads their own (C-15).

The stored history holds every hole card (for staff and audits); what a player receives has
the other players' hole cards masked as `??` unless those cards were shown down. The reads
serve cash hands (`cash_hand_histories`, written here) and tournament hands
(`tournament_hand_histories`, written by each tournament with its hand, migration 0014) as one
list: both tables have the same columns, and so have their players' tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.schema import cash_hand_histories, cash_hand_players
from pokerroom.engine import Hand
from pokerroom.engine.errors import EngineError
from pokerroom.engine.phh import dumps, history_fields
from pokerroom.engine.pokerstars import format_hand
from pokerroom.ledger.db import read
from pokerroom.table.positions import HandPlan
from tournaments.store.schema import tournament_hand_histories, tournament_hand_players

MAX_LIMIT = 100
#: The formats a history is read in: PHH (TOML) and PokerStars-style text for trackers.
PHH, POKERSTARS = "phh", "pokerstars"
FORMATS = (PHH, POKERSTARS)


def hand_history(
    hand: Hand,
    number: int,
    hand_id: str,
    config: CashTableConfig,
    seats: Sequence[int],
    players: Sequence[str],
    *,
    plan: HandPlan | None = None,
    started_at_ms: int | None = None,
) -> dict[str, Any]:
    """The PHH fields of a finished hand at a cash table (seats are 1-based in PHH), with what
    a PokerStars-style history needs beside them (`pokerroom.engine.pokerstars`): the button,
    the stakes, the C-2/C-4 posts, the C-11 rake terms and the start time."""
    cfg = hand.config
    extra: dict[str, Any] = {
        "_small_blind": config.small_blind,
        "_big_blind": config.big_blind,
        "_rake_bps": cfg.rake_bps,
        "_rake_cap": cfg.rake_cap,
        "_rake_without_flop": cfg.rake_without_flop,
    }
    if plan is not None:
        extra["_button"] = plan.button + 1
    if cfg.live_posts:
        extra["_live_posts"] = list(cfg.live_posts)
    if cfg.dead_posts:
        extra["_dead_posts"] = list(cfg.dead_posts)
    if started_at_ms is not None:
        extra["_started_at_ms"] = started_at_ms
    return history_fields(
        hand,
        number,
        players=list(players),
        seats=[s + 1 for s in seats],
        seat_count=config.max_seats,
        currency=config.currency,
        _table_id=config.table_id,
        _hand_id=hand_id,
        **extra,
    )


def masked_for(fields: Mapping[str, Any], player_id: str) -> dict[str, Any]:
    """The history as `player_id` may see it: only their own and shown hole cards (C-15)."""
    players = list(fields.get("players", []))
    me = players.index(player_id) + 1 if player_id in players else 0
    actions = list(fields.get("actions", []))
    shown = set()
    for action in actions:
        parts = action.split()
        if len(parts) == 3 and parts[1] == "sm" and parts[0].startswith("p"):
            shown.add(parts[0])
    out = []
    for action in actions:
        parts = action.split()
        if len(parts) == 4 and parts[:2] == ["d", "dh"]:
            who = parts[2]
            if who != f"p{me}" and who not in shown:
                action = f"d dh {who} {'?' * len(parts[3])}"
        out.append(action)
    return {**fields, "actions": out}


#: Where settled hands are kept, (histories, players) with the same columns: cash tables'
#: and tournament tables'.
KEPT = (
    (cash_hand_histories, cash_hand_players),
    (tournament_hand_histories, tournament_hand_players),
)


def _played(
    player_id: str, table_id: str | None, before: tuple[int, str] | None = None
) -> sa.Subquery:
    """(ended_at_ms, hand_id, history) of every hand `player_id` was dealt into, both kinds."""
    parts = []
    for h, hp in KEPT:
        query = (
            sa.select(hp.c.ended_at_ms, hp.c.hand_id, h.c.history)
            .join(h, hp.c.hand_id == h.c.hand_id)
            .where(hp.c.player_id == player_id)
        )
        if table_id is not None:
            query = query.where(hp.c.table_id == table_id)
        if before is not None:
            ended, hand_id = before
            query = query.where(
                sa.or_(
                    hp.c.ended_at_ms < ended,
                    sa.and_(hp.c.ended_at_ms == ended, hp.c.hand_id < hand_id),
                )
            )
        parts.append(query)
    return sa.union_all(*parts).subquery("played")


def player_histories(
    engine: Engine, player_id: str, table_id: str | None = None, limit: int = 20
) -> list[str]:
    """The player's latest settled hands (cash and tournament), newest first, as PHH text."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    played = _played(player_id, table_id)
    query = (
        sa.select(played.c.history)
        .order_by(played.c.ended_at_ms.desc(), played.c.hand_id.desc())
        .limit(limit)
    )

    def work(conn: Connection) -> list[str]:
        return [dumps(masked_for(row.history, player_id)) for row in conn.execute(query)]

    return read(engine, work)


def history_cursor(ended_at_ms: int, hand_id: str) -> str:
    """The paging cursor of one hand: `<ended_at_ms>:<hand_id>` (hands are ordered by both)."""
    return f"{ended_at_ms}:{hand_id}"


def parse_history_cursor(cursor: str) -> tuple[int, str]:
    """The (ended_at_ms, hand_id) of a cursor made by `history_cursor`; ValueError if not one."""
    ended, _, hand_id = cursor.partition(":")
    if not ended.isdigit() or not hand_id:
        raise ValueError(f"not a history cursor: {cursor[:40]!r}")
    return int(ended), hand_id


def player_text(fields: Mapping[str, Any], player_id: str, fmt: str, ended_at_ms: int) -> str:
    """One stored hand as `player_id` may read it (C-15), in PHH or PokerStars text."""
    if fmt == POKERSTARS:
        return format_hand(fields, viewer=player_id, started_at_ms=ended_at_ms)
    return dumps(masked_for(fields, player_id))


def player_history_page(
    engine: Engine,
    player_id: str,
    table_id: str | None = None,
    limit: int = 20,
    before: str | None = None,
    fmt: str = PHH,
) -> list[tuple[str, str]]:
    """Up to `limit` + 1 of the player's settled hands (cash and tournament) older than the
    cursor `before`, newest first, as (cursor, text) with others' hidden cards left out
    (C-15): PHH text, or PokerStars text for `fmt` "pokerstars" (a hand whose record cannot
    be written so is left out, its cursor kept). One row more than asked tells the caller
    whether older hands remain."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    cursor = parse_history_cursor(before) if before is not None else None
    played = _played(player_id, table_id, cursor)
    query = (
        sa.select(played.c.ended_at_ms, played.c.hand_id, played.c.history)
        .order_by(played.c.ended_at_ms.desc(), played.c.hand_id.desc())
        .limit(limit + 1)
    )

    def work(conn: Connection) -> list[tuple[str, str]]:
        return [
            (
                history_cursor(row.ended_at_ms, row.hand_id),
                _text_or_empty(row.history, player_id, fmt, row.ended_at_ms),
            )
            for row in conn.execute(query)
        ]

    return read(engine, work)


def _text_or_empty(fields: Mapping[str, Any], player_id: str, fmt: str, ended_at_ms: int) -> str:
    """The hand's text, or "" when its record cannot be written in `fmt` (the caller drops it)."""
    try:
        return player_text(fields, player_id, fmt, ended_at_ms)
    except EngineError:
        return ""


@dataclass(frozen=True, slots=True)
class StoredHand:
    """One settled hand's record as the export reads it."""

    hand_id: str
    table_id: str
    ended_at_ms: int
    fields: Mapping[str, Any]


def stored_hands(
    conn: Connection,
    *,
    player_id: str | None = None,
    table_id: str | None = None,
    since_ms: int | None = None,
    tournament_id: str | None = None,
) -> list[StoredHand]:
    """Settled hands of cash and tournament tables, oldest first: every hand, or those
    `player_id` played; at one table; ended at or after `since_ms`; of one tournament."""
    parts = []
    for h, hp in KEPT:
        query = sa.select(h.c.hand_id, h.c.table_id, h.c.ended_at_ms, h.c.history)
        if tournament_id is not None:
            if "tournament_id" not in h.c:
                continue  # a cash table's hands belong to no tournament
            query = query.where(h.c.tournament_id == tournament_id)
        if player_id is not None:
            query = query.join(hp, hp.c.hand_id == h.c.hand_id).where(hp.c.player_id == player_id)
        if table_id is not None:
            query = query.where(h.c.table_id == table_id)
        if since_ms is not None:
            query = query.where(h.c.ended_at_ms >= since_ms)
        parts.append(query)
    hands = sa.union_all(*parts).subquery("hands")
    ordered = sa.select(hands).order_by(hands.c.ended_at_ms, hands.c.hand_id)
    return [
        StoredHand(row.hand_id, row.table_id, row.ended_at_ms, row.history)
        for row in conn.execute(ordered)
    ]


def export_text(hand: StoredHand, fmt: str, player_id: str | None) -> str:
    """A hand for the staff export: a player's view with `player_id` (their cards and the
    shown ones, C-15), else every hole card dealt (an audit)."""
    if player_id is not None:
        return player_text(hand.fields, player_id, fmt, hand.ended_at_ms)
    if fmt == POKERSTARS:
        return format_hand(hand.fields, every_card=True, started_at_ms=hand.ended_at_ms)
    return dumps(dict(hand.fields))
