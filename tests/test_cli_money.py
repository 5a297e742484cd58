"""Operator-facing CLI output: money as money, `--json` in integer cents, tables that read when
piped (plain lines, no box characters, no line past 100 columns for ordinary rows), and an empty
section as one line.

The `pokerroom admin` commands are driven with the staff endpoint's answers as the server gives
them (`Staff.call` replaced), the local ones on a real SQLite database. CliRunner's stdout is not
a terminal: what a pipe or a cron mail gets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result

from pokerroom.cli import main
from pokerroom.cli.admin_base import Staff
from pokerroom.cli.admin_money_cmds import audit_change
from pokerroom.cli.jobs_cmds import run_line
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.transfers import move

BOX = set("│┃─━┏┓┗┛┡┩└┘├┤┼╇╈╋")
T0 = 1_800_000_000_000  # ms


def readable(result: Result) -> list[str]:
    """The output's lines, after checking it succeeded and reads as plain text."""
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not BOX & set(result.output), result.output
    too_long = [line for line in lines if len(line) > 100]
    assert not too_long, too_long
    return lines


# -- pokerroom admin, with the server's answers ---------------------------------------------------
PLAYER_SHOW = {
    "player": "bob",
    "moderator": False,
    "connected": True,
    "banned": False,
    "created_at": None,
    "last_login_at": None,
    "wallets": {"USD": 123456, "EUR": -5},
    "tables": [
        {"table_id": "nl-1", "seat": 3, "stack": 5000, "currency": "USD", "sitting_out": False}
    ],
    "declines": {"USD:50/100": 2},
    "blocks": [],
    "rathole": [{"stakes": "USD:50/100", "amount": 10000, "left_at_ms": T0}],
    "mutes": [],
    "bans": [],
}
TOURNAMENT_SHOW = {
    "tournament_id": "t1",
    "name": "Turbo",
    "status": "running",
    "paused": False,
    "starts_at_ms": T0,
    "entries": 10,
    "players_left": 3,
    "prize_pool": 92000,
    "currency": "USD",
    "buy_in": 9200,
    "fee": 800,
    "level": {"number": 4, "small_blind": 100, "big_blind": 200, "ms_left": 61000},
    "payouts": [50000, 30000, 12000],
    "tables": [
        {"table": 1, "table_id": "t1.1", "seats": [{"seat": 0, "player": "ann", "stack": 15000}]}
    ],
    "paid": [{"place": 3, "player": "cy", "prize": 12000, "tied": 1}],
}
ANSWERS: dict[str, dict[str, Any]] = {
    "player_show": PLAYER_SHOW,
    "table_list": {
        "tables": [
            {
                "table_id": "nl-1",
                "variant": "NT",
                "max_seats": 6,
                "small_blind": 50,
                "big_blind": 100,
                "currency": "USD",
                "stakes": "USD:50/100",
                "players": 4,
                "observers": 1,
                "state": "open",
                "hand_id": "h-17",
            }
        ]
    },
    "table_show": {
        "table_id": "nl-1",
        "variant": "NT",
        "small_blind": 50,
        "big_blind": 100,
        "currency": "USD",
        "stakes": "USD:50/100",
        "state": "paused",
        "hand_id": None,
        "seats": [
            {
                "seat": 2,
                "player": "ann",
                "stack": 12345,
                "sitting_out": True,
                "in_hand": False,
                "leaving": False,
                "disconnected": False,
            }
        ],
    },
    "approval_list": {
        "approvals": [
            {
                "id": 4,
                "action": "wallet_correct",
                "target": "bob",
                "amount": -25000,
                "currency": "USD",
                "requested_by": "adm1",
                "status": "pending",
                "decided_by": None,
                "reason": "double deposit",
            }
        ]
    },
    "wallet_correct": {
        "audit_id": 9,
        "status": "done",
        "transfer_id": 31,
        "balance": 1500,
        "currency": "USD",
        "replayed": False,
    },
    "approval_approve": {
        "audit_id": 10,
        "status": "done",
        "transfer_id": 32,
        "balance": 0,
        "currency": "USD",
        "player": "bob",
    },
    "table_kick": {"audit_id": 11, "amount": 4321, "currency": "USD", "left_before": False},
    "table_close": {
        "audit_id": 12,
        "state": "closed",
        "cashed_out": [{"table_id": "nl-1", "player": "ann", "amount": 250075, "currency": "USD"}],
    },
    "player_ban": {
        "audit_id": 13,
        "cashed_out": [{"table_id": "nl-1", "player": "bob", "amount": 99, "currency": "USD"}],
    },
    "audit": {
        "rows": [
            {
                "id": 7,
                "at_ms": T0,
                "staff": "adm1",
                "role": "admin",
                "action": "wallet_correct",
                "target": "bob",
                "before": {"balance": 1000, "currency": "USD"},
                "after": {"balance": 1500, "currency": "USD", "amount": 500, "transfer_id": 31},
                "reason": "goodwill",
            },
            {
                "id": 6,
                "at_ms": T0,
                "staff": "flo",
                "role": "floor",
                "action": "table_pause",
                "target": "nl-1",
                "before": {"state": "open"},
                "after": {"state": "paused"},
                "reason": "",
            },
        ]
    },
    "tournament_list": {
        "tournaments": [
            {
                key: TOURNAMENT_SHOW[key]
                for key in (
                    "tournament_id",
                    "name",
                    "status",
                    "paused",
                    "starts_at_ms",
                    "entries",
                    "players_left",
                    "prize_pool",
                    "currency",
                )
            }
            | {"level": 4}
        ]
    },
    "tournament_show": TOURNAMENT_SHOW,
    "tournament_prizes": {
        "audit_id": 14,
        "payouts": [60000, 32000],
        "added": 0,
        "currency": "USD",
        "replayed": False,
    },
    "job_list": {
        "jobs": [{"job": "refunds", "interval_seconds": 300}],
        "runs": [
            {
                "id": 2,
                "job": "refunds",
                "runner": "vm:1:ab",
                "started_at_ms": T0,
                "ended_at_ms": T0 + 1200,
                "outcome": "failed",
                "tournaments": ["t1"],
                "amounts": {"USD": 5837},
                "transfers": 12,
                "error": "t2: pool short",
            }
        ],
    },
    "job_run": {
        "audit_id": 15,
        "job": "refunds",
        "run_id": 3,
        "outcome": "ok",
        "message": "refunds: ok; 1 tournament(s) finished, 3 transfer(s), paid 5837 USD",
        "summary": "1 tournament(s) finished",
        "error": None,
        "tournaments": ["t1"],
        "amounts": {"USD": 5837},
        "transfers": 3,
        "errors": [],
    },
}


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """`pokerroom admin` talks to a stand-in for the server: ANSWERS by request kind."""
    table = {kind: json.loads(json.dumps(answer)) for kind, answer in ANSWERS.items()}

    def call(self: Staff, kind: str, **fields: Any) -> dict[str, Any]:
        return table[kind]

    monkeypatch.setattr(Staff, "call", call)
    return table


