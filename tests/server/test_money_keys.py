"""P-2 on every money request: a retry with the same `key` moves nothing and gets the first
answer; the same key with other content is `idempotency_conflict`; keys belong to one player.
Cash (`top_up`) and tournaments (`tournament_register`, `tournament_rebuy` ...), over the real
session and lobby, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from twisted.internet.task import Clock

import pokerroom.protocol.catalog  # noqa: F401  (registers the message types)
from pokerroom.ledger import LedgerService, make_engine, upgrade
from pokerroom.ledger.schema import journal
from tests.ledger.conftest import QueueReactor
from tests.postgres import fresh_pg_schema
from tests.server.conftest import CountingLedger
from tests.server.harness import Client, Room
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler

SNG = ScheduleEntry("sng-3", "turbo", 100, 10, players=3)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def money_ledger(
    request: pytest.FixtureRequest, tmp_path: object, reactor: QueueReactor
) -> Iterator[LedgerService]:
    """A started ledger on SQLite, then on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/keys.sqlite"
        engine = make_engine(url)
        upgrade(engine)
        service = CountingLedger(reactor, engine)
        service.startService()
        try:
            yield service
        finally:
            service.stopService()
            engine.dispose()
        return
    with fresh_pg_schema("keys_test") as url:
        engine = make_engine(url)
        upgrade(engine)
        service = CountingLedger(reactor, engine)
        service.startService()
        try:
            yield service
        finally:
            service.stopService()
            engine.dispose()


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, money_ledger: LedgerService) -> Iterator[Room]:
    harness = Room(reactor, clock, money_ledger)
    try:
        yield harness
    finally:
        harness.stop()


def transfers_with(ledger: LedgerService, key: str) -> int:
    with ledger.engine.connect() as conn:
        query = sa.select(sa.func.count()).where(journal.c.idempotency_key == key)
        return int(conn.execute(query).scalar_one())


def journal_size(ledger: LedgerService) -> int:
    with ledger.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(journal)).scalar_one())


def seated(room: Room, name: str) -> Client:
    player = room.client()
    player.login(name)
    player.ok("deposit", amount=10_000, key="fund")
    player.ok("sit", table_id="t1", buy_in=100)
    return player


def test_a_top_up_retried_with_its_key_moves_money_once(room: Room) -> None:
    """The answer was lost: the same request again is the first answer, and the wallet paid once."""
    room.add_table("t1")
    alice, bob = seated(room, "alice"), seated(room, "bob")
    room.drain()
    first = alice.ok("top_up", table_id="t1", amount=50, key="k1")
    wallet = alice.ok("wallet")["balance"]
    size = journal_size(room.ledger)
    assert alice.ok("top_up", table_id="t1", amount=50, key="k1") == first  # the retry
    assert alice.ok("wallet")["balance"] == wallet and journal_size(room.ledger) == size
    assert transfers_with(room.ledger, "request:alice:k1") == 1
    # The same key for something else: refused, nothing moves.
    assert alice.error("top_up", table_id="t1", amount=40, key="k1") == "idempotency_conflict"
    assert alice.error("deposit", amount=50, key="k1") == "idempotency_conflict"
    assert alice.ok("wallet")["balance"] == wallet and journal_size(room.ledger) == size
    # Keys belong to their player: bob's "k1" is his own request.
    bob_first = bob.ok("top_up", table_id="t1", amount=50, key="k1")
    assert bob_first["stack"] >= 100 + 50 - 2  # his own chips arrived (minus a posted blind)
    assert transfers_with(room.ledger, "request:bob:k1") == 1


def test_a_retry_the_lobby_forgot_still_moves_nothing(room: Room) -> None:
    """The ledger is the second line: with the lobby's memory gone (a restart, or a very old
    retry), the same key adds no chips and takes no money."""
    room.add_table("t1")
    alice = seated(room, "alice")
    room.drain()
    first = alice.ok("top_up", table_id="t1", amount=30, key="late")
    wallet = alice.ok("wallet")["balance"]
    room.lobby.replies.forget("alice")
    again = alice.ok("top_up", table_id="t1", amount=30, key="late")
    assert again["stack"] == first["stack"]  # no chips from nothing
    assert alice.ok("wallet")["balance"] == wallet
    assert transfers_with(room.ledger, "request:alice:late") == 1
    # And other content under that key is still a conflict, now from the ledger itself.
    room.lobby.replies.forget("alice")
    assert alice.error("top_up", table_id="t1", amount=31, key="late") == "idempotency_conflict"


def test_two_sends_before_any_answer_are_one_request(room: Room) -> None:
    """The retry arrives while the first still runs: it waits and gets the same answer."""
    room.add_table("t1")
    alice = seated(room, "alice")
    room.drain()
    frames = b"".join(
        b'{"type":"top_up","id":%d,"table_id":"t1","amount":30,"key":"twice"}\n' % n
        for n in (901, 902)
    )
    alice.raw(frames)
    one, two = alice.answer(901), alice.answer(902)
    assert one["type"] == two["type"] == "ok" and one["result"] == two["result"]
    assert transfers_with(room.ledger, "request:alice:twice") == 1


def tournament_room(room: Room) -> tuple[TournamentDesk, TournamentScheduler, str]:
    desk = TournamentDesk(room.hub)
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG], players=desk)
    desk.scheduler = scheduler
    room.lobby.tournament_desk = desk
    scheduler.startService()
    (tid,) = scheduler.actors
    return desk, scheduler, tid


def test_a_tournament_registration_retried_with_its_key_pays_once(room: Room) -> None:
    """T-2, P-2: `tournament_register` with a key: the retry is the first answer {entry,
    chips}, not `already_registered`, and the buy-in and fee are taken once."""
    _, scheduler, tid = tournament_room(room)
    try:
        ann = room.client()
        ann.login("ann")
        ann.ok("deposit", amount=1_000, key="fund")
        first = ann.ok("tournament_register", tournament_id=tid, key="r1")
        assert first == {"entry": 1, "chips": scheduler.actors[tid].settings.starting_stack}
        room.drain()
        assert ann.ok("wallet")["balance"] == 1_000 - 110
        assert ann.ok("tournament_register", tournament_id=tid, key="r1") == first
        room.drain()
        assert ann.ok("wallet")["balance"] == 1_000 - 110
        assert transfers_with(room.ledger, "request:ann:r1") == 1
        assert scheduler.actors[tid].state.entries == 1
        # Without a key a second registration is refused as before.
        assert ann.error("tournament_register", tournament_id=tid) == "already_registered"
        # The lobby forgot: the tournament itself answers with the first decision.
        room.lobby.replies.forget("ann")
        assert ann.ok("tournament_register", tournament_id=tid, key="r1") == first
        room.drain()
        assert ann.ok("wallet")["balance"] == 1_000 - 110
        assert scheduler.actors[tid].state.entries == 1
        # The same key on another request: a conflict, nothing moves.
        code = ann.error("tournament_rebuy", tournament_id=tid, key="r1")
        assert code == "idempotency_conflict"
        assert ann.error("tournament_register", tournament_id="nope", key="r9") == (
            "unknown_tournament"
        )
        assert ann.ok("wallet")["balance"] == 1_000 - 110
    finally:
        scheduler.stopService()
