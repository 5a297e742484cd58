"""T-13 deals at a running final table: requests, the pause, the proposal, answers on the fake
clock, the payment through the ledger (shared with stakers, T-17), and play resuming exactly as
it was — through the real actor, tables, ledger and store (SQLite, and PostgreSQL for the
payment), seeded bots.

Each proposal's figures are checked against a reference computed HERE: Malmuth-Harville by
brute force over every finishing order with exact fractions, rounded down to the cent (T-7);
chip-chop as the rule says (the next payout to each, the rest by chips, rounded down).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.ledger.schema import accounts, journal, postings
from pokerroom.protocol.staking_messages import DealProposal, DealResult
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_actor_money import config
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.director import errors
from tournaments.director.deal_flow import DealPhase, DealSettings
from tournaments.director.deals import DealMethod
from tournaments.director.errors import DirectorError
from tournaments.ops.simulation import Bots
from tournaments.store import stake_store

FUNDS = 5_000


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
    with fresh_pg_schema("deals_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Room]:
    """The room on SQLite only (the flow's timing; the money is tested on both)."""
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


# --------------------------------------------------------------------------- references


def icm_reference(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """Malmuth-Harville by brute force: every finishing order's probability (each next place
    goes to a player in proportion to their chips among those left) times its prizes, summed
    exactly, then rounded down to the cent."""
    total = sum(stacks)
    equity = [Fraction(0)] * len(stacks)
    for order in permutations(range(len(stacks))):
        chance, left = Fraction(1), total
        for player in order:
            chance *= Fraction(stacks[player], left)
            left -= stacks[player]
        for place, player in enumerate(order):
            equity[player] += chance * (prizes[place] if place < len(prizes) else 0)
    return [e.numerator // e.denominator for e in equity]


def chip_chop_reference(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """Everyone the next payout (the prize of the last remaining place, 0 outside the money),
    the rest by chips, rounded down."""
    n = len(stacks)
    floor = prizes[n - 1] if n <= len(prizes) else 0
    rest = sum(prizes) - floor * n
    return [floor + rest * chips // sum(stacks) for chips in stacks]


# --------------------------------------------------------------------------- helpers


def sit_and_go(room: Room, tid: str, seed: int = 3, **deals: Any) -> TournamentActor:
    """A 9-player freezeout sit-and-go (one table: the final table from the start), deals on."""
    bots = Bots(random.Random(seed))
    settings = DealSettings(allowed=True, **deals)
    actor = room.actor(replace(config(tid, max_entries=9, sit_and_go=True), deals=settings), bots)
    for n in range(9):
        room.fund_player(f"{tid}{n}", FUNDS)
        room.wait(actor.register(f"{tid}{n}"))
    return actor


def until_left(room: Room, actor: TournamentActor, left: int) -> None:
    """Play until at most `left` players remain (the prize table is fixed by then)."""
    while len(actor.alive) > left or actor.prizes is None:
        assert actor.status == "running"
        room.advance(1, actor)


def ask_all(room: Room, actor: TournamentActor) -> list[str]:
    """Every remaining player asks; the tables pause after their hands; the proposal comes."""
    players = sorted(actor.alive)
    for player in players:
        actor.deals.request(player)
    while actor.deals.flow.phase is not DealPhase.PROPOSED:
        assert actor.deals.flow.phase is DealPhase.PAUSING
        room.advance(1, actor)
    assert not actor.floor.in_hand and actor.floor.held
    return players


def phase(actor: TournamentActor) -> DealPhase:
    return actor.deals.flow.phase


def wallet(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.WALLET, player, USD))


def told(actor: TournamentActor, kind: type) -> list[Any]:
    return [message for _, message in actor.deals.told if isinstance(message, kind)]


def prizes_left(actor: TournamentActor) -> tuple[int, ...]:
    table = actor.prizes
    assert table is not None
    left = len(actor.alive)
    return tuple(table.prize(p) for p in range(1, min(left, table.paid_places) + 1))


def snapshot(actor: TournamentActor) -> tuple[Any, ...]:
    """What must not change through a failed deal: each table's stacks and button, the hands
    played, the level and the time left in it (the level clock stood still)."""
    floor = actor.floor
    now = room_now(actor)
    at = floor._held_at if floor.held else now
    level = floor.level() if not floor.held else _level_at(actor, at)
    return (
        tuple(
            (t.table_id, tuple(sorted(t.stacks.items())), t.button, t.hands_played)
            for t in floor.tables.values()
        ),
        level.index,
        None if level.ends_at is None else round(level.ends_at - at, 6),
    )


def room_now(actor: TournamentActor) -> float:
    return actor.clock.seconds()


def _level_at(actor: TournamentActor, at: float) -> Any:
    from tournaments.director.structure import level_at

    floor = actor.floor
    return level_at(floor.structure, floor.started_at, at, floor.paused_total)


# --------------------------------------------------------------------------- made deals


@pytest.mark.parametrize("method", [DealMethod.ICM, DealMethod.CHIP_CHOP])
def test_everyone_accepts_the_deal_is_paid_and_the_tournament_ends(
    room: Room, method: DealMethod
) -> None:
    """T-13: four players left ask; the table pauses between hands; the proposal's figures (from
    the stacks at the pause) equal the reference; all accept: ONE transfer pays every amount
    from the pool at once (T-7 rest to the house), the tournament ends with places by chips,
    each player's prize is their deal amount, the deal and its figures are stored."""
    tid = f"dl{method.value[:4]}"
    actor = sit_and_go(room, tid, method=method)
    until_left(room, actor, 4)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    (table,) = actor.floor.tables.values()
    assert dict(zip(proposal.players, proposal.stacks, strict=True)) == table.stacks
    prizes = prizes_left(actor)
    reference = icm_reference if method is DealMethod.ICM else chip_chop_reference
    assert list(proposal.deal.amounts) == reference(proposal.stacks, prizes)
    assert sum(proposal.deal.amounts) + proposal.deal.rounding == sum(prizes)
    (shown,) = told(actor, DealProposal)
    assert [(f.player, f.chips, f.amount) for f in shown.figures] == list(
        zip(proposal.players, proposal.stacks, proposal.deal.amounts, strict=True)
    )
    before = {p: wallet(room, p) for p in players}
    for player in players:
        actor.deals.accept(player, proposal.deal_id)
    room.run_to_end(actor)
    assert actor.status == "finished" and not actor.deals.failures
    figures = dict(zip(proposal.players, proposal.deal.amounts, strict=True))
    for player in players:
        assert wallet(room, player) - before[player] == figures[player], player
    key = f"tourney:{tid}:deal:table:1"
    query = (
        sa.select(accounts.c.kind, accounts.c.owner, postings.c.amount)
        .select_from(postings.join(journal).join(accounts))
        .where(journal.c.idempotency_key == key)
    )
    moved = {(k, o): int(a) for k, o, a in read(room.engine, lambda c: list(c.execute(query)))}
    assert moved[("prize_pool", tid)] == -(sum(prizes) - 0)
    assert {o: a for (k, o), a in moved.items() if k == "wallet"} == figures
    assert moved.get(("house_rounding", "house"), 0) == proposal.deal.rounding
    by_chips = sorted(players, key=lambda p: (-table.stacks[p], p))
    places = {r.entry: (r.place, r.prize) for r in actor.results if r.entry in players}
    assert places == {p: (i + 1, figures[p]) for i, p in enumerate(by_chips)}
    (made,) = [m for m in told(actor, DealResult) if m.outcome == "made"]
    assert made.deal_id == proposal.deal_id
    rows = read(room.engine, lambda conn: stake_store.load_staking(conn, tid)).deals
    assert [(r.players, r.amounts, r.kind, r.ledger_key) for r in rows] == [
        (proposal.players, proposal.deal.amounts, method.value, key)
    ]
    entries = read(room.engine, lambda conn: store.load_entries(conn, tid))
    assert {e.player: e.prize for e in entries if e.player in players} == figures
    view = actor.deals.view()
    assert view is not None and [f.amount for f in view.figures] == list(proposal.deal.amounts)
    assert room.pool(tid) == 0 and room.check()


def test_a_deal_with_an_amount_left_to_play_for_plays_on(room: Room) -> None:
    """T-13: 5.00 left to play for comes off first prize before the deal shares the rest; the
    deal is paid at once, play resumes, and the winner alone gets the 5.00 at the end; every
    other player's prize stays their deal amount; the prize table stored for T-18 is the one
    played for afterwards."""
    tid = "dlrest"
    actor = sit_and_go(room, tid, left_to_play_for=500)
    until_left(room, actor, 3)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    prizes = prizes_left(actor)
    dealt = (prizes[0] - 500, *prizes[1:])
    assert list(proposal.deal.amounts) == icm_reference(proposal.stacks, dealt)
    assert proposal.deal.reserved == 500
    for player in players:
        actor.deals.accept(player, proposal.deal_id)
    room.settle(actor)
    assert actor.status == "running" and not actor.floor.held
    record = read(room.engine, lambda conn: store.load_tournament(conn, tid))
    assert record is not None and record.prizes is not None
    assert record.prizes.amounts[: len(players)] == (500,) + (0,) * (len(players) - 1)
    assert room.pool(tid) == 500 + record.prizes.rounding
    room.run_to_end(actor)
    figures = dict(zip(proposal.players, proposal.deal.amounts, strict=True))
    (winner,) = [r.entry for r in actor.results if r.place == 1]
    for r in actor.results:
        if r.entry in players:
            assert r.prize == figures[r.entry] + (500 if r.entry == winner else 0)
    assert room.pool(tid) == 0 and room.check()


def test_a_deal_is_shared_with_the_sellers_buyers(room: Room) -> None:
    """T-13 with T-17: every seller at the final table sold part of their action; their deal
    amount is split in the deal's own transfer: each buyer `amount * bps // 10,000`, the
    seller `amount * unsold // 10,000`, the cents left to the house rounding account."""
    tid = "dlstk"
    bots = Bots(random.Random(3))
    actor = room.actor(
        replace(config(tid, max_entries=9, sit_and_go=True), deals=DealSettings(allowed=True)),
        bots,
    )
    names = [f"{tid}{n}" for n in range(9)]
    for name in [*names, "x", "y"]:
        room.fund_player(name, FUNDS)
    for name in names[:8]:
        room.wait(actor.register(name))
    sold: dict[str, dict[str, int]] = {}
    for n, seller in enumerate(names[:8]):
        offer = room.wait(actor.stakes.offer(seller, 5000))
        sold[seller] = {"x": 1111 + n, "y": 2000}
        for buyer, bps in sold[seller].items():
            room.wait(actor.stakes.buy(buyer, offer.offer_id, bps, seller))
    room.wait(actor.register(names[8]))  # the ninth entry starts it
    until_left(room, actor, 4)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    before = {p: wallet(room, p) for p in [*players, "x", "y"]}
    for player in players:
        actor.deals.accept(player, proposal.deal_id)
    room.run_to_end(actor)
    figures = dict(zip(proposal.players, proposal.deal.amounts, strict=True))
    expected = {"x": 0, "y": 0}
    for player in players:
        mine = sold.get(player, {})
        parts = {b: figures[player] * bps // 10_000 for b, bps in mine.items()}
        keep = figures[player] * (10_000 - sum(mine.values())) // 10_000
        assert wallet(room, player) - before[player] == keep, player
        for buyer, part in parts.items():
            expected[buyer] += part
    assert any(player in sold for player in players)
    assert {b: wallet(room, b) - before[b] for b in ("x", "y")} == expected
    assert room.pool(tid) == 0 and room.check()


# --------------------------------------------------------------------------- failed deals


@pytest.mark.parametrize("how", ["reject", "silence"])
def test_no_deal_resumes_play_exactly_as_it_was(lite: Room, how: str) -> None:
    """T-13: one player rejects (or a player stays silent until the deadline, timed on the
    injected clock): no money moves, requests are cleared, and play resumes exactly as it was:
    the same stacks, buttons and hands, the same level with the same time left in it (the level
    clock stood still through a pause longer than a level), then hands are dealt again."""
    room = lite
    tid = f"dl{how[:3]}"
    actor = sit_and_go(room, tid, answer_seconds=400)  # longer than a 300-second level
    until_left(room, actor, 5)
    pool = room.pool(tid)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    held = snapshot(actor)
    if how == "reject":
        actor.deals.accept(players[0], proposal.deal_id)
        room.advance(399, actor)
        actor.deals.reject(players[1], proposal.deal_id)
    else:
        for player in players[:-1]:
            actor.deals.accept(player, proposal.deal_id)
        room.advance(399.5, actor, step=0.5)
        assert actor.deals.flow.phase is DealPhase.PROPOSED  # not yet: the deadline is 400
        room.advance(0.5, actor, step=0.5)
        with pytest.raises(DirectorError) as error:
            actor.deals.accept(players[-1], proposal.deal_id)
        assert error.value.code == errors.NO_DEAL
    flow = actor.deals.flow
    assert flow.phase is DealPhase.OPEN and flow.requests == frozenset()
    assert flow.rejections[-1].by == (players[1] if how == "reject" else None)
    (result,) = told(actor, DealResult)
    assert result.outcome == ("rejected" if how == "reject" else "expired")
    assert not actor.floor.held
    assert snapshot(actor) == held  # at once: nothing moved, the level clock did not run
    assert room.pool(tid) == pool and actor.deals.record is None
    hands = sum(t.hands_played for t in actor.floor.tables.values())
    room.advance(60, actor)
    assert sum(t.hands_played for t in actor.floor.tables.values()) > hands or (
        actor.status == "finished"
    )
    room.run_to_end(actor)
    assert actor.deals.record is None and room.pool(tid) == 0 and room.check()


def test_answers_count_for_the_proposal_and_before_its_deadline(lite: Room) -> None:
    """T-13: an answer to another proposal is `no_deal`; two accepts and a silence are no deal:
    still open half a second before the deadline, failed at it (the timer on the fake clock)."""
    room = lite
    actor = sit_and_go(room, "dlate", answer_seconds=30)
    until_left(room, actor, 3)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    with pytest.raises(DirectorError) as wrong:
        actor.deals.accept(players[0], "99")
    assert wrong.value.code == errors.NO_DEAL
    for player in players[:-1]:
        actor.deals.accept(player, proposal.deal_id)
    room.clock.advance(29.5)
    assert phase(actor) is DealPhase.PROPOSED
    room.clock.advance(0.5)  # the deadline's timer: silence is a rejection
    assert phase(actor) is DealPhase.OPEN and actor.deals.record is None
    assert told(actor, DealResult)[-1].outcome == "expired"
    assert room.pool("dlate") > 0


def test_a_staff_custom_split_replaces_the_proposal(lite: Room) -> None:
    """T-13: a staff member's split must share exactly the money dealt and give nobody less
    than the next payout (`bad_deal`); accepted, it is paid as it is (no rounding)."""
    room = lite
    actor = sit_and_go(room, "dlcus")
    until_left(room, actor, 3)
    players = ask_all(room, actor)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    money = sum(prizes_left(actor))
    with pytest.raises(DirectorError) as wrong:
        actor.deals.propose_custom([money, 0, 1], by="staff1")
    assert wrong.value.code == errors.BAD_DEAL
    custom = [money // 3, money // 3, money - 2 * (money // 3)]
    actor.deals.propose_custom(custom, by="staff1")
    (withdrawn,) = told(actor, DealResult)
    assert withdrawn.outcome == "withdrawn" and withdrawn.deal_id == proposal.deal_id
    new = actor.deals.flow.proposal
    assert new is not None and new.deal_id != proposal.deal_id
    assert list(new.deal.amounts) == custom and new.kind.value == "custom"
    shown = told(actor, DealProposal)[-1]
    assert shown.proposed_by == "staff1" and [f.amount for f in shown.figures] == custom
    before = {p: wallet(room, p) for p in players}
    for player in players:
        actor.deals.accept(player, new.deal_id)
    room.run_to_end(actor)
    paid = dict(zip(new.players, custom, strict=True))
    assert {p: wallet(room, p) - before[p] for p in players} == paid
    assert room.pool("dlcus") == 0 and room.check()


def test_deals_are_refused_where_the_rules_do_not_allow_them(lite: Room) -> None:
    """T-13: `deal_not_allowed` when the tournament does not allow deals, before the final
    table (two tables), with more players left than `max_players`; `not_in_deal` for a player
    who is not among the remaining players. Refusals change nothing."""
    room = lite
    off = room.actor(config("dloff", max_entries=9, sit_and_go=True), Bots(random.Random(1)))
    for n in range(9):
        room.fund_player(f"off{n}", FUNDS)
        room.wait(off.register(f"off{n}"))
    until_left(room, off, 5)
    with pytest.raises(DirectorError) as refused:
        off.deals.request(sorted(off.alive)[0])
    assert refused.value.code == errors.DEAL_NOT_ALLOWED
    few = sit_and_go(room, "dlfew", max_players=3)
    until_left(room, few, 5)
    with pytest.raises(DirectorError) as many:
        few.deals.request(sorted(few.alive)[0])
    assert many.value.code == errors.DEAL_NOT_ALLOWED
    until_left(room, few, 3)
    gone = next(r.entry for r in few.results)
    with pytest.raises(DirectorError) as outside:
        few.deals.request(gone)
    assert outside.value.code == errors.NOT_IN_DEAL
    assert few.deals.flow.requests == frozenset() and not few.floor.held
    settings = DealSettings(allowed=True, max_players=13)
    big = room.actor(
        replace(config("dlbig", max_entries=18, sit_and_go=True), deals=settings),
        Bots(random.Random(2)),
    )
    for n in range(18):
        room.fund_player(f"big{n}", FUNDS)
        room.wait(big.register(f"big{n}"))
    until_left(room, big, 13)
    assert len(big.floor.tables) == 2  # 13 players still fill two tables
    with pytest.raises(DirectorError) as early:
        big.deals.request(sorted(big.alive)[0])
    assert early.value.code == errors.DEAL_NOT_ALLOWED
    assert big.deals.flow.requests == frozenset() and not big.floor.held
