"""The room under a chat flood, a read flood and database outages (docs/ARCHITECTURE.md rule 16).

Real tables, sessions and databases (SQLite files; PostgreSQL on a database each test creates
and drops). Time is a fake clock: "hands per interval" are hands dealt per fake minute, so the
figures are the same on any machine. A slow database is modelled by a *gate*: statements of one
kind (chat inserts, wallet reads) wait in the database layer until the test opens it. A room
whose money waits behind those statements stops dealing while the gate is shut; a room that
keeps money on its own lane deals on. Outages are real: another connection holds the SQLite
write lock, or PostgreSQL terminates the room's connections and refuses new ones.
"""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from structlog.testing import capture_logs
from twisted.internet.task import Clock

from pokerroom.cash.store import escrow
from pokerroom.chat import ChatRules, ChatService
from pokerroom.ledger import LedgerSettings, make_engine, upgrade
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import AccountKind, external, house, wallet
from pokerroom.ledger.reports import balance, check_ledger
from pokerroom.ledger.transfers import move
from pokerroom.protocol import errors
from pokerroom.server.schema import chat_lines
from tests.ledger.conftest import QueueReactor
from tests.ledger.test_retry import WriteLock
from tests.postgres import PG_URL, pg_problem
from tests.server.conftest import CountingLedger
from tests.server.harness import Client, Room

USD = "USD"
STEP = 0.5  # fake seconds between two looks at the room
#: batch_max_ms = 0: hand starts and settlements go to the group commit, whose first item waits
#: up to batch_max_ms for others; this fake clock moves in STEPs of 0.5 s, so a 5 ms wait would
#: cost a whole step per write. These tests are about outages and floods, not grouping.
SETTINGS = LedgerSettings(read_queue_max=64, retry_seconds=2.0, batch_max_ms=0.0)


# ---------------------------------------------------------------------- a room of bots


class Gate:
    """Work of one kind waits here until the gate opens: a database slow at one job.

    `statement`: statements matching it wait (inside their transaction); `work`: connections
    taken by code in the matching source file wait before any BEGIN, so that on SQLite they
    hold no lock meanwhile (a chat insert holds the write lock for milliseconds, not seconds).
    """

    def __init__(
        self,
        engine: Engine,
        statement: Callable[[str, Any], bool] | None = None,
        work: Callable[[str], bool] | None = None,
    ) -> None:
        self.open = threading.Event()
        self.open.set()
        self.held = 0  # statements or transactions that waited

        def hold() -> None:
            self.held += 1
            self.open.wait(60)

        def before(conn: Any, cursor: Any, text: str, params: Any, *_: Any) -> None:
            if not self.open.is_set() and statement is not None and statement(text, params):
                hold()

        def begin(conn: Any) -> None:
            if self.open.is_set() or work is None:
                return
            frame = sys._getframe(1)
            while frame is not None:
                if work(frame.f_code.co_filename):
                    hold()
                    return
                frame = frame.f_back  # type: ignore[assignment]

        event.listen(engine, "before_cursor_execute", before)
        event.listen(engine, "engine_connect", begin)  # before any BEGIN: no lock held

    def shut(self) -> None:
        self.open.clear()

    def release(self) -> None:
        self.open.set()


def chat_work(filename: str) -> bool:
    """Storing chat lines: the chat package's database work."""
    return Path(filename).parent.name == "chat" and Path(filename).parent.parent.name == "pokerroom"


def wallet_read(statement: str, params: Any) -> bool:
    """Reading a wallet's balance (`wallet` requests)."""
    first = params[0] if isinstance(params, tuple | list) and params else None
    return (
        statement.lstrip().upper().startswith("SELECT")
        and "FROM accounts" in statement
        and (first == AccountKind.WALLET.value)
    )


class Table:
    """A cash table and its three seated bots, who always check or call."""

    def __init__(self, room: Room, table_id: str, seed: int) -> None:
        self.actor = room.add_table(table_id, seed=seed)
        self.players = [f"{table_id}p{n}" for n in range(3)]
        self.watcher = room.client()  # sees the table's events
        self.watcher.login(f"{table_id}w")
        self.watcher.ok("observe", table_id=table_id)

    @property
    def hands(self) -> int:
        """Hands started at this table so far."""
        return self.actor.hand_number - 1

    def act(self) -> bool:
        """The bot to act checks or calls; False if nobody is to act."""
        actor = self.actor
        hand = actor.hand
        if actor.phase != "playing" or hand is None or hand.actor < 0:
            return False
        legal = hand.legal_actions(hand.actor)
        assert legal is not None
        actor.act(actor.players[hand.actor], "call" if legal.call_amount else "check")
        return True


