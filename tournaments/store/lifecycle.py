"""A tournament's own row: its config, status moves (each only forward), level clock and
prize table."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.director.payouts import PrizeTable
from tournaments.director.refunds import (
    FeeRefund,
)
from tournaments.store.rows import columns, config_json, prizes_json, prizes_of
from tournaments.store.schema import (
    CANCELLED,
    FINISHED,
    INTERRUPTED,
    REFUNDED,
    REGISTERING,
    RUNNING,
    CancelReason,
    StoreError,
    tournaments,
)


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """One `tournaments` row."""

    id: str
    template: str
    currency: str
    created_at_ms: int
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    status: str = REGISTERING
    cancel_reason: str | None = None
    decision: str = ""
    fee_refund: FeeRefund = FeeRefund.LIVE_ENTRY
    guarantee: int = 0
    guarantee_dropped: bool = False
    overlay_posted: int = 0
    prizes: PrizeTable | None = None
    level_index: int = 0
    level_ms_left: int | None = None
    started_at_ms: int | None = None
    stopped_at_ms: int | None = None
    refunded_at_ms: int | None = None
    bounty_burst: bool = False  # T-14: the bubble burst (deferred bounties were paid)
    bounty_serial: int = 0  # T-14: bounty settlements so far (part of their ledger keys)
    prize_added: int = 0  # T-15: money the house added to the pool by prize changes
    saved_at_ms: int | None = None  # T-18: the running state's last write (the outage from it)
    paused: bool = False  # T-18: a staff pause, restored after a restart
    resumes: int = 0  # T-18: times resumed after a crash (part of later hand ids)


# --------------------------------------------------------------------------- tournaments


def _tournament_values(record: TournamentRecord) -> dict[str, Any]:
    return columns(
        record,
        config=config_json(record.config),
        fee_refund=record.fee_refund.value,
        prizes=prizes_json(record.prizes),
    )


def save_tournament(conn: Connection, record: TournamentRecord) -> None:
    """Insert or replace the tournament's row."""
    values = _tournament_values(record)
    updated = conn.execute(
        sa.update(tournaments).where(tournaments.c.id == record.id).values(values)
    )
    if updated.rowcount == 0:
        conn.execute(sa.insert(tournaments).values(values))


def _tournament(row: sa.Row[Any]) -> TournamentRecord:
    return TournamentRecord(
        id=row.id,
        template=row.template,
        currency=row.currency,
        created_at_ms=row.created_at_ms,
        config=row.config,
        status=row.status,
        cancel_reason=row.cancel_reason,
        decision=row.decision,
        fee_refund=FeeRefund(row.fee_refund),
        guarantee=row.guarantee,
        guarantee_dropped=bool(row.guarantee_dropped),
        overlay_posted=row.overlay_posted,
        prizes=prizes_of(row.prizes),
        level_index=row.level_index,
        level_ms_left=row.level_ms_left,
        started_at_ms=row.started_at_ms,
        stopped_at_ms=row.stopped_at_ms,
        refunded_at_ms=row.refunded_at_ms,
        bounty_burst=bool(row.bounty_burst),
        bounty_serial=row.bounty_serial,
        prize_added=row.prize_added,
        saved_at_ms=row.saved_at_ms,
        paused=bool(row.paused),
        resumes=row.resumes,
    )


def load_tournament(conn: Connection, tournament_id: str) -> TournamentRecord | None:
    """The tournament's row, or None."""
    row = conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id)).first()
    return None if row is None else _tournament(row)


def tournaments_with_status(conn: Connection, status: str) -> tuple[str, ...]:
    """Ids of the tournaments in `status`, oldest stop first."""
    query = (
        sa.select(tournaments.c.id)
        .where(tournaments.c.status == status)
        .order_by(tournaments.c.stopped_at_ms, tournaments.c.id)
    )
    return tuple(conn.execute(query).scalars())


def _transition(
    conn: Connection,
    tournament_id: str,
    allowed: Iterable[str],
    values: Mapping[str, Any],
) -> bool:
    """Set `values` if the tournament's status is one of `allowed`; False if it was not."""
    query = (
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id, tournaments.c.status.in_(list(allowed)))
        .values(dict(values))
    )
    if conn.execute(query).rowcount == 1:
        return True
    if load_tournament(conn, tournament_id) is None:
        raise StoreError(f"no tournament {tournament_id!r}")
    return False


def mark_started(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """T-1: registering -> running."""
    values = {"status": RUNNING, "started_at_ms": at_ms}
    return _transition(conn, tournament_id, [REGISTERING], values)


def save_level(conn: Connection, tournament_id: str, level_index: int, ms_left: int) -> None:
    """The level clock: the level being played and the time left in it."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(level_index=level_index, level_ms_left=ms_left)
    )


def save_prizes(
    conn: Connection, tournament_id: str, prizes: PrizeTable, overlay_posted: int
) -> None:
    """T-6: the prize table fixed once every period closed, and the overlay posted to the pool."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(prizes=prizes_json(prizes), overlay_posted=overlay_posted)
    )


def drop_guarantee(conn: Connection, tournament_id: str) -> None:
    """T-5: late registration closed at the money; the guarantee no longer applies."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(guarantee_dropped=True)
    )


def mark_interrupted(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """Start-up after a crash: running -> interrupted (hands in progress are void)."""
    values = {"status": INTERRUPTED, "stopped_at_ms": at_ms}
    return _transition(conn, tournament_id, [RUNNING], values)


def interrupt_running(conn: Connection, at_ms: int) -> tuple[str, ...]:
    """Start-up: every running tournament becomes interrupted; their ids."""
    ids = tournaments_with_status(conn, RUNNING)
    for tournament_id in ids:
        mark_interrupted(conn, tournament_id, at_ms)
    return ids


def mark_resumed(conn: Connection, tournament_id: str, decision: str) -> bool:
    """Back within the resume window: interrupted -> running, with the decision and why (and
    one more resume: the hands dealt from now on take new ids)."""
    values = {
        "status": RUNNING,
        "decision": decision[:500],
        "stopped_at_ms": None,
        "resumes": tournaments.c.resumes + 1,
    }
    return _transition(conn, tournament_id, [INTERRUPTED], values)


def mark_finished(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """T-8: running -> finished (no deal in the making any more)."""
    values = {"status": FINISHED, "stopped_at_ms": at_ms, "deal_pending": ""}
    return _transition(conn, tournament_id, [RUNNING], values)


def mark_cancelled(
    conn: Connection,
    tournament_id: str,
    reason: CancelReason,
    at_ms: int,
    decision: str = "",
) -> bool:
    """T-1, T-18: cancelled (for outage, too few players or by staff); the refund job pays it.
    A deal in the making is void with it (its players hear `tournament_cancelled`)."""
    values = {
        "status": CANCELLED,
        "deal_pending": "",
        "cancel_reason": CancelReason(reason).value,
        "decision": decision[:500],
        "stopped_at_ms": at_ms,
    }
    return _transition(conn, tournament_id, [REGISTERING, RUNNING, INTERRUPTED], values)


def mark_refunded(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """Every refund component is paid: cancelled -> refunded."""
    values = {"status": REFUNDED, "refunded_at_ms": at_ms}
    return _transition(conn, tournament_id, [CANCELLED], values)
