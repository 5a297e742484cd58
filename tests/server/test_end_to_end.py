"""End to end over real loopback TCP: a `pokerroom serve` process, raw socket clients and
`pokerroom bots` (C-14 drop and resume, C-15 no leak, P-1 errors)."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pokerroom.ledger import make_engine
from tests.serving import CLI, ROOM_HEAD, migrated_sqlite, start_serve, stop

pytestmark = pytest.mark.slow

CONFIG = (
    ROOM_HEAD
    + """[tables.nl-a]
variant = "NT"
between_hands_seconds = 0.2
[tables.nl-b]
variant = "NT"
max_seats = 9
between_hands_seconds = 0.2
[tables.plo-a]
variant = "PO"
small_blind = 5
big_blind = 10
min_buy_in = 200
max_buy_in = 1000
between_hands_seconds = 0.2
"""
)


def start_server(tmp_path: Path, url: str) -> tuple[int, subprocess.Popen[str]]:
    """A `pokerroom serve` process on `url`; returns once it listens (recovery done)."""
    (tmp_path / "room.toml").write_text(CONFIG)
    args = ["serve", "--db", url, "--port", "0", "--config", str(tmp_path / "room.toml")]
    return start_serve(args, tmp_path / "server.log")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite file migrated to head."""
    return migrated_sqlite(tmp_path)


@pytest.fixture
def server(tmp_path: Path, db_url: str) -> Iterator[tuple[int, subprocess.Popen]]:
    """A server process on a migrated temp database; yields its port."""
    port, proc = start_server(tmp_path, db_url)
    try:
        yield port, proc
    finally:
        stop(proc)


class Wire:
    """A blocking JSON-lines client on a real socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.file = self.sock.makefile("rwb")
        self.frames: list[dict[str, Any]] = []
        self.next_id = 0

    def send(self, kind: str, **fields: Any) -> int:
        """Send a request; its id."""
        self.next_id += 1
        self.file.write(json.dumps({"type": kind, "id": self.next_id, **fields}).encode() + b"\n")
        self.file.flush()
        return self.next_id

    def until(self, test: Any, limit: float = 15.0) -> dict[str, Any]:
        """Read frames until one passes `test`; return it (every frame is kept)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            line = self.file.readline()
            if not line:
                raise ConnectionError("closed")
            frame = json.loads(line)
            self.frames.append(frame)
            if test(frame):
                return frame
        raise TimeoutError("no such frame")

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request and its answer."""
        request_id = self.send(kind, **fields)
        return self.until(lambda f: f.get("id") == request_id and f["type"] in ("ok", "error"))

    def ok(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request that must succeed."""
        answer = self.call(kind, **fields)
        assert answer["type"] == "ok", answer
        return answer["result"]

    def close(self) -> None:
        """Drop the connection."""
        self.file.close()
        self.sock.close()


def player(port: int, name: str, table: str) -> tuple[Wire, str]:
    """Register, fund, sit at `table`; the connection and its resume token."""
    wire = Wire(port)
    wire.ok("hello", version=1, client="desktop")
    token = wire.ok("register", name=name, password="password 1")["token"]
    wire.ok("deposit", amount=10_000)
    wire.ok("sit", table_id=table, buy_in=200 if table != "plo-a" else 1000)
    return wire, token


def test_clients_at_several_tables_with_a_drop_and_a_resume(server: tuple[int, Any]) -> None:
    """C-14 over TCP: four players at two tables; one drops mid-hand and resumes."""
    port, _ = server
    alice, alice_token = player(port, "alice", "nl-a")
    bob, _ = player(port, "bob", "nl-a")
    carol, _ = player(port, "carol", "plo-a")
    dave, _ = player(port, "dave", "plo-a")
    for wire in (alice, bob, carol, dave):
        wire.until(lambda f: f["type"] == "hole_cards")
    alice_cards = next(f for f in alice.frames if f["type"] == "hole_cards")["cards"]
    assert bob.call("act", table_id="plo-a", action="fold")["code"] == "not_seated"
    assert bob.call("observe", table_id="nope")["code"] == "unknown_table"
    alice.close()  # the drop
    again = Wire(port)
    again.ok("hello", version=1, client="desktop")
    result = again.ok("resume", token=alice_token)
    assert result["player_id"] == "alice" and result["tables"] == ["nl-a"]
    snapshot = again.until(lambda f: f["type"] == "table_snapshot")["snapshot"]
    assert "alice" in [seat["player"] for seat in snapshot["seats"]]
    if snapshot["hand"] is not None and snapshot["hand"]["hand_id"].endswith("-1"):
        mine = [s for s in snapshot["hand"]["seats"] if s.get("cards")]
        assert [s["cards"] for s in mine] in ([alice_cards], [])
    assert again.call("resume", token=alice_token)["code"] == "already_logged_in"
    server[1].terminate()  # a clean stop says goodbye to every client
    assert again.until(lambda f: f["type"] == "goodbye")["code"] == "server_shutdown"
    for wire in (again, bob, carol, dave):
        wire.close()


