"""ClusterCasino: the room's casino tables as a node's resources (docs/design/cluster.md,
"Casino tables").

A casino table keeps its state in the database under its id (its open rounds, voided by the
next start, K-7; a progressive table's jackpot pool, read once at start and kept in memory),
so two nodes must never run the same table: one's start would void the other's round under
way, and each would pay jackpots from the pool it read. Each table is the resource
`casino:<id>`, run by the node holding the lease: taking it builds the table on a `RoundStore`
fenced by the lease and starts it (the rounds the last owner left open are voided, every stake
back; the pool is read), then it is in the desk's `tables`. Losing the lease stops it at once
(its round stays open, voided by the next owner); a drain holds it (no new round) and hands it
over once its round is settled. Its players are told `casino_table_state` (`open` false,
reason `table_moved`) and join again (on any node: requests are carried to the owner,
pokerroom/cluster/casino_routing.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from twisted.internet.defer import Deferred

from pokerroom.casino import events as ev
from pokerroom.casino import table_config as tc
from pokerroom.casino.actor import CasinoTable
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService

CASINO = "casino"
#: The reason a table's players are told when it stops on this node (it runs elsewhere next).
MOVED = "table_moved"
_BUSY = (tc.OPENING, tc.BETTING, tc.SETTLING)


class CasinoTables(Protocol):
    """The room's casino desk as this host uses it (pokerroom/server/casino_desk.py)."""

    tables: dict[str, CasinoTable]

    @property
    def specs(self) -> Mapping[str, tuple[CasinoTableConfig, Mapping[str, Any]]]:
        """Every casino table of the room: id -> (config, its game's settings)."""
        ...

    def build(self, table_id: str, store: RoundStore) -> CasinoTable:
        """A new table on `store`, not started."""
        ...

    def tell(self, players: Iterable[str], event: ev.CasinoEvent) -> None:
        """Deliver a table event to players (on any node)."""
        ...


def casino_resource(table_id: str) -> str:
    """The lease name of a casino table."""
    return f"{CASINO}:{table_id}"


class ClusterCasino:
    """The casino tables as a node's resources: open on take, close on loss."""

    def __init__(self, ledger: LedgerService, desk: CasinoTables) -> None:
        self.ledger = ledger
        self.desk = desk
        self.actors: dict[str, CasinoTable] = {}  # resource -> the table run here

    def resources(self) -> list[str]:
        """Every casino table, as `casino:<id>`, in name order."""
        return sorted(casino_resource(t) for t in self.desk.specs)

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """Build the table fenced by `fence`, start it (K-7 voids) and put it in the desk."""
        table_id = resource.partition(":")[2]
        table = self.desk.build(table_id, RoundStore(self.ledger, fence))
        self.actors[resource] = table

        def started(_: object) -> None:
            if self.actors.get(resource) is table:
                self.desk.tables[table_id] = table

        return table.start().addCallback(started)

    def close(self, resource: str) -> None:
        """Stop the table now (a round under way stays open: the next owner voids it)."""
        table = self.actors.pop(resource, None)
        if table is None:
            return
        if self.desk.tables.get(table.table_id) is table:
            del self.desk.tables[table.table_id]
        table.stop()
        self.desk.tell(sorted(table.audience), ev.TableState(table.table_id, False, MOVED))

    def hold(self, resource: str) -> None:
        """Open no new round (a drain); the round under way settles."""
        table = self.actors.get(resource)
        if table is not None:
            table.hold()

    def idle(self, resource: str) -> bool:
        """No round being opened, taken or settled (or the table is not open here)."""
        table = self.actors.get(resource)
        return table is None or (table.round is None and table.phase not in _BUSY)
