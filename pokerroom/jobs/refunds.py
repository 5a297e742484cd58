"""The `refunds` job: pays the T-18 refunds of every cancelled tournament, exactly once.

For each tournament `cancelled` (by outage, too few players or staff), oldest first:

1. **Plan** (one transaction, once): the stored state (`tournaments.store.load_stopped`) goes
   through the pure `tournaments.director.refunds.outage_refunds`; each player's non-zero
   components (fee, buy_in, pool_equal_share, pool_chip_share, next_prize, bounty) and the
   house's (T-7 rounding, the overlay not shared) become `tournament_refunds` rows, each with
   its source, destinations and ledger key `t:<tid>:refund:<player>:<component>` (P-2). Before
   writing, every purchase's own transfer must be in the journal. Before each run's payments,
   the prize pool and the bounty pool must hold exactly what the unpaid rows take out of them
   (else the state and the ledger disagree, and nothing is paid: a refund never guesses).
2. **Pay** (batches of `JobSettings.batch` rows, one transaction each): each row is one ledger
   transfer (`transfer_on`, under a savepoint of its own) and is marked paid in the same
   transaction. A job killed at any point has either committed a batch (rows paid, transfers
   made) or not (neither): run again, it pays the rest and nothing twice. A refused transfer
   leaves its row unpaid with the reason; the next run tries it again.
3. **Done**: once no row is unpaid the tournament becomes `refunded` (in the last batch's
   transaction).

Where the money goes (T-3, T-16; docs/OPERATIONS.md):
- what the player paid in and gets back (case 1's buy-in, fee and bounty part; cases 2 and 3's
  fee) returns to the account each purchase was paid from: cash to the wallet, T$ to T$, and a
  ticket's value to the ticket's account, whole again (T-3: the ticket back, not cash). In cases
  2 and 3 only the fee of a ticket entry comes back, which is not a seat: it is paid as T$
  (T-16: a seat's value that cannot be used as a seat is T$);
- prize money (pool shares, next prize) and a current bounty in cases 2 and 3 go to the wallet,
  as prizes and bounties do (tournaments/actor/payout_runner.py, tournaments/director/bounties.py).
- a ticket whose account is whole again (case 1: its entry's buy-in, bounty part and fee are
  back) is given back to its owner in the transaction of the row that completed it: usable
  at its buy-in level (its target is cancelled), or, if the cancelled tournament's rules say
  so (`cancelled_tickets = "convert"`), converted at once to T$ of buy-in plus fee (T-16).
Sources: `house_fees` for fees, the tournament's `prize_pool` for buy-ins and pool shares, its
`bounty_pool` for bounties.

T-17 (`tournaments.store.stake_refunds`): before the start every purchase of a seller's action comes
back from the `staking_escrow` (a row per purchase); after it, a seller's held escrow is paid
to them and each part of their refund paid to their wallet is shared with their buyers in that
part's own transfer (the row's destinations), the rest of the split to house rounding (T-7).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.jobs.refund_plan import ROUNDING, account_ref, plan_rows
from pokerroom.jobs.runner import JobContext, JobResult, Work
from pokerroom.ledger import accounts as ledger_accounts
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.errors import LedgerError
from pokerroom.ledger.kinds import AccountKind, AccountRef, TransferKind
from pokerroom.ledger.posting import StaleIds
from pokerroom.ledger.schema import accounts as accounts_table
from pokerroom.ledger.transfers import Transfer, transfer_on
from tournaments import store
from tournaments.director.money import (
    bounty_pool,
    prize_pool,
    staking_escrow,
)
from tournaments.director.tickets import OnCancel, TicketState, give_back, target_cancelled
from tournaments.store import stake_store
from tournaments.store.stake_refunds import record_paid

NAME = "refunds"


# --------------------------------------------------------------------------- steps (blocking)


class RefundRefused(Exception):
    """The stored state and the ledger disagree: this tournament is not paid (staff look)."""


def due(engine: Engine) -> tuple[str, ...]:
    """Tournaments cancelled and not yet refunded, oldest first."""
    return read(engine, lambda conn: store.tournaments_with_status(conn, store.CANCELLED))


def _balance(conn: Connection, account: str) -> int:
    """An account's balance read on `conn` (0 if it was never opened)."""
    ref = AccountRef.parse(account)
    query = sa.select(accounts_table.c.balance).where(
        accounts_table.c.kind == ref.kind.value,
        accounts_table.c.owner == ref.owner,
        accounts_table.c.currency == ref.currency,
    )
    return int(conn.execute(query).scalar() or 0)


