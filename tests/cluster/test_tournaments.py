"""Tournaments in cluster mode on a real PostgreSQL, the real ledger and a fake clock
(docs/design/cluster.md, "Tournaments"): a node takes a running tournament whose owner's lease
expired and resumes it as after a restart (T-18: every player at their stored seat with their
stored stack); once another node holds the lease, the tournament's next write is refused by
the fence (`lease_lost`), changes nothing, and stops the tournament on the node; money is
conserved and the ledger check passes throughout."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from twisted.internet.task import Clock

from pokerroom.cluster import leases
from pokerroom.cluster.config import ClusterSettings
from pokerroom.cluster.hosts import Hosts
from pokerroom.cluster.leases import LeaseLost
from pokerroom.cluster.node import ClusterNode
from pokerroom.cluster.tournaments import ClusterTournaments
from pokerroom.ledger import make_engine
from pokerroom.ledger.reports import check_ledger
from tests.cluster.test_node import SETTINGS as SETTINGS_NODE
from tests.cluster.test_node import Host, node
from tests.postgres import fresh_pg_schema
from tests.serving import migrate
from tests.tournaments.actor_harness import Room
from tests.tournaments.test_durable import (
    Staller,
    advance,
    crashed_mtt,
    memory_seats,
    stored_row,
    stored_seats,
)
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import TournamentConfig
from tournaments.director.money import Account, MoneyMove
from tournaments.ops.simulation import Bots

pytestmark = pytest.mark.postgresql
#: A long TTL by the database clock: the fake clock drives the rounds, however slow the machine.
SETTINGS = ClusterSettings(renew_seconds=2.0, ttl_seconds=60.0, margin_seconds=3.0)
RESOURCE = "tournament:ct1"
PLAYERS, FUNDS = 27, 10_000


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    """The tournament harness's room on a fresh PostgreSQL schema (cluster tables included)."""
    with fresh_pg_schema("cluster_tourney") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


def pump_until(room: Room, done: Callable[[], bool], limit: int = 10_000) -> None:
    """Run the ledger's answers on this thread until `done()` (real threads: bounded)."""
    for _ in range(limit):
        if done():
            return
        f, args, kwargs = room.pump.calls.get(timeout=30)
        f(*args, **kwargs)
    raise AssertionError("never done")


def money(engine: Engine) -> tuple[int, int]:
    """(sum of every account but the outside world's, minus what came in from outside): wallets,
    escrows, house and tournament pools against the deposits."""
    with engine.connect() as conn:
        inside = conn.execute(
            sa.text("SELECT COALESCE(SUM(balance), 0) FROM accounts WHERE kind <> 'external'")
        ).scalar_one()
        outside = conn.execute(
            sa.text("SELECT COALESCE(SUM(balance), 0) FROM accounts WHERE kind = 'external'")
        ).scalar_one()
    return int(inside), -int(outside)


def snapshot(engine: Engine, tid: str) -> dict[str, Any]:
    """Everything the tournament wrote: its row's clock, seats, entries, transfers, balances."""
    with engine.connect() as conn:

        def rows(sql: str) -> list[Any]:
            return [tuple(r) for r in conn.execute(sa.text(sql), {"t": tid}).all()]

        return {
            "row": rows(
                "SELECT status, level_index, level_ms_left, saved_at_ms, resumes"
                " FROM tournaments WHERE id = :t"
            ),
            "seats": rows(
                "SELECT player, table_id, seat, stack, hand_number FROM tournament_seats"
                " WHERE tournament_id = :t ORDER BY player"
            ),
            "entries": rows(
                "SELECT player, entry_no, status, place, prize FROM tournament_entries"
                " WHERE tournament_id = :t ORDER BY player, entry_no"
            ),
            "journal": rows("SELECT count(*) FROM journal"),
            "balances": rows("SELECT kind, owner, balance FROM accounts ORDER BY kind, owner"),
        }


