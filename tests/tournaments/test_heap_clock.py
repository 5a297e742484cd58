"""The simulation's `HeapClock` runs calls exactly as twisted's `task.Clock` does (by time,
then by when they were scheduled), so a seed gives the same tournament on either clock."""

from __future__ import annotations

import random
from typing import Any

from twisted.internet.interfaces import IDelayedCall
from twisted.internet.task import Clock

from tournaments.ops.simulation import START, HeapClock


def script(clock: Any, seed: int, moves: bool) -> list[tuple[float, str]]:
    """Schedule, cancel, (with `moves`) delay or bring forward, and advance at random; log
    each call run. What a call does depends on its name alone, not on the order of runs."""
    rng = random.Random(seed)
    log: list[tuple[float, str]] = []
    pending: list[IDelayedCall] = []

    def run(name: str) -> None:
        log.append((clock.seconds(), name))
        if len(name) < 12 and sum(map(ord, name)) % 3 == 0:  # some calls schedule another
            pending.append(clock.callLater(len(name) % 3, run, name + "+"))

    for n in range(400):
        roll = rng.random()
        live = sorted((c for c in pending if c.active()), key=lambda c: c.args[0])  # type: ignore[attr-defined]
        if roll < 0.45:
            pending.append(clock.callLater(rng.choice([0, 1, 1, 2, 5, 7.5]), run, str(n)))
        elif roll < 0.55 and live:
            rng.choice(live).cancel()
        elif roll < 0.65 and live and moves:
            rng.choice(live).reset(rng.choice([0.5, 3, 9]))  # later or earlier
        elif roll < 0.7 and live and moves:
            rng.choice(live).delay(rng.choice([1, 4]))
        else:
            clock.advance(rng.choice([0, 0.5, 1, 3]))
    clock.advance(100)
    return log


def clocks() -> tuple[Clock, HeapClock]:
    """Twisted's clock and the heap clock, both at START."""
    twisted_clock = Clock()
    twisted_clock.advance(START)
    return twisted_clock, HeapClock(START)


def test_heap_clock_runs_calls_as_twisted_clock_does() -> None:
    """Same script, same runs in the same order at the same times, and the same calls left
    pending, on both clocks (a cancelled call never runs)."""
    for seed in range(20):
        twisted_clock, heap_clock = clocks()
        expected = script(twisted_clock, seed, moves=False)
        assert script(heap_clock, seed, moves=False) == expected, seed
        assert len(expected) > 100
        left = [c.getTime() for c in twisted_clock.getDelayedCalls()]
        assert [c.getTime() for c in heap_clock.getDelayedCalls()] == left
        assert heap_clock.next_time() == (left[0] if left else None)


def test_moved_calls_run_at_their_new_time() -> None:
    """Calls delayed or brought forward run once, at their new time, on both clocks (among
    calls due at the same instant a moved call may run in another order)."""
    for seed in range(20):
        twisted_clock, heap_clock = clocks()
        expected = script(twisted_clock, seed, moves=True)
        assert sorted(script(heap_clock, seed, moves=True)) == sorted(expected), seed
        assert len(expected) > 100


def test_next_time_and_the_pending_calls_in_order() -> None:
    """`next_time` is the first live call's time; `getDelayedCalls` lists live calls in order."""
    clock = HeapClock(10.0)
    late = clock.callLater(5, lambda: None)
    early = clock.callLater(2, lambda: None)
    assert clock.next_time() == 12.0
    assert clock.getDelayedCalls() == [early, late]
    early.cancel()
    assert clock.next_time() == 15.0 and clock.getDelayedCalls() == [late]
    late.delay(1)
    assert clock.next_time() == 16.0
    clock.advance(6)
    assert not late.active() and clock.next_time() is None