def test_bots_play_without_protocol_errors_or_leaks(server: tuple[int, Any]) -> None:
    """`pokerroom bots`: 8 bots at two tables, 3 hands; exit 0 means no error, no leak."""
    port, _ = server
    args = ["bots", "--port", str(port), "--count", "8", "--hands", "3", "--timeout", "60"]
    done = subprocess.run(CLI + args, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 protocol errors, 0 leaks" in done.stdout


def hand_rows(url: str) -> list[Any]:
    """Every cash hand row."""
    from pokerroom.cash.schema import cash_hands

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(cash_hands.select()))
    finally:
        engine.dispose()


def ledger_now(url: str) -> tuple[int, set[str], dict[str, int]]:
    """The ledger as it stands: last journal id, every idempotency key, balances by account."""
    import sqlalchemy as sa

    from pokerroom.ledger.schema import accounts, journal

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            last = conn.execute(sa.select(sa.func.max(journal.c.id))).scalar() or 0
            keys = set(conn.execute(sa.select(journal.c.idempotency_key)).scalars())
            balances = {
                f"{r.kind}:{r.owner}:{r.currency}": r.balance
                for r in conn.execute(sa.select(accounts))
            }
    finally:
        engine.dispose()
    return last, keys, balances


def moved_since(url: str, journal_id: int) -> dict[str, int]:
    """Net postings by account in journal entries after `journal_id` (the restarted server's)."""
    import sqlalchemy as sa

    from pokerroom.ledger.schema import accounts, postings

    query = (
        sa.select(accounts.c.kind, accounts.c.owner, accounts.c.currency, postings.c.amount)
        .join(postings, postings.c.account_id == accounts.c.id)
        .where(postings.c.journal_id > journal_id)
    )
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            moved: dict[str, int] = {}
            for r in conn.execute(query):
                name = f"{r.kind}:{r.owner}:{r.currency}"
                moved[name] = moved.get(name, 0) + r.amount
    finally:
        engine.dispose()
    return moved


def play_then_stall(wire: Wire, hands: int) -> str:
    """Check or call when asked until `hands` hands have ended, then stop acting once the next
    hand's hole cards arrive; that hand waits on the action clock, and its `started` row is in
    the database (C-12: written before the first card). Returns its id."""
    ended = handled = 0
    while True:
        if handled == len(wire.frames):
            wire.until(lambda frame: True)
        frame = wire.frames[handled]
        handled += 1
        kind = frame["type"]
        assert kind != "error", frame
        if kind == "hand_ended":
            ended += 1
        elif kind == "hole_cards" and ended >= hands:
            return str(frame["hand_id"])
        elif kind == "action_request" and ended < hands:
            action = "check" if frame["actions"]["check"] else "call"
            wire.send("act", table_id=frame["table_id"], action=action)


