"""A refund run killed with SIGKILL halfway pays the rest, and nothing twice, when run again;
two runners at once: one pays, the other exits 0 saying so (real processes, both databases)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import sqlalchemy as sa
from click.testing import CliRunner, Result

from pokerroom.cli import main
from pokerroom.jobs.runs import recent_runs
from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.schema import journal
from tests.jobs.conftest import Room, deltas, ref
from tournaments import store

CHILD = Path(__file__).with_name("refund_child.py")
PLAYERS = 40
BATCH = 4  # 40 x 3 components + rounding = 121 rows: 31 batches


def chips(i: int) -> int:
    """Player i's stack at the last completed hand."""
    return 1000 + 37 * i


def build(room: Room) -> str:
    """40 players of 920 + 80 still in, cancelled before the money (T-18.2)."""
    t = room.tournament("big")
    names = [f"p{i:02d}" for i in range(PLAYERS)]
    for name in names:
        t.buy(name)
    t.start()
    t.seats("t1", {name: chips(i) for i, name in enumerate(names)})
    return t.cancel()


def reference() -> dict[str, int]:
    """T-18.2 from the rule text: fee back (80); pool 40 x 920 = 36,800; half (18,400) equally,
    18,400 / 40 = 460 each; half by chips, each rounded down (T-7); the rest to house rounding."""
    total_chips = sum(chips(i) for i in range(PLAYERS))  # 40 x 1000 + 37 x 780 = 68,860
    assert total_chips == 68_860
    expected = {}
    for i in range(PLAYERS):
        expected[ref("wallet", f"p{i:02d}")] = 80 + 460 + 18_400 * chips(i) // 68_860
    shares = sum(expected.values()) - PLAYERS * (80 + 460)
    expected[ref("house_rounding", "house")] = 18_400 - shares
    expected[ref("house_fees", "house")] = -PLAYERS * 80
    expected[ref("prize_pool", "big")] = -PLAYERS * 920
    return expected


def child(db_url: str) -> subprocess.Popen[str]:
    """The refund job in another process, paced by this one."""
    return subprocess.Popen(
        [sys.executable, str(CHILD), db_url, str(BATCH)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )


def rerun_until_the_lock_is_free(db_url: str) -> Result:
    """Run again; PostgreSQL frees a dead session's advisory lock once it sees the socket close."""
    deadline = time.monotonic() + 30
    while True:
        result = CliRunner().invoke(main, ["jobs", "run", "refunds", "--db", db_url])
        if "another runner holds the lock" not in result.output or time.monotonic() > deadline:
            return result
        time.sleep(0.05)  # waiting on the server, not on the code under test


def test_sigkill_halfway_then_a_rerun_pays_the_rest_to_the_cent(room: Room, db_url: str) -> None:
    """P-2: batches commit whole (transfers and their `paid` marks together); the kill leaves a
    run row with no end; the rerun pays exactly the rest; `ledger check` passes throughout."""
    tid = build(room)
    before = room.balances()
    proc = child(db_url)
    assert proc.stdin is not None and proc.stdout is not None
    seen = 0
    try:
        for line in proc.stdout:
            if line.startswith("paid"):
                seen += 1
                proc.stdin.write("go\n")
                proc.stdin.flush()
                if seen == 15:  # about half: kill it during (or right after) batch 16
                    break
        else:
            raise AssertionError(f"child ended early: {proc.stderr.read() if proc.stderr else ''}")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL

    checked = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert checked.exit_code == 0, checked.output
    rows = in_transaction(room.engine, lambda c: store.load_refunds(c, tid))
    paid = {r.ledger_key for r in rows if r.paid}
    assert 15 * BATCH <= len(paid) <= 16 * BATCH < len(rows)  # halfway, not done
    with room.engine.connect() as conn:
        keys = conn.execute(
            sa.select(journal.c.idempotency_key).where(journal.c.idempotency_key.like("t:big:%"))
        ).scalars()
        assert set(keys) == paid  # a transfer exactly for every row marked paid
    killed = recent_runs(room.engine)[0]
    assert (killed.outcome, killed.ended_at_ms) == ("running", None)
    assert room.status(tid) == store.CANCELLED

    result = rerun_until_the_lock_is_free(db_url)
    assert result.exit_code == 0, result.output
    assert room.status(tid) == store.REFUNDED
    assert deltas(before, room.balances()) == reference()
    rerun = recent_runs(room.engine)[0]
    assert rerun.transfers == len(rows) - len(paid)  # the rest, nothing twice
    again = CliRunner().invoke(main, ["jobs", "run", "refunds", "--db", db_url])
    assert again.exit_code == 0 and "0 transfer(s)" in again.output
    checked = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert checked.exit_code == 0, checked.output


def test_two_runners_at_once_one_pays_the_other_exits_0(room: Room, db_url: str) -> None:
    """While a runner (another process) holds the lock mid-run, a second run pays nothing and
    exits 0 saying so; the first then finishes alone, to the cent."""
    tid = build(room)
    before = room.balances()
    proc = child(db_url)
    assert proc.stdin is not None and proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("paid 1"), first + (proc.stderr.read() if proc.stderr else "")
    size = room.journal_size()  # the child waits between batches, holding the lock
    second = CliRunner().invoke(main, ["jobs", "run", "refunds", "--db", db_url])
    assert second.exit_code == 0, second.output
    assert "another runner holds the lock" in second.output
    assert room.journal_size() == size
    out, err = proc.communicate(input="", timeout=120)  # end of input: it goes on unpaced
    assert proc.returncode == 0, err
    assert out.splitlines()[-1] == f"report ok {PLAYERS * 3 + 1}"
    assert room.status(tid) == store.REFUNDED
    assert deltas(before, room.balances()) == reference()
    assert [r.outcome for r in recent_runs(room.engine)] == ["skipped", "ok"]
    checked = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert checked.exit_code == 0, checked.output