def admin(*args: str) -> Result:
    """`pokerroom admin ARGS` in this process, stdout not a terminal."""
    return CliRunner().invoke(main, ["admin", *args])


def test_player_show_money_with_its_currency_empty_sections_one_line(
    answers: dict[str, Any],
) -> None:
    lines = readable(admin("player", "show", "bob"))
    text = "\n".join(lines)
    assert "1,234.56 USD" in text and "-0.05 EUR" in text  # wallets
    assert "50.00 USD" in text  # the seat's stack at a cash table
    assert "100.00 USD" in text  # rathole: left with 10000 cents at USD:50/100
    assert "123456" not in text and "10000" not in text
    for empty in ("blocks (C-8): none", "mutes (C-13): none", "bans: none"):
        assert empty in lines
    raw = json.loads(admin("player", "show", "bob", "--json").output)
    assert raw["wallets"] == {"USD": 123456, "EUR": -5} and raw["rathole"][0]["amount"] == 10000


def test_tables_approvals_and_changes_print_money(answers: dict[str, Any]) -> None:
    tables = "\n".join(readable(admin("table", "list")))
    assert "0.50/1.00 USD" in tables
    seats = readable(admin("table", "show", "nl-1"))
    assert seats[0] == "nl-1: NT 0.50/1.00 USD, paused, hand -"
    assert seats[3].split() == ["2", "ann", "123.45", "USD", "yes"]
    approvals = "\n".join(readable(admin("approvals", "list")))
    assert "-250.00 USD" in approvals and "25000" not in approvals
    assert json.loads(admin("approvals", "list", "--json").output)["approvals"][0]["amount"] == (
        -25000
    )
    corrected = readable(
        admin(
            "wallet",
            "correct",
            "bob",
            "--amount",
            "500",
            "--currency",
            "USD",
            "--reason",
            "goodwill",
            "--yes",
        )
    )
    assert "by +5.00 USD" in corrected[0] and "balance now 15.00 USD" in corrected[1]
    assert "balance now 0.00 USD" in admin("approvals", "approve", "4", "--yes").output
    kicked = admin("table", "kick", "nl-1", "bob", "--reason", "abuse", "--yes").output
    assert "bob: 43.21 USD back to the wallet" in kicked
    closed = admin("table", "close", "nl-1", "--yes").output
    assert "ann: 2,500.75 USD back to the wallet" in closed
    banned = admin("player", "ban", "bob", "--reason", "collusion", "--yes").output
    assert "nl-1: 0.99 USD back to the wallet" in banned


