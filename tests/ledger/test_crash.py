"""A writer killed with SIGKILL mid-stream leaves a sound ledger; re-sent keys land once (P-2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.ledger.accounts import list_accounts
from pokerroom.ledger.db import read
from pokerroom.ledger.schema import journal
from pokerroom.ledger.transfers import move
from tests.ledger.crash_child import request

CHILD = Path(__file__).with_name("crash_child.py")
KILL_AFTER = 40  # completed transfers before the kill
STREAM = 5_000  # bound on the stream; the kill comes long before its end


def _expected_balances(last: int) -> dict[str, int]:
    balances: Counter[str] = Counter()
    for n in range(last + 1):
        r = request(n)
        balances[str(r["source"])] -= r["amount"]
        balances[str(r["destination"])] += r["amount"]
    return dict(balances)


def test_sigkill_mid_stream_then_check_passes_and_resend_completes_once(
    engine: sa.Engine, db_url: str
) -> None:
    """Kill the writer; `ledger check` passes; re-sending every begun key completes each once."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), db_url, str(STREAM)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    begun = -1
    try:
        assert child.stdout is not None
        for line in child.stdout:
            word, n = line.split()
            if word == "begin":
                begun = int(n)
            if word == "done" and int(n) == KILL_AFTER:
                break
        else:
            raise AssertionError(
                f"child ended early: {child.stderr.read() if child.stderr else ''}"
            )
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    # What is left, through the same buffered file the loop read from: lines the loop read ahead
    # wait in its buffer, and communicate() would read the pipe past them (and lose a `begin`).
    assert child.stdout is not None and child.stderr is not None
    rest = child.stdout.read()
    child.stderr.read()
    for line in rest.splitlines():
        word, n = line.split()
        if word == "begin":
            begun = int(n)
    assert child.returncode == -signal.SIGKILL
    assert begun >= KILL_AFTER

    checked = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert checked.exit_code == 0, checked.output

    fresh = [n for n in range(begun + 1) if not move(engine, **request(n)).replayed]
    assert all(n > KILL_AFTER for n in fresh)  # only in-flight keys had anything left to do
    keys = read(engine, lambda c: list(c.execute(sa.select(journal.c.idempotency_key)).scalars()))
    assert sorted(keys) == sorted(f"crash:{n}" for n in range(begun + 1))
    balances = {a.identifier: a.balance for a in list_accounts(engine)}
    assert balances == _expected_balances(begun)
    again = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert again.exit_code == 0, again.output
