"""Hand histories: each settled hand kept as PHH fields; a player reads their own (C-15).

The stored history holds every hole card (for staff and audits); what a player receives has
the other players' hole cards masked as `??` unless those cards were shown down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.store import cash_hand_histories, cash_hand_players
from pokerroom.engine import Hand
from pokerroom.engine.phh import dumps, history_fields
from pokerroom.ledger.db import read

MAX_LIMIT = 100


def hand_history(
    hand: Hand,
    number: int,
    hand_id: str,
    config: CashTableConfig,
    seats: Sequence[int],
    players: Sequence[str],
) -> dict[str, Any]:
    """The PHH fields of a finished hand at a cash table (seats are 1-based in PHH)."""
    return history_fields(
        hand,
        number,
        players=list(players),
        seats=[s + 1 for s in seats],
        seat_count=config.max_seats,
        currency=config.currency,
        _table_id=config.table_id,
        _hand_id=hand_id,
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


def player_histories(
    engine: Engine, player_id: str, table_id: str | None = None, limit: int = 20
) -> list[str]:
    """The player's latest settled hands, newest first, as PHH text."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    query = (
        sa.select(cash_hand_histories.c.history)
        .join(cash_hand_players, cash_hand_players.c.hand_id == cash_hand_histories.c.hand_id)
        .where(cash_hand_players.c.player_id == player_id)
        .order_by(cash_hand_players.c.ended_at_ms.desc(), cash_hand_players.c.hand_id.desc())
        .limit(limit)
    )
    if table_id is not None:
        query = query.where(cash_hand_players.c.table_id == table_id)

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


def player_history_page(
    engine: Engine,
    player_id: str,
    table_id: str | None = None,
    limit: int = 20,
    before: str | None = None,
) -> list[tuple[str, str]]:
    """Up to `limit` + 1 of the player's settled hands older than the cursor `before`, newest
    first, as (cursor, PHH text) with others' hidden cards masked (C-15). One row more than
    asked tells the caller whether older hands remain."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    hp = cash_hand_players
    query = (
        sa.select(hp.c.ended_at_ms, hp.c.hand_id, cash_hand_histories.c.history)
        .join(cash_hand_histories, hp.c.hand_id == cash_hand_histories.c.hand_id)
        .where(hp.c.player_id == player_id)
        .order_by(hp.c.ended_at_ms.desc(), hp.c.hand_id.desc())
        .limit(limit + 1)
    )
    if table_id is not None:
        query = query.where(hp.c.table_id == table_id)
    if before is not None:
        ended, hand_id = parse_history_cursor(before)
        query = query.where(
            sa.or_(
                hp.c.ended_at_ms < ended,
                sa.and_(hp.c.ended_at_ms == ended, hp.c.hand_id < hand_id),
            )
        )

    def work(conn: Connection) -> list[tuple[str, str]]:
        return [
            (
                history_cursor(row.ended_at_ms, row.hand_id),
                dumps(masked_for(row.history, player_id)),
            )
            for row in conn.execute(query)
        ]

    return read(engine, work)