def test_empty_admin_lists_are_one_line(answers: dict[str, Any]) -> None:
    answers["approval_list"]["approvals"] = []
    answers["table_list"]["tables"] = []
    assert readable(admin("approvals", "list")) == ["approvals (pending): none"]
    assert readable(admin("table", "list")) == ["tables: none"]


def test_audit_shows_what_changed_with_money(answers: dict[str, Any]) -> None:
    lines = readable(admin("audit"))
    assert lines == [
        "7  2027-01-15 08:00:00  adm1 (admin)  wallet_correct bob: goodwill",
        "    balance 10.00 USD -> 15.00 USD, amount 5.00 USD, transfer_id 31",
        "6  2027-01-15 08:00:00  flo (floor)  table_pause nl-1",
        "    state open -> paused",
    ]
    rows = json.loads(admin("audit", "--json").output)["rows"]
    assert rows[0]["after"]["amount"] == 500
    answers["audit"]["rows"] = []
    assert readable(admin("audit")) == ["audit: none"]


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [
        (None, None, ""),
        ([5000, 3000], [6000, 3200], "[5000,3000] -> [6000,3200]"),  # no currency: as stored
        ({"stack": 500}, {"leaving": True}, "stack 500, leaving true"),  # no currency: not money
        (
            {"balance": 0, "currency": "JPY"},
            {"balance": 1500, "currency": "JPY"},
            "balance 0 JPY -> 1,500 JPY",
        ),
        ({"currency": "USD"}, {"currency": "EUR"}, "currency USD -> EUR"),
    ],
)
def test_audit_change(before: Any, after: Any, shown: str) -> None:
    assert audit_change(before, after) == shown


def test_tournaments_money_and_chips_apart(answers: dict[str, Any]) -> None:
    listed = "\n".join(readable(admin("tournament", "list")))
    assert "920.00 USD" in listed and "92000" not in listed
    shown = "\n".join(readable(admin("tournament", "show", "t1")))
    assert "prize pool 920.00 USD" in shown and "buy-in 92.00+8.00 USD" in shown
    assert "payouts: 500.00 USD, 300.00 USD, 120.00 USD" in shown
    assert "level 4 100/200" in shown  # blinds are tournament chips, not money
    assert "15000" in shown and "150.00" not in shown  # a stack in chips
    assert "cy" in shown and "120.00 USD" in shown  # paid
    prizes = admin(
        "tournament", "prizes", "t1", "--amounts", "60000,32000", "--reason", "deal", "--yes"
    ).output
    assert "payouts 600.00 USD, 320.00 USD; added 0.00 USD" in prizes
    raw = json.loads(admin("tournament", "show", "t1", "--json").output)
    assert raw["prize_pool"] == 92000 and raw["payouts"] == [50000, 30000, 12000]


def test_admin_jobs_paid_as_money(answers: dict[str, Any]) -> None:
    lines = readable(admin("jobs", "list"))
    assert any("58.37 USD" in line for line in lines)
    assert "run 2: t2: pool short" in lines  # the error below the table, whole
    ran = admin("jobs", "run", "refunds", "--yes").output
    assert "refunds: ok; 1 tournament(s) finished, 3 transfer(s), paid 58.37 USD" in ran


@pytest.mark.parametrize(
    ("report", "line"),
    [
        (
            {
                "job": "refunds",
                "outcome": "failed",
                "tournaments": ["t1"],
                "transfers": 2,
                "amounts": {"USD": 150, "T$": 5},
                "message": "refunds: failed; 1 tournament(s) finished, 2 transfer(s), paid 5 T$, "
                "150 USD; t2: pool short",
                "summary": "1 tournament(s) finished",
                "error": "t2: pool short",
            },
            "refunds: failed; 1 tournament(s) finished, 2 transfer(s), paid 0.05 T$, 1.50 USD; "
            "t2: pool short",
        ),
        (  # K-11: the pending-bets job's own words, its money shown as money too
            {
                "job": "pending_bets",
                "outcome": "ok",
                "tournaments": [],
                "transfers": 1,
                "amounts": {"USD": 400},
                "message": "pending_bets: ok; 1 round(s) voided, 1 transfer(s), paid 400 USD",
                "summary": "1 round(s) voided",
                "error": None,
            },
            "pending_bets: ok; 1 round(s) voided, 1 transfer(s), paid 4.00 USD",
        ),
        (
            {
                "job": "refunds",
                "outcome": "ok",
                "tournaments": [],
                "transfers": 0,
                "amounts": {},
                "message": "refunds: ok; 0 tournament(s) finished, 0 transfer(s), paid nothing",
                "summary": "0 tournament(s) finished",
                "error": None,
            },
            "refunds: ok; 0 tournament(s) finished, 0 transfer(s), paid nothing",
        ),
        (
            {
                "job": "refunds",
                "outcome": "skipped",
                "tournaments": [],
                "transfers": 0,
                "amounts": {},
                "message": "refunds: another runner holds the lock (vm:1:ab)",
                "summary": "",
                "error": None,
            },
            "refunds: another runner holds the lock (vm:1:ab)",
        ),
    ],
)
def test_run_line_is_the_report_with_money_as_money(report: dict[str, Any], line: str) -> None:
    assert run_line(report) == line


