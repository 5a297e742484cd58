"""LeaseFence: what a table's store needs to fence its writes by the node's lease.

Handed to `HandStore(ledger, fence=...)` (pokerroom/cash/hand_store.py; its `WriteFence`
Protocol is in pokerroom/ledger/fenced.py) by the node that took the table's lease at `epoch`.
Every write transaction of the table begins with the fence (`leases.fenced`), a settlement
in a batch runs it in the batch's transaction (`check`), and a write refused with
`lease_lost` is reported to the node (`lost`), which stops the table
(docs/design/cluster.md, "Fence").
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.engine import Connection, Engine

import pokerroom.cluster.leases as leases
from pokerroom.cluster.leases import LeaseLost


class LeaseFence:
    """The fence of one resource held by `owner` at `epoch`."""

    def __init__(
        self, resource: str, owner: str, epoch: int, on_lost: Callable[[str, int], None]
    ) -> None:
        self.resource, self.owner, self.epoch = resource, owner, epoch
        self._on_lost = on_lost
        self._engines: dict[int, Engine] = {}

    def engine(self, engine: Engine) -> Engine:
        """`engine` fenced: each write transaction first checks the lease (in a thread)."""
        fenced = self._engines.get(id(engine))
        if fenced is None:
            leases.install_fence(engine)
            fenced = leases.fenced(engine, self.resource, self.owner, self.epoch)
            self._engines[id(engine)] = fenced
        return fenced

    def check(self, conn: Connection) -> None:
        """The fence inside a transaction already open (a settlement batch's)."""
        leases.check(conn, self.resource, self.owner, self.epoch)

    def refused(self, error: BaseException | None) -> None:
        """A fenced write failed (reactor thread): a lost lease stops the table at once."""
        if isinstance(error, LeaseLost):
            self._on_lost(self.resource, self.epoch)
