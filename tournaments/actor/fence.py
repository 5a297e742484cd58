"""TournamentFence: the lease a tournament's writes are fenced by, in cluster mode.

A cluster node that took `tournament:<id>` at an epoch hands its `LeaseFence`
(pokerroom/cluster/fence.py) to the actor's cashier and recorder (docs/design/cluster.md,
"Fence"): every unit the recorder commits in the ledger's batch begins with the lease check in
the same transaction, and every transfer the cashier posts runs on an engine whose write
transactions begin with it. A write refused (`lease_lost`) is reported (`refused`), and the
node stops the tournament. Without a fence (one process) nothing is checked.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.engine import Connection, Engine


class TournamentFence(Protocol):
    """What the cashier and the recorder need of a lease."""

    def engine(self, engine: Engine) -> Engine:
        """`engine` whose write transactions begin with the lease check."""
        ...

    def check(self, conn: Connection) -> None:
        """The lease check in a transaction already open (a batch's)."""
        ...

    def refused(self, error: BaseException | None) -> None:
        """A fenced write failed with `error` (on the reactor thread)."""
        ...
