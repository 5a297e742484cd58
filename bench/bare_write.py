"""The benches' baseline write: one transfer as one bare transaction (INSERT journal RETURNING
id, INSERT the postings, UPDATE the balances), prebuilt statements and no checks."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger.schema import accounts, journal, postings

INSERT_ENTRY = sa.insert(journal).returning(journal.c.id)
INSERT_POSTINGS = sa.insert(postings)
ADD_TO_BALANCE = (
    sa.update(accounts)
    .where(accounts.c.id == sa.bindparam("b_id"))
    .values(balance=accounts.c.balance + sa.bindparam("b_delta"))
)


def bare_transfer(engine: Engine, key: str, currency: str, lines: list[tuple[int, int]]) -> None:
    """Write one `hand_settlement` entry of `lines` (account id, amount) in one transaction."""
    with engine.begin() as conn:
        entry = {
            "idempotency_key": key,
            "kind": "hand_settlement",
            "currency": currency,
            "reference": "bench",
            "memo": "",
            "content_hash": "0" * 64,
        }
        jid = conn.execute(INSERT_ENTRY, entry).scalar_one()
        conn.execute(
            INSERT_POSTINGS,
            [
                {"journal_id": jid, "account_id": a, "amount": amt, "balance_after": 0}
                for a, amt in lines
            ],
        )
        conn.execute(ADD_TO_BALANCE, [{"b_id": a, "b_delta": amt} for a, amt in lines])
