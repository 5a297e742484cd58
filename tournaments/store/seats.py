"""Seats and hands (T-18): every table's seats and stacks as of its last completed hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.store.schema import tournament_seats


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat as of its table's last completed hand."""

    table_id: str
    seat: int
    player: str
    entry_no: int
    stack: int
    hand_number: int = 0
    table_state: str = ""  # the table's button and blinds after that hand (see the column)
    bank_ms: int | None = None  # the time bank left (None: never used or topped up)
    bank_level: int = 0
    sitting_out: str = ""  # asked | timeout | ""


# --------------------------------------------------------------------------- seats


def record_hand(
    conn: Connection,
    tournament_id: str,
    table_id: str,
    hand_number: int,
    seats: Sequence[SeatRecord],
) -> None:
    """A completed hand of one table: its rows are replaced by `seats` (players with chips).

    A player listed here is where this hand says: any row of theirs at another table (moved by
    balancing, T-10) is removed. Call in the transaction that records the hand (ARCH 14).
    """
    players = [s.player for s in seats]
    conn.execute(
        sa.delete(tournament_seats).where(
            tournament_seats.c.tournament_id == tournament_id,
            sa.or_(
                tournament_seats.c.table_id == table_id,
                tournament_seats.c.player.in_(players),
            ),
        )
    )
    if seats:
        conn.execute(
            sa.insert(tournament_seats),
            [
                {
                    "tournament_id": tournament_id,
                    "table_id": table_id,
                    "seat": s.seat,
                    "player": s.player,
                    "entry_no": s.entry_no,
                    "stack": s.stack,
                    "hand_number": hand_number,
                }
                for s in seats
            ],
        )


def load_seats(conn: Connection, tournament_id: str) -> tuple[SeatRecord, ...]:
    """Every seat with its stack as of its table's last completed hand."""
    query = (
        sa.select(tournament_seats)
        .where(tournament_seats.c.tournament_id == tournament_id)
        .order_by(tournament_seats.c.table_id, tournament_seats.c.seat)
    )
    fields = ("table_id", "seat", "player", "entry_no", "stack", "hand_number", "table_state")
    rest = ("bank_ms", "bank_level", "sitting_out")
    return tuple(
        SeatRecord(*(getattr(r, name) for name in fields + rest)) for r in conn.execute(query)
    )
