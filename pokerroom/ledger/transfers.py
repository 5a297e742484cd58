"""Transfers: balanced journal entries with idempotency keys, and reversing corrections (P-2)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

import pokerroom.ledger.accounts as acc
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.errors import (
    AlreadyReversed,
    CurrencyMismatch,
    IdempotencyConflict,
    InvalidAmount,
    InvalidKey,
    InvalidPostings,
    InvalidReference,
    Unbalanced,
    UnknownTransfer,
)
from pokerroom.ledger.kinds import (
    AccountRef,
    TransferKind,
    check_currency,
    transfer_kind,
)
from pokerroom.ledger.posting import Entry as _Draft
from pokerroom.ledger.posting import StaleIds, write_entry
from pokerroom.ledger.schema import accounts, journal, postings

MAX_AMOUNT = 10**15  # minor units; far above any real movement, far below 2**63
MAX_POSTINGS = 500
MAX_KEY = 200
MAX_REFERENCE = 200
MAX_MEMO = 500

PostingsIn = Mapping[acc.AccountLike, int] | Iterable[tuple[acc.AccountLike, int]]


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of a transfer: the account, the signed amount, and the balance after it."""

    account_id: int
    account: str
    amount: int
    balance_after: int


@dataclass(frozen=True, slots=True)
class Transfer:
    """A recorded transfer; `replayed` is True when an earlier call with the same key made it."""

    id: int
    key: str
    kind: str
    currency: str
    reference: str
    memo: str
    reverses_id: int | None
    postings: tuple[Posting, ...]
    replayed: bool = False


def check_amount(amount: object, *, positive: bool = False) -> int:
    """Return `amount` if it is a non-zero `int` (not bool) within bounds, else `invalid_amount`."""
    if type(amount) is not int:
        raise InvalidAmount(f"amount must be an int of minor units, got {amount!r}")
    if amount == 0 or abs(amount) > MAX_AMOUNT or (positive and amount < 0):
        raise InvalidAmount(f"amount {amount} is zero, negative or out of range")
    return amount


def _check_text(value: object, limit: int, what: str, *, required: bool = False) -> str:
    error = InvalidKey if what == "key" else InvalidReference
    if not isinstance(value, str) or len(value) > limit or (required and not value):
        raise error(f"bad {what} {value!r}")
    return value


def _lines(postings_in: PostingsIn) -> list[tuple[AccountRef | int, int]]:
    items = postings_in.items() if isinstance(postings_in, Mapping) else postings_in
    lines = []
    try:
        pairs = [(account, amount) for account, amount in items]
    except (TypeError, ValueError):
        raise InvalidPostings("postings must be (account, amount) pairs or a mapping") from None
    for account, amount in pairs:
        lines.append((acc.parse_account(account), check_amount(amount)))
    if len(lines) < 2 or len(lines) > MAX_POSTINGS:
        raise InvalidPostings(f"a transfer needs 2 to {MAX_POSTINGS} postings, got {len(lines)}")
    total = sum(amount for _, amount in lines)
    if total != 0:
        raise Unbalanced(f"postings sum to {total}, not zero")
    return lines


#: What a transfer's content hash covers: strings, ints, None, and tuples of them.
HashField = str | int | None | tuple["HashField", ...]


