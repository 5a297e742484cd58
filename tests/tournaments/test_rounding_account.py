"""T-7 through the ledger: the cents that rounding prizes down leaves go to the house rounding
account, by default, for every tournament built the usual ways (config, schedule)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.ledger.transfers import get_transfer
from tests.tournaments.actor_harness import USD, Room
from tournaments.config import TournamentConfig, make_config
from tournaments.director.payouts import Leftover, PayoutSettings
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.ops.schedule import TournamentScheduler, load_schedule
from tournaments.ops.simulation import START, Bots

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=300) for i in range(12))
STRUCTURE = Structure("fast", 1000, LEVELS, AnteKind.NONE)
ROUNDING = house(AccountKind.HOUSE_ROUNDING, USD)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def nine_entries_of_10_01(tid: str) -> TournamentConfig:
    """Nine players at 10.01 + 0.99: a pool of 90.09, paid 50/30/20 (T-6)."""
    return make_config(tid, STRUCTURE, buy_in=1001, fee=99, starts_at=START + 3600)


def play(room: Room, config: TournamentConfig) -> dict[int, int]:
    """Register nine funded players, play to the end; prizes by place (no tie allowed)."""
    bots = Bots(random.Random(11))
    actor = room.actor(config, bots)
    for n in range(9):
        room.fund_player(f"p{n}", 1100)
        room.wait(actor.register(f"p{n}"))
    room.run_to_end(actor)
    assert actor.status == "finished" and not bots.chip_errors
    assert all(r.tied == 1 for r in actor.results)  # a tie would add its own rounding rest
    assert room.pool(config.tournament_id) == 0 and room.check()
    return {r.place: r.prize for r in actor.results if r.prize}


def test_t7_default_books_the_leftover_cents_to_the_house_rounding_account(room: Room) -> None:
    """T-7: 45.045 / 27.027 / 18.018 are paid 45.04 / 27.02 / 18.01 and the 2 cents left move
    from the prize pool to `house_rounding` in one keyed `rounding` transfer."""
    config = nine_entries_of_10_01("r1")
    assert config.payouts.leftover is Leftover.HOUSE
    assert play(room, config) == {1: 4504, 2: 2702, 3: 1801}
    assert room.balance(ROUNDING) == 2
    stored = get_transfer(room.engine, key="tourney:r1:rounding:house:end")
    assert stored is not None and stored.transfer.kind == "rounding"
    lines = {p.account: p.amount for p in stored.transfer.postings}
    assert lines == {str(ROUNDING): 2, str(AccountRef(AccountKind.PRIZE_POOL, "r1", USD)): -2}


def test_t7_a_config_may_choose_top_places_and_then_the_house_gets_nothing(room: Room) -> None:
    """T-7 (setting): a tournament whose config chooses TOP_PLACES pays the 2 cents to first
    and second place; nothing reaches the house rounding account."""
    config = nine_entries_of_10_01("r2")
    config = replace(config, payouts=PayoutSettings(leftover=Leftover.TOP_PLACES))
    assert play(room, config) == {1: 4505, 2: 2703, 3: 1801}
    assert room.balance(ROUNDING) == 0


def test_t7_scheduled_tournaments_use_the_house_default(room: Room) -> None:
    """T-7: the schedule (config/tournaments/schedule) has no leftover setting, so every
    tournament the scheduler opens sends rounding leftovers to the house."""
    scheduler = TournamentScheduler(room.clock, room.ledger, load_schedule())
    room.clock.advance(86_400)  # a whole day: every scheduled MTT is due to open
    scheduler.check()
    assert len(scheduler.actors) == len(scheduler.schedule)
    for actor in scheduler.actors.values():
        assert actor.config.payouts.leftover is Leftover.HOUSE, actor.tid
