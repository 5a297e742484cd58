"""Funding the house's accounts (docs/ADMIN.md, "Money"; docs/LEDGER.md): `house_fund`,
`house_withdraw` and `house_balances` over the admin endpoint on a fake clock, their unit of
work with its audit row in one transaction on SQLite and PostgreSQL, and a casino round in a
room funded by the command that pays a win instead of voiding (K-7, L-3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.admin import audit as audit_module
from pokerroom.admin import house_store
from pokerroom.admin.audit import Actor, Audited, audited
from pokerroom.admin.commands import COMMANDS
from pokerroom.admin.context import Context
from pokerroom.admin.money_handlers import HouseMoveArgs, house_fund
from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.staff import add_staff
from pokerroom.admin.store import account_balance
from pokerroom.casino import events as ev
from pokerroom.casino import money
from pokerroom.cli.admin_house_cmds import FUNDABLE
from pokerroom.ledger import make_engine, upgrade
from pokerroom.ledger.db import read
from pokerroom.ledger.errors import InsufficientFunds
from pokerroom.ledger.kinds import HOUSE, AccountKind, wallet
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.schema import journal
from tests.admin.rooms import Staff, admin_of, logged_in, staffed_room
from tests.casino.table_harness import USD, Casino
from tests.casino.test_table import WIN, WINDOW, bet, round_row
from tests.ledger.conftest import QueueReactor
from tests.postgres import fresh_pg_schema
from tests.server.conftest import CountingLedger
from tests.server.harness import Room

BANKROLL = AccountKind.CASINO_BANKROLL


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A USD room with an admin, a director and a support member."""
    members = {"adm1": Role.ADMIN, "dir1": Role.DIRECTOR, "sup1": Role.SUPPORT}
    with staffed_room(reactor, clock, ledger, members, tables=["t1"]) as built:
        yield built


def fund(staff: Staff, amount: int, key: str, **extra: Any) -> dict[str, Any]:
    """`house_fund` of the casino bankroll (unless `extra` says otherwise); the whole frame."""
    fields = {"account": "casino_bankroll", "reason": "float", "currency": "USD"} | extra
    return staff.call("house_fund", amount=amount, key=key, **fields)


def bankroll(engine: Engine, currency: str = "USD") -> int:
    return read(engine, lambda conn: account_balance(conn, BANKROLL, HOUSE, currency))


def audit_actions(engine: Engine) -> list[str]:
    rows = read(engine, lambda conn: list(conn.execute(sa.select(audit.c.action))))
    return [r.action for r in rows if r.action != "staff_add"]


def test_fund_moves_once_per_key_and_a_replay_answers_the_first_answer(room: Room) -> None:
    """P-2: one `house_funding` transfer from external:house per key; the same key again
    answers the first result (audit_id null, replayed) and writes no second audit row; the
    same key with other content is `idempotency_conflict`, also across fund and withdraw."""
    adm1 = logged_in(room, admin_of(room), "adm1")
    first = fund(adm1, 500_000, "k1")["result"]
    assert first["balance"] == 500_000 and first["replayed"] is False
    assert first["account"] == "casino_bankroll" and isinstance(first["audit_id"], int)
    again = fund(adm1, 500_000, "k1")["result"]
    assert again == {**first, "audit_id": None, "replayed": True}
    assert bankroll(room.ledger.engine) == 500_000
    assert fund(adm1, 400_000, "k1")["code"] == "idempotency_conflict"
    withdrawn = adm1.call(
        "house_withdraw", account="casino_bankroll", amount=500_000, key="k1", reason="r"
    )
    assert withdrawn["code"] == "idempotency_conflict"
    assert bankroll(room.ledger.engine) == 500_000
    entries = read(
        room.ledger.engine,
        lambda conn: conn.execute(
            sa.select(journal.c.kind).where(journal.c.idempotency_key == "staff:house:adm1:k1")
        ).all(),
    )
    assert [e.kind for e in entries] == ["house_funding"]
    rows = read(room.ledger.engine, lambda conn: list(conn.execute(sa.select(audit))))
    funded = [r for r in rows if r.action == "house_fund"]
    assert len(funded) == 1 and funded[0].target == "casino_bankroll"
    assert funded[0].after["amount"] == 500_000 and funded[0].reason == "float"
    assert check_ledger(room.ledger.engine).ok


