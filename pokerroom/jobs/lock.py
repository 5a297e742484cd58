"""One runner of a job at a time, across processes and servers.

- PostgreSQL: `pg_try_advisory_lock` on a connection of its own, held for the whole run; the
  server drops it when that connection ends, so a killed runner never leaves it behind. The
  lock's key is made of the job's name and the connection's schema (`current_schema()`), so
  two rooms in two schemas of one database each have their own lock. The holder is also
  written to `job_locks`, only to name it to a runner that is turned away.
- SQLite: a lease row in `job_locks` (owner, expiry), taken in one write transaction (SQLite
  has one writer at a time, so two runners cannot both take it) and renewed while the run goes
  on. A lease is free once expired, or at once when its owner is a process of this host that no
  longer runs: gone, or a zombie that its parent has not reaped yet (a runner killed by
  SIGKILL, a crashed server; Linux's `/proc/PID/stat` state `Z`).

Blocking: call from the ledger's thread pool, the CLI or tests.
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.jobs.schema import job_locks
from pokerroom.ledger.db import in_transaction


class LockLost(Exception):
    """The lease ran out and another runner took it: stop before doing anything more."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a job's lock, for the message of a runner turned away."""

    job: str
    owner: str  # "" when PostgreSQL holds it for a runner that did not name itself
    expires_at_ms: int | None = None

    def describe(self) -> str:
        """`host:pid:nonce until <ms>`, or what is known."""
        who = self.owner or "another runner"
        return who if self.expires_at_ms is None else f"{who}, lease until {self.expires_at_ms}"


@dataclass(slots=True)
class JobLock:
    """A lock held: the advisory lock's connection (PostgreSQL) or the lease (SQLite)."""

    job: str
    owner: str
    lease_ms: int
    expires_at_ms: int
    connection: Connection | None = None  # PostgreSQL only
    key: int = 0  # the advisory lock's key

    def due_for_renewal(self, now_ms: int) -> bool:
        """A lease is renewed once a third of it has gone (never for the advisory lock)."""
        return self.connection is None and self.expires_at_ms - now_ms < self.lease_ms * 2 // 3


def runner_name() -> str:
    """This process as a lock owner: `host:pid:nonce`."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def advisory_key(job: str, schema: str = "") -> int:
    """A stable signed 64-bit key for the job's PostgreSQL advisory lock in `schema`.

    Advisory locks are per database: the schema is part of the key, so the rooms of two
    schemas (tests run one per test) never share a lock.
    """
    digest = hashlib.sha256(f"pokerroom.jobs:{schema}:{job}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_key(conn: Connection, job: str) -> int:
    """The advisory lock key of `job` for the schema `conn` works in (PostgreSQL)."""
    schema = conn.execute(sa.select(sa.func.current_schema())).scalar()
    return advisory_key(job, schema or "")


def _zombie(pid: int) -> bool:
    """True if `pid` is a zombie (dead, not yet reaped by its parent): Linux's /proc state Z.

    Where /proc is missing (not Linux) nothing is known: False.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return False
    # "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ")".
    state = text[text.rfind(b")") + 1 :].split(maxsplit=1)
    return bool(state) and state[0] == b"Z"


def _process_gone(owner: str) -> bool:
    """True if `owner` names a process of this host that no longer runs (gone, or a zombie)."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, under another user
        return _zombie(pid)
    return _zombie(pid)


def acquire(engine: Engine, job: str, owner: str, now_ms: int, lease_ms: int) -> JobLock | Holder:
    """Take the job's lock, or say who holds it."""
    if engine.dialect.name == "postgresql":
        return _acquire_advisory(engine, job, owner, now_ms, lease_ms)
    return in_transaction(engine, lambda conn: _take_lease(conn, job, owner, now_ms, lease_ms))


def _take_lease(
    conn: Connection, job: str, owner: str, now_ms: int, lease_ms: int
) -> JobLock | Holder:
    """The lease if free, expired, ours, or left by a dead process of this host."""
    row = conn.execute(sa.select(job_locks).where(job_locks.c.job == job)).first()
    values = {"owner": owner, "taken_at_ms": now_ms, "expires_at_ms": now_ms + lease_ms}
    if row is None:
        conn.execute(sa.insert(job_locks).values(job=job, **values))
    elif row.owner == owner or row.expires_at_ms <= now_ms or _process_gone(row.owner):
        conn.execute(sa.update(job_locks).where(job_locks.c.job == job).values(values))
    else:
        return Holder(job, row.owner, row.expires_at_ms)
    return JobLock(job, owner, lease_ms, now_ms + lease_ms)


def _acquire_advisory(
    engine: Engine, job: str, owner: str, now_ms: int, lease_ms: int
) -> JobLock | Holder:
    """PostgreSQL: the advisory lock on a connection kept for the run."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    try:
        key = lock_key(conn, job)
        got = conn.execute(sa.select(sa.func.pg_try_advisory_lock(key))).scalar_one()
    except BaseException:
        conn.invalidate()
        conn.close()
        raise
    if not got:
        conn.close()
        row = in_transaction(
            engine, lambda c: c.execute(sa.select(job_locks).where(job_locks.c.job == job)).first()
        )
        return Holder(job, "" if row is None else row.owner)
    lock = JobLock(job, owner, lease_ms, now_ms + lease_ms, conn, key)
    in_transaction(engine, lambda c: _name_holder(c, job, owner, now_ms))
    return lock


def _name_holder(conn: Connection, job: str, owner: str, now_ms: int) -> None:
    """PostgreSQL: write who holds the advisory lock (information only)."""
    conn.execute(sa.delete(job_locks).where(job_locks.c.job == job))
    conn.execute(
        sa.insert(job_locks).values(job=job, owner=owner, taken_at_ms=now_ms, expires_at_ms=0)
    )


def renew(engine: Engine, lock: JobLock, now_ms: int) -> None:
    """Extend the lease; LockLost if another runner has taken it meanwhile."""
    if lock.connection is not None:
        return  # the advisory lock lasts as long as its connection

    def work(conn: Connection) -> int:
        query = (
            sa.update(job_locks)
            .where(job_locks.c.job == lock.job, job_locks.c.owner == lock.owner)
            .values(expires_at_ms=now_ms + lock.lease_ms)
        )
        return conn.execute(query).rowcount

    if in_transaction(engine, work) != 1:
        raise LockLost(f"the {lock.job} lease of {lock.owner} was taken by another runner")
    lock.expires_at_ms = now_ms + lock.lease_ms


def release(engine: Engine, lock: JobLock) -> None:
    """Give the lock up (the lease row is deleted; the advisory lock unlocked)."""

    def forget(conn: Connection) -> None:
        conn.execute(
            sa.delete(job_locks).where(job_locks.c.job == lock.job, job_locks.c.owner == lock.owner)
        )

    try:
        in_transaction(engine, forget)
    finally:
        conn = lock.connection
        if conn is not None:
            lock.connection = None
            try:
                conn.execute(sa.select(sa.func.pg_advisory_unlock(lock.key)))
                conn.close()
            except BaseException:
                conn.invalidate()  # closing the session drops the lock
                conn.close()
                raise
