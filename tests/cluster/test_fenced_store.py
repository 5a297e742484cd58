"""A table's HandStore fenced by its lease, through the real LedgerService on PostgreSQL
(docs/design/cluster.md, "Fence"): two tables' settlements share one group commit; the lease of
one was taken over meanwhile: its settlement fails alone with lease_lost (no transfer, the hand
stays `started` for the next owner to void, C-12), the other commits, and the node hears of
the refusal (it stops that table). The old owner's next `hands` row is refused too; an unfenced
store (one process, no --cluster) writes as before."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, cast

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.defer import succeed
from twisted.internet.task import Clock

from pokerroom.cash.actor import TableActor
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.policies import RoomPolicies
from pokerroom.cash.store import SeatRow, escrow, seat_player
from pokerroom.cluster import leases
from pokerroom.cluster.fence import LeaseFence
from pokerroom.cluster.leases import LeaseLost
from pokerroom.cluster.tables import ClusterTables
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.reports import balance
from pokerroom.ledger.service import LedgerSettings
from pokerroom.ledger.transfers import move
from pokerroom.server.reactor import IRoomReactor
from pokerroom.table.views import TableListener
from tests.ledger.conftest import QueueReactor
from tests.ledger.group_commit import Room

pytestmark = pytest.mark.postgresql
USD = "USD"


@pytest.fixture
def room(pg: Engine) -> Iterator[Room]:
    """A started ledger service on the module's schema (fake reactor and clock)."""
    leases.install_fence(pg)
    started = Room(pg, QueueReactor(), LedgerSettings(batch_max_ms=5.0))
    yield started
    started.stop()


def hand_status(engine: Engine, hand_id: str) -> str | None:
    """A `hands` row's status, None if there is none."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.text("SELECT status FROM cash_hands WHERE id = :h"), {"h": hand_id}
        ).first()
    return None if row is None else str(row[0])


def settlements(engine: Engine, hand_id: str) -> int:
    """The hand's settlement transfers (0 or 1)."""
    with engine.connect() as conn:
        return int(
            conn.execute(
                sa.text("SELECT count(*) FROM journal WHERE idempotency_key = :k"),
                {"k": f"hand:{hand_id}"},
            ).scalar_one()
        )


def test_a_fenced_settlement_fails_alone_and_the_node_hears_it(room: Room, pg: Engine) -> None:
    """Module docstring: lease_lost alone in a group commit, the node told, unfenced unchanged."""
    lost: list[tuple[str, int]] = []
    stores: dict[str, HandStore] = {}
    for table in ("f1", "f2"):
        for player in ("p", "q"):
            funds = escrow(table, player, USD)
            move(pg, key=f"fund:{table}:{player}", kind="deposit", currency=USD,
                 source=external(USD), destination=funds, amount=100)  # fmt: skip
        epoch = leases.take(pg, f"table:{table}", "a", 10)
        assert epoch == 1
        fence = LeaseFence(f"table:{table}", "a", epoch, lambda r, e: lost.append((r, e)))
        stores[table] = HandStore(room.service, fence=fence)
    started = [
        stores[t].start_hand(f"{t}-1", t, 1, 0, {"p": 100, "q": 100}, []) for t in ("f1", "f2")
    ]
    assert room.answers(started) == [None, None]
    with pg.begin() as conn:  # f1's lease runs out and b takes the table
        conn.execute(sa.text("UPDATE cluster_leases SET expires_at = clock_timestamp()"
                             " WHERE resource = 'table:f1'"))  # fmt: skip
    assert leases.take(pg, "table:f1", "b", 10) == 2
    settled: list[Any] = [
        stores[t].settle_hand(f"{t}-1", t, USD, {"p": 30, "q": -30}, 0, {}, 5) for t in ("f1", "f2")
    ]
    answers = room.answers(settled)
    assert isinstance(answers[0], LeaseLost) and answers[0].code == "lease_lost"
    assert answers[1] is None
    assert lost == [("table:f1", 1)]
    assert hand_status(pg, "f1-1") == "started" and settlements(pg, "f1-1") == 0
    assert balance(pg, escrow("f1", "p", USD)).balance == 100  # nothing of the fenced hand
    assert hand_status(pg, "f2-1") == "settled" and settlements(pg, "f2-1") == 1
    assert balance(pg, escrow("f2", "p", USD)).balance == 130
    (refused,) = room.answers([stores["f1"].start_hand("f1-2", "f1", 2, 9, {"p": 100}, [])])
    assert isinstance(refused, LeaseLost)
    assert hand_status(pg, "f1-2") is None and lost == [("table:f1", 1), ("table:f1", 1)]
    (plain,) = room.answers([HandStore(room.service).start_hand("f1-3", "f1", 3, 9, {}, [])])
    assert plain is None and hand_status(pg, "f1-3") == "started"  # no fence: no check


class Lobby:
    """What the room's lobby is told as the node opens a table."""

    def __init__(self) -> None:
        self.added: dict[str, str | None] = {}

    def add(self, actor: TableActor, state: str | None) -> None:
        self.added[actor.table_id] = state


@pytest.mark.parametrize("state", ["closed", "paused", None])
def test_a_table_staff_held_stays_held_on_the_node_that_takes_it(
    room: Room, pg: Engine, state: str | None
) -> None:
    """docs/ADMIN.md table controls across nodes: the stored hold is read before the table
    starts and applied before it can deal (two players seated and ready would be dealt in at
    once otherwise); the room is told the state to apply with the table."""
    table = f"h-{state}"
    for n, player in enumerate(("p", "q")):
        move(pg, key=f"w:{table}:{player}", kind="deposit", currency=USD, source=external(USD),
             destination=wallet(player, USD), amount=100)  # fmt: skip
        row = SeatRow(n, player, "s", 100, 0, 0, 0, False, False, False)
        seat_player(pg, table, row, USD, f"buy:{table}:{player}")
    lobby = Lobby()
    clock = Clock()
    tables = ClusterTables(
        cast(IRoomReactor, clock), room.service, [CashTableConfig(table)],
        listener=cast(TableListener, Quiet()), rng=random.Random(1),
        policies=RoomPolicies(HandStore(room.service)), add=lobby.add, remove=lambda _: None,
        staff_state=lambda _: succeed(state),
    )  # fmt: skip
    epoch = leases.take(pg, f"table:{table}", "a", 10)
    assert epoch is not None
    fence = LeaseFence(f"table:{table}", "a", epoch, lambda r, e: None)
    room.answers([tables.open(f"table:{table}", fence)])
    actor = tables.actors[f"table:{table}"]
    assert lobby.added == {table: state}
    assert actor.staff_hold == state
    clock.advance(CashTableConfig(table).between_hands_seconds + 1)
    assert actor.hand_running is (state is None)  # dealt only when no hold was stored


class Quiet:
    """A table listener that hears nothing."""

    def broadcast(self, *args: Any) -> None:
        """Nobody listens."""

    def send(self, *args: Any) -> None:
        """Nobody listens."""
