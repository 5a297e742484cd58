"""A session's outbound frames (back-pressure): written at once, held for this reactor turn's
one write on TCP (`WriteBatch`), or queued while the transport is paused; a client whose queue
passes `outbound_queue_max` frames or `outbound_queue_max_bytes` bytes is cut off
(slow_reader).

The session owns one `Outbox` and stays the transport's push producer: its `pauseProducing`,
`resumeProducing` and `stopProducing` call `pause`, `resume` and `stop` here. A reader that
does not read is handed back to the session through the `slow_reader` callback.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from twisted.internet import tcp
from twisted.internet.interfaces import IReactorTime, ITransport

from pokerroom.protocol.direct import WriteBatch, tcp_of, write_on


class Outbox:
    """What one connection sends, in order, and what waits while its transport is full."""

    def __init__(
        self,
        clock: IReactorTime,
        *,
        max_frames: int,
        max_bytes: int,
        slow_reader: Callable[[int, int], None],
    ) -> None:
        self.clock = clock
        self.max_frames, self.max_bytes = max_frames, max_bytes
        self._slow_reader = slow_reader  # (frames, bytes) queued: the session cuts it off
        self.transport: ITransport | None = None
        self._tcp: tcp.Connection | None = None  # the transport, if TCP (looked up once)
        self.writes: WriteBatch | None = None  # TCP: this turn's frames leave in one write
        self.closed = False
        self.paused = False
        self.last_out = 0.0
        self._batch: list[bytes] = []
        self._queue: deque[bytes] = deque()
        self._queued_bytes = 0

    def open(self, transport: ITransport, writes: WriteBatch | None) -> None:
        """The connection is made: write on `transport` (in one write a turn if `writes`)."""
        self.transport, self.writes = transport, writes
        self._tcp = tcp_of(transport)
        self.last_out = self.clock.seconds()

    def send(self, frame: bytes) -> None:
        """Write one encoded frame now, hold it for this turn's write, or queue it if paused."""
        if self.paused:
            self._keep(frame)
        elif self.writes is not None:
            if not self._batch:
                self.writes.add(self)
            self._batch.append(frame)
        else:
            assert self.transport is not None
            self.last_out = self.clock.seconds()
            write_on(self._tcp, self.transport, frame)

    def flush(self) -> None:
        """Write the frames held for this turn, in order, in one write."""
        batch = self._batch
        if not batch:
            return
        self._batch = []
        if self.closed or self.transport is None:
            return
        if self.paused:  # `pause` queued what it found; this is only a safety net
            for frame in batch:
                self._keep(frame)
            return
        self.last_out = self.clock.seconds()
        write_on(self._tcp, self.transport, batch[0] if len(batch) == 1 else b"".join(batch))

    def drop_held(self) -> None:
        """Forget the frames held for this turn (the connection is closing)."""
        self._batch = []

    def _keep(self, frame: bytes) -> None:
        """Keep a frame while the transport is paused; cut off a client that does not read."""
        if self.closed:
            return
        self.last_out = self.clock.seconds()
        self._queue.append(frame)
        self._queued_bytes += len(frame)
        if len(self._queue) > self.max_frames or self._queued_bytes > self.max_bytes:
            frames, size = len(self._queue), self._queued_bytes
            self.stop()
            self._slow_reader(frames, size)

    def pause(self) -> None:
        """The transport's buffer is full: queue from now on (frames held for this turn first,
        to keep the order)."""
        self.paused = True
        batch, self._batch = self._batch, []
        for frame in batch:
            self._keep(frame)

    def resume(self) -> None:
        """The transport drained: write what waited, in order."""
        self.paused = False
        while self._queue and not self.paused and self.transport is not None:
            frame = self._queue.popleft()
            self._queued_bytes -= len(frame)
            self.transport.write(frame)

    def stop(self) -> None:
        """Drop what waits (the transport is going away, or the reader is cut off)."""
        self._queue.clear()
        self._queued_bytes = 0
