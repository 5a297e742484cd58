"""T-17 staking in running tournaments: offers, purchases, the escrow, and every payment a seller
receives shared with their buyers in the same ledger transfer — through the real actor, ledger
and store (SQLite always, PostgreSQL too), a fake clock, seeded bots.

The buyers' totals are checked against a reference computed HERE from the rule text (T-17, T-7):
a buyer of `b` bps of a seller's action gets `amount * b // 10_000` of every prize and bounty
payment the seller receives (two purchases from one seller count as one holding); the seller
keeps `amount * (10_000 - sold) // 10_000`; the price of a share is
`buy_in * bps * markup // 10_000**2`. The gross payments come from the tournament's own records
(results and the bounty book's payments); nothing here calls tournaments/director/staking.py.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
from pokerroom.ledger.db import in_transaction, read
from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.ledger.schema import accounts, journal, postings
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_actor_money import BUY_IN, FEE, config
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.director import errors
from tournaments.director.bounties import BountyFormat, BountyKind
from tournaments.director.errors import DirectorError
from tournaments.director.refunds import outage_refunds
from tournaments.ops import recovery
from tournaments.ops.simulation import START, Bots
from tournaments.satellite_target import SatelliteTarget
from tournaments.store import stake_store

FUNDS = 10_000
PKO = BountyFormat(5000, BountyKind.PROGRESSIVE)  # 460 of each 920 buy-in on the head


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
    with fresh_pg_schema("staking_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


# --------------------------------------------------------------------------- the reference


def price(bps: int, markup: int) -> int:
    """T-17: buy-in × share × markup rounded down to the cent (T-7), with literal numbers."""
    return BUY_IN * bps * markup // 100_000_000


def shared(
    payments: list[tuple[str, int]], holdings: dict[tuple[str, str], int]
) -> tuple[dict[str, int], dict[str, int], dict[tuple[str, str], int], int]:
    """Every payment to a seller split by the rule: (what each buyer gets, what each seller
    keeps of what they were paid, each (seller, buyer) pair's total, the cents to the house)."""
    sold: dict[str, int] = defaultdict(int)
    for (seller, _), bps in holdings.items():
        sold[seller] += bps
    buyers: dict[str, int] = defaultdict(int)
    kept: dict[str, int] = defaultdict(int)
    pairs: dict[tuple[str, str], int] = defaultdict(int)
    rounding = 0
    for seller, amount in payments:
        mine = {b: bps for (s, b), bps in holdings.items() if s == seller}
        keep = amount * (10_000 - sold[seller]) // 10_000
        parts = {b: amount * bps // 10_000 for b, bps in mine.items()}
        kept[seller] += keep
        for buyer, part in parts.items():
            buyers[buyer] += part
            pairs[(seller, buyer)] += part
        rounding += amount - keep - sum(parts.values())
    return dict(buyers), dict(kept), {k: v for k, v in pairs.items() if v}, rounding


def wallet(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.WALLET, player, USD))


def escrow(room: Room, tid: str) -> int:
    return room.balance(AccountRef(AccountKind.STAKING_ESCROW, tid, USD))


def journal_keys(room: Room, like: str) -> list[str]:
    query = sa.select(journal.c.idempotency_key).where(journal.c.idempotency_key.like(like))
    return read(room.engine, lambda conn: sorted(conn.execute(query).scalars()))


def postings_of(room: Room, key: str) -> dict[tuple[str, str], int]:
    """A transfer's postings by (account kind, owner)."""
    query = (
        sa.select(accounts.c.kind, accounts.c.owner, postings.c.amount)
        .select_from(postings.join(journal).join(accounts))
        .where(journal.c.idempotency_key == key)
    )
    rows = read(room.engine, lambda conn: list(conn.execute(query)))
    return {(kind, owner): int(amount) for kind, owner, amount in rows}


def staking(room: Room, tid: str) -> stake_store.StakingRows:
    return read(room.engine, lambda conn: stake_store.load_staking(conn, tid))


def payouts(room: Room, tid: str, reason: str | None = None) -> dict[tuple[str, str], int]:
    """The stored buyers' parts by (seller, buyer): all, or of one reason."""
    rows = read(room.engine, lambda conn: stake_store.load_payouts(conn, tid))
    found: dict[tuple[str, str], int] = defaultdict(int)
    for row in rows:
        if reason is None or row.reason == reason:
            found[(row.seller, row.buyer)] += row.amount
    return dict(found)


def failure(room: Room, d: Any) -> DirectorError:
    error = room.failure(d)
    assert isinstance(error, DirectorError), error
    return error


# --------------------------------------------------------------------------- a whole tournament

#: seller -> offers (share bps, markup bps)
OFFERS = {
    "p0": ((4000, 11500), (2000, 10000)),
    "p1": ((5000, 12000),),
    "p2": ((3000, 10000),),
    "p3": ((10_000, 10500),),
    "p4": ((2500, 11000), (2500, 11000)),
    "p5": ((6000, 10000),),
    "p6": ((1000, 11999),),
    "p7": ((7777, 10001),),
}
#: (buyer, seller, offer index, bps): several buyers per seller, some buying twice
PURCHASES = (
    ("b0", "p0", 0, 1500),
    ("b1", "p0", 0, 2500),
    ("b0", "p0", 1, 500),
    ("p9", "p0", 1, 1500),
    ("b1", "p1", 0, 5000),
    ("b2", "p2", 0, 1000),
    ("p6", "p2", 0, 1000),
    ("b3", "p2", 0, 999),
    ("b0", "p3", 0, 3333),
    ("b2", "p3", 0, 3333),
    ("b3", "p3", 0, 3334),
    ("p8", "p4", 0, 2500),
    ("b1", "p4", 1, 1234),
    ("b2", "p5", 0, 4000),
    ("b2", "p5", 0, 2000),
    ("b3", "p6", 0, 1000),
    ("b0", "p7", 0, 3000),
    ("b1", "p7", 0, 4777),
)
PLAYERS = [f"p{n}" for n in range(18)]
OUTSIDERS = ["b0", "b1", "b2", "b3"]


def test_stakes_across_a_whole_bounty_tournament_match_the_reference(room: Room) -> None:
    """T-17 over an 18-player PKO freezeout: eight sellers with several buyers each (buyers
    inside and outside the tournament, some buying twice), one seller who unregisters before
    the start (buyers refunded in full, in the seller's own refund transfer, the seller keeping
    none of it), retried purchases buying once; the escrow paid to each seller at the start;
    then every prize and bounty a seller receives shared in its own transfer. Each buyer's
    total, each wallet and each stored result equal the reference; the ledger checks."""
    tid = "stk"
    actor = room.actor(config(tid, bounty=PKO), Bots(random.Random(17)))
    for name in [*PLAYERS, "u", *OUTSIDERS]:
        room.fund_player(name, FUNDS)
    for name in [*PLAYERS, "u"]:
        room.wait(actor.register(name))
    offer_ids: dict[tuple[str, int], str] = {}
    markups: dict[str, int] = {}
    for seller, offers in OFFERS.items():
        for index, (bps, markup) in enumerate(offers):
            made = room.wait(actor.stakes.offer(seller, bps, markup))
            offer_ids[(seller, index)] = made.offer_id
            markups[made.offer_id] = markup
    bought = []
    for n, (buyer, seller, index, bps) in enumerate(PURCHASES):
        offer_id = offer_ids[(seller, index)]
        stake = room.wait(actor.stakes.buy(buyer, offer_id, bps, f"k{n}"))
        assert stake.price == price(bps, markups[offer_id]) and stake.seller == seller
        bought.append(stake)
    # P-2: the same buyer and key again is the first purchase; one transfer; other content is
    # a conflict; nothing more moves.
    again = room.wait(actor.stakes.buy("b0", offer_ids[("p0", 0)], 1500, "k0"))
    assert again == bought[0]
    assert journal_keys(room, f"{tid}:stake:buy:b0:k0") == [f"{tid}:stake:buy:b0:k0"]
    conflict = failure(room, actor.stakes.buy("b0", offer_ids[("p0", 0)], 1000, "k0"))
    assert conflict.code == "idempotency_conflict"
    # A seller who leaves before the start: each buyer back exactly what they paid, the seller
    # none of it, in the seller's own refund transfer.
    u_offer = room.wait(actor.stakes.offer("u", 5000, 11000))
    u_b0 = room.wait(actor.stakes.buy("b0", u_offer.offer_id, 2000, "u1"))
    u_b3 = room.wait(actor.stakes.buy("b3", u_offer.offer_id, 3000, "u2"))
    assert (
        wallet(room, "b3") == FUNDS - sum(s.price for s in bought if s.buyer == "b3") - u_b3.price
    )
    held = sum(s.price for s in bought) + u_b0.price + u_b3.price
    assert escrow(room, tid) == held
    room.wait(actor.unregister("u"))
    assert wallet(room, "u") == FUNDS
    assert escrow(room, tid) == held - u_b0.price - u_b3.price
    (refund_key,) = journal_keys(room, f"tourney:{tid}:unregister:u:%")
    moved = postings_of(room, refund_key)
    assert moved[("wallet", "u")] == BUY_IN + FEE
    assert moved[("wallet", "b3")] == u_b3.price and moved[("wallet", "b0")] == u_b0.price
    assert moved[("staking_escrow", tid)] == -(u_b0.price + u_b3.price)
    assert failure(room, actor.stakes.buy("b1", u_offer.offer_id, 100, "late")).code == (
        errors.UNKNOWN_OFFER
    )

    room.run_to_end(actor)
    assert actor.status == "finished" and not actor.stakes.failures
    assert not actor.payouts.failures and actor.bounties is not None and not actor.bounties.failures
    assert escrow(room, tid) == 0
    failure_after = failure(room, actor.stakes.offer("p9", 100))
    assert failure_after.code == errors.STAKE_CLOSED

    holdings: dict[tuple[str, str], int] = defaultdict(int)
    for stake in bought:
        holdings[(stake.seller, stake.buyer)] += stake.share_bps
    payments = [(r.entry, r.prize) for r in actor.results if r.prize]
    payments += [(p.entry, p.paid) for _, p in actor.bounties.paid if p.paid]
    to_buyers, kept, pairs, _ = shared(payments, dict(holdings))
    sellers = set(OFFERS)
    cashed = {r.entry for r in actor.results if r.prize}
    bounty_winners = {p.entry for _, p in actor.bounties.paid if p.paid}
    assert sellers & cashed and sellers - cashed  # sellers who cash and who bust out of it
    assert sellers & bounty_winners  # a seller wins bounties
    assert all(any(s.buyer == b for s in bought) for b in OUTSIDERS)
    # each stake's result as stored equals the reference, pair by pair
    assert payouts(room, tid) == pairs
    for buyer in {s.buyer for s in bought}:
        assert actor.stakes.received(buyer) == to_buyers.get(buyer, 0), buyer
    for name in [*PLAYERS, "u", *OUTSIDERS]:
        expected = FUNDS
        if name in PLAYERS:
            expected -= BUY_IN + FEE
        expected -= sum(s.price for s in bought if s.buyer == name)
        expected += to_buyers.get(name, 0)
        if name in sellers:
            expected += sum(s.price for s in bought if s.seller == name)  # the escrow at start
            expected += kept.get(name, 0)
        else:
            expected += sum(amount for who, amount in payments if who == name)
        assert wallet(room, name) == expected, name
    rows = staking(room, tid)
    assert {r.stake.stake_id: r.status for r in rows.stakes} == {
        **{s.stake_id: stake_store.PAID for s in bought},
        u_b0.stake_id: stake_store.REFUNDED,
        u_b3.stake_id: stake_store.REFUNDED,
    }
    assert [r.status for r in rows.offers if r.offer.seller == "u"] == [stake_store.GONE]
    mine = read(room.engine, lambda conn: stake_store.player_stakes(conn, "b2"))
    results = stake_store.holdings((*mine.sold, *mine.bought), mine.payouts)
    assert results[(tid, "p5", "b2")] == (
        6000,
        price(4000, 10000) + price(2000, 10000),
        pairs.get(("p5", "b2"), 0),
        0,
    )
    assert room.pool(tid) == 0 and room.check()


def test_refused_and_closed_purchases_change_nothing(room: Room) -> None:
    """T-17 refusals through the actor: a buyer short of money (the ledger's check is the last
    word: nothing reserved, nothing stored, the same key may be used again), a seller not
    registered, the seller's own action, more than is left, a markup above 1.20, and every
    request after the start (`stake_closed`)."""
    tid = "stk2"
    actor = room.actor(config(tid), Bots(random.Random(3)))
    for name in ("a", "b", "c"):
        room.fund_player(name, FUNDS)
        room.wait(actor.register(name))
    room.fund_player("poor", 100)
    assert failure(room, actor.stakes.offer("x", 1000)).code == errors.NOT_REGISTERED
    assert failure(room, actor.stakes.offer("a", 1000, 12_001)).code == errors.MARKUP_TOO_HIGH
    offer = room.wait(actor.stakes.offer("a", 5000, 12_000))
    assert failure(room, actor.stakes.offer("a", 5001)).code == errors.OVERSOLD
    assert failure(room, actor.stakes.buy("a", offer.offer_id, 100, "own")).code == (
        errors.OWN_ACTION
    )
    assert failure(room, actor.stakes.buy("b", offer.offer_id, 5001, "big")).code == (
        errors.OVERSOLD
    )
    short = failure(room, actor.stakes.buy("poor", offer.offer_id, 1000, "k"))  # 1.10 > 1.00
    assert short.code == errors.INSUFFICIENT_FUNDS
    assert escrow(room, tid) == 0 and wallet(room, "poor") == 100
    assert actor.stakes.book is not None and actor.stakes.book.stakes == ()
    assert staking(room, tid).stakes == ()
    room.fund_player("poor", 10)
    stake = room.wait(actor.stakes.buy("poor", offer.offer_id, 1000, "k"))  # the key again
    assert stake.price == price(1000, 12_000) == 110 and wallet(room, "poor") == 0
    withdrawn = room.wait(actor.stakes.withdraw("a", offer.offer_id))
    assert (withdrawn.share_bps, withdrawn.sold_bps, withdrawn.left_bps) == (1000, 1000, 0)
    assert failure(room, actor.stakes.buy("b", offer.offer_id, 1, "after")).code == (
        errors.OVERSOLD
    )
    room.advance(3600, actor)  # the start
    assert actor.status == "running"
    assert escrow(room, tid) == 0 and wallet(room, "a") == FUNDS - BUY_IN - FEE + 110
    for d in (
        actor.stakes.offer("b", 1000),
        actor.stakes.withdraw("a", offer.offer_id),
        actor.stakes.buy("c", offer.offer_id, 100, "z"),
    ):
        assert failure(room, d).code == errors.STAKE_CLOSED
    assert room.check()


def test_stakes_are_stored_and_a_restart_keeps_them(room: Room) -> None:
    """T-17, T-18: offers and purchases are stored with their transfers; a restart rebuilds
    the book from the store, so a purchase retried with its key after the restart buys once,
    and the start pays the escrow to the sellers exactly once."""
    tid = "stk3"
    actor = room.actor(config(tid), Bots(random.Random(5)))
    for name in ("a", "b", "c", "d"):
        room.fund_player(name, FUNDS)
        room.wait(actor.register(name))
    offer = room.wait(actor.stakes.offer("a", 6000, 11_000))
    first = room.wait(actor.stakes.buy("b", offer.offer_id, 2500, "kb"))
    room.wait(actor.stakes.buy("c", offer.offer_id, 1000, "kc"))
    room.wait(actor.pending())
    book = actor.stakes.book
    actor.cancel_start()  # the process stops here
    now_ms = round(room.clock.seconds() * 1000)
    decided = recovery.decide(room.engine, now_ms)
    (choice,) = [c for c in decided.choices if c.tournament_id == tid]
    assert choice.action == recovery.KEPT and choice.stored is not None
    bots = Bots(random.Random(6))
    again = TournamentActor(choice.stored.config, room.clock, room.ledger, random.Random(7), bots)
    bots.actor = again
    recovery.rebuild(again, choice.stored, room.clock.seconds())
    assert again.stakes.book == book
    assert room.wait(again.stakes.buy("b", offer.offer_id, 2500, "kb")) == first
    assert journal_keys(room, f"{tid}:stake:buy:b:%") == [f"{tid}:stake:buy:b:kb"]
    third = room.wait(again.stakes.buy("d", offer.offer_id, 500, "kd"))
    assert third.stake_id not in {first.stake_id}
    room.run_to_end(again)
    paid = price(2500, 11_000) + price(1000, 11_000) + price(500, 11_000)
    assert escrow(room, tid) == 0
    assert postings_of(room, f"{tid}:stake:release:a")[("wallet", "a")] == paid
    assert room.check()


# --------------------------------------------------------------------------- T-18 refunds


def run_refund_job(room: Room, tid: str) -> None:
    ctx = JobContext(lambda: START + 86_400, JobSettings(batch=7))
    report = run_blocking(room.engine, job_run(RefundsJob(), "test:stakes", ctx))
    assert report.outcome == "ok" and tid in report.tournaments, report.errors


def test_a_cancelled_tournament_gives_every_buyer_their_price_back(room: Room) -> None:
    """T-18.1 with T-17: cancelled before the start, the refund job gives each buyer back
    exactly what they paid, from the escrow (which ends empty); sellers get their own buy-in and
    fee back and keep none of the buyers' money; the stakes are marked refunded."""
    tid = "stk4"
    actor = room.actor(config(tid))
    for name in ("a", "b", "c"):
        room.fund_player(name, FUNDS)
        room.wait(actor.register(name))
    room.fund_player("x", FUNDS)
    offer = room.wait(actor.stakes.offer("a", 8000, 11_500))
    bought = [
        room.wait(actor.stakes.buy("b", offer.offer_id, 3000, "1")),
        room.wait(actor.stakes.buy("x", offer.offer_id, 2000, "2")),
        room.wait(actor.stakes.buy("x", offer.offer_id, 999, "3")),
    ]
    assert escrow(room, tid) == sum(s.price for s in bought)
    room.wait(actor.cancel(store.CancelReason.STAFF))
    room.wait(actor.pending())
    assert escrow(room, tid) == 0
    for name in ("a", "b", "c", "x"):
        assert wallet(room, name) == FUNDS, name
    assert {r.status for r in staking(room, tid).stakes} == {stake_store.REFUNDED}
    refunds = read(room.engine, lambda conn: store.load_refunds(conn, tid))
    stake_rows = sorted((r.player, r.amount) for r in refunds if r.component.startswith("stake"))
    assert stake_rows == sorted((s.buyer, s.price) for s in bought)
    assert room.check()


@pytest.mark.parametrize("phase", ["before", "in"])
def test_an_outage_refund_is_shared_with_the_sellers_buyers(room: Room, phase: str) -> None:
    """T-18 with T-17: a running PKO tournament cancelled for an outage before or in the money;
    every part of a seller's refund paid to their wallet (fee, pool shares, next prize, current
    bounty) is split with their buyers in that part's own transfer, each part by the rule."""
    tid = f"stk5{phase}"
    bots = Bots(random.Random(41))
    actor = room.actor(config(tid, bounty=PKO), bots)
    names = [f"q{n}" for n in range(18)]
    for name in [*names, "y", "z"]:
        room.fund_player(name, FUNDS)
    for name in names:
        room.wait(actor.register(name))
    holdings: dict[tuple[str, str], int] = {}
    bought = []
    for n, seller in enumerate(names):  # everyone sells, to outsiders and to a neighbour
        offer = room.wait(actor.stakes.offer(seller, 6000, 10_000 + 111 * n))
        for buyer, bps in (("y", 1000 + 111 * n), ("z", 2000), (names[(n + 1) % 18], 777)):
            bought.append(room.wait(actor.stakes.buy(buyer, offer.offer_id, bps, f"{seller}")))
            holdings[(seller, buyer)] = bps

    def stop() -> bool:
        if actor.status != "running" or actor.prizes is None:
            return False
        left = len(actor.alive)
        paid = actor.paid_places()
        return left <= paid + 4 if phase == "before" else left <= paid

    while not (actor.idle() and not actor.cashier.in_flight and stop()):
        assert actor.status in ("registering", "running")
        room.advance(1, actor)
    room.wait(actor.pending())
    actor.floor.stop()
    actor.stop_watching()
    now = round(room.clock.seconds() * 1000)

    def outage(conn: sa.Connection) -> None:
        assert store.mark_interrupted(conn, tid, now)
        assert store.mark_cancelled(conn, tid, store.CancelReason.OUTAGE, now + 1)

    in_transaction(room.engine, outage)
    stopped = read(room.engine, lambda conn: store.load_stopped(conn, tid))
    plan = outage_refunds(stopped.state, stopped.record.fee_refund)
    before = {name: wallet(room, name) for name in [*names, "y", "z"]}
    run_refund_job(room, tid)
    payments = [
        (r.player, amount) for r in plan.refunds for _, amount in r.components() if amount > 0
    ]
    sellers_in = {seller for seller, _ in payments} & {s for s, _ in holdings}
    assert sellers_in  # some sellers are still in and refunded
    to_buyers, kept, pairs, _ = shared(payments, holdings)
    assert payouts(room, tid, "refund") == pairs
    for name in [*names, "y", "z"]:
        own = sum(n for who, n in payments if who == name)
        mine = kept.get(name, 0) if any(s == name for s, _ in holdings) else own
        assert wallet(room, name) - before[name] == mine + to_buyers.get(name, 0), name
    assert escrow(room, tid) == 0 and room.pool(tid) == 0 and room.check()


# --------------------------------------------------------------------------- satellite seats


def test_a_seat_instead_of_money_gives_the_buyers_their_price_back(room: Room) -> None:
    """T-17 in a satellite (prizes are seats): the escrow is held until each seller's result;
    a seller who wins a seat keeps the whole seat and every buyer gets back exactly what they
    paid (from the escrow); a seller who busts gets their escrow then; the escrow ends empty."""
    target = TournamentActor(
        config("tgt", buy_in=3000, fee=300, starts_at=START + 86_400),
        room.clock,
        room.ledger,
        random.Random(9),
    )
    target.open()
    bots = Bots(random.Random(8))
    sat_config = replace(config("sat"), satellite=SatelliteTarget("tgt", 3000, 300))
    sat = TournamentActor(
        sat_config, room.clock, room.ledger, random.Random(10), bots, targets=lambda t: target
    )
    bots.actor = sat
    sat.open()
    names = [f"s{n}" for n in range(10)]
    for name in [*names, "w"]:
        room.fund_player(name, FUNDS)
    for name in names:
        room.wait(sat.register(name))
    prices: dict[str, int] = {}
    sold: dict[str, int] = {}
    for n, seller in enumerate(names):
        offer = room.wait(sat.stakes.offer(seller, 3000, 11_000))
        sold[seller] = 1000 + n
        prices[seller] = room.wait(sat.stakes.buy("w", offer.offer_id, sold[seller], seller)).price
    room.run_to_end(sat)
    room.wait(target.pending())
    assert sat.stakes.hold and not sat.stakes.failures
    seats = sat.satellite_seats or 0
    winners = {r.entry for r in sat.results if r.place <= seats}
    losers = set(names) - winners
    assert winners and losers
    assert escrow(room, "sat") == 0
    cash = {r.entry: r.prize for r in sat.results if r.entry in losers and r.prize}
    assert cash  # the place after the seats is paid in money, shared with the buyer
    parts = {seller: prize * sold[seller] // 10_000 for seller, prize in cash.items()}
    winners_back = sum(prices[s] for s in winners)  # a seat: the buyer's money back
    assert wallet(room, "w") == FUNDS - sum(prices.values()) + winners_back + sum(parts.values())
    for seller in losers:
        prize = cash.get(seller, 0)
        kept = prize * (10_000 - sold[seller]) // 10_000
        assert wallet(room, seller) == FUNDS - BUY_IN - FEE + prices[seller] + kept, seller
    for seller in winners:  # the seat (used in the target) and no buyer money kept
        assert wallet(room, seller) == FUNDS - BUY_IN - FEE, seller
    statuses = {r.stake.seller: r.status for r in staking(room, "sat").stakes}
    assert {statuses[s] for s in winners} == {stake_store.RETURNED}
    assert {statuses[s] for s in losers} == {stake_store.PAID}
    assert room.check()
