"""The action clock and the time bank (C-6, C-7): absolute deadlines on an injected clock."""

from __future__ import annotations

from collections.abc import Callable

from twisted.internet.interfaces import IDelayedCall, IReactorTime


def seconds_to_ms(seconds: float) -> int:
    """Whole milliseconds."""
    return round(seconds * 1000)


def refill_timebank(
    bank_ms: int, hands_since_refill: int, refill_hands: int, refill_ms: int, max_ms: int
) -> tuple[int, int]:
    """Count one more hand; every `refill_hands` hands add `refill_ms`, up to `max_ms` (C-7)."""
    hands = hands_since_refill + 1
    if refill_hands > 0 and hands >= refill_hands:
        return min(max_ms, bank_ms + refill_ms) if bank_ms < max_ms else bank_ms, 0
    return bank_ms, hands


class ActionClock:
    """One decision's clock: the action time, then the player's time bank, then a timeout.

    `on_timebank(remaining_ms)` is called when the action time runs out and the bank
    starts (C-7); `on_timeout()` when nothing is left (C-6).

    `park` stops timing like `stop` but keeps the decision's pending call for the next
    `start`, which moves it with `reset` (a later deadline is O(1) on the reactor's heap)
    instead of a `cancel` and a new `callLater` per decision; `release` (and `stop`) cancel a
    parked call that no `start` took. A parked call never runs: the driver releases it before
    its turn ends (docs/PERFORMANCE.md, "Issue 20 item 3").
    """

    def __init__(
        self,
        clock: IReactorTime,
        on_timebank: Callable[[int], None],
        on_timeout: Callable[[], None],
    ) -> None:
        self._clock = clock
        self._on_timebank = on_timebank
        self._on_timeout = on_timeout
        self._call: IDelayedCall | None = None
        self._parked: IDelayedCall | None = None  # the last decision's action-time call
        self._bank_ms = 0
        self._bank_started: float | None = None
        self.deadline = 0.0

    @property
    def running(self) -> bool:
        """Whether a decision is being timed."""
        return self._call is not None

    @property
    def in_timebank(self) -> bool:
        """Whether the time bank is running."""
        return self._bank_started is not None

    def start(self, action_seconds: float, bank_ms: int) -> float:
        """Time a new decision; return the absolute action deadline (seconds)."""
        parked, self._parked = self._parked, None
        self.stop()
        self._bank_ms = bank_ms
        self._bank_started = None
        self.deadline = self._clock.seconds() + action_seconds
        if parked is not None and parked.active() and parked.getTime() <= self.deadline:
            parked.reset(action_seconds)  # later: the reactor moves it without a heap search
            self._call = parked
        else:
            if parked is not None and parked.active():
                parked.cancel()
            self._call = self._clock.callLater(action_seconds, self._action_time_up)
        return self.deadline

    def _action_time_up(self) -> None:
        self._call = None
        if self._bank_ms > 0:
            # Deadlines, not ticks (ARCH 4): the bank starts when the action time ended,
            # even if this call runs late.
            self._bank_started = self.deadline
            self.deadline = self._bank_started + self._bank_ms / 1000
            delay = max(0.0, self.deadline - self._clock.seconds())
            self._call = self._clock.callLater(delay, self._bank_time_up)
            self._on_timebank(self.bank_left_ms())
        else:
            self._on_timeout()

    def _bank_time_up(self) -> None:
        self._call = None
        self._bank_started = None
        self._bank_ms = 0
        self._on_timeout()

    def bank_left_ms(self) -> int:
        """What is left of the bank now (it only shrinks while it runs)."""
        if self._bank_started is None:
            return self._bank_ms
        used = seconds_to_ms(self._clock.seconds() - self._bank_started)
        return max(0, self._bank_ms - used)

    def stop(self) -> int:
        """Stop timing; return the time bank left (ms) for the player's account."""
        left = self.bank_left_ms()
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self._bank_started = None
        self.release()
        return left

    def park(self) -> int:
        """`stop`, but keep the action-time call for the next `start` (see the class); return
        the time bank left (ms)."""
        call = self._call
        if call is None or self._bank_started is not None or self._parked is not None:
            return self.stop()
        self._call = None
        self._parked = call
        return self._bank_ms

    def release(self) -> None:
        """Cancel a parked call that no `start` took."""
        parked, self._parked = self._parked, None
        if parked is not None and parked.active():
            parked.cancel()