class Bots:
    """Tables of bots on one room, driven step by step on the fake clock."""

    def __init__(self, room: Room, tables: int = 2) -> None:
        self.room = room
        self.tables = [Table(room, f"t{n}", seed=n) for n in range(1, tables + 1)]
        self.clients: list[Client] = [t.watcher for t in self.tables]
        self.deposits = 0
        for table in self.tables:
            for player in table.players:
                self.fund(player, 10_000)
                self.wait(table.actor.sit(player, None, 200))

    def fund(self, player: str, amount: int) -> None:
        """A deposit straight into the ledger (the cashier's side)."""
        self.deposits += amount
        move(
            self.room.ledger.engine,
            key=f"fund:{player}",
            kind="deposit",
            currency=USD,
            source=external(USD),
            destination=wallet(player, USD),
            amount=amount,
        )

    def wait(self, d: Any) -> Any:
        """The result of a Deferred, running thread results and stepping the clock if needed."""
        box: list[Any] = []
        d.addBoth(box.append)
        assert self.pump(lambda: bool(box), seconds=20), "no answer"
        if hasattr(box[0], "raiseException"):
            box[0].raiseException()
        return box[0]

    def pump(self, until: Callable[[], bool], seconds: float = 5.0) -> bool:
        """Run thread results here until `until()` holds; False if nothing comes for `seconds`."""
        calls = self.room.reactor.calls
        quiet_since = time.monotonic()
        while True:
            while not calls.empty():
                f, args, kwargs = calls.get_nowait()
                f(*args, **kwargs)
                quiet_since = time.monotonic()
            if until():
                return True
            if time.monotonic() - quiet_since > seconds:
                return False
            try:
                f, args, kwargs = calls.get(timeout=0.02)
            except Exception:  # queue.Empty: look again
                continue
            f(*args, **kwargs)
            quiet_since = time.monotonic()

    def settled(self) -> bool:
        """Nothing of the money lane is in the database's hands: what is left waits for the
        clock (the next hand, a retry). Money stuck behind other work never gets here."""
        return self.room.ledger.lanes["money"].working == 0 and self.room.reactor.calls.empty()

    def step(self, before: Callable[[], None] | None = None) -> bool:
        """One look: bots act until nobody is to act and every hand is written, then the
        clock moves STEP. False if a table got stuck waiting for the database."""
        if before is not None:
            before()
        acted = True
        while acted:
            acted = False
            for table in self.tables:
                while table.act():
                    acted = True
            if not self.pump(self.settled, seconds=10.0):
                return False
        self.room.clock.advance(STEP)
        return True

    def run(self, seconds: float, before: Callable[[], None] | None = None) -> int:
        """Play `seconds` of fake time; the hands started at all tables meanwhile."""
        start = sum(t.hands for t in self.tables)
        for n in range(round(seconds / STEP)):
            if n % 40 == 0:
                for client in self.clients:
                    client.ok("ping")  # keep every connection alive (idle timeout)
            if not self.step(before):
                break
        return sum(t.hands for t in self.tables) - start

    def quiet(self) -> None:
        """Let every table finish its hand, then wait for all database work."""
        for _ in range(40):
            if all(t.actor.phase == "idle" for t in self.tables):
                break
            self.step()
        assert self.pump(lambda: self.room.ledger.working == 0 and self.settled(), seconds=20)

    def money_inside(self) -> int:
        """Wallets, seat escrows and rake: everything the deposits brought in."""
        engine = self.room.ledger.engine
        total = 0
        for table in self.tables:
            for player in table.players:
                total += balance(engine, wallet(player, USD)).balance
                total += balance(engine, escrow(table.actor.table_id, player, USD)).balance
        with suppress(UnknownAccount):  # no rake taken yet
            total += balance(engine, house(AccountKind.HOUSE_RAKE, USD)).balance
        return total

    def assert_money_exact(self) -> None:
        """P-2: nothing created or lost; each stack is its escrow; the ledger check passes."""
        self.quiet()
        engine = self.room.ledger.engine
        assert self.money_inside() == self.deposits
        for table in self.tables:
            for seat in table.actor.seats.values():
                ref = escrow(table.actor.table_id, seat.player_id, USD)
                assert seat.stack == balance(engine, ref).balance
        assert check_ledger(engine).ok


