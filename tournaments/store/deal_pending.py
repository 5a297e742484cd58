"""The deal in the making (T-13), kept on the tournament's row so that a restart can void it and
tell its players (T-18): `tournaments.deal_pending`, the open proposal as JSON, "" when none.

Written when a proposal opens (before any player hears of it), cleared when it is accepted (in
the unit of the deal's transfer), rejected, expired, or the tournament ends or is cancelled;
taken (read and cleared) by the start-up after a crash (`tournaments.ops.recovery`).
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.store.schema import StoreError, tournaments


class PendingDeal(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An open deal proposal as stored: who proposed it, each player's chips and amount (in
    the proposal's order), and when (epoch ms)."""

    deal_id: str
    kind: str  # icm, chip_chop, custom
    proposed_by: str  # system, or the staff member of a custom split
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    amounts: tuple[int, ...]
    left_to_play_for: int
    rounding: int
    proposed_at_ms: int
    deadline_ms: int


def pending_json(deal: PendingDeal) -> str:
    """The column's text for `deal`."""
    return msgspec.json.encode(deal).decode()


def pending_of(text: str) -> PendingDeal | None:
    """The stored deal in the making ("" is none); StoreError if the text is not one."""
    if not text:
        return None
    try:
        return msgspec.json.decode(text, type=PendingDeal)
    except msgspec.DecodeError as exc:  # never guessed (the store's rule)
        raise StoreError(f"deal_pending is not a deal in the making: {exc}") from exc


def _set(conn: Connection, tournament_id: str, text: str) -> None:
    conn.execute(
        sa.update(tournaments).where(tournaments.c.id == tournament_id).values(deal_pending=text)
    )


def save_deal_pending(conn: Connection, tournament_id: str, deal: PendingDeal) -> None:
    """A proposal opened (or replaced one): it is the deal in the making."""
    _set(conn, tournament_id, pending_json(deal))


def clear_deal_pending(conn: Connection, tournament_id: str) -> None:
    """No deal in the making any more (accepted, rejected, expired)."""
    _set(conn, tournament_id, "")


def load_deal_pending(conn: Connection, tournament_id: str) -> PendingDeal | None:
    """The tournament's deal in the making, or None."""
    query = sa.select(tournaments.c.deal_pending).where(tournaments.c.id == tournament_id)
    text: Any = conn.execute(query).scalar()
    return pending_of(text or "")


def take_deal_pending(conn: Connection, tournament_id: str) -> PendingDeal | None:
    """T-18 start-up: the deal in the making, now void (read and cleared in one transaction)."""
    deal = load_deal_pending(conn, tournament_id)
    if deal is not None:
        clear_deal_pending(conn, tournament_id)
    return deal
