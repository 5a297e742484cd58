"""The casino tables' database work: round rows, bet rows, voids and histories.

Functions of an Engine run in the ledger's threads (`rounds.RoundStore`); those of a
Connection run inside a ledger transaction (the `also=` of `LedgerService.settle`), so that a
bet row is written with its placement (L-2) and a round's status with its settlement (L-3).
`void_round` is the one way a round is voided (K-7, L-5): by the table after a malfunction, by
its recovery at start (a crash before settlement), by the pending-bets job (K-11) and by staff.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.casino import money
from pokerroom.casino.schema import OPEN, SETTLED, VOID, casino_bets, casino_rounds
from pokerroom.ledger import transfers
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.kinds import AccountKind, TransferKind
from pokerroom.ledger.schema import accounts


@dataclass(frozen=True, slots=True)
class RoundRow:
    """A round as the table opens it (K-1)."""

    round_id: str
    table_id: str
    game: str
    currency: str
    opened_ms: int
    due_ms: int  # when betting closes: the interruption time if the round never ends (K-11)


@dataclass(frozen=True, slots=True)
class Voided:
    """A round voided: every stake returned (L-5); `refunds` per player."""

    round_id: str
    refunds: tuple[tuple[str, int], ...]
    replayed: bool = False  # already void (or settled) before: nothing moved now
    currency: str = ""


def open_round(engine: Engine, row: RoundRow) -> None:
    """Write the round's row before any bet (K-1); again after a lost answer changes nothing."""

    def work(conn: Connection) -> None:
        found = conn.execute(
            sa.select(casino_rounds.c.id).where(casino_rounds.c.id == row.round_id)
        ).first()
        if found is None:
            conn.execute(
                sa.insert(casino_rounds).values(
                    id=row.round_id,
                    table_id=row.table_id,
                    game=row.game,
                    currency=row.currency,
                    status=OPEN,
                    opened_ms=row.opened_ms,
                    due_ms=row.due_ms,
                )
            )

    in_transaction(engine, work)


def add_bets(
    conn: Connection, round_id: str, player: str, bets: Sequence[tuple[str, int]], key: str
) -> None:
    """The bet rows of one confirmation, in its placement transaction (L-2)."""
    conn.execute(
        sa.insert(casino_bets),
        [
            {
                "round_id": round_id,
                "player": player,
                "spot": spot,
                "stake": stake,
                "transfer_key": key,
            }
            for spot, stake in bets
        ],
    )


def mark_settled(
    conn: Connection, round_id: str, outcome: dict[str, Any], summary: dict[str, Any], now_ms: int
) -> None:
    """The round's record (RNG-9) and status, in its settlement transaction (L-3, L-7)."""
    done = conn.execute(
        sa.update(casino_rounds)
        .where(casino_rounds.c.id == round_id, casino_rounds.c.status == OPEN)
        .values(
            status=SETTLED,
            ended_ms=now_ms,
            outcome=json.dumps(outcome, sort_keys=True),
            summary=json.dumps(summary, sort_keys=True),
        )
    )
    if done.rowcount != 1:
        raise RuntimeError(f"round {round_id} is not open")  # rolls the settlement back


def stakes_of(conn: Connection, round_id: str) -> list[tuple[str, int]]:
    """Each confirmed stake of a round, in order of confirmation."""
    rows = conn.execute(
        sa.select(casino_bets.c.player, casino_bets.c.stake)
        .where(casino_bets.c.round_id == round_id)
        .order_by(casino_bets.c.id)
    ).all()
    return [(player, int(stake)) for player, stake in rows]


def void_on(conn: Connection, round_id: str, reason: str, now_ms: int) -> Voided:
    """Void an open round in the caller's transaction: its stakes back, its status `void`."""
    row = conn.execute(
        sa.select(casino_rounds.c.status, casino_rounds.c.currency)
        .where(casino_rounds.c.id == round_id)
        .with_for_update()
    ).first()
    if row is None:
        raise KeyError(round_id)
    status, currency = row
    if status != OPEN:
        return Voided(round_id, (), replayed=True, currency=currency)
    stakes = stakes_of(conn, round_id)
    legs = money.void(round_id, currency, stakes)
    if legs:
        transfers.transfer_on(
            conn,
            key=money.round_key(round_id),
            kind=TransferKind.CASINO_VOID,
            currency=currency,
            postings=list(legs.items()),
            reference=round_id,
            memo=reason[:200],
        )
    conn.execute(
        sa.update(casino_rounds)
        .where(casino_rounds.c.id == round_id)
        .values(status=VOID, ended_ms=now_ms, reason=reason[:200])
    )
    refunds: dict[str, int] = {}
    for player, stake in stakes:
        refunds[player] = refunds.get(player, 0) + stake
    return Voided(round_id, tuple(refunds.items()), currency=currency)