def _check_pools(
    conn: Connection, tid: str, currency: str, rows: Sequence[store.RefundRow]
) -> None:
    """The pools hold exactly what the unpaid rows take out of them, or nothing is paid."""
    needed: dict[str, int] = {}
    for row in rows:
        if not row.paid:
            needed[row.source] = needed.get(row.source, 0) + row.amount
    for pool in (prize_pool(tid), bounty_pool(tid), staking_escrow(tid)):
        name = account_ref(pool, currency)
        held = _balance(conn, name)
        if held != needed.get(name, 0):
            raise RefundRefused(
                f"{name} holds {held} but the unpaid refunds take {needed.get(name, 0)} "
                "from it: the stored state and the ledger disagree; nothing paid"
            )


@dataclass(frozen=True, slots=True)
class Prepared:
    """A tournament ready to pay: its unpaid rows (the plan is stored)."""

    tournament_id: str
    currency: str
    unpaid: tuple[store.RefundRow, ...]
    refunded: bool  # nothing (left) to pay: now `refunded`


def prepare(engine: Engine, tournament_id: str, now_ms: int) -> Prepared:
    """Write the plan if there is none yet, check the pools, and list what is left to pay."""

    def work(conn: Connection) -> Prepared:
        record = store.load_tournament(conn, tournament_id)
        if record is None or record.status != store.CANCELLED:
            return Prepared(tournament_id, "", (), False)  # someone else finished it
        rows = store.load_refunds(conn, tournament_id)
        if not rows:
            missing = store.unpaid_keys(conn, tournament_id)
            if missing:
                raise RefundRefused(
                    f"{len(missing)} purchase(s) have no transfer in the ledger, e.g. "
                    f"{missing[0]}: the state says money was paid that the ledger never got"
                )
            staking = stake_store.load_staking(conn, tournament_id)
            planned = plan_rows(store.load_stopped(conn, tournament_id), staking)
            store.add_refunds(conn, tournament_id, planned.rows, now_ms)
            rows = store.load_refunds(conn, tournament_id)
        unpaid = tuple(r for r in rows if not r.paid)
        _check_pools(conn, tournament_id, record.currency, rows)
        if not unpaid:
            store.mark_refunded(conn, tournament_id, now_ms)
            return Prepared(tournament_id, record.currency, (), True)
        return Prepared(tournament_id, record.currency, unpaid, False)

    return in_transaction(engine, work)


@dataclass(frozen=True, slots=True)
class Batch:
    """What one batch did."""

    paid: tuple[tuple[store.RefundRow, Transfer], ...] = ()
    refused: tuple[tuple[store.RefundRow, str], ...] = ()
    refunded: bool = False


def _post(
    conn: Connection, tid: str, currency: str, row: store.RefundRow, careful: bool
) -> Transfer:
    """One component as one transfer; `careful`: under a savepoint, so a refusal undoes only it."""
    house_row = row.player == store.HOUSE_ROW
    kind = TransferKind.REFUND
    if house_row:
        kind = TransferKind.ROUNDING if row.component == ROUNDING else TransferKind.OVERLAY
    memo = f"T-18 refund: {row.component}" if not house_row else f"T-18 {row.component} to house"

    def post() -> Transfer:
        return transfer_on(
            conn,
            key=row.ledger_key,
            kind=kind,
            currency=currency,
            postings=[(row.source, -row.amount), *row.destinations],
            reference=f"tournament:{tid}",
            memo=memo,
        )

    if not careful:
        return post()
    for attempt in range(2):
        try:
            with conn.begin_nested():
                return post()
        except StaleIds:  # a cached account id went stale: read the ids again
            ledger_accounts.forget_cached_ids(conn.engine)
            if attempt:
                raise
    raise AssertionError("unreachable")


