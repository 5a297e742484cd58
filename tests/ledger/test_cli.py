"""The staff commands: `db upgrade`, `ledger check`, `ledger balance`, `ledger statement`."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result

from pokerroom.cli import main
from pokerroom.ledger.db import make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, wallet
from pokerroom.ledger.migrate import current_revision, downgrade, head_revision, upgrade
from pokerroom.ledger.transfers import move

USD = "USD"


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _seed(engine: sa.Engine) -> None:
    move(
        engine,
        key="dep:alice",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("alice", USD),
        amount=5_000,
    )
    move(
        engine,
        key="buyin:t1:alice",
        kind="buy_in",
        currency=USD,
        source=wallet("alice", USD),
        destination=AccountRef(AccountKind.SEAT_ESCROW, "t1/s1/alice", USD),
        amount=2_000,
        reference="table:t1",
    )


def test_db_upgrade_then_again_is_a_no_op(db_url: str) -> None:
    """`pokerroom db upgrade --db URL` brings an empty database to head, and is idempotent."""
    first = _run("db", "upgrade", "--db", db_url)
    assert first.exit_code == 0, first.output
    assert f"upgraded empty -> {head_revision()}" in first.output
    second = _run("db", "upgrade", "--db", db_url)
    assert second.exit_code == 0 and "already at head" in second.output


def test_check_prints_totals_and_exits_zero_on_a_sound_ledger(
    engine: sa.Engine, db_url: str
) -> None:
    """P-2: totals per currency are zero; per kind they show where the money sits."""
    _seed(engine)
    result = _run("ledger", "check", "--db", db_url)
    assert result.exit_code == 0, result.output
    assert "2 entries, 4 postings, 3 accounts" in result.output
    assert "OK:" in result.output
    lines = [line.split() for line in result.output.splitlines()]
    assert ["USD", "0.00", "USD"] in lines
    assert ["USD", "external", "-50.00", "USD"] in lines
    assert ["USD", "wallet", "30.00", "USD"] in lines
    assert ["USD", "seat_escrow", "20.00", "USD"] in lines


def test_check_exits_one_when_a_cached_balance_was_tampered_with(
    engine: sa.Engine, db_url: str
) -> None:
    """A balance that no longer equals its postings is reported and fails the check."""
    _seed(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE accounts SET balance = balance + 1 WHERE kind = 'wallet'")
    result = _run("ledger", "check", "--db", db_url)
    assert result.exit_code == 1
    assert (
        "PROBLEM account wallet:alice:USD balance 30.01 USD != postings 30.00 USD" in result.output
    )
    assert "PROBLEM currency USD totals 0.01 USD, not 0" in result.output


def test_balance_and_statement_by_identifier_and_by_id(engine: sa.Engine, db_url: str) -> None:
    """Staff name an account as kind:owner:currency or by its numeric id."""
    _seed(engine)
    by_name = _run("ledger", "balance", "wallet:alice:USD", "--db", db_url)
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output.startswith("wallet:alice:USD (id ") and by_name.output.endswith(
        ": 30.00 USD\n"
    )
    account_id = by_name.output.split("(id ")[1].split(")")[0]
    assert _run("ledger", "balance", account_id, "--db", db_url).output == by_name.output
    statement = _run("ledger", "statement", "wallet:alice:USD", "--db", db_url)
    assert statement.exit_code == 0, statement.output
    rows = statement.output.splitlines()
    assert "deposit" in rows[3] and rows[3].split()[-3:] == ["50.00", "50.00", "dep:alice"]
    assert "buy_in" in rows[4] and rows[4].split()[-3:] == ["-20.00", "30.00", "buyin:t1:alice"]
    escrow = _run("ledger", "statement", "seat_escrow:t1/s1/alice:USD", "--db", db_url)
    assert escrow.exit_code == 0 and "balance 20.00 USD" in escrow.output


@pytest.mark.parametrize("account", ["wallet:nobody:USD", "424242", "purse:alice:USD", "alice"])
def test_unknown_account_is_an_error(engine: sa.Engine, db_url: str, account: str) -> None:
    """An unknown or malformed account exits 1 with a stable error code."""
    result = _run("ledger", "balance", account, "--db", db_url)
    assert result.exit_code == 1
    assert "unknown_account" in result.output or "invalid_kind" in result.output


def test_ledger_commands_refuse_a_database_not_at_head(db_url: str) -> None:
    """ARCH 9: a database one revision behind is refused in one line naming the command that
    fixes it, exit 65 (docs/OPERATIONS.md), and is left as it was."""
    engine = make_engine(db_url)
    upgrade(engine)
    downgrade(engine, "-1")
    behind = current_revision(engine)
    result = _run("ledger", "check", "--db", db_url)
    assert result.exit_code == 65
    assert f"is at revision {behind}, not {head_revision()}: run pokerroom db upgrade --db" in (
        result.output
    )
    assert len(result.output.splitlines()) == 1
    assert current_revision(engine) == behind
    engine.dispose()


def test_env_var_overrides_the_default_database(
    engine: sa.Engine, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$POKERROOM_DB replaces the default URL when --db is not given."""
    _seed(engine)
    monkeypatch.setenv("POKERROOM_DB", db_url)
    result = _run("ledger", "balance", "wallet:alice:USD")
    assert result.exit_code == 0 and result.output.endswith(": 30.00 USD\n")


def test_default_database_is_never_created_by_a_report_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --db or $POKERROOM_DB, `ledger check` in a folder with no pokerroom.sqlite
    says so (exit 66) and creates nothing; `db upgrade` creates it, then the check passes."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POKERROOM_DB", raising=False)
    result = _run("ledger", "check")
    assert result.exit_code == 66
    assert "no database at" in result.output and list(tmp_path.iterdir()) == []
    assert _run("db", "upgrade").exit_code == 0
    result = _run("ledger", "check")
    assert result.exit_code == 0, result.output
    assert "0 entries, 0 postings, 0 accounts" in result.output
