"""transfer_on: a transfer inside the caller's transaction (docs/ARCHITECTURE.md rule 14, P-2)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger import check_ledger, get_account, move
from pokerroom.ledger.errors import IdempotencyConflict, InsufficientFunds, UnknownAccount
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.schema import journal
from pokerroom.ledger.transfers import get_transfer, transfer_on

NOTES = sa.table("notes", sa.column("text", sa.String))


@pytest.fixture
def notes(engine: Engine) -> Engine:
    """A table of the caller's own, written in the same transaction as the transfer."""
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE notes (text VARCHAR(40))")
    return engine


def _pay(conn: sa.Connection, key: str, amount: int) -> int:
    return transfer_on(
        conn,
        key=key,
        kind="correction",
        currency="USD",
        postings=[(external("USD", "corrections"), -amount), (wallet("zed", "USD"), amount)],
    ).id


def test_commits_with_the_callers_own_rows(notes: Engine) -> None:
    """The transfer, a new account and the caller's row land together."""
    with notes.begin() as conn:
        _pay(conn, "c1", 500)
        conn.execute(sa.insert(NOTES).values(text="paid"))
    assert get_account(notes, wallet("zed", "USD")).balance == 500
    with notes.connect() as conn:
        assert conn.execute(sa.select(NOTES.c.text)).scalars().all() == ["paid"]
    assert check_ledger(notes).ok


def test_rolls_back_with_the_caller(notes: Engine) -> None:
    """The caller fails after the transfer: no journal row, no account, no balance (P-2)."""
    with pytest.raises(RuntimeError), notes.begin() as conn:
        _pay(conn, "c2", 700)
        conn.execute(sa.insert(NOTES).values(text="never"))
        raise RuntimeError("the caller's own step failed")
    assert get_transfer(notes, key="c2") is None
    with pytest.raises(UnknownAccount):  # opened inside the rolled-back transaction
        get_account(notes, wallet("zed", "USD"))
    with notes.begin() as conn:  # and the id cache holds nothing stale: it works again
        _pay(conn, "c2", 700)
    assert get_account(notes, wallet("zed", "USD")).balance == 700
    assert check_ledger(notes).ok


def test_same_key_replays_other_content_conflicts(engine: Engine) -> None:
    """P-2: the same key again moves nothing; the same key with another amount is refused."""
    with engine.begin() as conn:
        first = _pay(conn, "c3", 300)
    with engine.begin() as conn:
        again = transfer_on(
            conn,
            key="c3",
            kind="correction",
            currency="USD",
            postings=[(external("USD", "corrections"), -300), (wallet("zed", "USD"), 300)],
        )
    assert again.id == first and again.replayed
    with pytest.raises(IdempotencyConflict), engine.begin() as conn:
        _pay(conn, "c3", 301)
    assert get_account(engine, wallet("zed", "USD")).balance == 300
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(journal)).scalar() == 1


def test_insufficient_funds_refuses_and_changes_nothing(engine: Engine) -> None:
    """A wallet never goes below zero inside a caller's transaction either."""
    move(
        engine,
        key="fund",
        kind="deposit",
        currency="USD",
        source=external("USD"),
        destination=wallet("zed", "USD"),
        amount=100,
    )
    with pytest.raises(InsufficientFunds), engine.begin() as conn:
        _pay(conn, "c4", -101)
    assert get_account(engine, wallet("zed", "USD")).balance == 100
    assert get_transfer(engine, key="c4") is None
    assert check_ledger(engine).ok