def void_round(engine: Engine, round_id: str, reason: str, now_ms: int) -> Voided:
    """Void one round in its own transaction (K-7, L-5); a second call moves nothing."""
    return in_transaction(engine, lambda conn: void_on(conn, round_id, reason, now_ms))


def recover_table(engine: Engine, table_id: str, now_ms: int) -> tuple[Voided, ...]:
    """At start: void every round of the table left open by a crash (K-7, C-12's path)."""

    def work(conn: Connection) -> tuple[Voided, ...]:
        ids = (
            conn.execute(
                sa.select(casino_rounds.c.id)
                .where(casino_rounds.c.table_id == table_id, casino_rounds.c.status == OPEN)
                .order_by(casino_rounds.c.opened_ms, casino_rounds.c.id)
            )
            .scalars()
            .all()
        )
        return tuple(
            void_on(conn, round_id, "server restart before settlement", now_ms) for round_id in ids
        )

    return in_transaction(engine, work)


def pending_rounds(engine: Engine, due_before_ms: int) -> tuple[str, ...]:
    """Rounds still open whose betting window ended before `due_before_ms` (K-11, L-6)."""

    def work(conn: Connection) -> tuple[str, ...]:
        query = sa.select(casino_rounds.c.id).where(
            casino_rounds.c.status == OPEN, casino_rounds.c.due_ms < due_before_ms
        )
        ordered = query.order_by(casino_rounds.c.due_ms, casino_rounds.c.id)
        return tuple(conn.execute(ordered).scalars())

    return read(engine, work)


def in_play_mismatches(engine: Engine) -> tuple[tuple[str, int, int], ...]:
    """L-7: rounds whose `in_play` balance is not the stakes of their bets while open, or not 0
    once ended, as (round id, expected, balance)."""

    def work(conn: Connection) -> tuple[tuple[str, int, int], ...]:
        balances = dict(
            conn.execute(
                sa.select(accounts.c.owner, accounts.c.balance).where(
                    accounts.c.kind == AccountKind.CASINO_IN_PLAY.value
                )
            ).all()
        )
        staked = dict(
            conn.execute(
                sa.select(casino_bets.c.round_id, sa.func.sum(casino_bets.c.stake))
                .join(casino_rounds, casino_rounds.c.id == casino_bets.c.round_id)
                .where(casino_rounds.c.status == OPEN)
                .group_by(casino_bets.c.round_id)
            ).all()
        )
        found = []
        for round_id in sorted(set(balances) | set(staked)):
            expected, balance = int(staked.get(round_id, 0)), int(balances.get(round_id, 0))
            if expected != balance:
                found.append((round_id, expected, balance))
        return tuple(found)

    return read(engine, work)


@dataclass(frozen=True, slots=True)
class HistoryRound:
    """One round of a player's history: its status, outcome, their bets and what they got."""

    round_id: str
    table_id: str
    game: str
    status: str
    opened_ms: int
    outcome: dict[str, Any]
    bets: tuple[tuple[str, int], ...]
    paid: int | None  # None while open; the stakes for a void round


def history(engine: Engine, player: str, limit: int = 20) -> tuple[HistoryRound, ...]:
    """A player's latest rounds, newest first (K-9: the result is in the bet history)."""

    def work(conn: Connection) -> tuple[HistoryRound, ...]:
        ids = (
            sa.select(casino_bets.c.round_id)
            .where(casino_bets.c.player == player)
            .distinct()
            .subquery()
        )
        rounds = conn.execute(
            sa.select(casino_rounds)
            .where(casino_rounds.c.id.in_(sa.select(ids.c.round_id)))
            .order_by(casino_rounds.c.opened_ms.desc(), casino_rounds.c.id.desc())
            .limit(limit)
        ).all()
        out = []
        for row in rounds:
            bets = conn.execute(
                sa.select(casino_bets.c.spot, casino_bets.c.stake)
                .where(casino_bets.c.round_id == row.id, casino_bets.c.player == player)
                .order_by(casino_bets.c.id)
            ).all()
            summary = json.loads(row.summary) if row.summary else {}
            staked = sum(int(stake) for _, stake in bets)
            paid: int | None
            if row.status == SETTLED:
                paid = int(summary.get("paid", {}).get(player, 0))
            elif row.status == VOID:
                paid = staked
            else:
                paid = None
            out.append(
                HistoryRound(
                    row.id,
                    row.table_id,
                    row.game,
                    row.status,
                    int(row.opened_ms),
                    json.loads(row.outcome) if row.outcome else {},
                    tuple((spot, int(stake)) for spot, stake in bets),
                    paid,
                )
            )
        return tuple(out)

    return read(engine, work)
