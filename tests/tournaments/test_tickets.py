"""Satellite tickets through the actor, the ledger and the store (T-16, T-3): real SQLite, a
fake clock, bots. The target is a 33.00 event (30.00 buy-in + 3.00 fee); the satellites' entries
are 9.20 + 0.80. Every test ends by checking that no ticket's money ever reached a wallet."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind, AccountRef, house
from pokerroom.ledger.schema import accounts, postings
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_actor_money import BUY_IN, FEE, config
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.director import errors
from tournaments.director.money import prize_pool
from tournaments.director.registration import TicketRefund
from tournaments.director.tickets import OnCancel, Ticket, TicketState
from tournaments.ops.simulation import START, Bots
from tournaments.satellite_target import SatelliteTarget

TARGET_BUY_IN, TARGET_FEE = 3000, 300
SEAT = TARGET_BUY_IN + TARGET_FEE


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


def target_config(tid: str = "target", **kw: Any) -> Any:
    kw.setdefault("starts_at", START + 86_400)
    return config(tid, buy_in=TARGET_BUY_IN, fee=TARGET_FEE, **kw)


def open_target(room: Room, tid: str = "target", **kw: Any) -> TournamentActor:
    target = TournamentActor(target_config(tid, **kw), room.clock, room.ledger, random.Random(9))
    target.open()
    return target


def run_satellite(
    room: Room,
    find: Callable[[str], TournamentActor | None],
    players: int = 10,
    tid: str = "sat",
    prefix: str = "s",
) -> TournamentActor:
    """A satellite of `players` 10.00 entries into `target` (SEAT each), bots to the end."""
    bots = Bots(random.Random(8))
    sat_config = replace(
        config(tid), satellite=SatelliteTarget("target", TARGET_BUY_IN, TARGET_FEE)
    )
    sat = TournamentActor(
        sat_config, room.clock, room.ledger, random.Random(10), bots, targets=find
    )
    bots.actor = sat
    sat.open()
    for n in range(players):
        room.fund_player(f"{prefix}{n}", BUY_IN + FEE)
        room.wait(sat.register(f"{prefix}{n}"))
    room.run_to_end(sat)
    return sat


def settle(room: Room, *actors: TournamentActor) -> None:
    for actor in actors:
        room.settle(actor)
        room.wait(actor.pending())
        room.settle(actor)


def winners(sat: TournamentActor) -> list[str]:
    seats = sat.satellite_seats or 0
    return sorted(r.entry for r in sat.results if r.place <= seats)


def ticket_of(room: Room, owner: str) -> Ticket:
    (ticket,) = read(room.engine, lambda conn: store.player_tickets(conn, owner))
    return ticket


def ticket_balance(room: Room, ticket: Ticket) -> int:
    return room.balance(AccountRef(AccountKind.TICKET, ticket.ticket_id, USD))


def wallet(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.WALLET, player, USD))


def tdollars(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.TDOLLARS, player, USD))


def assert_no_ticket_money_reached_a_wallet(room: Room) -> None:
    """T-16: in every transfer that takes money out of a ticket, no wallet receives any."""
    q = sa.select(postings.c.journal_id, accounts.c.kind, postings.c.amount).join(
        accounts, accounts.c.id == postings.c.account_id
    )
    by_transfer: dict[int, list[tuple[str, int]]] = {}
    for journal_id, kind, amount in read(room.engine, lambda conn: list(conn.execute(q))):
        by_transfer.setdefault(journal_id, []).append((kind, amount))
    from_tickets = [
        lines
        for lines in by_transfer.values()
        if ("ticket", -SEAT) in lines
        or any(kind == "ticket" and amount < 0 for kind, amount in lines)
    ]
    assert from_tickets, "the scenario never used a ticket: the check would prove nothing"
    for lines in from_tickets:
        assert not any(kind == "wallet" and amount > 0 for kind, amount in lines), lines
    assert room.check()


def test_a_seat_is_a_ticket_that_pays_the_registration_and_never_money(room: Room) -> None:
    """T-16: the seat's value goes pool -> the ticket's account -> the target's pool and fees;
    the winner's wallet and T$ never hold it."""
    target = open_target(room)
    sat = run_satellite(room, lambda tid: target if tid == "target" else None)
    settle(room, sat, target)
    assert sat.satellite_seats == 2
    for player in winners(sat):
        ticket = ticket_of(room, player)
        assert ticket.state is TicketState.USED and ticket.used_in == "target"
        assert ticket.source == "sat" and ticket.target == "target"
        assert ticket_balance(room, ticket) == 0
        assert wallet(room, player) == 0 and tdollars(room, player) == 0
        record = target.state.players[player]
        assert record.ticket_id == ticket.ticket_id
    assert room.pool("target") == 2 * TARGET_BUY_IN
    assert_no_ticket_money_reached_a_wallet(room)


