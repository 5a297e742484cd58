"""Whole tournaments with bots through the real director, tables and ledger .

Every run checks: the ledger balances (`ledger check`, the sum of all accounts is only the
deposits' mirror), chips in play == chips issued (entries x stack + rebuys/add-ons) at every
hand (or every `check_every` hands for the big field), and the prize pool is paid out to the
cent (T-7).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.engine import Engine

from pokerroom.cli import main
from pokerroom.ledger import AccountKind, get_account, house, make_engine, upgrade
from tournaments.ops.simulation import Report, simulate


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'sim.sqlite'}")
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


def assert_sound(report: Report) -> None:
    """Ledger balanced, every chip accounted for, the pool paid out exactly (P-2, T-7)."""
    summary = report.summary
    assert report.ledger_ok
    assert report.total_before == report.total_after == 0
    assert not report.chip_errors
    assert not report.failures
    runner = report.actor.payouts
    assert summary.paid_total + runner.rounding_total == summary.prize_pool
    assert report.actor.status == "finished"
    assert report.actor.chips_in_play() == report.chips_issued  # the winner holds them all
    places = sorted(r.place for r in report.results if r.tied == 1)
    assert places[0] == 1
    assert len(report.results) == summary.entries


def test_nine_player_sit_and_go(engine: Engine):
    """A sit-and-go of 9: starts when full (T-1), pays 50/30/20 (T-6), ends at one player (T-8)."""
    report = simulate(engine, 9, seed=21, sit_and_go=True, check_every=1)
    assert_sound(report)
    assert report.summary.entries == 9 and report.summary.tables_max == 1
    prizes = sorted((r.place, r.prize) for r in report.results if r.prize)
    assert prizes == [(1, 4500), (2, 2700), (3, 1800)]


def test_five_hundred_entry_reentry_mtt(engine: Engine):
    """500 players re-entering during late registration (T-4, T-5); chips checked every hand."""
    report = simulate(engine, 500, seed=22, fmt="reentry", check_every=1)
    assert_sound(report)
    assert report.summary.entries > 500  # re-entries are entries
    assert report.chips_issued == report.summary.entries * 1500
    assert report.summary.prize_pool == report.summary.entries * 1000


@pytest.mark.slow
def test_two_thousand_entry_freezeout(engine: Engine):
    """2,000 players, 223 tables at the start, broken and balanced down to one (T-10)."""
    report = simulate(engine, 2000, seed=23, check_every=10)
    assert_sound(report)
    assert report.summary.entries == 2000 and report.summary.tables_max == 223
    assert report.chips_issued == 2000 * 1500


def test_simulate_is_deterministic(tmp_path: Path):
    """The same seed gives the same tournament (seeded RNGs, fake clock)."""
    lines = []
    for name in ("a", "b"):
        eng = make_engine(f"sqlite:///{tmp_path / name}.sqlite")
        upgrade(eng)
        report = simulate(eng, 60, seed=24, fmt="rebuy", check_every=1)
        eng.dispose()
        line = report.line()
        line.pop("seconds")
        lines.append((line, [(r.entry, r.place, r.prize) for r in report.results]))
    assert lines[0] == lines[1]


def test_cli_prints_the_summary_last_and_the_ledger_checks(tmp_path: Path):
    """`pokerroom tournament simulate` prints one JSON line last; `ledger check` passes."""
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    runner = CliRunner()
    upgraded = runner.invoke(main, ["db", "upgrade", "--db", url])
    assert upgraded.exit_code == 0, upgraded.output
    result = runner.invoke(
        main, ["tournament", "simulate", "--entries", "30", "--seed", "5", "--db", url]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(summary) == {"entries", "hands", "tables_max", "prize_pool", "paid_total", "seconds"}
    assert summary["entries"] == 30
    # T-7: prizes are rounded down; what that leaves went to the house rounding account
    eng = make_engine(url)
    try:
        rounding = get_account(eng, house(AccountKind.HOUSE_ROUNDING, "USD")).balance
    finally:
        eng.dispose()
    assert summary["paid_total"] + rounding == summary["prize_pool"]
    assert 0 < rounding < summary["entries"]  # 300.00 over five places leaves cents over
    check = runner.invoke(main, ["ledger", "check", "--db", url])
    assert check.exit_code == 0, check.output


def test_cli_without_db_removes_its_temporary_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no --db the simulation runs on a temporary SQLite file whose folder is gone at the
    end (no `/tmp/pokerroom-*` left behind)."""
    import tempfile

    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    result = CliRunner().invoke(main, ["tournament", "simulate", "--entries", "6", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert f"database: sqlite:///{folder}" in result.stderr  # it was there while it ran
    assert list(folder.iterdir()) == []