def test_a_node_resumes_an_orphaned_tournament_and_a_fenced_write_changes_nothing(
    room: Room,
) -> None:
    """T-18 on another node: the owner died with hands in progress (its lease, epoch 3, ran
    out); node b takes `tournament:ct1` at epoch 4 and resumes it: every player at their stored
    seat and stack, resumed once, the decision on the row. It plays on through the fence. Then
    node x takes the lease: b's next write is refused (`lease_lost`), nothing of it is stored,
    b stops the tournament (out of `owned()`, actor stopped) and writes nothing more."""
    bots = Staller(random.Random(7))
    first = crashed_mtt(room, bots, "ct1")
    while len(first.alive) > 22:
        advance(room, first)
    bots.stalling = True  # killed with a hand in progress
    while not any(t.hand_running for t in first.floor.tables.values()):
        advance(room, first)
    room.wait(first.pending())
    first.floor.stop()
    first.stop_watching()
    first.durable.stop()  # the process is gone
    seats = stored_seats(room, "ct1")
    assert seats == memory_seats(first)  # the hands in progress are not stored
    with room.engine.begin() as conn:  # the dead owner's lease, expired
        conn.execute(
            sa.text(
                "INSERT INTO cluster_leases (resource, owner, epoch, expires_at)"
                " VALUES (:r, 'dead', 3, clock_timestamp() - interval '1 second')"
            ),
            {"r": RESOURCE},
        )
    room.clock.advance(60.0)  # within the 5-minute window

    bots2 = Bots(random.Random(8))

    def build(config: TournamentConfig) -> TournamentActor:
        actor = TournamentActor(config, room.clock, room.ledger, random.Random(5), bots2)
        bots2.actor = actor
        return actor

    host = ClusterTournaments(room.clock, room.ledger, build)
    node = ClusterNode("b", room.ledger, Hosts({"tournament": host}), SETTINGS, clock=room.clock)
    node.startService()
    pump_until(room, lambda: RESOURCE in host.actors)
    assert node.epoch(RESOURCE) == 4 and node.owned() == {RESOURCE}
    again = host.actors[RESOURCE]
    assert memory_seats(again) == seats  # T-18: stored seats and stacks
    assert again.alive == first.alive
    record = stored_row(room, "ct1")
    assert record.status == store.RUNNING and record.resumes == 1
    assert record.decision.startswith("resumed")
    # it plays on, every write through the fence (the owner's epoch)
    before = snapshot(room.engine, "ct1")
    for _ in range(40):
        advance(room, again)
    room.settle(again)
    pump_until(room, lambda: not again.durable.recorder.behind)
    played = snapshot(room.engine, "ct1")
    assert played["seats"] != before["seats"]  # hands were stored at epoch 4
    inside, deposits = money(room.engine)
    assert inside == deposits == PLAYERS * FUNDS and check_ledger(room.engine).ok
    lost: list[str] = []
    node.on_lose.append(lost.append)
    refused: list[BaseException | None] = []
    fence = again.durable.recorder.fence
    assert fence is not None
    original = fence.refused

    def note(error: BaseException | None) -> None:
        refused.append(error)
        original(error)

    fence.refused = note  # type: ignore[method-assign]
    with room.engine.begin() as conn:  # node x takes the lease (b was cut off, say)
        conn.execute(
            sa.text("UPDATE cluster_leases SET owner = 'x', epoch = epoch + 1 WHERE resource = :r"),
            {"r": RESOURCE},
        )
    taken = snapshot(room.engine, "ct1")
    node._loop.stop()  # no renewal round sees it first: the tournament's own write must
    for _ in range(200):  # b plays on until its next write is refused (within ttl - margin)
        if lost:
            break
        room.settle(again)
        calls = room.clock.getDelayedCalls()
        room.clock.advance(max(0.0, min(c.getTime() for c in calls) - room.clock.seconds()))
    room.settle(again)
    assert lost == [RESOURCE] and RESOURCE not in node.owned()
    assert refused and isinstance(refused[0], LeaseLost)
    assert RESOURCE not in host.actors and again.durable.recorder.stopped
    for _ in range(30):  # nothing more is written by b, whatever its clock does
        room.clock.advance(30.0)
        room.pump.run_ready()
    prize = MoneyMove(
        "prize", Account("prize_pool", "ct1"), Account("wallet", "ct1-00"), 100, "k:fenced"
    )  # a transfer the cashier posts after the loss: refused by the fence too
    assert isinstance(room.failure(again.cashier.post([prize], "k:fenced", "prize")), LeaseLost)
    room.wait(node.stopService())
    assert snapshot(room.engine, "ct1") == taken  # the refused writes changed nothing
    assert leases.owners(room.engine).get(RESOURCE) == "x"
    inside, deposits = money(room.engine)
    assert inside == deposits == PLAYERS * FUNDS and check_ledger(room.engine).ok


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[Engine]:
    """A fresh migrated schema of its own (node rows and leases only)."""
    with fresh_pg_schema("cluster_balance") as url:
        migrate(url)
        found = make_engine(url)
        yield found
        found.dispose()


