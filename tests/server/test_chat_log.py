"""The chat log (C-13, ARCH 16): accepted lines in batches, a bounded queue, outages waited out.

A real SQLite file; the outage is another connection holding the write lock; the batch timer
and the backoff run on the fake clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from twisted.internet.task import Clock

from pokerroom.chat import ChatRules, ChatService, chat_log
from pokerroom.chat.batch import LINE_OVERHEAD, ChatLine, LineWriter, insert_lines
from pokerroom.ledger import LedgerService, LedgerSettings, make_engine, upgrade
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from tests.ledger.conftest import QueueReactor
from tests.ledger.test_retry import WriteLock, settle


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A room database file at head."""
    file = tmp_path / "room.sqlite"
    engine = make_engine(f"sqlite:///{file}")
    upgrade(engine)
    engine.dispose()
    return file


@pytest.fixture
def service(path: Path, reactor: QueueReactor, clock: Clock) -> Iterator[LedgerService]:
    """A ledger whose writes give up on a held lock after 20 ms."""
    engine = make_engine(f"sqlite:///{path}", busy_timeout=0.02)
    svc = LedgerService(reactor, engine, clock=clock, settings=LedgerSettings())
    svc.startService()
    try:
        yield svc
    finally:
        svc.stopService()


def line(n: int, text: str = "") -> ChatLine:
    """The n-th line of bob at table t1."""
    return ChatLine(1_000 + n, "t1", "bob", text or f"line {n}")


def test_lines_wait_for_the_batch_timer_then_are_stored_in_one_write(
    service: LedgerService, reactor: QueueReactor, clock: Clock
) -> None:
    """Nothing is written per line: 3 lines, then one batch when the timer (0.5 s) fires."""
    writer = LineWriter(clock, service, batch_seconds=0.5)
    for n in range(3):
        assert writer.add(line(n))
    assert service.pending == 0 and writer.queued_lines == 3
    clock.advance(0.5)
    assert service.lanes["log"].pending == 1
    settle(reactor, clock, service, writer.flush())
    assert [r["text"] for r in chat_log(service.engine, "t1")] == ["line 0", "line 1", "line 2"]
    assert writer.written == 3 and writer.queued_lines == 0 and writer.queued_bytes == 0


def test_the_queue_is_bounded_in_lines_and_in_bytes(service: LedgerService, clock: Clock) -> None:
    """Past max_lines, or past max_bytes, a line is refused and nothing is queued."""
    by_lines = LineWriter(clock, service, max_lines=2)
    assert by_lines.add(line(0)) and by_lines.add(line(1)) and not by_lines.add(line(2))
    assert by_lines.refused == 1 and by_lines.queued_lines == 2
    size = len("x" * 100) + LINE_OVERHEAD
    by_bytes = LineWriter(clock, service, max_bytes=2 * size + 10)
    assert by_bytes.add(line(0, "x" * 100)) and by_bytes.add(line(1, "x" * 100))
    assert not by_bytes.add(line(2, "x" * 100))
    assert by_bytes.queued_bytes == 2 * size
    by_lines.stop()
    by_bytes.stop()


def test_a_full_log_refuses_chat_with_server_busy(service: LedgerService, clock: Clock) -> None:
    """ChatService: when the log's queue is full the line is refused (server_busy), not
    shown, and does not count toward the player's rate limit."""
    chat = ChatService(clock, service, ChatRules(log_queue_lines=1))
    chat.post("bob", "t1", "hello", in_hand=False, hand_running=False)
    with pytest.raises(ProtocolError) as caught:
        chat.post("ann", "t1", "hi bob", in_hand=False, hand_running=False)
    assert caught.value.code == errors.SERVER_BUSY
    assert chat.refused == {errors.SERVER_BUSY: 1}
    chat.writer.stop()


def test_an_outage_keeps_the_batch_and_stores_it_once_afterwards(
    service: LedgerService, reactor: QueueReactor, clock: Clock, path: Path
) -> None:
    """The write lock is held elsewhere: the batch fails, stays queued, is tried again after a
    backoff and stored once the lock goes — each line exactly once."""
    lock = WriteLock(path)
    writer = LineWriter(clock, service, batch_seconds=0.1)
    try:
        lock.take()
        writer.add(line(0))
        writer.add(line(1))
        tries = []

        def release_after_two_seconds() -> None:
            tries.append(writer.queued_lines)
            if len(tries) == 40:
                lock.release()

        settle(reactor, clock, service, writer.flush(), between=release_after_two_seconds)
    finally:
        lock.release()
        lock.conn.close()
    assert [r["text"] for r in chat_log(service.engine, "t1")] == ["line 0", "line 1"]
    assert all(n == 2 for n in tries) and writer.written == 2 and writer.dropped == 0


def test_a_retried_batch_whose_commit_happened_is_not_stored_twice(
    service: LedgerService,
) -> None:
    """insert_lines(retry=True) finds the batch's first line and writes nothing."""
    batch = [line(0), line(1)]
    assert insert_lines(service.engine, batch, False) == 2
    assert insert_lines(service.engine, batch, True) == 0
    assert len(chat_log(service.engine, "t1")) == 2