@contextmanager
def bots_room(
    reactor: QueueReactor,
    clock: Clock,
    engine: Engine,
    *,
    chat: ChatRules | None = None,
    settings: LedgerSettings = SETTINGS,
    tables: int = 2,
    **lobby_kw: Any,
) -> Iterator[Bots]:
    """A started ledger (retries on the fake clock), a room and its tables of bots."""
    ledger = CountingLedger(reactor, engine, clock=clock, settings=settings)
    ledger.startService()
    room = Room(reactor, clock, ledger, **lobby_kw)
    room.chat = room.lobby.chat = ChatService(clock, ledger, chat or ChatRules())
    try:
        yield Bots(room, tables)
    finally:
        room.stop()
        ledger.stopService()


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    """A SQLite room database at head whose writes give up on a held lock after 20 ms."""
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    setup = make_engine(url)
    upgrade(setup)
    setup.dispose()
    engine = make_engine(url, busy_timeout=0.02)
    try:
        yield engine
    finally:
        engine.dispose()


def stored_chat(engine: Engine) -> int:
    """How many chat lines the database holds."""
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(chat_lines)).scalar_one())


# ---------------------------------------------------------------------- chat flood


def test_a_chat_flood_writes_nothing_refused_and_never_slows_the_tables(
    reactor: QueueReactor, clock: Clock, sqlite_engine: Engine
) -> None:
    """Finding: refused chat was queued for a database write on the thread that settles hands.

    One client floods (200 lines per fake second, most refused: rate-limited or too long)
    while the database is slow to store chat (the gate holds every chat insert). The tables
    deal at least 80 % of their rate without the flood (here: all of it); the queued work
    stays bounded (one chat batch, nothing per refused line); another client's wallet
    request is answered before the clock moves; afterwards the database holds exactly the
    accepted lines.
    """
    gate = Gate(sqlite_engine, work=chat_work)
    rules = ChatRules(hand_talk_rule=False)  # observers may talk while hands run
    with bots_room(reactor, clock, sqlite_engine, chat=rules) as bots:
        room = bots.room
        quiet = bots.run(30.0)
        flooder = room.client()
        flooder.login("flooder")
        flooder.ok("observe", table_id="t1")
        other = room.client()
        other.login("other")
        bots.clients += [flooder, other]
        sent = [0]
        peaks = {"pending": 0, "queued": 0}
        prompt: list[bool] = []

        def flood() -> None:
            for n in range(100):
                sent[0] += 1
                text = "x" * 300 if n % 2 else f"hello {sent[0]}"
                flooder.raw(
                    f'{{"type":"chat","id":"f{sent[0]}","table_id":"t1","text":"{text}"}}\n'.encode()
                )
            flooder.read()
            peaks["pending"] = max(peaks["pending"], room.ledger.pending)
            peaks["queued"] = max(peaks["queued"], room.chat.writer.queued_lines)
            before = len(other.of_type("ok"))
            other.raw(b'{"type":"wallet","id":"w"}\n')
            prompt.append(bots.pump(lambda: len(other.of_type("ok")) > before, seconds=10.0))

        gate.shut()
        try:
            flooded = bots.run(30.0, before=flood)
        finally:
            gate.release()
        answers = [f for f in flooder.inbox if str(f.get("id")).startswith("f")]
        accepted = sum(1 for f in answers if f["type"] == "ok")
        codes = {f["code"] for f in answers if f["type"] == "error"}
        bots.quiet()
        assert room.reactor.wait(room.chat.flush()) is None
        assert quiet >= 30 and flooded >= 0.8 * quiet, (quiet, flooded)
        assert sent[0] == 6000 and len(answers) == sent[0]
        assert codes == {errors.CHAT_RATE_LIMITED, errors.CHAT_TOO_LONG}
        assert accepted <= 5 * 3 + 5  # C-13: 5 lines in any 10 s
        assert all(prompt) and len(prompt) == 60
        assert peaks["pending"] <= 4 and peaks["queued"] <= accepted
        assert gate.held >= 1  # the database really was slow to take chat
        assert stored_chat(sqlite_engine) == accepted
        assert sum(room.chat.refused.values()) == sent[0] - accepted
        bots.assert_money_exact()


