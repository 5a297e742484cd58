"""Staking (T-17) and deals (T-13) as players see them (docs/PROTOCOL.md section 9): requests
through the real desk, scheduler and tables; every frame and `ok` result checked against its
typed declaration (`validate`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.protocol.catalog import validate
from pokerroom.protocol.errors import ProtocolError
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.test_desk import Clients
from tournaments.desk.desk import TournamentDesk
from tournaments.director.deal_flow import DealSettings
from tournaments.ops.schedule import ScheduleEntry, TournamentScheduler, parse_schedule

SNG = ScheduleEntry("sng-3-deal", "turbo", 1000, 100, players=3, deals=DealSettings(True))


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    harness = Room(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def ok(re: str, result: object) -> Any:
    """The `ok` frame of `re` with this result matches its declared result type."""
    validate({"type": "ok", "id": 1, "re": re, "result": result})
    return result


class Dealers(Clients):
    """Clients that accept every deal put to them (a client's `deal_accept`)."""

    def send(self, player: str, typed: Any) -> None:
        super().send(player, typed)
        message = self.inbox[player][-1]
        if message["type"] == "deal_proposal":
            answer = self.request(
                player,
                {
                    "type": "deal_accept",
                    "tournament_id": message["tournament_id"],
                    "deal_id": message["deal_id"],
                },
            )
            ok("deal_accept", answer)


def test_offers_purchases_and_a_deal_over_the_protocol(room: Room) -> None:
    """T-17 on the wire: `stake_offer`, `stake_offers` (with the buy-in that prices them),
    `stake_buy` (its price out of the wallet, a retry with the same key the same answer, other
    content `idempotency_conflict`), `my_stakes`; refusals keep their stable codes. T-13:
    `deal_request` from each player, `deal_requested` and `deal_proposal` to all, `deal_accept`,
    `deal_result` made; `tournament_results` records the deal; the seller's deal amount is
    shared with the buyer."""
    clients = Dealers(3)
    desk = TournamentDesk(clients)
    clients.desk = desk
    scheduler = TournamentScheduler(room.clock, room.ledger, [SNG], players=desk)
    desk.scheduler = scheduler
    scheduler.startService()
    try:
        (line,) = clients.request("x", {"type": "tournament_list"})["tournaments"]
        tid = line["tournament_id"]
        for name in ("ann", "bea", "cid", "dan"):
            room.fund_player(name, 5000)
        for name in ("ann", "bea"):
            room.wait(clients.request(name, {"type": "tournament_register", "tournament_id": tid}))
        offered = room.wait(
            clients.request(
                "ann",
                {"type": "stake_offer", "tournament_id": tid, "share_bps": 5000,
                 "markup_bps": 11_000},
            )
        )  # fmt: skip
        offer = ok("stake_offer", offered)["offer"]
        assert (offer["share_bps"], offer["left_bps"], offer["seller"]) == (5000, 5000, "ann")
        listed = ok("stake_offers", clients.request("dan", {"type": "stake_offers",
                                                           "tournament_id": tid}))  # fmt: skip
        assert listed == {"buy_in": 1000, "offers": [offer]}
        buy = {
            "type": "stake_buy",
            "tournament_id": tid,
            "offer_id": offer["offer_id"],
            "share_bps": 2500,
            "key": "dan-1",
        }
        stake = ok("stake_buy", room.wait(clients.request("dan", buy)))["stake"]
        assert stake["price"] == 1000 * 2500 * 11_000 // 10_000**2 == 275
        assert stake["status"] == "held" and stake["buyer"] == "dan"
        again = room.wait(clients.request("dan", buy))
        assert again["stake"] == stake
        dan = AccountRef(AccountKind.WALLET, "dan", USD)
        assert room.balance(dan) == 5000 - 275
        conflict = room.failure(clients.request("dan", {**buy, "share_bps": 100}))
        assert conflict.code == "idempotency_conflict"
        own = room.failure(clients.request("ann", {**buy, "key": "own"}))
        assert own.code == "own_action"
        with pytest.raises(ProtocolError) as missing:
            clients.request("dan", {k: v for k, v in buy.items() if k != "key"})
        assert missing.value.code == "missing_field"
        mine = ok("my_stakes", room.wait(clients.request("dan", {"type": "my_stakes"})))
        assert [s["stake_id"] for s in mine["bought"]] == [stake["stake_id"]] and not mine["sold"]
        assert mine["results"] == [
            {"tournament_id": tid, "seller": "ann", "buyer": "dan", "share_bps": 2500,
             "paid": 275, "received": 0, "returned": 0}
        ]  # fmt: skip
        room.wait(clients.request("cid", {"type": "tournament_register", "tournament_id": tid}))
        actor = desk._actor(tid)
        assert actor.status == "running"
        for name in ("ann", "bea", "cid"):
            if name in actor.alive and actor.status == "running":
                answer = clients.request(name, {"type": "deal_request", "tournament_id": tid})
                ok("deal_request", answer)
        room.run_to_end(actor)
        frames = [m for box in clients.inbox.values() for m in box]
        (results,) = [m for m in clients.inbox["ann"] if m["type"] == "tournament_results"]
        deal = results["deal"]  # every player asked at once: the deal was made
        assert deal is not None and deal["kind"] == "icm"
        assert {m["type"] for m in frames} >= {"deal_requested", "deal_proposal", "deal_result"}
        (proposal,) = [m for m in clients.inbox["ann"] if m["type"] == "deal_proposal"]
        (made,) = [m for m in clients.inbox["ann"] if m["type"] == "deal_result"]
        assert proposal["figures"] == deal["figures"] and proposal["proposed_by"] == "system"
        assert made["outcome"] == "made" and made["figures"] == deal["figures"]
        figures = {f["player"]: f["amount"] for f in deal["figures"]}
        assert sorted(figures) == ["ann", "bea", "cid"]
        assert {r["player"]: r["prize"] for r in results["results"]} == figures
        mine = room.wait(clients.request("dan", {"type": "my_stakes"}))
        assert mine["results"][0]["received"] == figures["ann"] * 2500 // 10_000
        assert mine["bought"][0]["status"] == "paid"
        with pytest.raises(Exception) as closed:
            room.wait(clients.request("bea", {"type": "stake_offer", "tournament_id": tid,
                                              "share_bps": 100}))  # fmt: skip
        assert getattr(closed.value, "code", "") in ("stake_closed", "unknown_tournament")
        assert room.check()
    finally:
        scheduler.stopService()


def test_a_schedule_entry_allows_deals() -> None:
    """Operators allow deals per tournament in the schedule file (`deals = {...}`)."""
    (entry,) = parse_schedule(
        {
            "sit_and_go": [
                {
                    "name": "d",
                    "structure": "turbo",
                    "buy_in": 100,
                    "fee": 10,
                    "players": 6,
                    "deals": {"max_players": 6, "method": "chip_chop", "left_to_play_for": 50},
                }
            ]
        }
    )
    assert entry.deals == DealSettings(True, 6, DealSettings().method.CHIP_CHOP, 50)
