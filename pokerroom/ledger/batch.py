"""Group commit: many keyed transfers (hand settlements) in one transaction, each answered alone.

The ledger service queues settlements (`LedgerService.settle`) and hands what waits, up to
`batch_max_hands`, to one writer at a time; `write_batch` runs in that writer's thread:

1. every account named by reference is resolved at once (new ones are opened, as `transfer`
   opens them);
2. in ONE transaction: the journal entries are inserted in one statement with
   `ON CONFLICT (idempotency_key) DO NOTHING RETURNING`; a key already stored is a replay,
   answered with the stored transfer (`replayed`), or `idempotency_conflict` when its content
   differs, exactly as `transfer` answers. The accounts of the new entries are locked in id
   order (`FOR UPDATE` on PostgreSQL; on SQLite `BEGIN IMMEDIATE` already holds the write
   lock); the new transfers are applied one after another in memory, in arrival order, each
   with its funds check; every posting is inserted in one statement and each account's
   balance is set once, in id order. Then each new transfer's `also` work runs on the same
   connection (the rest of its unit: a hand's status and history);
3. commit; only then are the answers handed back (persist, then tell).

A transfer refused by the balances or its accounts (insufficient funds, unknown account,
currency mismatch) is taken out and the rest written again: it fails alone, with its own
error. Any other failure of a group that is not an outage (a constraint its `also` work
breaks, a bug) splits the group in two halves, each written in its own transaction, down to
the one transfer that fails. An outage (`faults.is_transient`) is raised to the service,
which tries the batch again until its deadline; transfers answered by an earlier commit keep
their answers and are not written again.

An item may also be work alone, with no transfer (`Pending(None, work)`: a tournament's hand
records, `LedgerService.commit_in_batch`): it runs after the transfers, in the same
transaction, is answered with what it returned (`Worked`), and fails alone as a transfer does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy.engine import Connection, Engine

import pokerroom.ledger.accounts as acc
from pokerroom.ledger.db import DriverCursor, in_transaction
from pokerroom.ledger.errors import (
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    LedgerError,
    UnknownAccount,
)
from pokerroom.ledger.faults import is_transient
from pokerroom.ledger.kinds import NEGATIVE_ALLOWED, AccountRef
from pokerroom.ledger.posting import Entry, StaleIds
from pokerroom.ledger.transfers import (
    Posting,
    Request,
    StoredTransfer,
    Transfer,
    refs_of,
    seal_request,
    stored_by_keys,
)

#: Kinds of account that may go below zero (the funds check skips them).
_NEGATIVE_OK = frozenset(kind.value for kind in NEGATIVE_ALLOWED)
#: How many times cached account ids found stale are re-read before giving up.
STALE_ATTEMPTS = 3
#: SQLite binds at most 32,766 values per statement: journal rows (6 values) and account ids
#: go in chunks well below it (one statement for any batch of the default size).
SQLITE_ROWS = 1_000
SQLITE_IDS = 10_000

Also = Callable[[Connection], None]


@dataclass(frozen=True, slots=True)
class Worked:
    """The answer of an item that is work alone: what its work returned, once committed."""

    value: Any


@dataclass(eq=False, slots=True)
class Pending:
    """One queued transfer: the checked request, its extra work, and its answer once known."""

    request: Request | None  # None: work alone (`also`, answered with `Worked`), no transfer
    also: Callable[[Connection], Any] | None = None  # run in the same transaction when new
    entry: Entry | None = None  # the request with its accounts resolved to ids
    outcome: Transfer | Worked | Exception | None = None  # set only once committed (or refused)


@dataclass(frozen=True, slots=True)
class _Account:
    kind: str
    owner: str
    currency: str
    balance: int

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.owner}:{self.currency}"


class _Refused(Exception):
    """Transfers of the group refused by balances or accounts; the transaction rolls back."""

    def __init__(self, refused: Mapping[Pending, LedgerError]) -> None:
        super().__init__(f"{len(refused)} transfers refused")
        self.refused = refused


def write_batch(engine: Engine, items: Sequence[Pending]) -> None:
    """Write every unanswered item, committing as few transactions as the failures allow.

    Each item's `outcome` is set once its transaction has committed (a Transfer) or once it is
    refused (its LedgerError, or the error that made it fail alone). Raises only an outage, for
    the caller to retry; items answered before it keep their answers.
    """
    for _ in range(STALE_ATTEMPTS):
        todo = [item for item in items if item.outcome is None]
        _resolve(engine, todo)
        try:
            _write_group(engine, [item for item in todo if item.outcome is None])
            return
        except StaleIds:  # an account id cached for another database's account
            acc.forget_cached_ids(engine)
            for item in items:
                item.entry = None
    raise RuntimeError(f"account ids stayed stale after {STALE_ATTEMPTS} attempts")


def _resolve(engine: Engine, todo: list[Pending]) -> None:
    """Resolve every ref of `todo` at once; an item whose accounts are unusable is answered."""
    wanted = [(i, i.request) for i in todo if i.entry is None and i.request is not None]
    if not wanted:
        return
    refs = [ref for _, request in wanted for ref in refs_of(request)]
    ids: dict[AccountRef, int] = acc.resolve_refs(engine, refs) if refs else {}
    for item, request in wanted:
        try:
            item.entry = seal_request(request, ids)
        except LedgerError as exc:
            item.outcome = exc


def _write_group(engine: Engine, group: list[Pending]) -> None:
    """Write `group` in one transaction; refused items are answered and the rest written again;
    a group that fails otherwise is split in two halves (an outage or stale ids is raised)."""
    while True:
        live = [item for item in group if item.outcome is None]
        if not live:
            return
        try:
            answers = in_transaction(engine, partial(_apply, group=live))
        except _Refused as refusal:
            for item, error in refusal.refused.items():
                item.outcome = error
            continue
        except StaleIds:
            raise
        except Exception as exc:
            if is_transient(exc):
                raise
            if len(live) == 1:
                live[0].outcome = exc  # the one transfer that fails, with its own error
                return
            half = len(live) // 2
            _write_group(engine, live[:half])
            _write_group(engine, live[half:])
            return
        for item, answer in answers.items():
            item.outcome = answer
        return


def _apply(conn: Connection, group: list[Pending]) -> dict[Pending, Transfer | Worked | Exception]:
    """Write the group in the open transaction; the answer of each item (none is kept on it)."""
    leads: dict[str, Pending] = {}
    followers: list[Pending] = []
    works = [item for item in group if item.request is None]  # work alone, run last
    for item in group:
        if item.request is None:
            continue
        key = _entry(item).key
        if leads.setdefault(key, item) is not item:
            followers.append(item)  # the same key again in this group: answered as a replay
    inserted = _insert_journal(conn, list(leads.values())) if leads else {}
    answers: dict[Pending, Transfer | Worked | Exception] = {}
    under_key: dict[str, StoredTransfer] = {}
    stored_keys = [key for key in leads if key not in inserted]
    if stored_keys:
        stored = stored_by_keys(conn, stored_keys)
        for key in stored_keys:
            first = stored.get(key)
            if first is None:
                raise RuntimeError(f"key {key!r} was neither inserted nor found")
            under_key[key] = first
            answers[leads[key]] = _replay_or_conflict(first, _entry(leads[key]))
    new = [item for key, item in leads.items() if key in inserted]
    if new:
        written = _post(conn, new, inserted)
        for item, transfer in written.items():
            answers[item] = transfer
            under_key[transfer.key] = StoredTransfer(transfer, _entry(item).content_hash)
        for item in new:
            if item.also is not None:
                item.also(conn)
    for item in followers:
        answers[item] = _replay_or_conflict(under_key[_entry(item).key], _entry(item))
    for item in works:
        answers[item] = Worked(item.also(conn) if item.also is not None else None)
    return answers


def _entry(item: Pending) -> Entry:
    assert item.entry is not None, "items are resolved before they are written"
    return item.entry


def _replay_or_conflict(first: StoredTransfer, entry: Entry) -> Transfer | Exception:
    """What `transfer` answers for a key already used: the first transfer, or a conflict."""
    if first.content_hash != entry.content_hash:
        return IdempotencyConflict(
            f"key {entry.key!r} was used for transfer {first.transfer.id} with different content"
        )
    return first.replay()


def _cursor(conn: Connection) -> DriverCursor:
    """A cursor of the driver's own connection: the batch's few statements skip SQLAlchemy's
    per-statement work (the transaction, its events and its commit stay SQLAlchemy's; its
    errors are SQLAlchemy's, so that an outage is still told from a refusal)."""
    return DriverCursor(conn)


def _insert_journal(conn: Connection, items: list[Pending]) -> dict[str, int]:
    """Insert the journal entries whose keys are new, in one statement; {key: id} of those."""
    rows = [
        (e.key, e.kind, e.currency, e.reference, e.memo, e.content_hash) for e in map(_entry, items)
    ]
    cursor = _cursor(conn)
    if conn.dialect.name == "postgresql":
        columns = [list(column) for column in zip(*rows, strict=True)]
        cursor.execute(
            "INSERT INTO journal (idempotency_key, kind, currency, reference, memo, content_hash)"
            " SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::text[], %b::text[],"
            " %b::text[]) ON CONFLICT (idempotency_key) DO NOTHING"
            " RETURNING id, idempotency_key",
            columns,
        )
        return {key: journal_id for journal_id, key in cursor.fetchall()}
    inserted: dict[str, int] = {}
    for start in range(0, len(rows), SQLITE_ROWS):  # one statement up to SQLite's bind limit
        chunk = rows[start : start + SQLITE_ROWS]
        cursor.execute(
            "INSERT INTO journal (idempotency_key, kind, currency, reference, memo, content_hash)"
            f" VALUES {', '.join(['(?, ?, ?, ?, ?, ?)'] * len(chunk))}"
            " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, idempotency_key",
            [value for row in chunk for value in row],
        )
        inserted.update((key, journal_id) for journal_id, key in cursor.fetchall())
    return inserted


def _lock_accounts(conn: Connection, ids: list[int]) -> dict[int, _Account]:
    """The accounts `ids` (sorted), locked in id order on PostgreSQL."""
    cursor = _cursor(conn)
    if conn.dialect.name == "postgresql":
        cursor.execute(
            "SELECT id, kind, owner, currency, balance FROM accounts"
            " WHERE id = ANY(%b::int[]) ORDER BY id FOR UPDATE",
            (ids,),
        )
        rows = cursor.fetchall()
    else:
        rows = []
        for start in range(0, len(ids), SQLITE_IDS):
            chunk = ids[start : start + SQLITE_IDS]
            cursor.execute(
                "SELECT id, kind, owner, currency, balance FROM accounts"
                f" WHERE id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            rows += cursor.fetchall()
    return {row[0]: _Account(row[1], row[2], row[3], row[4]) for row in rows}


def _post(
    conn: Connection, new: list[Pending], journal_ids: Mapping[str, int]
) -> dict[Pending, Transfer]:
    """Apply the new transfers in order with their funds checks; postings and balances written
    in one statement each. Raises _Refused naming every transfer that cannot be applied."""
    ids = sorted({account_id for item in new for account_id, _ in _entry(item).lines})
    found = _lock_accounts(conn, ids)
    for item in new:
        for account_id, ref in _entry(item).refs.items():
            row = found.get(account_id)
            if row is None or (row.kind, row.owner) != (ref.kind.value, ref.owner):
                raise StaleIds()
    balances = {account_id: row.balance for account_id, row in found.items()}
    refused: dict[Pending, LedgerError] = {}
    applied: dict[Pending, list[tuple[int, str, int, int]]] = {}
    for item in new:
        entry = _entry(item)
        lines, error = _apply_one(entry, found, balances)
        if error is not None:
            refused[item] = error
            continue
        for account_id, _, _, after in lines:
            balances[account_id] = after
        applied[item] = lines
    if refused:
        raise _Refused(refused)
    posting_rows = [
        (journal_ids[_entry(item).key], account_id, amount, after)
        for item, lines in applied.items()
        for account_id, _, amount, after in lines
    ]
    changed = [(a, balances[a]) for a in ids if balances[a] != found[a].balance]
    _insert_postings(conn, posting_rows)
    _set_balances(conn, changed)
    written = {}
    for item, lines in applied.items():
        e = _entry(item)
        postings = tuple(Posting(*line) for line in lines)
        written[item] = Transfer(
            journal_ids[e.key], e.key, e.kind, e.currency, e.reference, e.memo, None, postings
        )
    return written


def _apply_one(
    entry: Entry, found: Mapping[int, _Account], balances: Mapping[int, int]
) -> tuple[list[tuple[int, str, int, int]], LedgerError | None]:
    """The lines (id, name, amount, balance after) of one transfer, or why it is refused."""
    for account_id, _ in entry.lines:
        row = found.get(account_id)
        if row is None:
            return [], UnknownAccount(f"no account {account_id}")
        if row.currency != entry.currency:
            return [], CurrencyMismatch(f"account {row.name} is not in {entry.currency}")
    lines = []
    for account_id, amount in entry.lines:
        row = found[account_id]
        before = balances[account_id]
        if before + amount < 0 and row.kind not in _NEGATIVE_OK:
            message = f"{row.name} holds {before}, needs {-amount}"
            return [], InsufficientFunds(message, row.name, before, -amount)
        lines.append((account_id, row.name, amount, before + amount))
    return lines, None


def _insert_postings(conn: Connection, rows: list[tuple[int, int, int, int]]) -> None:
    """Every posting of the batch: one statement."""
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        columns = [list(column) for column in zip(*rows, strict=True)]
        _cursor(conn).execute(
            "INSERT INTO postings (journal_id, account_id, amount, balance_after)"
            " SELECT * FROM unnest(%b::bigint[], %b::int[], %b::bigint[], %b::bigint[])",
            columns,
        )
        return
    _cursor(conn).executemany(
        "INSERT INTO postings (journal_id, account_id, amount, balance_after) VALUES (?, ?, ?, ?)",
        rows,
    )


def _set_balances(conn: Connection, rows: list[tuple[int, int]]) -> None:
    """Each changed account's new balance, once, in id order (rows come sorted by id)."""
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        ids, values = [list(column) for column in zip(*rows, strict=True)]
        _cursor(conn).execute(
            "UPDATE accounts AS a SET balance = v.balance"
            " FROM unnest(%b::int[], %b::bigint[]) AS v(id, balance) WHERE a.id = v.id",
            (ids, values),
        )
        return
    _cursor(conn).executemany(
        "UPDATE accounts SET balance = ? WHERE id = ?", [(b, a) for a, b in rows]
    )
