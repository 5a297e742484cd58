"""The recurring schedule in cluster mode, two nodes on a real PostgreSQL, the real ledger and a
fake clock (docs/design/cluster.md, "Tournaments"): only the holder of `schedule:tournaments`
creates tournaments, each once; every tournament is opened by exactly one node (the holder of
its lease); a sit-and-go that fills is replaced by one new one; a tournament that ended has its
lease released; a node that lost the schedule lease creates nothing (`lease_lost`)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from twisted.internet.defer import Deferred

from pokerroom.cluster import leases
from pokerroom.cluster.config import ClusterSettings
from pokerroom.cluster.hosts import Hosts
from pokerroom.cluster.leases import LeaseLost
from pokerroom.cluster.node import ClusterNode
from pokerroom.cluster.schedule import RESOURCE, ClusterSchedule
from pokerroom.cluster.tournaments import ClusterTournaments
from pokerroom.ledger.reports import check_ledger
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import Room
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler
from tournaments.ops.simulation import Bots

pytestmark = pytest.mark.postgresql
SETTINGS = ClusterSettings(renew_seconds=20.0, ttl_seconds=100.0, margin_seconds=30.0)
SNG = ScheduleEntry("sng-3", "turbo", 100, 10, players=3)
HOURLY = ScheduleEntry(
    "hourly", "turbo", 100, 10, every_minutes=60, at_minute=30, registration_open_minutes=20
)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    """The tournament harness's room on a fresh PostgreSQL schema (cluster tables included)."""
    with fresh_pg_schema("cluster_sched") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


class Node:
    """One node: its scheduler (configs, actors), schedule and tournaments hosts, ClusterNode."""

    def __init__(self, name: str, room: Room) -> None:
        self.bots = Bots(random.Random(len(name)))
        self.scheduler = TournamentScheduler(
            room.clock, room.ledger, [SNG, HOURLY], players=self.bots
        )
        self.schedule = ClusterSchedule(room.clock, room.ledger, self.scheduler)
        self.tournaments = ClusterTournaments(
            room.clock, room.ledger, self.scheduler.actor_for, opened=self.opened
        )
        hosts = Hosts({"schedule": self.schedule, "tournament": self.tournaments})
        self.node = ClusterNode(name, room.ledger, hosts, SETTINGS, clock=room.clock)
        self.opened_ids: list[str] = []

    def opened(self, actor: object) -> None:
        tid = actor.tid  # type: ignore[attr-defined]
        self.opened_ids.append(tid)
        self.scheduler.actors[tid] = actor  # type: ignore[assignment]


def settle(room: Room) -> None:
    """Every piece of ledger work answered on this thread."""
    while room.ledger.working or not room.pump.calls.empty():
        f, args, kwargs = room.pump.calls.get(timeout=30)
        f(*args, **kwargs)


def run(room: Room, seconds: float, step: float = 10.0) -> None:
    """The fake clock on by `seconds`, settling between steps."""
    end = room.clock.seconds() + seconds
    while room.clock.seconds() < end:
        settle(room)
        room.clock.advance(step)
    settle(room)


def rows(room: Room) -> dict[str, str]:
    """Tournament id -> status, as stored."""
    with room.engine.connect() as conn:
        found = conn.execute(sa.text("SELECT id, status FROM tournaments")).all()
    return {str(r[0]): str(r[1]) for r in found}


