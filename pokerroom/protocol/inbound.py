"""The inbound budget of one connection: frames and bytes per second, with a burst.

Pure: times are seconds from the session's clock. Each budget is a token bucket that fills at
its rate up to its burst. A read is charged in full when it arrives, before any JSON is decoded
(its bytes and newlines are counted, nothing more: a newline ends a frame). The bytes were
read already, so a bucket may go below zero, and `charge` says how long the connection must
then not be read for that debt to be repaid: at least `pause_seconds`. The session stops
reading from the socket for that long (the client's own TCP window then holds it back).
`pauses_max` pauses within `window_seconds` is a sustained flood: the session closes the
connection (docs/SECURITY.md, "Inbound flood").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(slots=True)
class TokenBucket:
    """`rate` tokens a second up to `burst`; a charge may leave a debt (tokens below 0)."""

    rate: float
    burst: float
    tokens: float
    stamp: float

    def charge(self, amount: float, now: float) -> float:
        """Take `amount` tokens at `now`; the seconds until the bucket is out of debt (0: none)."""
        tokens = self.tokens
        if now > self.stamp:  # (comparisons, not min/max: this runs for every read)
            tokens += (now - self.stamp) * self.rate
            self.stamp = now
        if tokens > self.burst:
            tokens = self.burst
        tokens -= amount
        self.tokens = tokens
        return 0.0 if tokens >= 0 else -tokens / self.rate


class InboundBudget:
    """The two buckets of one connection (a rate of 0 turns that one off) and its pauses."""

    def __init__(
        self,
        now: float,
        *,
        frames_per_second: float,
        frames_burst: int,
        bytes_per_second: float,
        bytes_burst: int,
        pause_seconds: float,
        pauses_max: int,
        window_seconds: float,
    ) -> None:
        self._buckets: list[tuple[TokenBucket, bool]] = [  # (bucket, counts frames)
            (TokenBucket(rate, burst, burst, now), frames)
            for rate, burst, frames in (
                (frames_per_second, frames_burst, True),
                (bytes_per_second, bytes_burst, False),
            )
            if rate > 0
        ]
        self.pause_seconds = pause_seconds
        self.pauses_max = pauses_max
        self.window_seconds = window_seconds
        self._pauses: deque[float] = deque()

    def charge(self, frames: int, size: int, now: float) -> float:
        """Charge one read of `size` bytes ending `frames` frames; the seconds not to read
        from the connection now (0: within the budget)."""
        wait = 0.0
        for bucket, counts_frames in self._buckets:
            owed = bucket.charge(frames if counts_frames else size, now)
            if owed > wait:
                wait = owed
        if not wait:
            return 0.0
        return wait if wait > self.pause_seconds else self.pause_seconds

    def paused(self, now: float) -> bool:
        """Count a pause that starts at `now`; True if it makes a sustained flood."""
        if not self.pauses_max:
            return False
        self._pauses.append(now)
        while self._pauses and self._pauses[0] <= now - self.window_seconds:
            self._pauses.popleft()
        return len(self._pauses) >= self.pauses_max
