"""Accounts: open (get or create), look up by id or identifier, and the id cache."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import NEGATIVE_ALLOWED, AccountKind, AccountRef, account_kind
from pokerroom.ledger.schema import accounts

#: Account identity never changes, so ref -> id is cached per engine. Every transfer
#: re-reads the rows it touches and checks them against the ref, so a stale entry
#: (a test that migrated down and up again) is detected and dropped.
_ID_CACHE: weakref.WeakKeyDictionary[Engine, dict[AccountRef, int]] = weakref.WeakKeyDictionary()

AccountLike = AccountRef | int | str


@dataclass(frozen=True, slots=True)
class Account:
    """An account as stored: identity and cached balance."""

    id: int
    kind: AccountKind
    owner: str
    currency: str
    balance: int

    @property
    def ref(self) -> AccountRef:
        """The account's `kind:owner:currency` reference."""
        return AccountRef(self.kind, self.owner, self.currency)

    @property
    def identifier(self) -> str:
        """The account as staff type it: `wallet:alice:USD`."""
        return f"{self.kind.value}:{self.owner}:{self.currency}"

    @property
    def may_go_negative(self) -> bool:
        """Only the external account may go below zero (it mirrors money that came in)."""
        return self.kind in NEGATIVE_ALLOWED


def parse_account(value: AccountLike) -> AccountRef | int:
    """Turn `42`, `"42"` or `"wallet:alice:USD"` into an id or an AccountRef."""
    if isinstance(value, AccountRef):
        return value
    if isinstance(value, bool):
        raise UnknownAccount(f"not an account: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value) if value.isdigit() else AccountRef.parse(value)
    raise UnknownAccount(f"not an account: {value!r}")


def _row_to_account(row: sa.Row[*tuple[Any, ...]]) -> Account:
    return Account(row.id, account_kind(row.kind), row.owner, row.currency, row.balance)


def _cache(engine: Engine) -> dict[AccountRef, int]:
    return _ID_CACHE.setdefault(engine, {})


def forget_cached_ids(engine: Engine) -> None:
    """Drop the engine's ref -> id cache."""
    _ID_CACHE.pop(engine, None)


def _select_by_refs(conn: Connection, refs: Iterable[AccountRef]) -> dict[AccountRef, int]:
    found: dict[AccountRef, int] = {}
    for ref in refs:
        row = conn.execute(
            sa.select(accounts.c.id).where(
                accounts.c.kind == ref.kind.value,
                accounts.c.owner == ref.owner,
                accounts.c.currency == ref.currency,
            )
        ).first()
        if row is not None:
            found[ref] = row.id
    return found


def resolve_refs(engine: Engine, refs: Iterable[AccountRef]) -> dict[AccountRef, int]:
    """Ids for `refs`, opening (with balance 0) the accounts that do not exist yet."""
    cache = _cache(engine)
    wanted = [ref for ref in dict.fromkeys(refs) if ref not in cache]
    if wanted:
        for ref, account_id in _open_many(engine, wanted).items():
            cache[ref] = account_id
    return {ref: cache[ref] for ref in refs}


def resolve_refs_on(conn: Connection, refs: Iterable[AccountRef]) -> dict[AccountRef, int]:
    """Ids for `refs` inside the caller's open transaction, opening missing accounts on `conn`.

    Ids of accounts that already existed are cached; those opened here are not, since the
    caller's transaction may still roll back.
    """
    cache = _cache(conn.engine)
    wanted = [ref for ref in dict.fromkeys(refs) if ref not in cache]
    found = _select_by_refs(conn, wanted) if wanted else {}
    cache.update(found)
    missing = [ref for ref in wanted if ref not in found]
    if missing:
        conn.execute(
            sa.insert(accounts),
            [{"kind": r.kind.value, "owner": r.owner, "currency": r.currency} for r in missing],
        )
        found.update(_select_by_refs(conn, missing))
    return {ref: cache[ref] if ref in cache else found[ref] for ref in refs}


def _open_many(engine: Engine, refs: list[AccountRef]) -> dict[AccountRef, int]:
    def work(conn: Connection) -> dict[AccountRef, int]:
        found = _select_by_refs(conn, refs)
        missing = [ref for ref in refs if ref not in found]
        if missing:
            conn.execute(
                sa.insert(accounts),
                [{"kind": r.kind.value, "owner": r.owner, "currency": r.currency} for r in missing],
            )
            found.update(_select_by_refs(conn, missing))
        return found

    for attempt in range(3):
        try:
            return in_transaction(engine, work)
        except sa.exc.IntegrityError:  # another writer opened one of them first
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def open_account(engine: Engine, kind: AccountKind | str, owner: str, currency: str) -> Account:
    """Get or create the account (kind, owner, currency); opening moves no money."""
    ref = AccountRef(account_kind(kind), owner, currency)
    account_id = resolve_refs(engine, [ref])[ref]
    return get_account(engine, account_id)


def get_account(bind: Engine | Connection, account: AccountLike) -> Account:
    """The account named by an id, an identifier or an AccountRef; `unknown_account` if none."""
    target = parse_account(account)
    query = sa.select(accounts)
    if isinstance(target, int):
        query = query.where(accounts.c.id == target)
    else:
        query = query.where(
            accounts.c.kind == target.kind.value,
            accounts.c.owner == target.owner,
            accounts.c.currency == target.currency,
        )
    row = read(bind, lambda conn: conn.execute(query).first())
    if row is None:
        raise UnknownAccount(f"no account {account}")
    return _row_to_account(row)


def list_accounts(bind: Engine | Connection) -> list[Account]:
    """Every account, by id."""
    query = sa.select(accounts).order_by(accounts.c.id)
    return read(bind, lambda conn: [_row_to_account(row) for row in conn.execute(query)])