def test_each_fundable_account_is_funded_and_withdrawn_never_below_zero(room: Room) -> None:
    """`house_withdraw` takes money back to external:house; past the balance it is
    `insufficient_funds`, moves nothing and writes no audit row. The three accounts are apart."""
    adm1 = logged_in(room, admin_of(room), "adm1")
    for i, account in enumerate(FUNDABLE):
        assert fund(adm1, 1_000 * (i + 1), f"f{i}", account=account)["type"] == "ok"
    engine = room.ledger.engine
    seed = AccountKind.CASINO_JACKPOT_SEED
    overlay = AccountKind.HOUSE_OVERLAY
    assert read(engine, lambda conn: account_balance(conn, seed, HOUSE, "USD")) == 2_000
    assert read(engine, lambda conn: account_balance(conn, overlay, HOUSE, "USD")) == 3_000

    def withdraw(amount: int, key: str) -> dict[str, Any]:
        return adm1.call(
            "house_withdraw", account="house_overlay", amount=amount, key=key, reason="back"
        )

    before = audit_actions(engine)
    assert withdraw(3_001, "w1")["code"] == "insufficient_funds"
    assert audit_actions(engine) == before
    done = withdraw(3_000, "w2")["result"]
    assert done["balance"] == 0 and done["account"] == "house_overlay"
    assert withdraw(1, "w3")["code"] == "insufficient_funds"
    assert audit_actions(engine) == [*before, "house_withdraw"]
    assert read(engine, lambda conn: account_balance(conn, overlay, HOUSE, "USD")) == 0
    report = check_ledger(engine)
    assert report.ok and report.currency_totals.get("USD", 0) == 0


@pytest.mark.parametrize("who", ["dir1", "sup1"])
def test_below_admin_is_forbidden_with_no_audit_row_and_nothing_moved(room: Room, who: str) -> None:
    """Fund and withdraw need the admin role: a director or support member is `forbidden`."""
    staff = logged_in(room, admin_of(room), who)
    answer = fund(staff, 1_000, "k")
    assert answer["code"] == "forbidden" and answer["details"]["required"] == "admin"
    withdraw = staff.call("house_withdraw", account="house_overlay", amount=1, key="w", reason="r")
    assert withdraw["code"] == "forbidden"
    assert bankroll(room.ledger.engine) == 0 and audit_actions(room.ledger.engine) == []


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"account": "house_rake"}, "bad_field"),  # not fundable: it earns before it pays
        ({"account": "wallet"}, "bad_field"),
        ({"currency": "EUR"}, "unknown_currency"),
        ({"amount": 0}, "invalid_amount"),
        ({"amount": -5}, "invalid_amount"),
        ({"amount": "5"}, "invalid_amount"),
    ],
)
def test_refusals_carry_their_code_and_move_nothing(
    room: Room, fields: dict[str, Any], code: str
) -> None:
    """An account that is not fundable, a currency the room does not use, an amount that is
    not a positive whole number of cents: refused with its code; no money, no audit row,
    and no account opened in the foreign currency."""
    adm1 = logged_in(room, admin_of(room), "adm1")
    frame = {"account": "casino_bankroll", "amount": 1_000, "currency": "USD"} | fields
    answer = adm1.call("house_fund", key="k", reason="r", **frame)
    assert answer["code"] == code, answer
    if code == "unknown_currency":
        assert answer["details"]["currencies"] == ["USD"]
    assert bankroll(room.ledger.engine) == 0 and audit_actions(room.ledger.engine) == []
    assert bankroll(room.ledger.engine, "EUR") == 0


def test_the_room_currency_is_the_default(room: Room) -> None:
    """Without `currency` the room's own (`[server] currency`) is funded."""
    adm1 = logged_in(room, admin_of(room), "adm1")
    answer = adm1.call("house_fund", account="casino_bankroll", amount=7, key="k", reason="r")
    assert answer["result"]["currency"] == "USD" and bankroll(room.ledger.engine) == 7


def test_balances_list_every_house_account_for_support(room: Room) -> None:
    """`house_balances` (support): the three fundable accounts at 0 before any funding, then
    each with its balance; other house accounts (rake) appear once they exist."""
    service = admin_of(room)
    sup1 = logged_in(room, service, "sup1")
    empty = sup1.call("house_balances")["result"]["accounts"]
    assert empty == [
        {"account": kind, "currency": "USD", "balance": 0, "fundable": True}
        for kind in sorted(FUNDABLE)
    ]
    fund(logged_in(room, service, "adm1"), 12_345, "k")
    shown = {a["account"]: a for a in sup1.call("house_balances")["result"]["accounts"]}
    assert shown["casino_bankroll"]["balance"] == 12_345


def test_the_cli_offers_the_fundable_accounts_of_the_server() -> None:
    """The CLI's choice of accounts (kept free of server imports) is the server's list."""
    assert tuple(kind.value for kind in house_store.FUNDABLE) == FUNDABLE
    assert COMMANDS["house_fund"].role is Role.ADMIN
    assert COMMANDS["house_withdraw"].role is Role.ADMIN
    assert COMMANDS["house_balances"].role is Role.SUPPORT


# ---------------------------------------------------------------- one transaction, both databases


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A database at head with the admin adm1."""

    def ready(url: str) -> Engine:
        engine = make_engine(url)
        upgrade(engine)
        add_staff(engine, "adm1", Role.ADMIN, "x", 0)
        return engine

    if request.param == "sqlite":
        engine = ready(f"sqlite:///{tmp_path / 'house.sqlite'}")
        yield engine
        engine.dispose()
        return
    with fresh_pg_schema("admin_house") as url:
        engine = ready(url)
        yield engine
        engine.dispose()


def _move(engine: Engine, key: str, amount: int, action: str = "house_fund") -> Audited:
    """The command's unit of work with its audit row, as `Context.change` runs it."""
    return audited(
        engine,
        Actor("adm1", "admin", Role.ADMIN),
        action,
        "casino_bankroll",
        "float",
        1_000,
        house_store.house_move_work,
        "adm1",
        key,
        BANKROLL,
        amount,
        "USD",
        "float",
    )