# -- local commands on a real database -------------------------------------------------------------
@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """A SQLite database at head: alice deposited 50.00 USD and moved 20.00 USD away."""
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    move(
        engine,
        key="dep:alice",
        kind="deposit",
        currency="USD",
        source=external("USD"),
        destination=wallet("alice", "USD"),
        amount=5_000,
    )
    move(
        engine,
        key="out:alice",
        kind="withdrawal",
        currency="USD",
        source=wallet("alice", "USD"),
        destination=external("USD"),
        amount=2_000,
    )
    engine.dispose()
    yield url


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_ledger_reports_money_and_json_in_cents(db_url: str) -> None:
    assert readable(run("ledger", "balance", "wallet:alice:USD", "--db", db_url))[0].endswith(
        ": 30.00 USD"
    )
    balance = json.loads(
        run("ledger", "balance", "wallet:alice:USD", "--db", db_url, "--json").output
    )
    assert (balance["account"], balance["balance"], balance["currency"]) == (
        "wallet:alice:USD",
        3000,
        "USD",
    )
    statement = readable(run("ledger", "statement", "wallet:alice:USD", "--db", db_url))
    assert (
        statement[0].endswith("balance 30.00 USD")
        and statement[1] == "postings in USD, oldest first"
    )
    assert statement[3].split()[-3:] == ["50.00", "50.00", "dep:alice"]
    assert statement[4].split()[-3:] == ["-20.00", "30.00", "out:alice"]
    postings = json.loads(
        run("ledger", "statement", "wallet:alice:USD", "--db", db_url, "--json").output
    )["postings"]
    assert [(p["amount"], p["balance_after"]) for p in postings] == [(5000, 5000), (-2000, 3000)]
    checked = readable(run("ledger", "check", "--db", db_url))
    assert any(line.split() == ["USD", "wallet", "30.00", "USD"] for line in checked)
    report = json.loads(run("ledger", "check", "--db", db_url, "--json").output)
    assert report["ok"] is True and report["problems"] == []
    assert {"currency": "USD", "kind": "wallet", "total": 3000} in report["kind_totals"]


def test_ledger_check_json_fails_like_the_text(db_url: str) -> None:
    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET balance = balance + 1 WHERE kind = 'wallet'"))
    engine.dispose()
    result = run("ledger", "check", "--db", db_url, "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["ok"] is False
    assert "account wallet:alice:USD balance 30.01 USD != postings 30.00 USD" in report["problems"]


def test_empty_local_lists_are_one_line(db_url: str) -> None:
    assert readable(run("staff", "list", "--db", db_url)) == ["staff: none"]
    assert readable(run("jobs", "list", "--db", db_url)) == ["job runs (newest first): none"]
    dry = readable(run("jobs", "run", "refunds", "--dry-run", "--db", db_url))
    assert dry == ["refunds (dry run): no cancelled tournament waits for refunds"]


# -- tournament simulate --db: one line and the exit code of the problem ---------------------------
@pytest.mark.parametrize(
    ("db", "code", "says"),
    [
        ("{tmp}/none.sqlite", 66, "no database at"),
        ("{tmp}/no/such/folder/x.sqlite", 66, "there is no folder"),
        ("foo://bar", 78, "foo://bar"),
    ],
)
def test_simulate_db_problem_is_one_line_and_its_code(
    tmp_path: Path, db: str, code: int, says: str
) -> None:
    before = sorted(tmp_path.iterdir())
    result = CliRunner().invoke(
        main, ["tournament", "simulate", "--entries", "9", "--db", db.format(tmp=tmp_path)]
    )
    assert result.exit_code == code, result.output
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(tmp_path.iterdir()) == before  # nothing created


def test_simulate_without_db_removes_its_temporary_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    result = CliRunner().invoke(main, ["tournament", "simulate", "--entries", "9", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "(temporary)" in result.stderr
    assert "prize pool 90.00 USD, paid 90.00 USD" in result.stderr  # money for people
    summary = json.loads(result.stdout.splitlines()[-1])
    assert (summary["prize_pool"], summary["paid_total"]) == (9000, 9000)  # cents for machines
    assert list(tmp_path.iterdir()) == []
