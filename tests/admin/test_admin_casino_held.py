"""K-13 staff review of large casino wins over the admin endpoint (docs/ADMIN.md):
`casino_held_list` shows what is held, `casino_held_release` moves a reviewed amount from the
player's held balance to the wallet in one keyed transfer with its audit row (P-2, L-1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from twisted.internet.task import Clock

from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.store import wallet_balance
from pokerroom.casino import money
from pokerroom.ledger import transfers
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import external
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.schema import journal
from tests.admin.rooms import admin_of, logged_in, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A USD room with an admin and a support member; ann has 5,000 held (a reviewed win)."""
    members = {"adm1": Role.ADMIN, "sup1": Role.SUPPORT}
    with staffed_room(reactor, clock, ledger, members, tables=["t1"]) as built:
        transfers.transfer(
            built.ledger.engine,
            key="setup:held",
            kind="casino_settlement",
            currency="USD",
            postings=[(external("USD", "house"), -5_000), (money.held("ann", "USD"), 5_000)],
        )
        yield built


def held(room: Room, player: str = "ann") -> int:
    return balance(room.ledger.engine, money.held(player, "USD")).balance


def wallet(room: Room, player: str = "ann") -> int:
    return read(room.ledger.engine, lambda conn: wallet_balance(conn, player, "USD"))


def release(room: Room, who: str, amount: int, key: str, **extra: object) -> dict:
    staff = logged_in(room, admin_of(room), who)
    fields = {"player": "ann", "reason": "reviewed", "key": key} | extra
    return staff.call("casino_held_release", amount=amount, **fields)


def test_the_list_shows_every_held_balance(room: Room) -> None:
    sup1 = logged_in(room, admin_of(room), "sup1")
    assert sup1.call("casino_held_list")["result"] == {
        "held": [{"player": "ann", "currency": "USD", "amount": 5_000}]
    }


def test_release_moves_held_to_the_wallet_once_per_key(room: Room) -> None:
    """K-13: part, then the rest; a replay answers the first result and moves nothing; the
    audit row names the player and the amount; the ledger balances (conservation)."""
    first = release(room, "adm1", 2_000, "r1")
    assert first["type"] == "ok", first
    result = first["result"]
    assert (result["held"], result["wallet"], result["replayed"]) == (3_000, 2_000, False)
    assert (held(room), wallet(room)) == (3_000, 2_000)
    again = release(room, "adm1", 2_000, "r1")["result"]
    assert again == {**result, "audit_id": None, "replayed": True}
    assert (held(room), wallet(room)) == (3_000, 2_000)
    assert release(room, "adm1", 1_000, "r1")["code"] == "idempotency_conflict"
    assert release(room, "adm1", 3_000, "r2")["result"]["held"] == 0
    assert (held(room), wallet(room)) == (0, 5_000)
    kinds = read(
        room.ledger.engine,
        lambda conn: conn.execute(
            sa.select(journal.c.kind).where(journal.c.idempotency_key.like("staff:held:%"))
        ).all(),
    )
    assert [k.kind for k in kinds] == ["casino_release", "casino_release"]
    rows = read(room.ledger.engine, lambda conn: list(conn.execute(sa.select(audit))))
    released = [r for r in rows if r.action == "casino_held_release"]
    assert [(r.target, r.staff, r.after["amount"]) for r in released] == [
        ("ann", "adm1", 2_000), ("ann", "adm1", 3_000),
    ]  # fmt: skip
    assert released[0].before["balance"] == 5_000 and released[0].after["balance"] == 3_000
    assert check_ledger(room.ledger.engine).ok


def test_more_than_is_held_and_below_admin_are_refused_and_move_nothing(room: Room) -> None:
    assert release(room, "adm1", 5_001, "big")["code"] == "insufficient_funds"
    assert release(room, "sup1", 100, "sup")["code"] == "forbidden"
    assert release(room, "adm1", 100, "eur", currency="EUR")["code"] == "unknown_currency"
    assert release(room, "adm1", 0, "zero")["code"] == "invalid_amount"
    assert (held(room), wallet(room)) == (5_000, 0)
    rows = read(room.ledger.engine, lambda conn: list(conn.execute(sa.select(audit))))
    assert not [r for r in rows if r.action == "casino_held_release"]
