"""What a refunded player reads (T-1, T-18): `tournament_cancelled` with their refund by part,
from the paid refund rows of the tournament (the desk sends it once the refund job paid)."""

from __future__ import annotations

from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.db import read
from pokerroom.protocol.tournament_messages import TournamentCancelled
from tournaments import store

#: The reason a player reads in `tournament_cancelled`, by the stored cancel reason.
CANCEL_REASONS = {
    store.CancelReason.OUTAGE.value: "the server was down longer than the tournament allows (T-18)",
    store.CancelReason.TOO_FEW_PLAYERS.value: "too few entries at the start",
    store.CancelReason.STAFF.value: "cancelled by the staff",
}
#: The refund components that are the player's share of the prize pool (T-18.2, T-18.3).
POOL_SHARES = ("pool_equal_share", "pool_chip_share", "next_prize")


def refund_notices(
    bind: Engine | Connection, tournament_id: str
) -> list[tuple[str, TournamentCancelled]]:
    """Blocking: each refunded player's `tournament_cancelled`, from the paid refund rows."""
    return read(bind, lambda conn: _notices(conn, tournament_id))


def _notices(conn: Connection, tournament_id: str) -> list[tuple[str, TournamentCancelled]]:
    record = store.load_tournament(conn, tournament_id)
    if record is None:
        return []
    reason = CANCEL_REASONS.get(record.cancel_reason or "", record.cancel_reason or "cancelled")
    parts: dict[str, dict[str, int]] = {}
    for row in store.load_refunds(conn, tournament_id):
        if row.player != store.HOUSE_ROW and row.paid:
            mine = parts.setdefault(row.player, {})
            mine[row.component] = mine.get(row.component, 0) + row.amount
    return [
        (
            player,
            TournamentCancelled(
                tournament_id=tournament_id,
                reason=reason,
                fee=mine.get("fee", 0),
                buy_in=mine.get("buy_in", 0),
                pool_share=sum(mine.get(part, 0) for part in POOL_SHARES),
                bounty=mine.get("bounty", 0),
                total=sum(mine.values()),
            ),
        )
        for player, mine in sorted(parts.items())
    ]
