"""Which database failures are worth waiting out, and how long to wait between tries.

A *transient* failure says nothing about the work itself: the server went away, refused the
connection, rolled the transaction back to break a deadlock or a serialization conflict, or
(SQLite) another connection held the write lock too long. Work that is safe to run twice (an
idempotent write, any read) is tried again after `Backoff`; anything else is a real answer.
Pure: no clock here, the caller stores absolute deadlines (docs/ARCHITECTURE.md rules 4, 16).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

#: SQLite says these when the file is locked by another connection, busy, or unreachable.
_SQLITE_TRANSIENT = ("locked", "busy", "unable to open", "disk i/o", "readonly", "disk is full")


def is_transient(exc: BaseException) -> bool:
    """True if `exc` is an outage or a conflict that another try may get past."""
    if isinstance(exc, sa.exc.TimeoutError | sa.exc.DisconnectionError):
        return True  # no pooled connection came free in time, or a checkout found it dead
    if not isinstance(exc, sa.exc.DBAPIError):
        return False
    if exc.connection_invalidated:
        return True  # the driver lost the connection (SQLAlchemy's disconnect detection)
    if not isinstance(exc, sa.exc.OperationalError):
        return False
    module = type(exc.orig).__module__ if exc.orig is not None else ""
    if module.startswith("psycopg"):
        # psycopg raises OperationalError for every connection failure and for the classes
        # 08 (connection), 40 (rollbacks), 53 (resources), 55 (lock not available, database
        # not accepting connections), 57 (operator intervention: shutdown, terminated).
        return True
    text = str(exc.orig).lower()
    return any(word in text for word in _SQLITE_TRANSIENT)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's text, for a one-line log entry."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:300]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between tries: `first` seconds, doubling, at most `most` (no jitter: tests replay)."""

    first: float = 0.05
    most: float = 1.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed try number `attempt` (0 for the first)."""
        grown: float = self.first * 2.0 ** min(attempt, 30)
        return min(grown, self.most)
