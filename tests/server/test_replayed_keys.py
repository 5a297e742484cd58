"""P-2: a keyed request's retry answers what is true now (docs/PROTOCOL.md, "Keys"): a
`tournament_register` key replayed after the player unregistered is `request_undone` (not the
first `{entry: 1}`), from the lobby's memory and from the tournament's alike; a `stake_buy`
key replayed after the purchase was refunded shows the purchase `refunded`. Over the real
session and lobby, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pokerroom.ledger.reports import check_ledger, total_balance
from tests.server.harness import Client, Room
from tests.server.test_money_keys import money_ledger, room
from tournaments.desk.desk import TournamentDesk
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler

__all__ = ["money_ledger", "room"]
#: An MTT every hour, open for registration an hour ahead: unregistering is allowed (T-3).
MTT = ScheduleEntry("mtt", "turbo", 1000, 100, every_minutes=60, registration_open_minutes=60)


@pytest.fixture
def mtt(room: Room) -> Iterator[tuple[TournamentScheduler, str]]:
    """The room's desk with one MTT open for registration."""
    desk = TournamentDesk(room.hub)
    scheduler = TournamentScheduler(room.clock, room.ledger, [MTT], players=desk)
    desk.scheduler = scheduler
    room.lobby.tournament_desk = desk
    scheduler.startService()
    try:
        (tid,) = scheduler.actors
        yield scheduler, tid
    finally:
        scheduler.stopService()


def funded(room: Room, name: str) -> Client:
    """A logged-in player with 10,000 in the wallet."""
    player = room.client()
    player.login(name)
    player.ok("deposit", amount=10_000, key="fund")
    return player


def test_a_registration_key_replayed_after_unregistering_is_request_undone(
    room: Room, mtt: tuple[TournamentScheduler, str]
) -> None:
    """Registered with key r1, unregistered (refunded): r1 again is `request_undone` and moves
    nothing, whether the lobby remembers the key or only the tournament does; a new key
    registers again, and r1 stays `request_undone` (the entry it paid for was given back)."""
    scheduler, tid = mtt
    ann = funded(room, "ann")
    first = ann.ok("tournament_register", tournament_id=tid, key="r1")
    assert first["entry"] == 1
    assert ann.ok("tournament_register", tournament_id=tid, key="r1") == first  # still true
    assert ann.ok("tournament_unregister", tournament_id=tid) == {"refunded": True}
    room.drain()
    assert ann.ok("wallet")["balance"] == 10_000
    assert ann.error("tournament_register", tournament_id=tid, key="r1") == "request_undone"
    room.lobby.replies.forget("ann")  # only the tournament remembers the key now
    assert ann.error("tournament_register", tournament_id=tid, key="r1") == "request_undone"
    room.drain()
    assert (
        ann.ok("wallet")["balance"] == 10_000 and "ann" not in scheduler.actors[tid].state.players
    )
    again = ann.ok("tournament_register", tournament_id=tid, key="r2")
    assert again["entry"] == 1
    room.drain()
    assert ann.ok("wallet")["balance"] == 10_000 - 1100
    assert ann.error("tournament_register", tournament_id=tid, key="r1") == "request_undone"
    assert ann.ok("tournament_register", tournament_id=tid, key="r2") == again
    room.drain()
    assert ann.ok("wallet")["balance"] == 10_000 - 1100


def balanced(room: Room) -> bool:
    """`check_ledger` passes and every account sums to zero."""
    engine = room.ledger.engine
    return check_ledger(engine).ok and total_balance(engine, "USD") == 0


def forget_everything(room: Room, scheduler: TournamentScheduler, tid: str, name: str) -> None:
    """What a restart forgets: the lobby's answers and the tournament's keys (the ledger and
    the tournament's rows stay)."""
    room.lobby.replies.forget(name)
    scheduler.actors[tid].requests.keys.keyed.clear()


def test_a_registration_key_replayed_after_unregistering_and_a_restart_buys_nothing(
    room: Room, mtt: tuple[TournamentScheduler, str]
) -> None:
    """Both memories gone (a restart): r1 after unregistering is `request_undone`, bob is not
    registered and his wallet is whole (the old code registered him again for nothing); the
    ledger balances."""
    scheduler, tid = mtt
    bob = funded(room, "bob")
    bob.ok("tournament_register", tournament_id=tid, key="r1")
    bob.ok("tournament_unregister", tournament_id=tid)
    room.drain()
    forget_everything(room, scheduler, tid, "bob")
    assert bob.error("tournament_register", tournament_id=tid, key="r1") == "request_undone"
    room.drain()
    assert bob.ok("wallet")["balance"] == 10_000
    assert "bob" not in scheduler.actors[tid].state.players
    assert balanced(room)


def test_the_retry_of_a_lost_registration_answer_after_a_restart_is_the_first_answer(
    room: Room, mtt: tuple[TournamentScheduler, str]
) -> None:
    """The legitimate retry: r1 committed, its answer was lost, both memories are gone: r1
    again answers what r1 answered, registers once and takes the buy-in once."""
    scheduler, tid = mtt
    cyd = funded(room, "cyd")
    first = cyd.ok("tournament_register", tournament_id=tid, key="r1")
    room.drain()
    forget_everything(room, scheduler, tid, "cyd")
    assert cyd.ok("tournament_register", tournament_id=tid, key="r1") == first
    room.drain()
    assert cyd.ok("wallet")["balance"] == 10_000 - 1100
    assert scheduler.actors[tid].state.entries == 1
    assert balanced(room)


def test_a_stake_buy_key_replayed_after_the_refund_shows_the_refund(
    room: Room, mtt: tuple[TournamentScheduler, str]
) -> None:
    """T-17: dan buys 25 % of ann's offer with key b1 (`held`); ann unregisters, which refunds
    dan; b1 again answers the purchase as it stands now, not `held`, and moves nothing."""
    _, tid = mtt
    ann, dan = funded(room, "ann"), funded(room, "dan")
    ann.ok("tournament_register", tournament_id=tid)
    offer = ann.ok("stake_offer", tournament_id=tid, share_bps=5000, markup_bps=10_000)["offer"]
    buy = {"tournament_id": tid, "offer_id": offer["offer_id"], "share_bps": 2500, "key": "b1"}
    stake = dan.ok("stake_buy", **buy)["stake"]
    assert stake["status"] == "held"
    room.drain()
    assert dan.ok("wallet")["balance"] == 10_000 - 250
    ann.ok("tournament_unregister", tournament_id=tid)
    room.drain()
    assert dan.ok("wallet")["balance"] == 10_000  # refunded in ann's refund transfer
    replay = dan.ok("stake_buy", **buy)["stake"]
    assert replay["stake_id"] == stake["stake_id"] and replay["status"] != "held"
    assert replay["status"] == "refunded", replay
    room.drain()
    assert dan.ok("wallet")["balance"] == 10_000
