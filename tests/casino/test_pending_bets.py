"""K-11, L-5, L-6: the pending-bets job voids rounds left unsettled past the limit, once.

Rounds are left open the way a crash leaves them: a table takes confirmed bets, then stops
(its process dies) and is never opened again. The job runs through the jobs runner (lock,
`job_runs` row) on SQLite and PostgreSQL, and once through `pokerroom jobs run`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from pokerroom.casino import money
from pokerroom.cli import main
from pokerroom.jobs import JobContext, PendingBetsJob, job_run, run_blocking
from pokerroom.jobs.pending_bets import DAY_MS
from pokerroom.jobs.runs import recent_runs
from pokerroom.ledger.kinds import wallet
from tests.casino.table_harness import USD, Casino

POCKET = random.Random(7).randrange(37)
LOSE = f"straight:{(POCKET + 1) % 37}"
WINDOW_MS = 45_000


def left_open(casino: Casino, table_id: str, stakes: dict[str, int]) -> tuple[str, int]:
    """A round with confirmed bets whose table died: (round id, when betting was due to end)."""
    table, _ = casino.table(table_id=table_id)
    for number, (player, stake) in enumerate(stakes.items()):
        casino.join(table, player)
        table.place(player, LOSE, stake)
        casino.wait(table.confirm(player, f"{table_id}-{number}"))
    round_id = table.round.round_id
    due = table.round.closes_ms
    table.stop()
    return round_id, due


def run(casino: Casino, now_ms: int, days: int | None = None) -> dict:
    ctx = JobContext(lambda: now_ms / 1000)
    report = run_blocking(casino.engine, job_run(PendingBetsJob(days=days), "test", ctx))
    return report.as_dict()


def test_refunds_after_the_limit_exactly_once(casino: Casino) -> None:
    """Not before `pending_bet_days` after the interruption; then every stake back, once."""
    for player in ("alice", "bob"):
        casino.fund_player(player, 1_000)
    round_id, due = left_open(casino, "r1", {"alice": 300, "bob": 100})
    assert casino.balance(wallet("alice", USD)) == 700
    early = run(casino, due + 90 * DAY_MS)  # exactly 90 days: not yet "more than"
    assert (early["outcome"], early["transfers"]) == ("ok", 0)
    assert casino.balance(wallet("alice", USD)) == 700
    done = run(casino, due + 90 * DAY_MS + 1)
    assert (done["outcome"], done["transfers"], done["amounts"]) == ("ok", 1, {USD: 400})
    assert done["message"] == "pending_bets: ok; 1 round(s) voided, 1 transfer(s), paid 400 USD"
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert casino.balance(wallet("bob", USD)) == 1_000
    assert casino.balance(money.in_play(round_id, USD)) == 0
    again = run(casino, due + 200 * DAY_MS)
    assert (again["transfers"], again["amounts"]) == (0, {})
    assert casino.balance(wallet("alice", USD)) == 1_000
    runs = recent_runs(casino.engine, job="pending_bets")
    assert [r.outcome for r in runs] == ["ok", "ok", "ok"]
    assert [r.transfers for r in runs] == [0, 1, 0]
    casino.ok()


def test_the_limit_is_a_setting_and_settled_rounds_stay(casino: Casino) -> None:
    """The default comes from config/casino/casino.toml (90); a round its table settled, and
    one its table voided at restart, are not touched."""
    assert PendingBetsJob().limit_days() == 90
    casino.fund_house()
    casino.fund_player("alice", 1_000)
    table, _ = casino.table(table_id="r2")
    casino.join(table, "alice")
    table.place("alice", LOSE, 100)
    casino.wait(table.confirm("alice", "s1"))
    casino.advance(45)  # settled: alice lost 100
    table.stop()
    assert casino.balance(wallet("alice", USD)) == 900
    _, due = left_open(casino, "r3", {"alice": 200})
    done = run(casino, due + 2 * DAY_MS, days=1)
    assert done["amounts"] == {USD: 200}
    assert casino.balance(wallet("alice", USD)) == 900  # the settled loss stands
    casino.ok()


def test_cli_runs_the_job(tmp_path: Path) -> None:
    """`pokerroom jobs run pending_bets --json`: nothing due now on a fresh room."""
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    room = Casino(url)
    room.close()
    dry = CliRunner().invoke(main, ["jobs", "run", "pending_bets", "--db", url, "--dry-run"])
    assert dry.exit_code == 0 and "0 round(s) to void" in dry.output
    ran = CliRunner().invoke(main, ["jobs", "run", "pending_bets", "--db", url, "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output)["job"] == "pending_bets"


def test_the_run_checks_in_play_against_the_bets(casino: Casino) -> None:
    """L-7: a clean ledger passes; a bet row without its money is reported, the run fails."""
    import sqlalchemy as sa

    from pokerroom.casino.schema import casino_bets

    casino.fund_player("alice", 1_000)
    round_id, due = left_open(casino, "r4", {"alice": 300})
    clean = run(casino, due + DAY_MS)
    assert (clean["outcome"], clean["errors"]) == ("ok", [])
    with casino.engine.begin() as conn:
        conn.execute(
            sa.insert(casino_bets).values(
                round_id=round_id, player="alice", spot=LOSE, stake=50, transfer_key="forged"
            )
        )
    bad = run(casino, due + DAY_MS)
    assert bad["outcome"] == "failed"
    assert [item for item, _ in bad["errors"]] == [round_id]


def test_a_second_runner_is_turned_away_and_a_restart_after_the_job_moves_nothing(
    casino: Casino,
) -> None:
    """K-11 once: while another runner holds the job's lock a run is `skipped` and moves
    nothing; the next run refunds; the table opened again afterwards finds nothing to void
    (the round's key and status, shared with the restart recovery)."""
    from pokerroom.jobs import lock as locks

    casino.fund_player("alice", 1_000)
    round_id, due = left_open(casino, "r5", {"alice": 250})
    now = due + 91 * DAY_MS
    other = locks.acquire(casino.engine, "pending_bets", "otherhost:1:abc", now, 60_000)
    assert isinstance(other, locks.JobLock)
    try:
        turned_away = run(casino, now)
        assert (turned_away["outcome"], turned_away["transfers"]) == ("skipped", 0)
        assert casino.balance(wallet("alice", USD)) == 750
    finally:
        locks.release(casino.engine, other)
    done = run(casino, now)
    assert (done["outcome"], done["transfers"]) == ("ok", 1)
    assert casino.balance(wallet("alice", USD)) == 1_000
    table, _ = casino.table(table_id="r5")  # the table comes back: its recovery finds nothing
    assert casino.voided_at_start == ()
    table.stop()
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert casino.balance(money.in_play(round_id, USD)) == 0
    runs = recent_runs(casino.engine, job="pending_bets")
    assert sorted(r.outcome for r in runs) == ["ok", "skipped"]
    casino.ok()
