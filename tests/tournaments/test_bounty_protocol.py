"""Bounties and tickets as players see them (docs/PROTOCOL.md section 9): every frame checked
against its typed declaration (`validate`), through the real desk, scheduler and tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.protocol.catalog import validate
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_desk import Clients
from tournaments.desk.desk import TournamentDesk
from tournaments.director.bounties import BountyFormat, BountyKind
from tournaments.director.money import prize_pool
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler

PKO = ScheduleEntry(
    "sng-3-pko", "turbo", 100, 10, players=3, bounty=BountyFormat(5000, BountyKind.PROGRESSIVE)
)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def ok(re: str, result: object) -> None:
    """The `ok` frame of `re` with this result matches its declared result type."""
    validate({"type": "ok", "id": 1, "re": re, "result": result})


def test_a_pko_sit_and_go_shows_bounties_and_a_ticket_pays_an_entry(room: Room) -> None:
    """T-14 on the wire: each seat's `bounty` in snapshots, `bounty_won` to the winner and the
    player knocked out, bounties in status, finish and results; T-16: `tickets` lists a ticket,
    `tournament_register` with its `ticket_id` pays the entry from it (the wallet untouched)."""
    clients = Clients(3)
    desk = TournamentDesk(clients)
    clients.desk = desk
    scheduler = TournamentScheduler(room.clock, room.ledger, [PKO], players=desk)
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (line,) = clients.request("x", {"type": "tournament_list"})["tournaments"]
        assert line["bounty_format"] == "pko"
        tid = line["tournament_id"]
        room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat-x", USD), 110)
        won = scheduler.tickets.new_ticket("cid", source="sat-x", label="pko", target="",
                                           buy_in=100, fee=10, any_of_level=True)  # fmt: skip
        room.wait(scheduler.tickets.issue(won, prize_pool("sat-x"), "seat:cid"))
        listed = room.wait(clients.request("cid", {"type": "tickets"}))
        ok("tickets", listed)
        (ticket,) = listed["tickets"]
        assert (ticket["state"], ticket["value"], ticket["target"]) == ("issued", 110, None)
        assert room.wait(clients.request("bob", {"type": "tickets"})) == {"tickets": []}
        for name in ("ann", "bea"):
            room.fund_player(name, 110)
            room.wait(clients.request(name, {"type": "tournament_register", "tournament_id": tid}))
        answer = room.wait(
            clients.request(
                "cid",
                {
                    "type": "tournament_register",
                    "tournament_id": tid,
                    "ticket_id": ticket["ticket_id"],
                },
            )
        )
        ok("tournament_register", answer)
        assert room.balance(AccountRef(AccountKind.WALLET, "cid", USD)) == 0
        actor = desk._actor(tid)
        status = clients.request("ann", {"type": "tournament_status_request", "tournament_id": tid})
        ok("tournament_status_request", status)
        assert status["status"]["bounties_in_play"] == 150
        room.run_to_end(actor)
        book = actor.bounties
        assert book is not None
        frames = [m for box in clients.inbox.values() for m in box]
        seats = [
            seat for m in frames if m["type"] == "table_snapshot" for seat in m["snapshot"]["seats"]
        ]
        assert seats and all(seat["bounty"] >= 50 for seat in seats)  # 50 each at the start
        told = [m for m in frames if m["type"] == "bounty_won"]
        knockouts = [m for m in told if m["reason"] == "knockout"]
        assert len(knockouts) >= 2  # two knockouts in a 3-player sit-and-go
        for m in knockouts:  # to the receiver and to the player knocked out
            assert m in clients.inbox[m["player"]] and m in clients.inbox[m["busted"]]
        (results,) = [m for m in clients.inbox["ann"] if m["type"] == "tournament_results"]
        won_total = sum(b["amount"] for b in results["bounties"])
        assert won_total + book.state.rounding == 150 and book.won == {
            b["player"]: b["amount"] for b in results["bounties"]
        }
        finishes = [m for m in frames if m["type"] == "tournament_finish"]
        assert sorted(m["bounty"] for m in finishes) == sorted(
            book.won.get(p, 0) for p in ("ann", "bea", "cid")
        )
        used = room.wait(clients.request("cid", {"type": "tickets"}))["tickets"][0]
        assert (used["state"], used["used_in"]) == ("used", tid)
        assert room.check()
    finally:
        scheduler.stopService()
