"""T-15 on a running tournament: the operator raises prizes (the house's money, audited) or
pays a satellite's seats in cash; lowering and unbalancing are refused and change nothing.
Real SQLite ledger and store, a fake clock, bots."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.ledger.transfers import get_transfer
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_actor_money import BUY_IN, FEE, config
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.ops.simulation import Bots
from tournaments.satellite_target import SatelliteTarget

OVERLAY = house(AccountKind.HOUSE_OVERLAY, USD)


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
    with fresh_pg_schema("tickets_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


def running(room: Room, tid: str = "t15", players: int = 12) -> TournamentActor:
    """A freezeout played until its prize table is fixed and places are still to award."""
    bots = Bots(random.Random(31))
    actor = room.actor(config(tid), bots)
    for n in range(players):
        room.fund_player(f"p{n}", BUY_IN + FEE)
        room.wait(actor.register(f"p{n}"))
    while actor.prizes is None or actor.status != "running":
        room.advance(30, actor, step=5)
    assert len(actor.alive) > actor.prizes.paid_places
    return actor


def changes(room: Room, tid: str) -> tuple[store.PrizeChangeRecord, ...]:
    return read(room.engine, lambda conn: store.load_prize_changes(conn, tid))


def test_a_raise_is_paid_by_the_house_audited_and_paid_out(room: Room) -> None:
    """T-15: first place +10.00 from the house overlay account, one keyed transfer with its audit
    row and the new table; the winner is paid the raised prize; the pool ends empty."""
    room.fund(OVERLAY, 5_000)
    actor = running(room)
    old = actor.prizes
    assert old is not None
    raised = (old.amounts[0] + 1_000, *old.amounts[1:])
    done = room.wait(
        actor.prize_changes.change_prizes(raised, by="staff1", reason="sponsor", key="k1")
    )
    assert done.added == 1_000 and actor.prizes == done.new
    assert room.balance(OVERLAY) == 4_000
    (audit,) = changes(room, "t15")
    assert (audit.changed_by, audit.reason, audit.added) == ("staff1", "sponsor", 1_000)
    assert audit.old == old and audit.new.amounts == raised
    record = read(room.engine, lambda conn: store.load_tournament(conn, "t15"))
    assert record is not None and record.prizes == done.new and record.prize_added == 1_000
    transfer = get_transfer(room.engine, key=audit.ledger_key)
    assert transfer is not None and transfer.transfer.kind == "overlay"
    again = room.wait(
        actor.prize_changes.change_prizes(raised, by="staff1", reason="sponsor", key="k1")
    )
    assert again == done and len(changes(room, "t15")) == 1 and room.balance(OVERLAY) == 4_000
    room.run_to_end(actor)
    (first,) = [r for r in actor.results if r.place == 1]
    assert first.prize == raised[0]
    assert sum(r.prize for r in actor.results) + actor.payouts.rounding_total == 12 * BUY_IN + 1_000
    assert room.pool("t15") == 0 and room.check()


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda a: (a[0] + 500, a[1] - 500, *a[2:]), errors.PRIZE_LOWERED),  # a reshuffle
        (lambda a: a[:-1], errors.PRIZE_LOWERED),  # a place dropped
        (lambda a: (a[1], a[0], *a[2:]), errors.BAD_PRIZES),  # 2nd above 1st
        (lambda a: a, errors.BAD_PRIZES),  # nothing changes
    ],
)
def test_a_lowering_or_unbalancing_change_is_refused_and_changes_nothing(
    room: Room, change: object, code: str
) -> None:
    """T-15: no prize goes down; a refused change moves no money and writes no audit row."""
    room.fund(OVERLAY, 5_000)
    actor = running(room)
    old = actor.prizes
    assert old is not None
    error = room.failure(
        actor.prize_changes.change_prizes(change(old.amounts), by="s", reason="r", key="k")
    )  # type: ignore[operator]
    assert isinstance(error, DirectorError) and error.code == code
    assert actor.prizes == old and changes(room, "t15") == ()
    assert room.balance(OVERLAY) == 5_000 and room.check()


def test_a_raise_the_house_cannot_pay_is_refused_and_undone(room: Room) -> None:
    """The ledger's funds check is the last word: without overlay money nothing changes."""
    actor = running(room)
    old = actor.prizes
    assert old is not None
    error = room.failure(
        actor.prize_changes.change_prizes(
            (old.amounts[0] + 1, *old.amounts[1:]), by="s", reason="r", key="k"
        )
    )
    assert error.code == "insufficient_funds"
    assert actor.prizes == old and actor.payouts.pool_total == old.pool
    assert changes(room, "t15") == () and room.check()
    room.run_to_end(actor)
    assert room.pool("t15") == 0 and room.check()


def test_a_prize_change_before_the_table_is_fixed_is_refused(room: Room) -> None:
    actor = room.actor(config("early"))
    room.fund_player("a", BUY_IN + FEE)
    room.wait(actor.register("a"))
    error = room.failure(actor.prize_changes.change_prizes((100,), by="s", reason="r", key="k"))
    assert error.code == errors.PRIZES_NOT_FIXED


def test_cash_in_place_of_seats_pays_wallets_and_issues_no_ticket(room: Room) -> None:
    """T-15: the operator pays a satellite's seats in cash of equal value (here +1.00 each from
    the house): the winners' wallets get it, no ticket is issued, the ledger balances."""
    room.fund(OVERLAY, 5_000)
    bots = Bots(random.Random(8))
    sat_config = replace(config("sat"), satellite=SatelliteTarget("target", 3000, 300))
    sat = TournamentActor(sat_config, room.clock, room.ledger, random.Random(10), bots)
    bots.actor = sat
    sat.open()
    for n in range(10):
        room.fund_player(f"s{n}", BUY_IN + FEE)
        room.wait(sat.register(f"s{n}"))
    while sat.prizes is None:
        room.advance(30, sat, step=5)
    seats = sat.prizes.amounts
    assert seats[:2] == (3300, 3300)
    raised = (3400, 3400, *seats[2:])
    with pytest.raises(DirectorError) as info:  # a seat is not raised while it stays a seat
        room.wait(sat.prize_changes.change_prizes(raised, by="s", reason="r", key="no"))
    assert info.value.code == errors.BAD_PRIZES
    done = room.wait(
        sat.prize_changes.change_prizes(raised, by="s", reason="cash", key="k", seats_in_cash=True)
    )
    assert done.seats_in_cash and done.added == 200
    room.run_to_end(sat)
    winners = [r.entry for r in sat.results if r.place == 1]
    assert len(winners) == 2
    for player in winners:
        assert room.balance(AccountRef(AccountKind.WALLET, player, USD)) == 3400
        tickets = read(room.engine, lambda conn, p=player: store.player_tickets(conn, p))
        assert tickets == ()
    (audit,) = changes(room, "sat")
    assert audit.cash_places == (1, 2)
    assert room.pool("sat") == 0 and room.check()
