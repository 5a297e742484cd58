"""T-3 in a sit-and-go: a player may leave while it is not full, i.e. until it starts.

A sit-and-go's start time is the moment it opens, so "`unregister_close_minutes` before the
start" has always passed: read literally, nobody could ever leave one. The house reading
(docs/TOURNAMENTS.md): a sit-and-go starts the moment its last seat is taken, and may be left
until then. Tested through the real actor, ledger and store (SQLite and PostgreSQL): buy-in,
fee and bounty back, a seller's buyers back what they paid (T-17), the money conserved.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.ledger.kinds import AccountKind, AccountRef
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_actor_money import BUY_IN, FEE, config
from tournaments.director import errors
from tournaments.director.bounties import BountyFormat, BountyKind
from tournaments.director.errors import DirectorError
from tournaments.ops.simulation import START

FUNDS = 10_000
PKO = BountyFormat(5000, BountyKind.PROGRESSIVE)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Room]:
    """The room on a SQLite file, or on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        harness = Room(tmp_path)
        try:
            yield harness
        finally:
            harness.close()
        return
    with fresh_pg_schema("sng_unregister_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


def wallet(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.WALLET, player, USD))


def account(room: Room, kind: AccountKind, tid: str) -> int:
    return room.balance(AccountRef(kind, tid, USD))


def refused(room: Room, actor: object, player: str) -> str:
    error = room.failure(actor.unregister(player))  # type: ignore[attr-defined]
    assert isinstance(error, DirectorError)
    return error.code


def test_t3_a_sit_and_go_not_full_may_be_left_long_after_it_opened(room: Room) -> None:
    """Opened (its start time) ten minutes ago, one of three seats taken by a seller with a
    buyer: unregistering gives the seller buy-in and fee (bounty part included) and the buyer
    what they paid, in one transfer; every account is back where it was. Once full it has
    started: then the answer is `unregister_closed` and nothing moves."""
    tid = "sng-t3"
    actor = room.actor(config(tid, starts_at=START, sit_and_go=True, max_entries=3, bounty=PKO))
    for name in ("seller", "buyer", "p1", "p2", "p3"):
        room.fund_player(name, FUNDS)
    room.wait(actor.register("seller"))
    offer = room.wait(actor.stakes.offer("seller", 5000, 10_000))
    stake = room.wait(actor.stakes.buy("buyer", offer.offer_id, 2000, "k1"))
    assert stake.price > 0 and wallet(room, "buyer") == FUNDS - stake.price
    room.advance(600, actor, step=60)  # far past "5 minutes before the start"
    assert actor.status == "registering"
    room.wait(actor.unregister("seller"))
    assert wallet(room, "seller") == FUNDS and wallet(room, "buyer") == FUNDS
    for kind in (AccountKind.PRIZE_POOL, AccountKind.BOUNTY_POOL, AccountKind.STAKING_ESCROW):
        assert account(room, kind, tid) == 0, kind
    assert room.fees() == 0 and actor.state.entries == 0 and room.check()
    assert refused(room, actor, "seller") == errors.NOT_REGISTERED
    # Registering again and leaving again: each a transfer of its own, still conserved.
    room.wait(actor.register("seller"))
    room.wait(actor.unregister("seller"))
    assert wallet(room, "seller") == FUNDS and room.fees() == 0 and room.check()
    # Full: it starts at the last seat, and from then on nobody leaves.
    for name in ("p1", "p2", "p3"):
        room.wait(actor.register(name))
    assert actor.status == "running"
    assert refused(room, actor, "p1") == errors.UNREGISTER_CLOSED
    assert wallet(room, "p1") == FUNDS - BUY_IN - FEE
    assert (
        account(room, AccountKind.PRIZE_POOL, tid) + account(room, AccountKind.BOUNTY_POOL, tid)
        == 3 * BUY_IN
        and room.fees() == 3 * FEE
    )
    assert room.check()


def test_t3_an_mtt_keeps_its_deadline(room: Room) -> None:
    """The sit-and-go reading changes nothing for a tournament with a start time: from
    `unregister_close` before it, `unregister_closed`."""
    actor = room.actor(config("mtt-t3", starts_at=START + 200))
    room.fund_player("a", FUNDS)
    room.wait(actor.register("a"))
    assert refused(room, actor, "a") == errors.UNREGISTER_CLOSED
    assert wallet(room, "a") == FUNDS - BUY_IN - FEE and room.check()