def test_a_full_chat_log_refuses_chat_with_server_busy_not_hands(
    reactor: QueueReactor, clock: Clock, sqlite_engine: Engine
) -> None:
    """The chat log's queue is bounded (8 lines here): while the database does not take chat,
    the 9th accepted line is refused with server_busy, and the tables deal on."""
    gate = Gate(sqlite_engine, work=chat_work)
    rules = ChatRules(log_queue_lines=8, hand_talk_rule=False)
    with bots_room(reactor, clock, sqlite_engine, chat=rules) as bots:
        room = bots.room
        talkers = []
        for n in range(4):
            talker = room.client()
            talker.login(f"talker{n}")
            talker.ok("observe", table_id="t2")
            talkers.append(talker)
        bots.clients += talkers
        gate.shut()
        try:
            quiet = bots.run(10.0)
            said: list[str] = []
            for n in range(5):
                for i, talker in enumerate(talkers):
                    frame = talker.request("chat", table_id="t2", text=f"line {n} from {i}")
                    said.append(frame["type"] if frame["type"] == "ok" else frame["code"])
                bots.step()
            assert room.chat.writer.queued_lines == 8
            during = bots.run(10.0)
        finally:
            gate.release()
        assert said.count("ok") == 8 and said.count(errors.SERVER_BUSY) == 12
        assert during >= 0.8 * quiet
        bots.quiet()
        room.reactor.wait(room.chat.flush())
        assert stored_chat(sqlite_engine) == 8
        assert room.chat.writer.queued_lines == 0 and room.chat.writer.queued_bytes == 0
        bots.assert_money_exact()


# ---------------------------------------------------------------------- many reads in flight


def test_many_wallet_requests_are_shed_fairly_and_the_tables_deal_on(
    reactor: QueueReactor, clock: Clock, sqlite_engine: Engine
) -> None:
    """Finding: 99 connections x 60 wallet requests starved the tables.

    Here 30 clients pipeline 60 wallet requests each while wallet reads are slow (gated).
    Each player has at most 4 reads in flight and the read lane at most 64 in all; every
    other request is answered at once with server_busy (before the clock moves); the tables
    deal at their rate; when the reads come through, every request has had one answer.
    """
    gate = Gate(sqlite_engine, statement=wallet_read)
    with bots_room(reactor, clock, sqlite_engine) as bots:
        room = bots.room
        quiet = bots.run(20.0)
        crowd = []
        for n in range(30):
            client = room.client()
            client.login(f"crowd{n}")
            crowd.append(client)
        bots.clients += crowd
        gate.shut()
        try:
            for client in crowd:
                frames = (f'{{"type":"wallet","id":"w{i}"}}\n'.encode() for i in range(60))
                client.raw(b"".join(frames))
            busy_at_once = sum(
                1
                for client in crowd
                for f in client.read()
                if f.get("type") == "error" and f["code"] == errors.SERVER_BUSY
            )
            per_player = max(room.lobby.reads.in_flight.values())
            read_lane = room.ledger.lanes["read"]
            in_lane = read_lane.pending
            during = bots.run(20.0)
        finally:
            gate.release()

        def wallet_answers(client: Client) -> list[dict[str, Any]]:
            client.read()
            return [f for f in client.inbox if str(f.get("id")).startswith("w")]

        assert bots.pump(lambda: all(len(wallet_answers(c)) == 60 for c in crowd), seconds=20)
        oks = sum(1 for c in crowd for f in wallet_answers(c) if f["type"] == "ok")
        assert per_player == 4 and in_lane == 64 and read_lane.peak == 64
        assert busy_at_once == 30 * 60 - 64 and oks == 64
        assert during >= 0.8 * quiet, (quiet, during)
        assert gate.held >= 1
        bots.assert_money_exact()


# ---------------------------------------------------------------------- outages