def test_a_balance_hands_tables_over_before_tournaments(bare: Engine) -> None:
    """A node joins: the first hands its surplus over tables first (highest names first) and
    tournaments last, since a tournament moved pauses its players (T-18's reconnect pause)."""
    clock = Clock()
    host_a, host_b = Host(0), Host(0)
    names = ["table:h0", "table:h1", "tournament:t1", "tournament:t2"]
    host_a.names, host_b.names = list(names), list(names)
    a, _ = node("a", bare, host_a, clock)
    assert a.owned() == frozenset(names)
    node("b", bare, host_b, clock)
    clock.advance(SETTINGS_NODE.renew_seconds)  # a's round: 2 live nodes, share 2
    assert a.owned() == {"tournament:t1", "tournament:t2"}
    assert sorted(host_a.closed) == ["table:h0", "table:h1"]


def test_a_drain_holds_the_tournament_and_hands_it_over_with_no_hand_void(room: Room) -> None:
    """`cluster drain b`: b deals no new hand of the tournament (the floor held), releases the
    lease (epoch kept) once no hand runs at any table and nothing is being written, and node c
    takes it at epoch + 1 and resumes it from exactly the stacks b had: no hand void."""
    bots = Staller(random.Random(3))
    first = crashed_mtt(room, bots, "cd1")
    room.wait(first.pending())
    first.floor.stop()
    first.stop_watching()
    first.durable.stop()
    resource = "tournament:cd1"
    players = Bots(random.Random(4))

    def build(config: TournamentConfig) -> TournamentActor:
        actor = TournamentActor(config, room.clock, room.ledger, random.Random(5), players)
        players.actor = actor
        return actor

    host_b = ClusterTournaments(room.clock, room.ledger, build)
    b = ClusterNode("b", room.ledger, Hosts({"tournament": host_b}), SETTINGS, clock=room.clock)
    b.startService()
    pump_until(room, lambda: resource in host_b.actors)
    again = host_b.actors[resource]
    for _ in range(60):
        advance(room, again)
    assert again.status == "running"
    leases.set_draining(room.engine, "b")
    for _ in range(2000):
        if resource not in b.owned():
            break
        advance(room, again)
    assert resource not in b.owned() and again.floor.held
    assert not any(t.hand_running for t in again.floor.tables.values())
    held = memory_seats(again)
    assert stored_seats(room, "cd1") == held  # every table's last hand stored: none void
    (row,) = [lease for lease in leases.leases(room.engine) if lease.resource == resource]
    assert (row.owner, row.epoch) == ("b", 1) and row.expires_in <= 0  # released, epoch kept
    host_c = ClusterTournaments(room.clock, room.ledger, build)
    c = ClusterNode("c", room.ledger, Hosts({"tournament": host_c}), SETTINGS, clock=room.clock)
    c.startService()
    pump_until(room, lambda: resource in host_c.actors)
    assert c.epoch(resource) == 2
    assert memory_seats(host_c.actors[resource]) == held
    assert stored_row(room, "cd1").decision.startswith("resumed")
    for started in (b, c):
        room.wait(started.stopService())
    inside, deposits = money(room.engine)
    assert inside == deposits == PLAYERS * FUNDS and check_ledger(room.engine).ok
