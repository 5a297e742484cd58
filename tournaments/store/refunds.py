"""Refund rows (T-18): the refund plan, one row per component paid by one ledger transfer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.store.schema import tournament_refunds


@dataclass(frozen=True, slots=True)
class RefundRow:
    """One planned refund component: `amount` from `source` to `destinations`, one transfer."""

    player: str
    component: str
    amount: int
    source: str
    destinations: tuple[tuple[str, int], ...]
    ledger_key: str
    paid_at_ms: int | None = None
    transfer_id: int | None = None
    error: str | None = None

    @property
    def paid(self) -> bool:
        """The transfer was made (it is marked in the same transaction)."""
        return self.paid_at_ms is not None


# --------------------------------------------------------------------------- refund rows


def load_refunds(conn: Connection, tournament_id: str) -> tuple[RefundRow, ...]:
    """The tournament's refund plan, players first then the house, by component."""
    query = (
        sa.select(tournament_refunds)
        .where(tournament_refunds.c.tournament_id == tournament_id)
        .order_by(tournament_refunds.c.player, tournament_refunds.c.component)
    )
    return tuple(
        RefundRow(
            r.player,
            r.component,
            r.amount,
            r.source,
            tuple((str(a), int(n)) for a, n in r.destinations),
            r.ledger_key,
            r.paid_at_ms,
            r.transfer_id,
            r.error,
        )
        for r in conn.execute(query)
    )


def add_refunds(
    conn: Connection, tournament_id: str, rows: Sequence[RefundRow], at_ms: int
) -> None:
    """Write the refund plan (once; its rows are then only marked paid)."""
    if not rows:
        return
    conn.execute(
        sa.insert(tournament_refunds),
        [
            {
                "tournament_id": tournament_id,
                "player": r.player,
                "component": r.component,
                "amount": r.amount,
                "source": r.source,
                "destinations": [list(d) for d in r.destinations],
                "ledger_key": r.ledger_key,
                "planned_at_ms": at_ms,
            }
            for r in rows
        ],
    )


def mark_refund_paid(
    conn: Connection, tournament_id: str, player: str, component: str, transfer_id: int, at_ms: int
) -> None:
    """The component's transfer was made (call in the transaction that made it)."""
    conn.execute(
        sa.update(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.player == player,
            tournament_refunds.c.component == component,
        )
        .values(paid_at_ms=at_ms, transfer_id=transfer_id, error=None)
    )


_MARK_PAID = (
    sa.update(tournament_refunds)
    .where(
        tournament_refunds.c.tournament_id == sa.bindparam("tid"),
        tournament_refunds.c.player == sa.bindparam("who"),
        tournament_refunds.c.component == sa.bindparam("part"),
    )
    .values(paid_at_ms=sa.bindparam("at"), transfer_id=sa.bindparam("transfer"), error=None)
)


def mark_refunds_paid(
    conn: Connection, tournament_id: str, paid: Sequence[tuple[str, str, int]], at_ms: int
) -> None:
    """Several components paid, as (player, component, transfer id): one statement."""
    if paid:
        conn.execute(
            _MARK_PAID,
            [
                {"tid": tournament_id, "who": p, "part": c, "at": at_ms, "transfer": t}
                for p, c, t in paid
            ],
        )


def mark_refund_refused(
    conn: Connection, tournament_id: str, player: str, component: str, error: str
) -> None:
    """The ledger refused the component's transfer: kept for the staff, tried again next run."""
    conn.execute(
        sa.update(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.player == player,
            tournament_refunds.c.component == component,
        )
        .values(error=error[:500])
    )


def unpaid_refunds(conn: Connection, tournament_id: str) -> int:
    """How many refund components are still to pay."""
    query = (
        sa.select(sa.func.count())
        .select_from(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.paid_at_ms.is_(None),
        )
    )
    return int(conn.execute(query).scalar_one())
