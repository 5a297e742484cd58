"""Tournament hand histories in the database (migration 0014): each completed hand's record.

The record is the one the cash tables keep (`phh.history_fields` with every hole card, plus
the underscore fields `pokerroom.engine.pokerstars` reads, docs/HISTORIES.md); who was dealt
in goes beside it, so that a player reads only the hands they played (C-15). The write is one
op of the hand's recorder unit: the same transaction as the table's seats and everything the
hand caused (T-18, docs/ARCHITECTURE.md rule 14). The tables are `schema`'s
`tournament_hand_histories` and `tournament_hand_players`. Reading is
`pokerroom.cash.histories`', which serves cash and tournament hands alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection


#: The two statements of `record_hand_history`, in each driver's parameter style, prepared
#: once: a hand is stored every few milliseconds at a large tournament, and building SQLAlchemy
#: statements per hand costs more than the writing (docs/PERFORMANCE.md). The record's `ON
#: CONFLICT DO NOTHING` (SQLite and PostgreSQL alike): a retried write adds nothing, and its
#: players are written only with a new record.
def _sql(p: Callable[[str], str]) -> tuple[str, str]:
    """The statements with `p(name)` as each parameter's placeholder."""
    where = f"{p('tid')}, {p('table')}, {p('ended')}"
    return (
        "INSERT INTO tournament_hand_histories (hand_id, tournament_id, table_id, ended_at_ms, "
        f"history) VALUES ({p('hand')}, {where}, {p('history')}) ON CONFLICT (hand_id) DO NOTHING",
        "INSERT INTO tournament_hand_players (player_id, hand_id, tournament_id, table_id, "
        f"ended_at_ms) VALUES ({p('who')}, {p('hand')}, {where})",
    )


_SQL = {"named": _sql(lambda name: f":{name}"), "pyformat": _sql(lambda name: f"%({name})s")}


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
    """Store one hand's record and its players; a retried write finds them stored and adds
    nothing (hand ids are never used twice, resumes included)."""
    history, players = _SQL["pyformat" if conn.dialect.paramstyle in ("pyformat", "format")
                             else "named"]  # fmt: skip
    where = {"tid": row.tournament_id, "table": row.table_id, "ended": row.ended_at_ms}
    record = json.dumps(dict(row.history), separators=(",", ":"))
    added = conn.exec_driver_sql(history, {"hand": row.hand_id, "history": record, **where})
    if added.rowcount == 0:
        return  # stored before, with its players
    conn.exec_driver_sql(
        players, [{"who": p, "hand": row.hand_id, **where} for p in dict.fromkeys(row.players)]
    )