def test_unregistering_gives_the_ticket_back_and_it_pays_again(room: Room) -> None:
    """T-3: unregistering returns the ticket, never money: wallet and T$ unchanged; the returned
    ticket registers again. Where the target refuses ticket refunds, unregistering is refused."""
    target = open_target(room, ticket_refund=TicketRefund.RETURN_TICKET)
    sat = run_satellite(room, lambda tid: target if tid == "target" else None)
    settle(room, sat, target)
    player = winners(sat)[0]
    room.wait(target.unregister(player))
    (ticket,) = read(room.engine, lambda conn: store.player_tickets(conn, player))
    assert ticket.state is TicketState.RETURNED and ticket.used_in == ""
    assert ticket_balance(room, ticket) == SEAT
    assert wallet(room, player) == 0 and tdollars(room, player) == 0
    assert room.pool("target") == TARGET_BUY_IN  # the other winner's only
    room.wait(target.register(player, ticket_id=ticket.ticket_id))
    assert ticket_of(room, player).state is TicketState.USED
    assert ticket_balance(room, ticket) == 0 and room.pool("target") == 2 * TARGET_BUY_IN

    strict = open_target(room, "strict")  # the default: a ticket entry cannot unregister
    room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat0", USD), SEAT)
    won = strict.tickets.new_ticket(player, source="sat0", label="strict", target="strict",
                                    buy_in=TARGET_BUY_IN, fee=TARGET_FEE)  # fmt: skip
    other = room.wait(strict.tickets.issue(won, prize_pool("sat0"), "seat:strict"))
    room.wait(strict.register(player, ticket_id=other.ticket_id))
    error = room.failure(strict.unregister(player))
    assert error.code == errors.TICKET_NOT_REFUNDABLE
    assert_no_ticket_money_reached_a_wallet(room)


def test_a_duplicate_seat_is_tdollars_of_the_buy_in_less_the_fee(room: Room) -> None:
    """T-16: the winner registered in the target meanwhile (the seat was decided before): the
    automatic registration is refused and the ticket becomes T$ 30.00, not 33.00; the 3.00 fee
    part goes to the house fees."""
    target = open_target(room)
    sat: list[TournamentActor] = []

    def find(tid: str) -> TournamentActor | None:  # hidden while the seats are decided
        return target if sat and sat[0].status == "finished" else None

    for n in range(10):  # every satellite player also bought into the target with cash
        room.fund_player(f"s{n}", SEAT)
        room.wait(target.register(f"s{n}"))
    fees_before = room.fees()
    bots = Bots(random.Random(8))
    sat_config = replace(
        config("sat"), satellite=SatelliteTarget("target", TARGET_BUY_IN, TARGET_FEE)
    )
    actor = TournamentActor(
        sat_config, room.clock, room.ledger, random.Random(10), bots, targets=find
    )
    sat.append(actor)
    bots.actor = actor
    actor.open()
    for n in range(10):
        room.fund_player(f"s{n}", BUY_IN + FEE)
        room.wait(actor.register(f"s{n}"))
    room.run_to_end(actor)
    settle(room, actor, target)
    for player in winners(actor):
        ticket = ticket_of(room, player)
        assert ticket.state is TicketState.CONVERTED
        assert ticket_balance(room, ticket) == 0
        assert tdollars(room, player) == TARGET_BUY_IN
        assert wallet(room, player) == 0
    assert room.fees() - fees_before == 10 * FEE + 2 * TARGET_FEE
    assert_no_ticket_money_reached_a_wallet(room)