def outage_run(
    bots: Bots,
    lose: Callable[[], None],
    restore: Callable[[], None],
    seconds: float,
    requests: tuple[str, ...],
) -> None:
    """Play, lose the database for `seconds` of fake time, bring it back: every table deals
    again within 10 s, after telling its audience it paused and resumed; `requests` sent
    during the outage get service_unavailable; the log has one line at the outage's start
    and one at its end, and no traceback."""
    room = bots.room
    other = room.client()
    other.login("other")
    bots.clients.append(other)
    assert bots.run(10.0) >= 10
    with capture_logs() as logs:
        lose()
        start = room.clock.seconds()
        paused: set[str] = set()
        asked: list[str] = []

        def during() -> None:
            paused.update(t.actor.table_id for t in bots.tables if t.actor.pause.paused)
            if not asked and room.clock.seconds() - start >= 1.0:
                for n, kind in enumerate(requests):
                    fields = ', "amount": 100, "key": "k"' if kind == "deposit" else ""
                    other.raw(f'{{"type": "{kind}", "id": "out{n}"{fields}}}\n'.encode())
                    asked.append(kind)

        bots.run(seconds, before=during)
        restore()
        restored = room.clock.seconds()
        back = {t.actor.table_id: t.hands for t in bots.tables}
        for _ in range(round(10.0 / STEP)):
            if all(
                t.hands > back[t.actor.table_id] and not t.actor.pause.paused for t in bots.tables
            ):
                break
            bots.step()
        dealt_again = room.clock.seconds()
    assert paused == {t.actor.table_id for t in bots.tables}, "a table never paused"
    for table in bots.tables:
        assert table.hands > back[table.actor.table_id], f"{table.actor.table_id} dealt no more"
        assert not table.actor.pause.paused
        paused_events = table.watcher.of_type("table_paused")
        resumed = table.watcher.of_type("table_resumed")
        assert len(paused_events) == 1 and len(resumed) == 1
        assert paused_events[0]["step"] == resumed[0]["step"] in ("start_hand", "settle_hand")
        assert resumed[0]["paused_ms"] > 0
    assert dealt_again - restored <= 10.0
    other.read()
    answers = {f["id"]: f for f in other.inbox if str(f.get("id", "")).startswith("out")}
    assert [answers[f"out{n}"].get("code") for n in range(len(requests))] == [
        errors.SERVICE_UNAVAILABLE
    ] * len(requests)
    events = [entry["event"] for entry in logs]
    assert events.count("database_unavailable") == 1
    assert events.count("database_available") == 1
    assert events.count("table_paused") == len(bots.tables)
    assert events.count("table_resumed") == len(bots.tables)
    assert "request_crashed" not in events and "table_halted" not in events
    assert not any("traceback" in entry or "exc_info" in entry for entry in logs)
    out = next(e for e in logs if e["event"] == "database_available")["outage_seconds"]
    assert seconds - 1.0 <= out <= seconds + 10.0
    other.ok("wallet")
    bots.assert_money_exact()


def test_sqlite_outage_tables_pause_and_deal_again_with_money_exact(
    reactor: QueueReactor, clock: Clock, sqlite_engine: Engine, tmp_path: Path
) -> None:
    """C-12: another connection holds the SQLite write lock for 4 s (reads go on: WAL); the
    tables pause (not halt), then deal again; every cent is where it should be."""
    lock = WriteLock(tmp_path / "room.sqlite")
    quick = LedgerSettings(retry_seconds=1.0, backoff_first_seconds=0.25, batch_max_ms=0.0)
    try:
        with bots_room(reactor, clock, sqlite_engine, settings=quick) as bots:
            outage_run(bots, lock.take, lock.release, 4.0, ("deposit",))
    finally:
        lock.release()
        lock.conn.close()


@contextmanager
def own_pg_database() -> Iterator[tuple[str, Engine]]:
    """A PostgreSQL database of this test's own (its connections may be cut), dropped after."""
    problem = pg_problem()
    if problem is not None:
        import os

        if os.environ.get("POKERROOM_REQUIRE_PG") == "1":
            pytest.fail(f"PostgreSQL is required but {problem}")
        pytest.skip(f"PostgreSQL unreachable at {PG_URL}: {problem}")
    name = f"pokerroom_outage_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(make_url(PG_URL).set(drivername="postgresql+psycopg"))
    admin = admin.execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False), admin
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.mark.postgresql
def test_postgresql_outage_tables_pause_and_deal_again_with_money_exact(
    reactor: QueueReactor, clock: Clock
) -> None:
    """Finding: after a 10.7 s PostgreSQL outage both tables halted for good.

    The server's backends are terminated (pg_terminate_backend) and new connections are
    refused (ALLOW_CONNECTIONS false) on this test's own database for 10 fake seconds; then
    every table deals again within 10 s and the money is exact."""
    with own_pg_database() as (url, admin):
        name = make_url(url).database
        engine = make_engine(url)
        upgrade(engine)

        def lose() -> None:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                conn.execute(
                    sa.text(
                        "select pg_terminate_backend(pid) from pg_stat_activity "
                        "where datname = :name and pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )

        def restore() -> None:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')

        try:
            with bots_room(reactor, clock, engine) as bots:
                outage_run(bots, lose, restore, 10.0, ("wallet", "deposit"))
        finally:
            restore()
            engine.dispose()
