"""The blocking writes of the staff's decisions on a tournament (docs/ADMIN.md, T-18): each is
one step of a recorder unit; a stored state that changed refuses the step (`Refused`)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.errors import CodedError
from pokerroom.ledger.errors import LedgerError
from tournaments import store


class Refused(LedgerError):
    """A staff decision's guarded write found the stored state changed: its group alone is
    refused by the recorder (as a refused transfer is), with this code."""

    def __init__(self, code: str, message: str) -> None:
        CodedError.__init__(self, code, message)


def insert_tournament(conn: Connection, record: store.TournamentRecord) -> None:
    """A new tournament's row; `tournament_exists` if one has this id."""
    if store.load_tournament(conn, record.id) is not None:
        raise Refused("tournament_exists", f"a tournament {record.id} is stored already")
    store.save_tournament(conn, record)


def set_config(conn: Connection, tournament_id: str, config: Any) -> None:
    """The config a tournament runs with (a delayed start, T-1), while it is registering."""
    tournaments = store.tournaments
    done = conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id, tournaments.c.status == store.REGISTERING)
        .values(config=config)
    )
    if done.rowcount != 1:
        raise Refused("wrong_status", f"tournament {tournament_id} is no longer registering")


def remove_seat(conn: Connection, tournament_id: str, player: str) -> None:
    """A disqualified player's seat: gone with the chips on it."""
    seats = store.tournament_seats
    conn.execute(
        sa.delete(seats).where(seats.c.tournament_id == tournament_id, seats.c.player == player)
    )


def cancel_op(
    conn: Connection, tournament_id: str, reason: store.CancelReason, at_ms: int, why: str
) -> None:
    """Mark the tournament cancelled; `wrong_status` if its stored status does not allow it."""
    if not store.mark_cancelled(conn, tournament_id, reason, at_ms, why):
        raise Refused("wrong_status", f"tournament {tournament_id} cannot be cancelled now")