@pytest.mark.parametrize("rule", [OnCancel.RETURN, OnCancel.CONVERT])
def test_a_cancelled_target_returns_the_ticket_or_converts_it_by_its_rule(
    room: Room, rule: OnCancel
) -> None:
    """T-1/T-18.1 and the target's rule: a target that never starts (one entry, by ticket)
    gives the ticket back, usable at its buy-in level (return), or T$ of buy-in plus fee
    (convert). A ticket won but not used yet follows the same rule."""
    target = open_target(room, cancelled_tickets=rule)
    sat = run_satellite(room, lambda tid: target if tid == "target" else None, players=4)
    assert sat.satellite_seats == 1  # 3,680 // 3,300
    (player,) = winners(sat)
    late = run_satellite(room, lambda tid: None, players=4, tid="sat2", prefix="u")  # unused
    (idle,) = winners(late)
    settle(room, sat, late, target)
    assert ticket_of(room, player).state is TicketState.USED
    room.advance(86_400 + 1, target, step=3_600)  # the start: one entry, cancelled (T-1)
    settle(room, target)
    assert target.status == "cancelled"
    room.wait(target.tickets.sweep())  # the unused ticket of the cancelled target
    for who in (player, idle):
        ticket = ticket_of(room, who)
        assert wallet(room, who) == 0
        if rule is OnCancel.RETURN:
            used = TicketState.RETURNED if who == player else TicketState.ISSUED
            assert (
                ticket.state is used
                and ticket.any_of_level
                and ticket_balance(room, ticket) == SEAT
            )
            assert tdollars(room, who) == 0
        else:
            assert ticket.state is TicketState.CONVERTED and ticket_balance(room, ticket) == 0
            assert tdollars(room, who) == SEAT
    if rule is OnCancel.RETURN:  # usable in another 33.00 tournament now
        other = open_target(room, "sunday", starts_at=START + 3 * 86_400, opens_at=START)
        room.wait(other.register(player, ticket_id=ticket_of(room, player).ticket_id))
        assert room.pool("sunday") == TARGET_BUY_IN
    assert_no_ticket_money_reached_a_wallet(room)


def test_an_unused_ticket_expires_to_the_house(room: Room) -> None:
    """A ticket not used by its expiry is forfeit: its value to the house, never to a wallet;
    registering with it afterwards is `ticket_expired`, and nothing moves before the expiry."""
    office_actor = open_target(room)
    office = office_actor.tickets
    room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat0", USD), SEAT)
    won = office.new_ticket("ann", source="sat0", label="target", target="target",
                            buy_in=TARGET_BUY_IN, fee=TARGET_FEE, valid_days=2)  # fmt: skip
    ticket = room.wait(office.issue(won, prize_pool("sat0"), "seat:ann"))
    assert room.wait(office.sweep()) == []  # not due
    room.clock.advance(2 * 86_400)
    (expired,) = room.wait(office.sweep())
    assert expired.state is TicketState.EXPIRED and ticket_balance(room, ticket) == 0
    assert room.balance(house(AccountKind.HOUSE_EXPIRED, USD)) == SEAT
    later = open_target(room, "later", starts_at=START + 5 * 86_400, opens_at=START)
    error = room.failure(later.register("ann", ticket_id=ticket.ticket_id))
    assert error.code == errors.TICKET_EXPIRED and "ann" not in later.state.players
    assert wallet(room, "ann") == 0
    assert_no_ticket_money_reached_a_wallet(room)


def test_a_ticket_pays_one_entry_only_its_owners_and_for_its_target(room: Room) -> None:
    """Not transferable: another player's ticket is unknown to them; a ticket for another
    tournament is `wrong_ticket`; two registrations racing for one level ticket: one wins, the
    other's transfer is refused with it (`ticket_not_usable`), and nothing moves twice."""
    first = open_target(room, "first")
    second = open_target(room, "second")
    office = first.tickets
    room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat0", USD), 2 * SEAT)
    level = office.new_ticket("ann", source="sat0", label="level", target="", any_of_level=True,
                              buy_in=TARGET_BUY_IN, fee=TARGET_FEE)  # fmt: skip
    named = office.new_ticket("ann", source="sat0", label="first", target="first",
                              buy_in=TARGET_BUY_IN, fee=TARGET_FEE)  # fmt: skip
    level = room.wait(office.issue(level, prize_pool("sat0"), "seat:ann:level"))
    named = room.wait(office.issue(named, prize_pool("sat0"), "seat:ann:first"))
    error = room.failure(first.register("bob", ticket_id=level.ticket_id))
    assert error.code == errors.UNKNOWN_TICKET
    error = room.failure(second.register("ann", ticket_id=named.ticket_id))
    assert error.code == errors.WRONG_TICKET
    races = [first.register("ann", ticket_id=level.ticket_id),
             second.register("ann", ticket_id=level.ticket_id)]  # fmt: skip
    outcomes: list[Any] = []
    for d in races:
        d.addBoth(outcomes.append)
    while len(outcomes) < 2:
        f, args, kwargs = room.pump.calls.get(timeout=30)
        f(*args, **kwargs)
    refused = [o for o in outcomes if hasattr(o, "value")]
    assert len(refused) == 1 and refused[0].value.code == errors.TICKET_NOT_USABLE
    settle(room, first, second)
    assert room.pool("first") + room.pool("second") == TARGET_BUY_IN
    assert ticket_balance(room, level) == 0 and ticket_balance(room, named) == SEAT
    assert len(first.state.players) + len(second.state.players) == 1
    assert_no_ticket_money_reached_a_wallet(room)