def _tickets_back(
    conn: Connection, tid: str, currency: str, row: store.RefundRow, now_ms: int
) -> None:
    """T-3, T-16: a ticket whose account this row made whole again goes back to its owner
    (usable at its buy-in level, its target being cancelled), or becomes T$ of buy-in plus fee
    when the cancelled tournament's rule says so; in the row's own transaction."""
    for account, _ in row.destinations:
        ref = AccountRef.parse(account)
        if ref.kind is not AccountKind.TICKET:
            continue
        ticket = store.load_ticket(conn, ref.owner)
        if ticket is None or ticket.state is not TicketState.USED or ticket.used_in != tid:
            continue
        if _balance(conn, account) < ticket.value:
            continue  # another row of this entry is still to come
        back = give_back(ticket, any_of_level=True)
        store.save_ticket(conn, back, (TicketState.USED,), now_ms)
        record = store.load_tournament(conn, tid)
        config = {} if record is None else dict(record.config)
        rule = OnCancel(config.get("cancelled_tickets", OnCancel.RETURN.value))
        if rule is OnCancel.CONVERT:
            key = f"ticket:{ticket.ticket_id}:cancelled"
            step = target_cancelled(back, rule, key)
            move = step.moves[0]
            transfer_on(
                conn,
                key=key,
                kind=TransferKind.REFUND,
                currency=currency,
                postings=[
                    (account_ref(move.source, currency), -move.amount),
                    (account_ref(move.destination, currency), move.amount),
                ],
                reference=f"tournament:{tid}",
                memo="T-16: a cancelled target's ticket as T$",
            )
            store.save_ticket(conn, step.ticket, (TicketState.RETURNED,), now_ms)


class _Refused(Exception):
    """A transfer of a batch paid without savepoints was refused: pay it again, carefully."""


def pay_batch(
    engine: Engine,
    tournament_id: str,
    currency: str,
    rows: Sequence[store.RefundRow],
    now_ms: int,
    last: bool = True,
) -> Batch:
    """Pay `rows`, each one transfer marked paid in this same transaction; `last` batch of the
    tournament and nothing left unpaid: the tournament becomes `refunded` in it too.

    A batch is first paid without savepoints (the usual case: nothing is refused); if the ledger
    refuses one transfer, or an account id went stale, the whole transaction rolls back and the
    batch is paid again with a savepoint per transfer, so that only the refused ones stay unpaid.
    """

    def work(conn: Connection, careful: bool) -> Batch:
        paid: list[tuple[store.RefundRow, Transfer]] = []
        refused: list[tuple[store.RefundRow, str]] = []
        for row in rows:
            try:
                made = _post(conn, tournament_id, currency, row, careful)
            except (LedgerError, StaleIds) as exc:
                if not careful:
                    raise _Refused() from exc
                if isinstance(exc, StaleIds):
                    raise
                message = f"{exc.code}: {exc}"
                store.mark_refund_refused(conn, tournament_id, row.player, row.component, message)
                refused.append((row, message))
                continue
            paid.append((row, made))
        marks = [(row.player, row.component, made.id) for row, made in paid]
        store.mark_refunds_paid(conn, tournament_id, marks, now_ms)
        record_paid(conn, tournament_id, [row for row, _ in paid], now_ms)  # T-17
        for row, _ in paid:
            _tickets_back(conn, tournament_id, currency, row, now_ms)
        refunded = False
        if last and store.unpaid_refunds(conn, tournament_id) == 0:
            refunded = store.mark_refunded(conn, tournament_id, now_ms)
        return Batch(tuple(paid), tuple(refused), refunded)

    try:
        return in_transaction(engine, partial(work, careful=False))
    except _Refused:
        ledger_accounts.forget_cached_ids(engine)
        return in_transaction(engine, partial(work, careful=True))


