"""Tests that measure real processes' rates run with no other test beside them.

`pytest -n auto` runs tests in parallel workers. A test marked `alone` (it compares the hand
rate of a real server in two conditions, say) takes an exclusive file lock that every other test
takes shared, so while it runs no other test does, in any worker. A second lock, the intent,
keeps the others from starving it: once an `alone` test waits, no new test starts.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_TAG = hashlib.sha256(str(_ROOT).encode()).hexdigest()[:12]
_LOCKS = Path(tempfile.gettempdir())


def _open(name: str) -> int:
    """A lock file's descriptor, open for the life of the worker process."""
    return os.open(_LOCKS / f"pokerroom-tests-{_TAG}-{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)


_INTENT = _open("intent")
_RUNNING = _open("running")


@pytest.fixture(autouse=True)
def _one_at_a_time_for_alone_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Shared lock for every test; exclusive for a test marked `alone`."""
    alone = request.node.get_closest_marker("alone") is not None
    if alone:
        fcntl.flock(_INTENT, fcntl.LOCK_EX)  # no new test starts from now on ...
        fcntl.flock(_RUNNING, fcntl.LOCK_EX)  # ... and the running ones finish first
    else:
        fcntl.flock(_INTENT, fcntl.LOCK_SH)  # waits while an alone test waits or runs
        fcntl.flock(_RUNNING, fcntl.LOCK_SH)
        fcntl.flock(_INTENT, fcntl.LOCK_UN)
    try:
        yield
    finally:
        fcntl.flock(_RUNNING, fcntl.LOCK_UN)
        if alone:
            fcntl.flock(_INTENT, fcntl.LOCK_UN)
