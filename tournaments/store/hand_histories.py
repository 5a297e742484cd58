"""Tournament hand histories in the database (migration 0014): each completed hand's record.

The record is the one the cash tables keep (`phh.history_fields` with every hole card, plus
the underscore fields `pokerroom.engine.pokerstars` reads, docs/HISTORIES.md); who was dealt
in goes beside it, so that a player reads only the hands they played (C-15). The write is one
op of the hand's recorder unit: the same transaction as the table's seats and everything the
hand caused (T-18, docs/ARCHITECTURE.md rule 14). Reading is `pokerroom.cash.histories`', which
serves cash and tournament hands alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.store.schema import tournament_hand_histories, tournament_hand_players

_KEPT = sa.select(tournament_hand_histories.c.hand_id).where(
    tournament_hand_histories.c.hand_id == sa.bindparam("hand_key")
)
_INSERT_HISTORY = sa.insert(tournament_hand_histories)
_INSERT_PLAYERS = sa.insert(tournament_hand_players)


@dataclass(frozen=True, slots=True)
class HandHistoryRow:
    """One completed tournament hand as stored: ids, when it ended, who played, the record."""

    hand_id: str
    tournament_id: str
    table_id: str  # the table as clients see it, `<tournament>.<number>`
    ended_at_ms: int
    players: Sequence[str]
    history: Mapping[str, Any]


def record_hand_history(conn: Connection, row: HandHistoryRow) -> None:
    """Store one hand's record and its players; a retried write finds it stored and adds
    nothing (hand ids are never used twice, resumes included)."""
    if conn.execute(_KEPT, {"hand_key": row.hand_id}).first() is not None:
        return
    where = {"tournament_id": row.tournament_id, "table_id": row.table_id}
    conn.execute(
        _INSERT_HISTORY,
        {
            "hand_id": row.hand_id,
            "ended_at_ms": row.ended_at_ms,
            "history": dict(row.history),
            **where,
        },
    )
    conn.execute(
        _INSERT_PLAYERS,
        [
            {"player_id": p, "hand_id": row.hand_id, "ended_at_ms": row.ended_at_ms, **where}
            for p in dict.fromkeys(row.players)
        ],
    )