def test_two_nodes_create_each_scheduled_tournament_once_and_open_it_on_one_node(
    room: Room,
) -> None:
    """Over 2.5 hours of schedule: the MTTs due are created once each, by the schedule's holder
    alone; each tournament is opened on exactly one node; a sit-and-go that filled and started
    is replaced by exactly one new one; MTTs nobody entered are cancelled at their start and
    their leases released. Then the schedule lease is taken away from its holder: its next
    check is refused (`lease_lost`), creates nothing and stops its checks."""
    a, b = Node("a", room), Node("b", room)
    for node in (a, b):
        node.node.startService()
    run(room, 3 * 3600)
    holder = a if a.schedule.created else b
    other = b if holder is a else a
    assert holder.schedule.created and not other.schedule.created  # one creator only
    assert leases.owners(room.engine)[RESOURCE] == holder.node.node
    stored = rows(room)
    assert sorted(holder.schedule.created) == sorted(stored)
    mtts = sorted(t for t in stored if t.startswith("hourly-"))
    assert len(mtts) == 3  # one an hour, each created once (its id is its start)
    assert [t for t in stored if t.startswith("sng-3-")] == [
        t for t in holder.schedule.created if t.startswith("sng-3-")
    ]
    opened = a.opened_ids + b.opened_ids
    assert sorted(opened) == sorted(set(opened)) == sorted(stored)  # each on one node only
    for tid in mtts[:2]:  # past their start with no entry: cancelled, leases released
        assert stored[tid] in ("cancelled", "refunded")  # T-1: too few players
        assert f"tournament:{tid}" not in a.node.owned() | b.node.owned()
    (sng,) = [t for t, s in stored.items() if t.startswith("sng-3-") and s == "registering"]
    # three players fill the sit-and-go on whichever node runs it: it starts, one new one opens
    runner = a if f"tournament:{sng}" in a.node.owned() else b
    actor = runner.scheduler.actors[sng]
    runner.bots.actor = actor
    for n in range(3):
        room.fund_player(f"p{n}", 1_000)
        room.wait(actor.register(f"p{n}"))
    run(room, 30, step=1.0)
    assert actor.status in ("running", "finished")
    registering = [
        t for t, s in rows(room).items() if t.startswith("sng-3-") and s == "registering"
    ]
    assert len(registering) == 1 and registering != [sng]
    # the schedule lease is taken away: the holder's next check is refused and writes nothing
    with room.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE cluster_leases SET owner = 'x', epoch = epoch + 1 WHERE resource = :r"),
            {"r": RESOURCE},
        )
        conn.execute(sa.text("UPDATE tournaments SET status = 'finished' WHERE id LIKE 'sng-3-%'"))
    before = rows(room)
    refused: list[BaseException | None] = []
    fence = holder.schedule.fence
    assert fence is not None
    original = fence.refused
    fence.refused = lambda error: (refused.append(error), original(error))[1]  # type: ignore[method-assign]
    d = holder.schedule.check()
    assert isinstance(d, Deferred)
    room.wait(d)
    assert refused and isinstance(refused[0], LeaseLost)
    assert rows(room) == before  # no new sit-and-go: nothing written
    assert RESOURCE not in holder.node.owned() and holder.schedule.fence is None
    for node in (a, b):
        room.wait(node.node.stopService())
    assert check_ledger(room.engine).ok


def test_serve_cluster_runs_the_schedule_and_tournaments_through_the_node(tmp_path: Path) -> None:
    """`serve --cluster`: the room's scheduler recovers and opens nothing itself (cluster=True)
    and the node's resources are the tables, the casino tables, then `schedule:tournaments`,
    then tournaments."""
    from twisted.internet.task import Clock

    from pokerroom.server.service import RoomService
    from pokerroom.server.settings import load_settings

    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    room = RoomService(Clock(), url, load_settings(), schedule=[SNG], node="n1")
    try:
        assert room.tournaments is not None and room.tournaments.cluster
        assert room.cluster is not None and isinstance(room.cluster.host, Hosts)
        found = room.cluster.host.resources()
        tables = [f"table:{t.table_id}" for t in room.settings.tables]
        casino = [f"casino:{t}" for t in sorted(room.casino.specs)]  # one node runs each
        assert found == [*sorted(tables), *casino, RESOURCE]
        alone = RoomService(Clock(), url, load_settings(), schedule=[SNG])
        assert alone.tournaments is not None and not alone.tournaments.cluster
        alone.ledger.engine.dispose()
    finally:
        room.ledger.engine.dispose()
