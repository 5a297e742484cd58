"""ClusterTables: a node's cash tables, opened when it takes their lease and closed when it
loses it (docs/design/cluster.md, "Nodes" and "Interfaces").

In cluster mode the room opens no table at start. When the node takes `table:<id>` at an epoch,
this builds the table's actor with a `HandStore` fenced by that lease and `start()`s it: C-12
voids the hand the last owner left `started` and restores its stacks, reseats the players from
their escrows, and the table deals again; only then is it in the lobby. Losing the lease closes
the actor (its unfinished hand stays `started`, for the next owner to void) and takes it out of
the lobby. `hold` and `idle` serve a drain: no new hand, then hand over once none runs.

A table staff paused or closed (docs/ADMIN.md, stored in `table_controls`) stays so on every
node: its stored state is read before the table starts, the table is held before it can deal,
and the room applies the state once the table is in its lobby (`add(actor, state)`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from twisted.internet.defer import Deferred, succeed

from pokerroom.admin.table_handlers import CLOSED
from pokerroom.cash.actor import Shuffler, TableActor
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.policies import RoomPolicies
from pokerroom.cash.roster import IDLE
from pokerroom.cash.store import Recovery
from pokerroom.cluster.leases import TABLE, resource_of
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService
from pokerroom.server.reactor import IRoomReactor
from pokerroom.table.views import TableListener


class ClusterTables:
    """The configured cash tables as a node's resources: open on take, close on loss."""

    def __init__(
        self,
        reactor: IRoomReactor,
        ledger: LedgerService,
        configs: Sequence[CashTableConfig],
        *,
        listener: TableListener,
        rng: Shuffler,
        policies: RoomPolicies,
        add: Callable[[TableActor, str | None], None],
        remove: Callable[[str], None],
        staff_state: Callable[[str], Deferred[str | None]] | None = None,
    ) -> None:
        self.reactor = reactor
        self.ledger = ledger
        self.configs = {resource_of(TABLE, c.table_id): c for c in configs}
        self.listener = listener
        self.rng = rng
        self.policies = policies
        self._add, self._remove = add, remove  # the room's lobby
        self._staff_state = staff_state  # a table's stored staff hold (None: none kept)
        self.actors: dict[str, TableActor] = {}  # resource -> the open table

    def resources(self) -> list[str]:
        """Every table of the config, as `table:<id>`, in name order."""
        return sorted(self.configs)

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """Build the table fenced by `fence`, recover it (C-12) and put it in the lobby."""
        config = self.configs[resource]
        actor = TableActor(
            config,
            clock=self.reactor,
            ledger=self.ledger,
            listener=self.listener,
            rng=self.rng,
            store=HandStore(self.ledger, fence=fence),
            policies=self.policies,
        )
        self.actors[resource] = actor
        held: dict[str, str | None] = {"state": None}

        def start(state: str | None) -> Deferred[Recovery]:
            held["state"] = state
            if state is not None:
                actor.hold(closed=state == CLOSED)  # before it can deal a hand
            return actor.start()

        def started(_: object) -> None:
            if self.actors.get(resource) is actor and not actor.closed:
                self._add(actor, held["state"])

        stored: Deferred[str | None] = (
            self._staff_state(config.table_id) if self._staff_state is not None else succeed(None)
        )
        return stored.addCallback(start).addCallback(started)

    def close(self, resource: str) -> None:
        """Stop the table: out of the lobby, no timer, no write (its hand is void next time)."""
        actor = self.actors.pop(resource, None)
        if actor is not None:
            self._remove(actor.table_id)
            actor.close()

    def hold(self, resource: str) -> None:
        """Deal no new hand (a drain); the running one plays out."""
        actor = self.actors.get(resource)
        if actor is not None:
            actor.hold()

    def idle(self, resource: str) -> bool:
        """No hand being dealt, played or settled (or the table is not open)."""
        actor = self.actors.get(resource)
        return actor is None or actor.closed or actor.phase == IDLE
