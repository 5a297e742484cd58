"""TournamentActor and the ledger: entries, refunds, overlay, payouts (T-1..T-7, P-2)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.ledger.transfers import get_transfer
from tests.tournaments.actor_harness import USD, Room
from tournaments.actor.tournament import TournamentActor
from tournaments.config import make_config
from tournaments.director.errors import DirectorError
from tournaments.director.money import prize_pool
from tournaments.director.registration import Funding, LateClose
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.simulation import START, Bots
from tournaments.satellite_target import SatelliteTarget

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=300) for i in range(12))
STRUCTURE = Structure("fast", 1000, LEVELS, AnteKind.NONE)
BUY_IN, FEE = 920, 80


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def config(tid: str = "t1", **kw):
    kw.setdefault("starts_at", START + 3600)
    kw.setdefault("buy_in", BUY_IN)
    kw.setdefault("fee", FEE)
    return make_config(tid, STRUCTURE, **kw)


def test_registration_is_one_transfer_buy_in_to_pool_fee_to_house(room: Room):
    """T-2: one balanced transfer: wallet -1000, prize pool +920, house fees +80 (P-2)."""
    actor = room.actor(config())
    room.fund_player("alice", 1000)
    decision = room.wait(actor.register("alice"))
    assert decision.chips == 1000
    stored = get_transfer(room.engine, key="tourney:t1:register:alice:1")
    assert stored is not None and stored.transfer.kind == "buy_in"
    assert len(stored.transfer.postings) == 3
    assert room.pool("t1") == 920 and room.fees() == 80
    assert room.balance(AccountRef(AccountKind.WALLET, "alice", USD)) == 0
    assert room.check()


def test_registration_without_funds_is_refused_and_changes_nothing(room: Room):
    """T-4: the funds must be there; a refused request changes no state (P-1)."""
    actor = room.actor(config())
    room.fund_player("bob", 999)
    error = room.failure(actor.register("bob"))
    assert isinstance(error, DirectorError) and error.code == "insufficient_funds"
    assert actor.state.entries == 0 and "bob" not in actor.state.players
    assert room.pool("t1") == 0 and room.check()


def test_unregister_refunds_buy_in_and_fee_until_the_deadline(room: Room):
    """T-3: buy-in and fee back; refused from `unregister_close` before the start."""
    actor = room.actor(config())
    for name in ("a", "b"):
        room.fund_player(name, 1000)
        room.wait(actor.register(name))
    room.wait(actor.unregister("a"))
    assert room.balance(AccountRef(AccountKind.WALLET, "a", USD)) == 1000
    assert room.pool("t1") == 920 and room.fees() == 80
    room.advance(3600 - 200, actor, step=100)  # 200 s before the start: closed
    error = room.failure(actor.unregister("b"))
    assert isinstance(error, DirectorError) and error.code == "unregister_closed"
    assert room.check()


def test_too_few_players_at_the_start_cancels_with_refunds(room: Room):
    """T-1/T-18.1: a tournament that cannot start gives everyone buy-in and fee back."""
    actor = room.actor(config())
    room.fund_player("solo", 1000)
    room.wait(actor.register("solo"))
    room.advance(3601, actor, step=600)
    room.settle(actor)
    room.wait(actor.pending())
    assert actor.status == "cancelled"
    assert room.balance(AccountRef(AccountKind.WALLET, "solo", USD)) == 1000
    assert room.pool("t1") == 0 and room.fees() == 0 and room.check()


def test_sit_and_go_starts_when_full_and_pays_the_fixed_table(room: Room):
    """T-1: a sit-and-go starts when full; T-6/T-7: 50/30/20 of 9 entries to the cent."""
    bots = Bots(random.Random(1))
    actor = room.actor(config("sng", sit_and_go=True, max_entries=9), bots)
    for n in range(9):
        room.fund_player(f"p{n}", 1000)
        room.wait(actor.register(f"p{n}"))
    assert actor.status == "running"
    room.run_to_end(actor)
    assert actor.status == "finished"
    prizes = sorted((r.place, r.prize) for r in actor.results)
    assert [p for _, p in prizes[:3]] == [4140, 2484, 1656]
    assert sum(r.prize for r in actor.results) == 9 * BUY_IN
    assert room.pool("sng") == 0 and room.check()
    assert not bots.chip_errors


def test_guarantee_overlay_from_the_house_when_the_pool_is_final(room: Room):
    """T-6: once every period closed, house overlay tops the pool up to the guarantee."""
    room.fund(house(AccountKind.HOUSE_OVERLAY, USD), 100_000)
    bots = Bots(random.Random(2))
    actor = room.actor(config("gtd", guarantee=20_000), bots)
    for n in range(12):
        room.fund_player(f"g{n}", 1000)
        room.wait(actor.register(f"g{n}"))
    room.run_to_end(actor)
    assert actor.payouts.overlay == 20_000 - 12 * BUY_IN
    paid = sum(r.prize for r in actor.results)  # T-7: rounded down, the rest to the house
    assert paid + room.balance(house(AccountKind.HOUSE_ROUNDING, USD)) == 20_000
    assert room.balance(house(AccountKind.HOUSE_OVERLAY, USD)) == 100_000 - actor.payouts.overlay
    assert room.pool("gtd") == 0 and room.check()


def test_late_registration_seats_a_player_in_the_running_tournament(room: Room):
    """T-5: during late registration an entry sits at once at the running tournament."""
    bots = Bots(random.Random(3))
    actor = room.actor(config("late", late_registration_levels=3), bots)
    for n in range(6):
        room.fund_player(f"l{n}", 1000)
        room.wait(actor.register(f"l{n}"))
    room.advance(3601, actor, step=600)
    assert actor.status == "running"
    room.fund_player("late", 1000)
    room.wait(actor.register("late"))
    assert "late" in actor.alive
    assert any("late" in t.stacks for t in actor.floor.tables.values())
    assert actor.chips_in_play() == 7000


def test_reentry_after_busting_is_a_new_entry(room: Room):
    """T-4: a busted player re-enters during late registration: a new buy-in, a new stack."""
    bots = Bots(random.Random(4))
    actor = room.actor(config("re", fmt="reentry", late_registration_levels=6), bots)
    for n in range(9):
        room.fund_player(f"r{n}", 5000)
        room.wait(actor.register(f"r{n}"))
    room.run_to_end(actor)
    reentries = actor.state.entries - 9
    assert reentries > 0
    assert room.pool("re") == 0
    assert sum(r.prize for r in actor.results) + actor.payouts.rounding_total == (
        actor.state.entries * BUY_IN
    )
    assert room.fees() == actor.state.entries * FEE and room.check()
    assert not bots.chip_errors


def test_rebuy_and_addon_buy_chips_with_money(room: Room):
    """T-4: rebuys and the add-on each move buy-in and fee and give their chips."""
    bots = Bots(random.Random(6))
    actor = room.actor(config("rb", fmt="rebuy"), bots)
    for n in range(9):
        room.fund_player(f"b{n}", 10_000)
        room.wait(actor.register(f"b{n}"))
    room.run_to_end(actor)
    state = actor.state
    rebuys = sum(p.rebuys for p in state.players.values())
    addons = sum(p.addons for p in state.players.values())
    assert rebuys + addons > 0
    assert state.collected == (9 + rebuys + addons) * BUY_IN
    assert actor.chips_issued == (9 + rebuys + addons) * 1000
    assert room.fees() == (9 + rebuys + addons) * FEE
    assert room.pool("rb") == 0 and room.check()
    assert not bots.chip_errors


def test_late_registration_closing_at_the_money_drops_the_guarantee(room: Room):
    """T-5: late registration closes early at the money and the guarantee no longer applies."""
    room.fund(house(AccountKind.HOUSE_OVERLAY, USD), 100_000)
    bots = Bots(random.Random(7))
    actor = room.actor(config("drop", guarantee=50_000, late_registration_levels=11), bots)
    for n in range(20):
        room.fund_player(f"d{n}", 1000)
        room.wait(actor.register(f"d{n}"))
    room.run_to_end(actor)
    assert actor.state.late_closed == LateClose.MONEY
    assert actor.state.guarantee_dropped
    assert actor.payouts.overlay == 0
    assert sum(r.prize for r in actor.results) + actor.payouts.rounding_total == 20 * BUY_IN
    assert room.balance(house(AccountKind.HOUSE_OVERLAY, USD)) == 100_000
    assert room.pool("drop") == 0 and room.check()


@pytest.mark.parametrize("already_in", [0, 10])
def test_satellite_ends_at_its_seats_and_pays_them_as_registrations_or_tdollars(
    room: Room, already_in: int
):
    """T-8: a satellite ends when its seats are left; T-16: a duplicate seat becomes T$."""
    target_config = config("target", buy_in=3000, fee=300, starts_at=START + 86_400)
    target = TournamentActor(target_config, room.clock, room.ledger, random.Random(9))
    target.open()
    for n in range(already_in):  # players already registered in the target
        room.fund_player(f"s{n}", 3300)
        room.wait(target.register(f"s{n}"))
    bots = Bots(random.Random(8))
    sat_config = replace(config("sat"), satellite=SatelliteTarget("target", 3000, 300))
    sat = TournamentActor(
        sat_config, room.clock, room.ledger, random.Random(10), bots,
        targets=lambda tid: target if tid == "target" else None,
    )  # fmt: skip
    bots.actor = sat
    sat.open()
    for n in range(10):
        room.fund_player(f"s{n}", 1000)
        room.wait(sat.register(f"s{n}"))
    room.run_to_end(sat)
    room.settle(target)
    assert sat.satellite_seats == 2  # 9,200 // 3,300
    winners = [r for r in sat.results if r.place == 1]
    assert len(winners) == 2 and all(r.tied == 2 for r in winners)  # T-8: two left, both in
    (third,) = [r for r in sat.results if r.place == 3]
    assert third.prize == 9200 - 2 * 3300  # the rest of the pool, in cash
    for winner in winners:
        held = room.balance(AccountRef(AccountKind.TDOLLARS, winner.entry, USD))
        if int(winner.entry[1:]) < already_in:  # registered: T$ of the buy-in less the fee
            assert held == 3000
        else:  # a seat: registered in the target, paid with the T$
            assert held == 0 and winner.entry in target.state.players
    assert room.pool("sat") == 0 and room.check()
    duplicates = 2 if already_in else 0  # the seat's fee part goes to the house fees
    assert room.fees() == (10 * FEE) + already_in * 300 + duplicates * 300 + (2 - duplicates) * 300


def test_ticket_entry_is_paid_from_the_ticket_and_cannot_be_unregistered(room: Room):
    """T-3: an entry by ticket is paid from the ticket; unregistering it is refused."""
    actor = room.actor(config("tix"))
    room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat0", USD), BUY_IN + FEE)
    won = actor.tickets.new_ticket(
        "tia", source="sat0", label="tix", target="tix", buy_in=BUY_IN, fee=FEE
    )
    issued = room.wait(actor.tickets.issue(won, prize_pool("sat0"), "seat:tia"))
    ticket = AccountRef(AccountKind.TICKET, issued.ticket_id, USD)
    assert room.balance(ticket) == BUY_IN + FEE
    room.wait(actor.register("tia", Funding.TICKET, issued.ticket_id))
    assert room.balance(ticket) == 0 and room.pool("tix") == BUY_IN and room.fees() == FEE
    error = room.failure(actor.unregister("tia"))
    assert isinstance(error, DirectorError) and error.code == "ticket_not_refundable"
    assert room.check()
