"""Driving the bus in tests: a fresh asyncio loop per test, run until a Deferred fires.

The bus needs only an asyncio loop (a node runs it under Twisted's asyncio reactor, whose loop
it is); Deferreds need no reactor. So each test owns its loop, which works the same under
pytest-xdist, and waits on what it expects with a deadline, never a sleep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
from twisted.internet.defer import Deferred

T = TypeVar("T")


def run(loop: asyncio.AbstractEventLoop, d: Deferred[T], seconds: float = 5.0) -> T:
    """Run the loop until `d` fires (its result, or its exception raised); fail past `seconds`."""
    return loop.run_until_complete(asyncio.wait_for(d.asFuture(loop), seconds))


def until(loop: asyncio.AbstractEventLoop, ready: Callable[[], Any], seconds: float = 5.0) -> None:
    """Run the loop until `ready()` is true; fail past `seconds`."""
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"not ready within {seconds} s")
        loop.run_until_complete(asyncio.sleep(0.005))  # lets the loop turn; not a fixed wait


@contextmanager
def fresh_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A new event loop (one per test), its leftover tasks cancelled and it closed at the end."""
    new = asyncio.new_event_loop()
    try:
        yield new
    finally:
        pending = asyncio.all_tasks(new)  # what a client left running (reconnects, pings)
        for task in pending:
            task.cancel()

        async def settle() -> None:
            await asyncio.gather(*pending, return_exceptions=True)

        new.run_until_complete(settle())
        new.run_until_complete(new.shutdown_asyncgens())
        new.close()