def play_then_sigkill(port: int, proc: subprocess.Popen) -> str:
    """Bots play at nl-a (hands cut at any point by the kill); two clients play eight hands at
    plo-a and stall in the ninth; then SIGKILL. Returns the stalled hand's id."""
    bots_args = ["bots", "--port", str(port), "--count", "6", "--hands", "1000", "--timeout", "60"]
    bots = subprocess.Popen(CLI + bots_args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wires: list[Wire] = []
    try:
        wires = [player(port, name, "plo-a")[0] for name in ("pat", "pia")]
        with ThreadPoolExecutor(2) as pool:
            stalled = {
                f.result(timeout=60) for f in [pool.submit(play_then_stall, w, 8) for w in wires]
            }
        assert len(stalled) == 1, stalled
        proc.kill()  # SIGKILL: no shutdown code runs
        proc.wait(timeout=20)
    finally:
        bots.kill()
        bots.wait(timeout=20)
        for wire in wires:
            wire.close()
    return stalled.pop()


def seat_stacks(port: int, tables: set[str]) -> dict[tuple[str, str], int]:
    """What the running server holds as each seat's stack, through `observe` (the snapshot's
    stack is the start-of-hand stack while a hand runs, the current one between hands)."""
    wire = Wire(port)
    try:
        wire.ok("hello", version=1, client="desktop")
        wire.ok("register", name="watcher", password="password 1")
        stacks = {}
        for table in sorted(tables):
            snapshot = wire.ok("observe", table_id=table)["snapshot"]
            for seat in snapshot["seats"]:
                stacks[(table, seat["player"])] = seat["stack"]
        return stacks
    finally:
        wire.close()


def test_sigkill_during_hands_then_restart(tmp_path: Path, db_url: str) -> None:
    """C-12 through the real server: SIGKILL mid-hand. The hands `started` at the kill whose
    settlement had not reached the journal are exactly the hands void after a restart; nothing
    of them reaches the ledger; their players' stacks in the restarted server and their escrows
    are the start-of-hand stacks (plus whatever hands the restarted server has since settled);
    wallets are untouched; finished hands stand; `pokerroom ledger check` passes (P-2).

    The restarted server deals new hands 0.2 s after it listens: they are told apart by id
    (not among the rows read after the kill) and are allowed to be in any state."""
    port, proc = start_server(tmp_path, db_url)
    stalled = play_then_sigkill(port, proc)

    # The database at the kill, before any restart.
    before = {r.id: r for r in hand_rows(db_url)}
    kill_journal_id, keys_at_kill, balances_at_kill = ledger_now(db_url)
    assert not [r for r in before.values() if r.status == "void"]  # a fresh room
    finished = {r.id for r in before.values() if r.status == "settled"}
    started = {r.id for r in before.values() if r.status == "started"}
    assert len(finished) >= 3 and stalled in started
    # A `started` hand whose one settlement transfer landed just before the kill stands (C-12:
    # settled on start-up); every other `started` hand is interrupted and must become void.
    landed = {h for h in started if f"hand:{h}" in keys_at_kill}
    interrupted = started - landed
    assert stalled in interrupted
    restored: dict[tuple[str, str], int] = {}
    for hand_id in interrupted:
        hand = before[hand_id]
        for player, stack in hand.start_stacks.items():
            restored[(hand.table_id, player)] = stack
            # nothing of an unfinished hand is in the ledger: the escrow is the start stack
            assert balances_at_kill[f"seat_escrow:{hand.table_id}/{player}:USD"] == stack

    port, proc = start_server(tmp_path, db_url)
    try:
        after = {r.id: r for r in hand_rows(db_url)}
        void = {h for h, r in after.items() if r.status == "void"}
        assert void == interrupted
        for hand_id in finished | landed:
            assert after[hand_id].status == "settled", hand_id
        _, keys_after, _ = ledger_now(db_url)
        assert not {f"hand:{h}" for h in interrupted} & keys_after

        # The restarted server's own stacks: start-of-hand stacks, plus what the hands it has
        # dealt since the restart settled (read on both sides of the snapshot: none between).
        tables = {table for table, _ in restored}
        for _ in range(20):
            moved = moved_since(db_url, kill_journal_id)
            stacks = seat_stacks(port, tables)
            if moved_since(db_url, kill_journal_id) == moved:
                break
        else:
            raise AssertionError("the restarted server settled a hand during every snapshot")
        for (table, player), stack in restored.items():
            escrow_name = f"seat_escrow:{table}/{player}:USD"
            held = stacks.get((table, player), 0)  # 0: busted since, and the seat removed
            assert held == stack + moved.get(escrow_name, 0), (table, player)
            assert moved.get(f"wallet:{player}:USD", 0) == 0, player  # no wallet was touched
        check = subprocess.run(
            [*CLI, "ledger", "check", "--db", db_url], capture_output=True, text=True, timeout=60
        )
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        stop(proc)
