"""The chat log: accepted lines are written in batches, off the money path (C-13, ARCH 16).

Lines wait in a queue bounded in lines and in bytes; a batch is written at most every
`batch_seconds` (sooner when a full batch waits) in one transaction, through the ledger's log
lane, never the lane that settles hands. While the queue is full a new line is refused, so a
flood costs chat, never hands. A batch that meets an outage stays at the head of the queue and
is tried again after a backoff; a retry first looks for the batch's first line (a commit whose
answer was lost), so no line is stored twice. Refused lines are never queued nor stored.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import islice

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

from pokerroom.ledger import Busy, LedgerService, ServiceUnavailable
from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.faults import Backoff
from pokerroom.server.schema import chat_lines

log = structlog.get_logger("pokerroom.chat")

#: Bytes a queued line holds besides its text (the object, its fields, the deque slot).
LINE_OVERHEAD = 200
#: The most lines written in one transaction.
BATCH_LINES = 500


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One accepted line, as the log stores it."""

    at_ms: int
    table_id: str | None
    player: str
    text: str

    @property
    def size(self) -> int:
        """What the line costs the queue's byte bound."""
        return len(self.text.encode("utf-8", "surrogatepass")) + LINE_OVERHEAD


def insert_lines(engine: Engine, lines: list[ChatLine], retry: bool) -> int:
    """Store a batch in one transaction; on a retry, not if its first line is already there."""

    def work(conn: Connection) -> int:
        if retry:
            first = lines[0]
            found = conn.execute(
                sa.select(chat_lines.c.id)
                .where(
                    chat_lines.c.player == first.player,
                    chat_lines.c.at_ms == first.at_ms,
                    chat_lines.c.text == first.text,
                )
                .limit(1)
            ).first()
            if found is not None:
                return 0  # the earlier try committed; its answer was lost
        conn.execute(
            sa.insert(chat_lines),
            [
                {
                    "at_ms": line.at_ms,
                    "table_id": line.table_id,
                    "player": line.player,
                    "text": line.text,
                    "refused": None,
                }
                for line in lines
            ],
        )
        return len(lines)

    return in_transaction(engine, work)


class LineWriter:
    """A bounded queue of accepted chat lines and the timer that writes them in batches."""

    def __init__(
        self,
        clock: IReactorTime,
        ledger: LedgerService,
        *,
        max_lines: int = 5000,
        max_bytes: int = 1 << 20,
        batch_seconds: float = 0.5,
        backoff: Backoff | None = None,
    ) -> None:
        self.clock, self.ledger = clock, ledger
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.batch_seconds = batch_seconds
        self.backoff = backoff or Backoff(first=0.25, most=5.0)
        self._queue: deque[ChatLine] = deque()
        self._bytes = 0
        self._timer: IDelayedCall | None = None
        self._writing = False
        self._backing_off = False  # the timer waits out an outage before the next try
        self._attempt = 0
        self._retry = False  # the head batch failed once: it may have been stored
        self._waiters: list[Deferred[None]] = []
        self.written = 0  # lines stored
        self.refused = 0  # lines refused because the queue was full
        self.dropped = 0  # lines given up after an error that is not an outage

    @property
    def queued_lines(self) -> int:
        """Lines waiting to be stored (the batch being written included)."""
        return len(self._queue)

    @property
    def queued_bytes(self) -> int:
        """What the waiting lines cost the byte bound."""
        return self._bytes

    def add(self, line: ChatLine) -> bool:
        """Queue a line to be stored; False (nothing queued) when the queue is full."""
        size = line.size
        if len(self._queue) >= self.max_lines or self._bytes + size > self.max_bytes:
            self.refused += 1
            return False
        self._queue.append(line)
        self._bytes += size
        if len(self._queue) >= BATCH_LINES and not self._writing and not self._backing_off:
            self._cancel_timer()  # a full batch waits: write it now
            self._write()
        else:
            self._schedule(self.batch_seconds)
        return True

    def flush(self) -> Deferred[None]:
        """Fires once every line queued now is stored (or given up): for shutdown and tests."""
        d: Deferred[None] = Deferred()
        if not self._queue:
            d.callback(None)
            return d
        self._waiters.append(d)
        if not self._writing and not self._backing_off:
            self._cancel_timer()
            self._write()
        return d

    def stop(self) -> None:
        """Stop the timer; what is still queued is not stored."""
        self._cancel_timer()

    def close(self, seconds: float = 2.0) -> Deferred[None]:
        """Server shutdown: store what is queued, waiting at most `seconds`, then stop."""
        d = self.flush().addTimeout(seconds, self.clock)

        def stopped(result: object) -> None:
            if self._queue:
                log.warning("chat_lines_unsaved", lines=len(self._queue))
            self.stop()
            self._queue.clear()
            self._bytes = 0

        return d.addBoth(stopped)

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self._backing_off = False

    def _schedule(self, delay: float) -> None:
        if self._timer is None and not self._writing and self._queue:
            self._timer = self.clock.callLater(delay, self._write)

    def _write(self) -> None:
        self._timer = None
        self._backing_off = False
        if not self._queue:
            self._wake()
            return
        batch = list(islice(self._queue, BATCH_LINES))
        self._writing = True
        d = self.ledger.write_log(insert_lines, batch, self._retry)
        n = len(batch)
        d.addCallbacks(self._stored, self._failed, callbackArgs=(n,), errbackArgs=(n,))

    def _stored(self, _count: int, n: int) -> None:
        self._writing = False
        self._attempt = 0
        self._retry = False
        self._pop(n)
        self.written += n
        self._next()

    def _failed(self, failure: Failure, n: int) -> None:
        self._writing = False
        if failure.check(ServiceUnavailable, Busy):  # an outage or a full lane: keep the batch
            if failure.check(ServiceUnavailable):
                self._retry = True  # the lost try may have committed
            delay = self.backoff.delay(self._attempt)
            self._attempt += 1
            self._timer = self.clock.callLater(delay, self._write)
            self._backing_off = True
            return
        log.error("chat_lines_dropped", lines=n, error=str(failure.value)[:300])
        self._pop(n)
        self.dropped += n
        self._retry = False
        self._next()

    def _next(self) -> None:
        """After a batch: the next one now if it is full or someone waits, else on the timer."""
        if not self._queue:
            self._wake()
        elif self._waiters or len(self._queue) >= BATCH_LINES:
            self._write()
        else:
            self._schedule(self.batch_seconds)

    def _pop(self, n: int) -> None:
        for _ in range(min(n, len(self._queue))):
            self._bytes -= self._queue.popleft().size

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for d in waiters:
            d.callback(None)