def test_the_audit_row_is_in_the_same_transaction(
    db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing audit write rolls the transfer back: no money moved, no journal entry; the
    same key afterwards moves the money once, with its row."""

    def broken(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("audit disk full")

    with monkeypatch.context() as patch:
        patch.setattr(audit_module, "write_audit", broken)
        with pytest.raises(RuntimeError, match="audit disk full"):
            _move(db, "k1", 50_000)
    assert bankroll(db) == 0
    assert read(db, lambda conn: conn.execute(sa.select(journal)).all()) == []
    done = _move(db, "k1", 50_000)
    assert done.audit_id is not None and bankroll(db) == 50_000
    assert _move(db, "k1", 50_000).audit_id is None  # replayed: no second row
    assert audit_actions(db) == ["house_fund"]
    assert check_ledger(db).ok


def test_withdraw_below_zero_is_refused_whole(db: Engine) -> None:
    """`insufficient_funds` rolls back the whole unit: no audit row, the balance kept."""
    _move(db, "k1", 1_000)
    with pytest.raises(InsufficientFunds):
        _move(db, "w1", -1_001, "house_withdraw")
    assert bankroll(db) == 1_000 and audit_actions(db) == ["house_fund"]
    assert _move(db, "w2", -1_000, "house_withdraw").change.result["balance"] == 0
    report = check_ledger(db)
    assert report.ok and report.currency_totals.get("USD", 0) == 0


# ---------------------------------------------------------------- a casino room funded by staff


def test_a_room_funded_by_the_command_pays_a_casino_win(tmp_path: Path) -> None:
    """K-7, L-3: with the bankroll funded through `house_fund` (its handler, context and unit
    of work), a winning round settles and pays 35:1 instead of being voided as a malfunction
    (tests/casino/test_table.py::test_settlement_refused_voids_and_closes is the unfunded
    room)."""
    casino = Casino(f"sqlite:///{tmp_path / 'casino.sqlite'}")
    try:
        add_staff(casino.engine, "adm1", Role.ADMIN, "x", 0)
        table, inbox = casino.table()
        lobby = SimpleNamespace(tables={}, casino_desk=SimpleNamespace(tables={"r1": table}))
        room = SimpleNamespace(ledger=casino.ledger, lobby=lobby, currency=USD, clock=casino.clock)
        ctx = Context(room, "adm1", Role.ADMIN, COMMANDS["house_fund"])  # type: ignore[arg-type]
        args = HouseMoveArgs("casino_bankroll", 100_000, "opening float", "float1", USD)
        answer = casino.wait(house_fund(ctx, args))
        assert answer["balance"] == 100_000 and answer["audit_id"] is not None
        casino.fund_player("alice", 1_000)
        casino.join(table, "alice")
        round_id = table.round.round_id
        bet(casino, table, "alice", WIN, 100, "a1")
        casino.advance(WINDOW)
        assert round_row(casino, round_id).status == "settled"
        assert casino.balance(wallet("alice", USD)) == 1_000 - 100 + 3_600
        assert casino.balance(money.bankroll(USD)) == 100_000 - 3_500
        assert table.phase != "closed" and inbox.of("alice", ev.RoundVoided) == []
        casino.ok()
    finally:
        casino.close()


def test_the_demo_funds_its_casino_bankroll(monkeypatch: pytest.MonkeyPatch) -> None:
    """`pokerroom demo` opens the casino tables, so it funds its throwaway room's bankroll and
    jackpot seed before the room starts (audited as the console, conserved); nothing played."""
    from click.testing import CliRunner

    from pokerroom.cli import main, server_cmds

    seen: dict[str, Any] = {}

    def inspect(reactor: Any, room: Any, *args: Any) -> int:
        engine = room.ledger.engine
        seen["bankroll"] = house_store.house_balance_of(engine, BANKROLL, ["USD"])
        seed = AccountKind.CASINO_JACKPOT_SEED
        seen["seed"] = house_store.house_balance_of(engine, seed, ["USD"])
        seen["audit"] = audit_actions(engine)
        seen["ok"] = check_ledger(engine).ok
        return 0

    monkeypatch.setattr(server_cmds, "_run_demo", inspect)
    done = CliRunner().invoke(main, ["demo", "--hands", "1"])
    assert done.exit_code == 0, done.output
    assert seen["bankroll"] == {"USD": house_store.DEMO_FLOAT}
    assert seen["seed"] == {"USD": house_store.DEMO_FLOAT}
    assert seen["audit"] == ["house_fund", "house_fund"] and seen["ok"]
