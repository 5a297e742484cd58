"""The job lock: a killed runner's SQLite lease is free once its process is a zombie, and the
PostgreSQL advisory lock is one per schema (two rooms in one database do not share it)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from pokerroom.jobs import lock
from pokerroom.jobs.schema import metadata
from pokerroom.ledger.db import make_engine
from tests.jobs.conftest import T0
from tests.postgres import fresh_pg_schema

LEASE_MS = 600_000


def _state(pid: int) -> bytes:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        text = stat.read()
    return text[text.rfind(b")") + 1 :].split()[0]


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    """A SQLite file with the job tables."""
    engine = make_engine(f"sqlite:///{tmp_path / 'lock.sqlite'}")
    metadata.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_killed_runner_not_yet_reaped_leaves_its_lease_free(sqlite: Engine) -> None:
    """A runner killed by SIGKILL whose parent has not reaped it yet (a zombie: kill(pid, 0)
    still succeeds) holds no lease: another runner takes it at once, long before it expires.
    A live runner of this host keeps its lease."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        owner = f"{socket.gethostname()}:{child.pid}:deadbeef"
        taken = lock.acquire(sqlite, "refunds", owner, T0, LEASE_MS)
        assert isinstance(taken, lock.JobLock)
        alive = lock.acquire(sqlite, "refunds", "other:1:x", T0 + 1, LEASE_MS)
        assert isinstance(alive, lock.Holder) and alive.owner == owner  # a live runner keeps it
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while _state(child.pid) != b"Z":  # killed, not reaped: a zombie
            assert time.monotonic() < deadline, "the child did not become a zombie"
            time.sleep(0.01)
        os.kill(child.pid, 0)  # the old check: a zombie still "exists"
        again = lock.acquire(sqlite, "refunds", "other:1:x", T0 + 2, LEASE_MS)
        assert isinstance(again, lock.JobLock) and again.owner == "other:1:x"
    finally:
        child.kill()
        child.wait()


@pytest.mark.postgresql
def test_the_postgresql_job_lock_is_one_per_schema() -> None:
    """Two rooms in two schemas of one database run their refund jobs at the same time; in
    one schema a second runner is still turned away while the first holds the lock."""
    with fresh_pg_schema("lock_a") as url_a, fresh_pg_schema("lock_b") as url_b:
        engines = [make_engine(url_a), make_engine(url_b)]
        held: list[lock.JobLock] = []
        try:
            for engine in engines:
                metadata.create_all(engine)
            first = lock.acquire(engines[0], "refunds", "a:1:x", T0, LEASE_MS)
            assert isinstance(first, lock.JobLock)
            held.append(first)
            other_schema = lock.acquire(engines[1], "refunds", "b:1:x", T0, LEASE_MS)
            assert isinstance(other_schema, lock.JobLock), other_schema
            held.append(other_schema)
            same_schema = lock.acquire(engines[0], "refunds", "a:2:x", T0, LEASE_MS)
            assert isinstance(same_schema, lock.Holder) and same_schema.owner == "a:1:x"
        finally:
            for engine, got in zip(engines, held, strict=False):
                lock.release(engine, got)
            for engine in engines:
                engine.dispose()
