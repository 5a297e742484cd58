"""The casino tables' database work: round rows, bet rows, voids and histories.

Functions of an Engine run in the ledger's threads (`rounds.RoundStore`); those of a
Connection run inside a ledger transaction (the `also=` of `LedgerService.settle`), so that a
bet row is written with its placement (L-2) and a round's status with its settlement (L-3).
`void_round` is the one way a round is voided (K-7, L-5): by the table after a malfunction, by
its recovery at start (a crash before settlement), by the pending-bets job (K-11) and by staff.
A blackjack round recorded in `partial` mode is cancelled by BJ-19 instead (`cancel`): its
progress is on the open round's row (`save_progress`), or handed over by the table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.casino import cancel, money
from pokerroom.casino.core.results import Settlement
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
    """A round voided: every stake returned (L-5); `refunds` what each player got back.

    A blackjack round cancelled in `partial` mode (BJ-19) has its `settlement` (the lines, as a
    settled round's) and `held`, the players whose payout went to review (K-13)."""

    round_id: str
    refunds: tuple[tuple[str, int], ...]
    replayed: bool = False  # already void (or settled) before: nothing moved now
    currency: str = ""
    settlement: Settlement | None = None  # BJ-19 (partial) only
    held: tuple[str, ...] = ()


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
    conn: Connection,
    round_id: str,
    player: str,
    bets: Sequence[tuple[str, int]],
    key: str,
    confirmed_ms: int,
) -> None:
    """The bet rows of one confirmation, with its time (RNG-9), in its placement (L-2)."""
    conn.execute(
        sa.insert(casino_bets),
        [
            {
                "round_id": round_id,
                "player": player,
                "spot": spot,
                "stake": stake,
                "transfer_key": key,
                "confirmed_ms": confirmed_ms,
            }
            for spot, stake in bets
        ],
    )


def mark_settled(
    conn: Connection,
    round_id: str,
    outcome: dict[str, Any],
    summary: dict[str, Any],
    now_ms: int,
    audit: dict[str, Any] | None = None,
) -> None:
    """The round's record (RNG-9: outcome, summary, audit) and status, in its settlement
    transaction (L-3, L-7)."""
    done = conn.execute(
        sa.update(casino_rounds)
        .where(casino_rounds.c.id == round_id, casino_rounds.c.status == OPEN)
        .values(
            status=SETTLED,
            ended_ms=now_ms,
            outcome=json.dumps(outcome, sort_keys=True),
            summary=json.dumps(summary, sort_keys=True),
            audit=json.dumps(audit, sort_keys=True) if audit else "",
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


def save_progress(engine: Engine, round_id: str, record: dict[str, Any]) -> None:
    """Record a blackjack round's progress on its open row (BJ-19); an older one (fewer
    `moves`) never replaces a newer one, and an ended round keeps its record."""

    def work(conn: Connection) -> None:
        row = conn.execute(
            sa.select(casino_rounds.c.status, casino_rounds.c.outcome)
            .where(casino_rounds.c.id == round_id)
            .with_for_update()
        ).first()
        if row is None or row.status != OPEN:
            return
        stored = json.loads(row.outcome) if row.outcome else {}
        if int(stored.get("moves", -1)) >= int(record["moves"]):
            return
        conn.execute(
            sa.update(casino_rounds)
            .where(casino_rounds.c.id == round_id)
            .values(outcome=json.dumps(record, sort_keys=True))
        )

    in_transaction(engine, work)


def void_on(
    conn: Connection,
    round_id: str,
    reason: str,
    now_ms: int,
    progress: dict[str, Any] | None = None,
) -> Voided:
    """Void an open round in the caller's transaction: its stakes back (or BJ-19's settlement
    for a blackjack round recorded in `partial` mode), its status `void`."""
    row = conn.execute(
        sa.select(
            casino_rounds.c.status,
            casino_rounds.c.currency,
            casino_rounds.c.table_id,
            casino_rounds.c.outcome,
        )
        .where(casino_rounds.c.id == round_id)
        .with_for_update()
    ).first()
    if row is None:
        raise KeyError(round_id)
    status, currency, table_id, outcome = row
    if status != OPEN:
        return Voided(round_id, (), replayed=True, currency=currency)
    stakes = stakes_of(conn, round_id)
    record = progress if progress is not None else (json.loads(outcome) if outcome else {})
    found = None
    if cancel.is_partial(record):
        found = cancel.partial_legs(conn, round_id, table_id, currency, record, stakes)
    legs = money.void(round_id, currency, stakes) if found is None else found.legs
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
    values: dict[str, Any] = {"status": VOID, "ended_ms": now_ms, "reason": reason[:200]}
    if found is not None:
        done = found.settlement
        values["outcome"] = json.dumps(record, sort_keys=True)
        values["summary"] = json.dumps(
            {
                "partial": True,
                "paid": {t.player: t.paid for t in done.players},
                "staked": {t.player: t.staked for t in done.players},
                "capped": {t.player: t.capped for t in done.players if t.capped},
                "held": sorted(found.held),
            },
            sort_keys=True,
        )
        paid = tuple((t.player, t.paid) for t in done.players)
        conn.execute(sa.update(casino_rounds).where(casino_rounds.c.id == round_id).values(values))
        return Voided(round_id, paid, currency=currency, settlement=done, held=found.held)
    conn.execute(sa.update(casino_rounds).where(casino_rounds.c.id == round_id).values(values))
    refunds: dict[str, int] = {}
    for player, stake in stakes:
        refunds[player] = refunds.get(player, 0) + stake
    return Voided(round_id, tuple(refunds.items()), currency=currency)


def void_round(
    engine: Engine,
    round_id: str,
    reason: str,
    now_ms: int,
    progress: dict[str, Any] | None = None,
) -> Voided:
    """Void one round in its own transaction (K-7, L-5; BJ-19 from `progress` or the row's
    record); a second call moves nothing."""
    return in_transaction(engine, lambda conn: void_on(conn, round_id, reason, now_ms, progress))


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
            if row.status == SETTLED or (row.status == VOID and "paid" in summary):
                paid = int(summary.get("paid", {}).get(player, 0))  # BJ-19: partial
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
                    json.loads(row.outcome) if row.outcome and row.status != OPEN else {},
                    tuple((spot, int(stake)) for spot, stake in bets),
                    paid,
                )
            )
        return tuple(out)

    return read(engine, work)
