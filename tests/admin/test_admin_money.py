"""Wallet corrections and their four-eyes approval (docs/ADMIN.md, "Money"), in process on a
fake clock and a real SQLite ledger; the limit's check and write as one transaction on SQLite
and PostgreSQL (two corrections at once cannot both slip under it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.admin import money_store, store
from pokerroom.admin.audit import Actor, Audited, audited, write_audit
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.service import AdminService
from pokerroom.admin.staff import add_staff, disable_staff
from pokerroom.ledger import make_engine, upgrade
from pokerroom.ledger.db import in_transaction, read
from pokerroom.server.schema import players
from tests.admin.rooms import SETTINGS, Staff, admin_service, logged_in, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.postgres import fresh_pg_schema
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

HOUR_MS = 3_600_000
MONEY = replace(SETTINGS, correction_approval_above=10_000)


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A room with one USD table, three admins and a player `zoe`."""
    admins = dict.fromkeys(("adm1", "adm2", "adm3"), Role.ADMIN)
    with staffed_room(reactor, clock, ledger, admins, tables=["t1"]) as built:
        built.client().login("zoe")
        yield built


def service(room: Room, **settings: Any) -> AdminService:
    """An admin service over the room with the money settings (and any others given)."""
    return admin_service(room, replace(MONEY, **settings))


def correct(staff: Staff, amount: int, key: str, **extra: Any) -> dict[str, Any]:
    """A wallet correction of zoe's wallet; the whole answer frame."""
    return staff.call("wallet_correct", player="zoe", amount=amount, reason="fix", key=key, **extra)


def balance(room: Room, currency: str = "USD") -> int:
    """zoe's wallet."""
    return read(room.ledger.engine, lambda conn: store.wallet_balance(conn, "zoe", currency))


def test_split_corrections_by_one_admin_need_a_second_admin_past_the_limit(room: Room) -> None:
    """Five corrections of 10,000 with five keys: the first is made at once (the limit is
    reached, not passed), the other four wait for approval; debits count by their absolute
    value (a -1 right after does not 'make room'); the same key again answers its first
    result. A day later (the rolling window) one is made at once again."""
    admin = service(room)
    adm1 = logged_in(room, admin, "adm1")
    answers = [correct(adm1, 10_000, f"k{i}")["result"] for i in range(5)]
    assert [a["status"] for a in answers] == ["done"] + ["pending"] * 4
    assert balance(room) == 10_000
    assert correct(adm1, -1, "debit")["result"]["status"] == "pending"
    again = correct(adm1, 10_000, "k1")["result"]
    assert again == {**answers[1], "replayed": True, "audit_id": None}
    assert correct(adm1, 10_000, "k0")["result"]["replayed"] is True  # done stays done
    rows = read(room.ledger.engine, lambda conn: list(conn.execute(sa.select(audit))))
    actions = [r.action for r in rows if r.action != "staff_add"]
    assert actions == ["wallet_correct"] + ["wallet_correct_request"] * 5
    room.clock.advance(24 * 3600 - 1)  # (the idle connection is closed by now: a new one)
    adm1 = logged_in(room, admin, "adm1")
    assert correct(adm1, 1, "late")["result"]["status"] == "pending"  # still inside 24 h
    room.clock.advance(1)
    assert correct(adm1, 10_000, "next-day")["result"]["status"] == "done"
    assert balance(room) == 20_000


def test_the_limit_holds_across_admins_for_one_wallet(room: Room) -> None:
    """adm1 credits 6,000 and adm2 debits 4,001 at once: 10,001 in absolute value within the
    window, so adm2's waits for approval; another player's wallet is not affected."""
    admin = service(room)
    adm1, adm2 = logged_in(room, admin, "adm1"), logged_in(room, admin, "adm2")
    assert correct(adm1, 6_000, "a")["result"]["status"] == "done"
    assert correct(adm2, -4_001, "b")["result"]["status"] == "pending"
    assert correct(adm2, -4_000, "c")["result"]["status"] == "done"
    room.client().login("ann")
    other = adm2.call("wallet_correct", player="ann", amount=10_000, reason="fix", key="d")
    assert other["result"]["status"] == "done"


def test_a_correction_in_a_currency_the_room_does_not_use_is_refused(room: Room) -> None:
    """A USD room (its tables are USD): EUR is refused with unknown_currency and no wallet
    is opened; USD given explicitly is accepted."""
    adm1 = logged_in(room, service(room), "adm1")
    refused = correct(adm1, 100, "eur", currency="EUR")
    assert refused["code"] == "unknown_currency" and refused["details"]["currencies"] == ["USD"]
    wallets = store.player_record(room.ledger.engine, "zoe", 0)["wallets"]
    last = sa.select(audit).order_by(audit.c.id.desc())
    audited_rows = read(room.ledger.engine, lambda conn: conn.execute(last).first())
    assert "EUR" not in wallets and audited_rows.action == "staff_add"
    assert correct(adm1, 100, "usd", currency="USD")["result"]["status"] == "done"