# --------------------------------------------------------------------------- the job


@dataclass
class RefundsJob:
    """Pays the T-18 refunds of every cancelled tournament (see the module docstring)."""

    name: str = NAME
    batch: int | None = None  # components per transaction; None: the settings'

    def summary(self, result: JobResult) -> str:
        """The tournaments this run finished (their refunds all paid)."""
        return f"{len(result.tournaments)} tournament(s) finished"

    def steps(self, ctx: JobContext) -> Generator[Work, Any, None]:
        """Plan, pay in batches, mark refunded; one tournament's failure does not stop others."""
        size = self.batch or ctx.settings.batch
        result = ctx.result
        tournament_ids: tuple[str, ...] = yield due
        for tid in tournament_ids:
            try:
                ready: Prepared = yield partial(prepare, tournament_id=tid, now_ms=ctx.now_ms())
                pending = list(ready.unpaid)
                refused = 0
                for start in range(0, len(pending), size):
                    chunk = pending[start : start + size]
                    done: Batch = yield partial(
                        pay_batch,
                        tournament_id=tid,
                        currency=ready.currency,
                        rows=chunk,
                        now_ms=ctx.now_ms(),
                        last=start + size >= len(pending),
                    )
                    for row, made in done.paid:
                        if not made.replayed:
                            result.transfers += 1
                            if row.player != store.HOUSE_ROW:
                                result.paid(ready.currency, row.amount)
                    refused += len(done.refused)
                    for row, message in done.refused:
                        result.errors.append((f"{tid}/{row.player}/{row.component}", message))
                    ctx.say(f"{tid}: paid {start + len(chunk) - refused} of {len(pending)}")
                    if done.refunded:
                        ready = Prepared(tid, ready.currency, (), True)
                if ready.refunded:
                    result.tournaments.append(tid)
                    ctx.say(f"{tid}: refunded")
            except (store.StoreError, RefundRefused, LedgerError, ValueError) as exc:
                result.errors.append((tid, f"{type(exc).__name__}: {exc}"))
                ctx.say(f"{tid}: not refunded: {exc}")


# --------------------------------------------------------------------------- dry run


@dataclass(frozen=True, slots=True)
class Preview:
    """One due tournament as a dry run sees it: its rows (stored or computed) or why not."""

    tournament_id: str
    currency: str = ""
    reason: str = ""
    phase: str = ""
    rows: tuple[store.RefundRow, ...] = ()
    stored: bool = False  # the plan was already written by an earlier run
    error: str | None = None
    pools: Mapping[str, int] = field(default_factory=dict)


def preview(engine: Engine) -> tuple[Preview, ...]:
    """What a run would pay now, moving and writing nothing."""

    def one(conn: Connection, tid: str) -> Preview:
        record = store.load_tournament(conn, tid)
        assert record is not None
        reason = record.cancel_reason or ""
        try:
            stopped = store.load_stopped(conn, tid)
            phase = stopped.state.phase.value
            rows = store.load_refunds(conn, tid)
            stored = bool(rows)
            if not stored:
                rows = plan_rows(stopped, stake_store.load_staking(conn, tid)).rows
            missing = () if stored else store.unpaid_keys(conn, tid)
            if missing:
                raise RefundRefused(f"{len(missing)} purchase(s) have no transfer in the ledger")
            _check_pools(conn, tid, record.currency, rows)
        except (store.StoreError, RefundRefused, ValueError) as exc:
            return Preview(tid, record.currency, reason, error=f"{type(exc).__name__}: {exc}")
        return Preview(tid, record.currency, reason, phase, rows, stored)

    def work(conn: Connection) -> tuple[Preview, ...]:
        ids = store.tournaments_with_status(conn, store.CANCELLED)
        return tuple(one(conn, tid) for tid in ids)

    return read(engine, work)