def _content_hash(fields: tuple[HashField, ...]) -> str:
    """sha256 of ascii() of a tuple of str, int and None: the same on every Python version."""
    return hashlib.sha256(ascii(fields).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Request:
    """A transfer checked for everything that needs no database; accounts not yet resolved."""

    key: str
    kind: str
    currency: str
    reference: str
    memo: str
    reverses_id: int | None
    lines: tuple[tuple[AccountRef | int, int], ...]


def check_request(
    *,
    key: str,
    kind: TransferKind | str,
    currency: str,
    postings_in: PostingsIn,
    reference: str = "",
    memo: str = "",
    reverses_id: int | None = None,
) -> Request:
    """Validate everything that needs no database (raises the LedgerError of the first fault)."""
    _check_text(key, MAX_KEY, "key", required=True)
    kind = transfer_kind(kind).value
    check_currency(currency)
    _check_text(reference, MAX_REFERENCE, "reference")
    _check_text(memo, MAX_MEMO, "memo")
    lines = _lines(postings_in)
    for account, _ in lines:
        if isinstance(account, AccountRef) and account.currency != currency:
            raise CurrencyMismatch(f"account {account} is not in {currency}")
    return Request(key, kind, currency, reference, memo, reverses_id, tuple(lines))


def refs_of(request: Request) -> list[AccountRef]:
    """The accounts a request names by reference (to resolve to ids)."""
    return [a for a, _ in request.lines if isinstance(a, AccountRef)]


def seal_request(request: Request, ids: Mapping[AccountRef, int]) -> _Draft:
    """The draft of a checked request once its refs are resolved to ids."""
    r = request
    id_lines = tuple((ids[a] if isinstance(a, AccountRef) else a, amt) for a, amt in r.lines)
    if len({a for a, _ in id_lines}) != len(id_lines):
        raise InvalidPostings("a transfer names the same account twice")
    by_id = {ids[ref]: ref for ref in refs_of(r)}
    return _seal(r.key, r.kind, r.currency, r.reference, r.memo, r.reverses_id, id_lines, by_id)


def _draft(
    engine: Engine | Connection,
    *,
    key: str,
    kind: TransferKind | str,
    currency: str,
    postings_in: PostingsIn,
    reference: str,
    memo: str,
    reverses_id: int | None = None,
) -> _Draft:
    """Validate everything that needs no database, then resolve refs to ids."""
    request = check_request(
        key=key,
        kind=kind,
        currency=currency,
        postings_in=postings_in,
        reference=reference,
        memo=memo,
        reverses_id=reverses_id,
    )
    refs = refs_of(request)
    ids: dict[AccountRef, int] = {}
    if refs:
        if isinstance(engine, Connection):  # the caller's transaction (transfer_on)
            ids = acc.resolve_refs_on(engine, refs)
        else:
            ids = acc.resolve_refs(engine, refs)
    return seal_request(request, ids)


def _seal(
    key: str,
    kind: str,
    currency: str,
    reference: str,
    memo: str,
    reverses_id: int | None,
    lines: tuple[tuple[int, int], ...],
    refs: Mapping[int, AccountRef],
) -> _Draft:
    """Build the draft and its content hash: what 'same content' means for a repeated key."""
    # The content a repeated key must match; the order of postings does not matter.
    digest = _content_hash((kind, currency, reference, memo, reverses_id, tuple(sorted(lines))))
    return _Draft(key, kind, currency, reference, memo, reverses_id, lines, refs, digest)


def _write(conn: Connection, draft: _Draft) -> Transfer:
    """Write the entry in the open transaction and describe what it did."""
    journal_id, lines = write_entry(conn, draft)
    d = draft
    return Transfer(
        journal_id,
        d.key,
        d.kind,
        d.currency,
        d.reference,
        d.memo,
        d.reverses_id,
        tuple(Posting(*line) for line in lines),
    )


def _post(engine: Engine, draft: _Draft, attempts: int = 5) -> Transfer:
    """Write the draft; on a duplicate key, return the first result or raise a conflict."""
    for attempt in range(attempts):
        try:
            return in_transaction(engine, partial(_write, draft=draft))
        except StaleIds:
            acc.forget_cached_ids(engine)
            draft = _redraft(engine, draft)
        except sa.exc.IntegrityError:
            first = get_transfer(engine, key=draft.key)
            if first is not None:
                if first.content_hash != draft.content_hash:
                    raise IdempotencyConflict(
                        f"key {draft.key!r} was used for transfer {first.transfer.id} "
                        "with different content"
                    ) from None
                return first.replay()
            if draft.reverses_id is not None and _reversal_of(engine, draft.reverses_id):
                raise AlreadyReversed(f"transfer {draft.reverses_id} is already reversed") from None
            if attempt + 1 >= attempts:
                raise
    raise RuntimeError(f"transfer {draft.key!r} did not settle after {attempts} attempts")


def _redraft(engine: Engine, draft: _Draft) -> _Draft:
    refs = acc.resolve_refs(engine, draft.refs.values())
    old_to_new = {old: refs[ref] for old, ref in draft.refs.items()}
    lines = tuple((old_to_new.get(a, a), amt) for a, amt in draft.lines)
    by_id = {refs[r]: r for r in draft.refs.values()}
    d = draft
    return _seal(d.key, d.kind, d.currency, d.reference, d.memo, d.reverses_id, lines, by_id)


def transfer(
    engine: Engine,
    *,
    key: str,
    kind: TransferKind | str,
    currency: str,
    postings: PostingsIn,
    reference: str = "",
    memo: str = "",
) -> Transfer:
    """Post one balanced transfer; the same key and content again returns the first result (P-2).

    `postings` maps accounts (AccountRef, id, or `kind:owner:currency`) to signed amounts:
    positive adds to the account, negative takes from it. Accounts named by reference
    are opened on first use; accounts named by id must exist.
    """
    draft = _draft(
        engine,
        key=key,
        kind=kind,
        currency=currency,
        postings_in=postings,
        reference=reference,
        memo=memo,
    )
    return _post(engine, draft)


def transfer_on(
    conn: Connection,
    *,
    key: str,
    kind: TransferKind | str,
    currency: str,
    postings: PostingsIn,
    reference: str = "",
    memo: str = "",
) -> Transfer:
    """Post one balanced transfer inside the caller's open transaction on `conn` (P-2).

    The caller owns the unit of work (docs/ARCHITECTURE.md rule 14): the transfer commits or
    rolls back with whatever else the caller writes on `conn`, and accounts it opens are opened
    there too. A key already used returns the first transfer (`replayed`) when the content is
    the same, else raises IdempotencyConflict. Two transactions racing on one new key: one
    fails with the database's IntegrityError and rolls back whole; run again, it is a replay.
    """
    draft = _draft(
        conn,
        key=key,
        kind=kind,
        currency=currency,
        postings_in=postings,
        reference=reference,
        memo=memo,
    )
    first = get_transfer(conn, key=key)
    if first is not None:
        if first.content_hash != draft.content_hash:
            raise IdempotencyConflict(
                f"key {key!r} was used for transfer {first.transfer.id} with different content"
            )
        return first.replay()
    return _write(conn, draft)


def move(
    engine: Engine,
    *,
    key: str,
    kind: TransferKind | str,
    currency: str,
    source: acc.AccountLike,
    destination: acc.AccountLike,
    amount: int,
    reference: str = "",
    memo: str = "",
) -> Transfer:
    """Move a positive `amount` from `source` to `destination` (a two-posting transfer)."""
    check_amount(amount, positive=True)
    return transfer(
        engine,
        key=key,
        kind=kind,
        currency=currency,
        reference=reference,
        memo=memo,
        postings=[(source, -amount), (destination, amount)],
    )


def reverse(engine: Engine, transfer_id: int, *, key: str, memo: str = "") -> Transfer:
    """Post a `correction` undoing transfer `transfer_id`; a transfer is reversed at most once."""
    original = get_transfer(engine, transfer_id=transfer_id)
    if original is None:
        raise UnknownTransfer(f"no transfer {transfer_id}")
    t = original.transfer
    draft = _draft(
        engine,
        key=key,
        kind=TransferKind.CORRECTION,
        currency=t.currency,
        postings_in=[(p.account_id, -p.amount) for p in t.postings],
        reference=t.reference,
        memo=memo,
        reverses_id=t.id,
    )
    return _post(engine, draft)


@dataclass(frozen=True, slots=True)
class StoredTransfer:
    """A transfer read back with its content hash."""

    transfer: Transfer
    content_hash: str

    def replay(self) -> Transfer:
        """The stored transfer, marked as the answer to a repeated key."""
        t = self.transfer
        return Transfer(
            t.id,
            t.key,
            t.kind,
            t.currency,
            t.reference,
            t.memo,
            t.reverses_id,
            t.postings,
            replayed=True,
        )


def get_transfer(
    bind: Engine | Connection, *, key: str | None = None, transfer_id: int | None = None
) -> StoredTransfer | None:
    """The transfer with this key or id, or None."""
    where = journal.c.idempotency_key == key if key is not None else journal.c.id == transfer_id

    def work(conn: Connection) -> StoredTransfer | None:
        row = conn.execute(sa.select(journal).where(where)).first()
        return None if row is None else _stored(conn, [row])[0]

    return read(bind, work)


def stored_by_keys(conn: Connection, keys: Collection[str]) -> dict[str, StoredTransfer]:
    """The stored transfers with these keys, by key, read in two statements (replays of a batch)."""
    if not keys:
        return {}
    rows = conn.execute(sa.select(journal).where(journal.c.idempotency_key.in_(list(keys)))).all()
    return {t.transfer.key: t for t in _stored(conn, rows)}


def _stored(conn: Connection, rows: Sequence[sa.Row[Any]]) -> list[StoredTransfer]:
    """The journal `rows` as stored transfers with their postings (one statement), in order."""
    if not rows:
        return []
    lines = conn.execute(
        sa.select(
            postings.c.journal_id,
            postings.c.account_id,
            postings.c.amount,
            postings.c.balance_after,
            accounts.c.kind,
            accounts.c.owner,
            accounts.c.currency,
        )
        .join(accounts, accounts.c.id == postings.c.account_id)
        .where(postings.c.journal_id.in_([row.id for row in rows]))
        .order_by(postings.c.id)
    ).all()
    by_entry: dict[int, list[Posting]] = {}
    for r in lines:
        name = f"{r.kind}:{r.owner}:{r.currency}"
        by_entry.setdefault(r.journal_id, []).append(
            Posting(r.account_id, name, r.amount, r.balance_after)
        )
    found = []
    for row in rows:
        t = Transfer(
            row.id,
            row.idempotency_key,
            row.kind,
            row.currency,
            row.reference,
            row.memo,
            row.reverses_id,
            tuple(by_entry.get(row.id, ())),
        )
        found.append(StoredTransfer(t, row.content_hash))
    return found


def _reversal_of(engine: Engine, transfer_id: int) -> bool:
    query = sa.select(journal.c.id).where(journal.c.reverses_id == transfer_id)
    return read(engine, lambda conn: conn.execute(query).first() is not None)