def test_a_pending_approval_expires(room: Room) -> None:
    """approval_expire_hours (default 24): until then another admin may approve; after it the
    approval is refused with approval_expired and listed as expired."""
    admin = service(room)
    adm1, adm2 = logged_in(room, admin, "adm1"), logged_in(room, admin, "adm2")
    first = correct(adm1, 20_000, "one")["result"]["approval_id"]
    second = correct(adm1, 20_000, "two")["result"]["approval_id"]
    room.clock.advance(24 * 3600 - 1)  # (the idle connection is closed by now: a new one)
    adm2 = logged_in(room, admin, "adm2")
    assert adm2.call("approval_approve", approval_id=first)["result"]["status"] == "done"
    room.clock.advance(1)
    adm2 = logged_in(room, admin, "adm2")
    late = adm2.call("approval_approve", approval_id=second)
    assert late["code"] == "approval_expired"
    assert balance(room) == 20_000
    assert adm2.call("approval_list")["result"]["approvals"] == []
    expired = adm2.call("approval_list", status="expired")["result"]["approvals"]
    assert [(a["id"], a["status"]) for a in expired] == [(second, "expired")]


def test_approval_is_refused_when_the_requesting_admin_is_disabled(room: Room) -> None:
    """The admin who asked was disabled (or is no longer an admin): requester_disabled, and
    nothing moves; a disabled approver is refused as for any command."""
    admin = service(room)
    adm1, adm2 = logged_in(room, admin, "adm1"), logged_in(room, admin, "adm2")
    asked = correct(adm1, 20_000, "one")["result"]["approval_id"]
    by_three = correct(logged_in(room, admin, "adm3"), 20_000, "x")["result"]["approval_id"]
    disable_staff(room.ledger.engine, "adm1", 0)
    assert adm2.call("approval_approve", approval_id=asked)["code"] == "requester_disabled"
    with room.ledger.engine.begin() as conn:  # adm3 demoted to director
        conn.execute(sa.text("UPDATE staff SET role = 'director' WHERE name = 'adm3'"))
    assert adm2.call("approval_approve", approval_id=by_three)["code"] == "requester_disabled"
    assert balance(room) == 0


# ---------------------------------------------------------------- atomic on both databases


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A database at head with two admins and the player zoe."""

    def ready(url: str) -> Engine:
        engine = make_engine(url)
        upgrade(engine)
        for name in ("adm1", "adm2"):
            add_staff(engine, name, Role.ADMIN, "x", 0)
        with engine.begin() as conn:
            conn.execute(sa.insert(players).values(name="zoe", password_hash="x"))
        return engine

    if request.param == "sqlite":
        engine = ready(f"sqlite:///{tmp_path / 'money.sqlite'}")
        yield engine
        engine.dispose()
        return
    with fresh_pg_schema("admin_money") as url:
        engine = ready(url)
        yield engine
        engine.dispose()


def _correct_unit(engine: Engine, staff: str, key: str) -> Audited:
    return audited(
        engine,
        Actor(staff, "admin", Role.ADMIN),
        "wallet_correct",
        "zoe",
        "fix",
        1_000,
        money_store.correct_work,
        staff,
        key,
        "zoe",
        6_000,
        "USD",
        "fix",
        1_000,
        10_000,
        24 * HOUR_MS,
    )


def _blocked_on_a_lock(engine: Engine) -> bool:
    """PostgreSQL: another session of this database waits for a row lock."""
    query = sa.text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        " AND datname = current_database() AND pid <> pg_backend_pid()"
    )
    with engine.connect() as conn:
        return bool(conn.execute(query).scalar_one())


def test_two_corrections_at_once_cannot_both_slip_under_the_limit(db: Engine) -> None:
    """adm1's correction holds its transaction open; adm2's, sent meanwhile from another
    thread, waits for it (PostgreSQL: on the player's row; SQLite: on the write lock) and then
    sees it: 6,000 + 6,000 > 10,000, so the second waits for approval."""
    started = threading.Event()
    results: dict[str, Any] = {}

    def second() -> None:
        started.set()
        try:
            results["adm2"] = _correct_unit(db, "adm2", "b")
        except BaseException as exc:  # reported by the main thread
            results["adm2"] = exc

    with db.connect() as conn, conn.begin():
        first = money_store.correct_work(
            conn, "adm1", "a", "zoe", 6_000, "USD", "fix", 1_000, 10_000, 24 * HOUR_MS
        )
        write_audit(conn, Actor("adm1", "admin"), "wallet_correct", "zoe", None, first.after, "", 1)
        thread = threading.Thread(target=second)
        thread.start()
        assert started.wait(10)
        if db.dialect.name == "postgresql":  # the second is seen waiting on the player's row
            deadline = time.monotonic() + 20
            while not _blocked_on_a_lock(db):
                assert time.monotonic() < deadline and "adm2" not in results, results
                time.sleep(0.01)
        assert "adm2" not in results  # it cannot finish while the first is open
    thread.join(30)
    assert first.result["status"] == "done"
    got = results["adm2"]
    assert isinstance(got, Audited), got
    assert got.change.result["status"] == "pending"
    assert in_transaction(db, lambda c: store.wallet_balance(c, "zoe", "USD")) == 6_000
