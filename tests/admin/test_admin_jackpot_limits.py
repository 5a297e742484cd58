"""PB-11 over the admin endpoint: `casino_held_release` is limited per withdrawal
(`jackpot_withdraw_each_usd`, 10,000.00) and per calendar month (UTC) per player
(`jackpot_withdraw_month_usd`, 30,000.00), in the release's currency at `[casino.rates]`;
a refusal moves nothing and writes no audit row; the ledger balances (conservation); on SQLite
and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.admin.jackpot_limits import limits_in, month_bounds
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.store import wallet_balance
from pokerroom.casino import money
from pokerroom.ledger import make_engine, transfers, upgrade
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import external
from pokerroom.ledger.reports import balance, check_ledger
from tests.admin.rooms import admin_of, logged_in, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.postgres import fresh_pg_schema
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

EACH, MONTH = 1_000_000, 3_000_000  # the shipped limits in US cents
START = 10_000_000  # ann's held balance: 100,000.00


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The room's database at head: SQLite, then PostgreSQL (a fresh schema)."""
    if request.param == "sqlite":
        eng = make_engine(f"sqlite:///{tmp_path / 'room.sqlite'}")
        upgrade(eng)
        yield eng
        eng.dispose()
        return
    with fresh_pg_schema("jackpot_limits") as url:
        eng = make_engine(url)
        upgrade(eng)
        yield eng
        eng.dispose()


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A USD room with an admin; ann has 100,000.00 held and bob 20,000.00 (jackpot prizes)."""
    with staffed_room(reactor, clock, ledger, {"adm1": Role.ADMIN}, tables=["t1"]) as built:
        for player, amount in (("ann", START), ("bob", 2_000_000)):
            transfers.transfer(
                built.ledger.engine,
                key=f"setup:held:{player}",
                kind="casino_settlement",
                currency="USD",
                postings=[(external("USD", "house"), -amount), (money.held(player, "USD"), amount)],
            )
        yield built


def at(clock: Clock, y: int, mo: int, d: int, h: int, mi: int, s: int, ms: int) -> None:
    """Move the room's clock (forward) to this UTC time."""
    target = datetime(y, mo, d, h, mi, s, tzinfo=UTC).timestamp() + ms / 1000
    assert target >= clock.seconds()
    clock.advance(target - clock.seconds())


def release(room: Room, amount: int, key: str, player: str = "ann") -> dict[str, Any]:
    staff = logged_in(room, admin_of(room), "adm1")
    fields = {"player": player, "reason": "jackpot reviewed", "key": key}
    return staff.call("casino_held_release", amount=amount, **fields)


def money_of(room: Room, player: str = "ann") -> tuple[int, int]:
    engine = room.ledger.engine
    held = balance(engine, money.held(player, "USD")).balance
    return held, read(engine, lambda conn: wallet_balance(conn, player, "USD"))


def releases(room: Room) -> list[tuple[str, int]]:
    rows = read(room.ledger.engine, lambda conn: list(conn.execute(sa.select(audit))))
    return [(r.target, r.after["amount"]) for r in rows if r.action == "casino_held_release"]


def test_one_release_is_limited_and_exactly_the_limit_passes(room: Room, clock: Clock) -> None:
    at(clock, 2027, 3, 10, 12, 0, 0, 0)
    refused = release(room, EACH + 1, "over")
    assert refused["code"] == "above_withdrawal_limit", refused
    assert money_of(room) == (START, 0)
    assert releases(room) == []
    done = release(room, EACH, "at")
    assert done["type"] == "ok", done
    assert money_of(room) == (START - EACH, EACH)
    assert check_ledger(room.ledger.engine).ok


def test_the_month_sums_every_release_and_a_new_calendar_month_starts_again(
    room: Room, clock: Clock
) -> None:
    """Three releases at the limit fill May exactly (the first at its first ms, the last at
    its last ms); one cent more is refused that month and bob's releases do not count for
    ann; on 1 June (a rolling 30 days would still refuse) the limit is new."""
    at(clock, 2027, 5, 1, 0, 0, 0, 0)
    assert release(room, EACH, "j1")["type"] == "ok"
    at(clock, 2027, 5, 15, 9, 30, 0, 0)
    assert release(room, EACH, "j2")["type"] == "ok"
    assert release(room, 2_000_000, "bob1", player="bob")["code"] == "above_withdrawal_limit"
    assert release(room, EACH, "bob2", player="bob")["type"] == "ok"
    at(clock, 2027, 5, 31, 23, 59, 59, 999)
    assert release(room, EACH, "j3")["type"] == "ok"  # 30,000.00: exactly the month's limit
    refused = release(room, 1, "j4")
    assert refused["code"] == "above_monthly_limit", refused
    assert refused["details"]["released"] == MONTH
    assert money_of(room) == (START - MONTH, MONTH)
    again = release(room, EACH, "j3")  # P-2: a replay answers, limits or not
    assert again["type"] == "ok" and again["result"]["replayed"] is True
    at(clock, 2027, 6, 1, 0, 0, 0, 0)
    assert release(room, EACH, "f1")["type"] == "ok"
    assert release(room, EACH, "f2")["type"] == "ok"
    assert release(room, EACH + 0, "f3")["type"] == "ok"
    assert release(room, 1, "f4")["code"] == "above_monthly_limit"
    assert money_of(room) == (START - 2 * MONTH, 2 * MONTH)
    assert money_of(room, "bob") == (1_000_000, 1_000_000)
    assert [amount for who, amount in releases(room) if who == "ann"] == [EACH] * 6
    assert check_ledger(room.ledger.engine).ok
    total = sum(money_of(room)) + sum(money_of(room, "bob"))
    assert total == START + 2_000_000  # conservation: nothing made or lost


def test_limits_convert_from_usd_and_months_end_in_december() -> None:
    assert (limits_in("USD").each, limits_in("USD").month) == (EACH, MONTH)
    sgd = limits_in("SGD")  # "USD:SGD" = 1.35, rounded down
    assert (sgd.each, sgd.month, sgd.currency) == (1_350_000, 4_050_000, "SGD")
    december = int(datetime(2026, 12, 31, 23, 59, tzinfo=UTC).timestamp() * 1000)
    start, end = month_bounds(december)
    assert start == int(datetime(2026, 12, 1, tzinfo=UTC).timestamp() * 1000)
    assert end == int(datetime(2027, 1, 1, tzinfo=UTC).timestamp() * 1000)
