"""Persist, then tell (docs/ARCHITECTURE.md rule 14, C-12): a cash hand's result is committed in
one transaction before any client hears it, so a crash anywhere around that commit leaves
either a hand that stands (and whose result clients were told, or are told on reconnecting)
or a void hand that nobody was told had ended.

The table runs in a child process (tests/cash/settle_crash_child.py) that SIGKILLs itself
just before the settlement's COMMIT, just after it, or just after telling the result; the
test then restarts the table's recovery on the same database and compares it with every frame
the clients had received."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.cash import store
from pokerroom.cash.schema import cash_hand_histories, cash_hands
from pokerroom.cash.store import escrow
from pokerroom.ledger import make_engine, transfers, upgrade
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.reports import check_ledger

HAND = "t1-2"
RESULT = ("pot_awarded", "hand_ended")


def run_child(tmp_path: Path, point: str) -> tuple[str, list[dict[str, Any]]]:
    """Play in a child until it kills itself at `point`; the database and every frame sent."""
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    frames = tmp_path / "frames.jsonl"
    child = subprocess.run(
        [sys.executable, "-m", "tests.cash.settle_crash_child", url, str(frames), point],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert child.returncode == -9, child.stdout[-2000:] + child.stderr[-4000:]  # SIGKILL
    sent = [json.loads(line) for line in frames.read_text().splitlines() if line.strip()]
    return url, sent


@pytest.mark.parametrize("point", ["before_commit", "after_commit", "after_tell"])
def test_a_crash_around_the_settlement_commit(tmp_path: Path, point: str) -> None:
    """C-12, rule 14: after a SIGKILL at `point` and a restart, a hand whose result a client
    was told stands with exactly what they were told; a hand that is void was told to nobody;
    the settlement's transfer, status and history are all there or none is."""
    url, sent = run_child(tmp_path, point)
    told = [s for s in sent if s["frame"].get("hand_id") == HAND]
    assert any(s["frame"]["type"] == "hand_started" for s in told)  # the hand did run
    results = [s for s in told if s["frame"]["type"] in RESULT]
    engine = make_engine(url)
    try:
        with engine.connect() as conn:  # the database as the kill left it
            status = conn.execute(
                sa.select(cash_hands.c.status).where(cash_hands.c.id == HAND)
            ).scalar_one()
            history = conn.execute(
                sa.select(cash_hand_histories.c.hand_id).where(
                    cash_hand_histories.c.hand_id == HAND
                )
            ).first()
        transfer = transfers.get_transfer(engine, key=store.settlement_key(HAND))
        # One commit: the transfer, the status and the history together, or none of them.
        assert (transfer is not None) == (status == "settled") == (history is not None)
        found = store.recover_table(engine, "t1", "USD")  # the restart (C-12)
        if point == "before_commit":
            assert found.voided == (HAND,) and transfer is None
            assert results == []  # nobody was told the hand ended
            start = next(s["frame"] for s in told if s["frame"]["type"] == "hand_started")
            for seat in start["seats"]:  # stacks back at the start of the hand
                held = get_account(engine, escrow("t1", seat["player"], "USD")).balance
                assert held == seat["stack"]
        else:
            assert found.voided == () and transfer is not None
            if point == "after_commit":
                assert results == []  # kept, not told yet: a reconnect shows the new stacks
            else:
                (ended,) = [s["frame"] for s in results if s["frame"]["type"] == "hand_ended"]
                players = {s["seat"]: s["player"] for s in told[0]["frame"]["seats"]}
                for seat, chips in ended["stacks"].items():
                    held = get_account(engine, escrow("t1", players[int(seat)], "USD")).balance
                    assert held == chips  # what they were told is what stands
            stacks = {row.player_id: row.stack for row in found.seats}
            for posting in transfer.transfer.postings:
                if posting.account.startswith("seat_escrow:t1/"):
                    player = posting.account.split("/")[1].split(":")[0]
                    assert stacks[player] == posting.balance_after
        assert check_ledger(engine).ok
    finally:
        engine.dispose()


def test_a_refused_settlement_halts_the_table_and_nobody_hears_the_result(
    tmp_path: Path,
) -> None:
    """Rule 14, C-12: the database refuses the settlement for good (a trigger aborts the
    history's insert: not an outage, nothing to wait out). The table halts with
    `table_halted`, no `pot_awarded` nor `hand_ended` is sent, nothing of the hand is in the
    ledger, and the restarted table finds it void with the start-of-hand stacks."""
    from tests.cash.conftest import Harness, Listener, next_hand, play_out, sit_all

    room = Harness(tmp_path)
    try:
        actor = room.table()
        sit_all(room, actor, ["ann", "bob"])
        next_hand(room, actor)
        hand_id = actor.hand_id
        start = {s.player_id: s.stack for s in actor.seats.values()}
        with room.engine.begin() as conn:
            conn.exec_driver_sql(
                "CREATE TRIGGER refuse_history BEFORE INSERT ON cash_hand_histories "
                "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )
        play_out(room, actor)
        room.drain()
        listener = actor.listener
        assert isinstance(listener, Listener)
        kinds = [m["type"] for m in listener.public if m.get("hand_id") in (hand_id, None)]
        halted = listener.of_type("table_halted")
        assert halted == [
            {"type": "table_halted", "table_id": "t1", "step": "settle_hand", "hand_id": hand_id}
        ]
        assert not [m for m in listener.public if m["type"] in RESULT]
        assert "player_acted" in kinds and actor.phase == "halted"
        assert transfers.get_transfer(room.engine, key=store.settlement_key(hand_id)) is None
        with pytest.raises(Exception) as refused:
            actor.act("ann", "fold")
        assert getattr(refused.value, "code", None) == "table_closed"
        with room.engine.begin() as conn:
            conn.exec_driver_sql("DROP TRIGGER refuse_history")
        actor.close()
        restarted = room.table()
        assert {s.player_id: s.stack for s in restarted.seats.values()} == start
        with room.engine.connect() as conn:
            status = conn.execute(
                sa.select(cash_hands.c.status).where(cash_hands.c.id == hand_id)
            ).scalar_one()
        assert status == "void"
        assert check_ledger(room.engine).ok
    finally:
        room.close()
