"""Prizes and places beyond the entries: the bounty state (T-14) and every prize change
(T-15)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments.director.payouts import PrizeTable
from tournaments.store.rows import prizes_json, prizes_of
from tournaments.store.schema import tournament_entries, tournament_prize_changes, tournaments

# --------------------------------------------------------------------------- bounties (T-14)


def save_bounties(
    conn: Connection,
    tournament_id: str,
    *,
    serial: int,
    burst: bool,
    totals: Mapping[tuple[str, int], int],
    won: Mapping[tuple[str, int], int],
) -> None:
    """A bounty settlement: entries' current totals and bounties won (absolute values, so a
    retried settlement writes the same), the bubble and the settlement count (T-14, T-18).

    Call in the transaction of the settlement's ledger transfer. `totals` and `won` are keyed
    by (player, entry number); entries not named keep their values.
    """
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(bounty_serial=serial, bounty_burst=burst)
    )
    rows = [
        {"tid": tournament_id, "who": p, "no": n, "total": amount, "won": won.get((p, n))}
        for (p, n), amount in totals.items()
    ]
    rows += [
        {"tid": tournament_id, "who": p, "no": n, "total": None, "won": amount}
        for (p, n), amount in won.items()
        if (p, n) not in totals
    ]
    for row in rows:
        values: dict[str, int] = {}
        if row["total"] is not None:
            values["bounty"] = int(row["total"])
        if row["won"] is not None:
            values["bounty_won"] = int(row["won"])
        conn.execute(
            sa.update(tournament_entries)
            .where(
                tournament_entries.c.tournament_id == row["tid"],
                tournament_entries.c.player == row["who"],
                tournament_entries.c.entry_no == row["no"],
            )
            .values(values)
        )


# --------------------------------------------------------------------------- prize changes (T-15)


@dataclass(frozen=True, slots=True)
class PrizeChangeRecord:
    """One T-15 change of a tournament's prize table, as audited."""

    seq: int
    changed_by: str
    reason: str
    at_ms: int
    old: PrizeTable
    new: PrizeTable
    added: int
    cash_places: tuple[int, ...]
    ledger_key: str


def add_prize_change(conn: Connection, tournament_id: str, change: PrizeChangeRecord) -> None:
    """Record a change, the new prize table and the money added (T-18 treats it as overlay).

    Call in the transaction of the change's ledger transfer (the house's money into the pool).
    """
    conn.execute(
        sa.insert(tournament_prize_changes).values(
            tournament_id=tournament_id,
            seq=change.seq,
            changed_by=change.changed_by,
            reason=change.reason[:500],
            at_ms=change.at_ms,
            old=prizes_json(change.old),
            new=prizes_json(change.new),
            added=change.added,
            cash_places=list(change.cash_places),
            ledger_key=change.ledger_key,
        )
    )
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(
            prizes=prizes_json(change.new),
            prize_added=tournaments.c.prize_added + change.added,
            overlay_posted=tournaments.c.overlay_posted + change.added,
        )
    )


def load_prize_changes(conn: Connection, tournament_id: str) -> tuple[PrizeChangeRecord, ...]:
    """Every change of the tournament's prizes, in order."""
    query = (
        sa.select(tournament_prize_changes)
        .where(tournament_prize_changes.c.tournament_id == tournament_id)
        .order_by(tournament_prize_changes.c.seq)
    )
    found = []
    for r in conn.execute(query):
        old, new = prizes_of(r.old), prizes_of(r.new)
        assert old is not None and new is not None
        found.append(
            PrizeChangeRecord(
                r.seq,
                r.changed_by,
                r.reason,
                r.at_ms,
                old,
                new,
                r.added,
                tuple(int(p) for p in r.cash_places),
                r.ledger_key,
            )
        )
    return tuple(found)
