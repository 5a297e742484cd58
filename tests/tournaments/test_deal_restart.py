"""T-13 deals across a restart (T-18), in process (real SQLite and PostgreSQL, a fake clock, the
real ledger; the restart harness of tests/tournaments/test_durable.py):

- the deal in the making is stored (`tournaments.deal_pending`) before any player hears of it,
  and cleared before they hear it was rejected or expired;
- a restart voids it: the column is cleared, no money moves, each of its players hears
  `deal_result` `restart` once when they log in again (through the desk), and the deal is never
  applied afterwards (a late accept of it is `no_deal`; the tournament plays to the end with
  no deal);
- an accepted deal clears the column in the transaction that pays it: at every moment the
  process could die (between any two reactor events) the database holds either the deal in
  the making and no deal, or the deal made and nothing in the making.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.ledger import LedgerService
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.protocol.staking_messages import DealProposal, DealResult
from tests.server.harness import Room as ServerRoom
from tests.tournaments.actor_harness import USD, Room
from tests.tournaments.t18_reference import paid, reference
from tests.tournaments.test_actor_money import config
from tests.tournaments.test_durable import Inbox, Restart
from tests.tournaments.test_durable import room as room  # the fixture: SQLite, PostgreSQL
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import OutageSettings
from tournaments.desk.desk import TournamentDesk
from tournaments.director import errors
from tournaments.director.deal_flow import DealPhase, DealSettings
from tournaments.director.errors import DirectorError
from tournaments.ops.schedule import TournamentScheduler
from tournaments.ops.simulation import Bots, Pump
from tournaments.store import stake_store
from tournaments.store.deal_pending import (
    PendingDeal,
    load_deal_pending,
    pending_of,
    save_deal_pending,
)
from tournaments.store.schema import StoreError

FUNDS = 5_000


# --------------------------------------------------------------------------- the players' side


class Hearing(Bots):
    """Bots whose deal messages go through the tournament's hold, like the desk's: each one is
    checked against the store when delivered (persist, then tell)."""

    def __init__(self, room: Room, seed: int) -> None:
        super().__init__(random.Random(seed))
        self.room = room
        self.hold: Any = None
        self.outbox = self
        #: (player, message) as delivered
        self.heard: list[tuple[str, Any]] = []
        self.early: list[str] = []

    def hold_with(self, hold: Any) -> None:
        self.hold = hold

    def send(self, player: str, message: Any) -> None:
        self.send_all([player], message)

    def send_all(self, players: Iterable[str], message: Any) -> None:
        self.hold(self._delivered, list(players), message)

    def _delivered(self, players: list[str], message: Any) -> None:
        assert self.actor is not None
        stored = pending(self.room, self.actor.tid)
        if isinstance(message, DealProposal) and (
            stored is None or stored.deal_id != message.deal_id
        ):
            self.early.append(f"proposal {message.deal_id} told before stored ({stored})")
        if isinstance(message, DealResult) and stored is not None:
            self.early.append(f"{message.outcome} of {message.deal_id} told while still stored")
        self.heard.extend((player, message) for player in players)

    def results(self, outcome: str) -> list[tuple[str, DealResult]]:
        return [(p, m) for p, m in self.heard if isinstance(m, DealResult) and m.outcome == outcome]


def pending(room: Room, tid: str) -> PendingDeal | None:
    """The deal in the making as stored now."""
    return read(room.engine, lambda conn: load_deal_pending(conn, tid))


def deals_made(room: Room, tid: str) -> tuple[stake_store.DealRow, ...]:
    return read(room.engine, lambda conn: stake_store.load_staking(conn, tid)).deals


def sit_and_go(room: Room, tid: str, bots: Bots, **deals: Any) -> TournamentActor:
    """A 9-player freezeout sit-and-go (one table: the final table), deals on, resumed within
    10 minutes of a crash."""
    settings = DealSettings(allowed=True, **deals)
    outage = OutageSettings(resume_within_minutes=10, reconnect_seconds=20)
    cfg = replace(config(tid, max_entries=9, sit_and_go=True), deals=settings, outage=outage)
    actor = room.actor(cfg, bots)
    for n in range(9):
        room.fund_player(f"{tid}{n}", FUNDS)
        room.wait(actor.register(f"{tid}{n}"))
    return actor


def proposed(room: Room, actor: TournamentActor, left: int) -> list[str]:
    """Play until `left` remain, every one asks: the proposal is out (and stored)."""
    while len(actor.alive) > left or actor.prizes is None:
        assert actor.status == "running"
        room.advance(1, actor)
    players = sorted(actor.alive)
    for player in players:
        actor.deals.request(player)
    while actor.deals.flow.phase is not DealPhase.PROPOSED:
        room.advance(1, actor)
    room.settle(actor)
    room.wait(actor.pending())
    return players


def money(room: Room, tid: str, players: Iterable[str]) -> dict[str, int]:
    """Every wallet of the tournament's players, its pool and the house's accounts."""
    accounts = [AccountRef(AccountKind.WALLET, p, USD) for p in players]
    accounts.append(AccountRef(AccountKind.PRIZE_POOL, tid, USD))
    accounts += [
        AccountRef(k, "house", USD) for k in (AccountKind.HOUSE_FEES, AccountKind.HOUSE_ROUNDING)
    ]
    return {f"{a.kind.value}:{a.owner}": room.balance(a) for a in accounts}


def crash(room: Room, actor: TournamentActor) -> None:
    """The process dies (the recorder caught up first); its timers are gone with it."""
    room.wait(actor.pending())
    actor.deals._cancel_expiry()  # the dead process's timers would still fire on the clock
    actor.floor.stop()
    actor.stop_watching()
    actor.durable._stop_beat()


def restarted(room: Room, actor: TournamentActor, later: float = 60.0) -> Any:
    """The process dies; a new one starts `later` seconds on and recovers: (its restart, the
    choice, the resumed actor or None, the new bots)."""
    crash(room, actor)
    bots = Hearing(room, 4)
    restart = Restart(room, later, bots)
    (choice,) = restart.recovery.choices
    again = restart.scheduler.actors.get(actor.tid)
    bots.actor = again
    return restart, choice, again, bots


def restarts_told(again: TournamentActor, bots: Hearing, players: Iterable[str]) -> list[Any]:
    """Every player logs in again: the `restart` results they heard."""
    for player in players:
        again.deals.restart.reconnected(player)
    return bots.results("restart")


# --------------------------------------------------------------------------- tests


def test_a_deal_in_the_making_is_void_at_a_restart_and_each_player_is_told_once(
    room: Room,
) -> None:
    """T-13, T-18: the proposal is stored before it is told; the process dies while the players
    answer (two accepted); back a minute later the column is cleared and the decision says the
    deal was void; no money moved; each of the deal's players hears `deal_result` `restart` with
    the figures they were shown once, when they log in again (the desk after their table
    snapshots), nobody else; an accept of the old deal is `no_deal`; the tournament plays to
    the end with no deal and the ledger balances."""
    tid = "dvoid"
    bots = Hearing(room, 3)
    actor = sit_and_go(room, tid, bots)
    players = proposed(room, actor, 4)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    stored = pending(room, tid)
    assert stored is not None
    assert (stored.deal_id, stored.kind, stored.proposed_by) == (
        proposal.deal_id, proposal.kind.value, "system",
    )  # fmt: skip
    assert stored.players == proposal.players and stored.stacks == proposal.stacks
    assert stored.amounts == proposal.deal.amounts
    assert stored.deadline_ms == round(proposal.deadline * 1000)
    told = [p for p, m in bots.heard if isinstance(m, DealProposal)]
    assert sorted(told) == players and bots.early == []
    for player in players[:2]:
        actor.deals.accept(player, proposal.deal_id)
    room.settle(actor)
    before = money(room, tid, players)
    restart, choice, again, bots2 = restarted(room, actor)
    assert choice.action == "resumed"
    assert f"deal {proposal.deal_id} in the making was void" in choice.why
    assert pending(room, tid) is None
    assert again.deals.flow.phase is DealPhase.OPEN and again.deals.flow.proposal is None
    assert money(room, tid, players) == before  # nothing moved
    assert bots2.heard == []  # nobody is connected at the resume: told when back

    desk = TournamentDesk(Inbox())  # the notice goes through the actor's players (held)
    desk.scheduler = restart.scheduler
    busted = sorted(set(again.state.players) - set(players))
    for player in [*players, busted[0], *players]:  # every login after the restart
        desk.reconnected(player)
    room.settle(again)
    restarts = bots2.results("restart")
    assert sorted(p for p, _ in restarts) == players  # each of them once, nobody else
    for _, message in restarts:
        assert message.deal_id == proposal.deal_id and message.rejected_by is None
        assert [(f.player, f.chips, f.amount) for f in message.figures] == list(
            zip(proposal.players, proposal.stacks, proposal.deal.amounts, strict=True)
        )
    assert bots2.early == []
    with pytest.raises(DirectorError) as error:
        again.deals.accept(players[2], proposal.deal_id)
    assert error.value.code == errors.NO_DEAL
    room.run_to_end(again)
    assert again.status == "finished" and again.deals.record is None
    assert deals_made(room, tid) == () and pending(room, tid) is None
    assert room.pool(tid) == 0 and room.check()


def test_a_new_proposal_after_the_restart_has_a_new_id(room: Room) -> None:
    """T-13, T-18: the void deal's id is never used again: a late answer to it cannot count for
    a deal proposed after the restart (which is stored and can be made as usual)."""
    tid = "dnew"
    actor = sit_and_go(room, tid, Hearing(room, 3))
    proposed(room, actor, 4)
    old = actor.deals.flow.proposal
    assert old is not None
    _, _, again, _ = restarted(room, actor)
    players = proposed(room, again, 4)
    new = again.deals.flow.proposal
    assert new is not None and new.deal_id != old.deal_id
    stored = pending(room, tid)
    assert stored is not None and stored.deal_id == new.deal_id
    with pytest.raises(DirectorError):
        again.deals.accept(players[0], old.deal_id)
    for player in players:
        again.deals.accept(player, new.deal_id)
    room.settle(again)
    assert pending(room, tid) is None and [d.deal_id for d in deals_made(room, tid)] == [
        new.deal_id
    ]
    room.run_to_end(again)
    assert room.pool(tid) == 0 and room.check()


@pytest.mark.parametrize("how", ["reject", "expire"])
def test_a_rejected_or_expired_deal_is_cleared_before_it_is_told(room: Room, how: str) -> None:
    """T-13: a rejection (or the deadline) clears the deal in the making before its players
    hear `deal_result`; no money moves; a restart after it has nothing to void or tell."""
    tid = f"d{how[:3]}"
    bots = Hearing(room, 3)
    actor = sit_and_go(room, tid, bots, answer_seconds=60)
    players = proposed(room, actor, 4)
    proposal = actor.deals.flow.proposal
    assert proposal is not None and pending(room, tid) is not None
    before = money(room, tid, players)
    if how == "reject":
        actor.deals.reject(players[1], proposal.deal_id)
    else:
        room.advance(61, actor)
    room.settle(actor)
    room.wait(actor.pending())
    outcome = "rejected" if how == "reject" else "expired"
    assert sorted(p for p, _ in bots.results(outcome)) == players
    assert bots.early == [] and pending(room, tid) is None
    if how == "reject":  # (play went on after the deadline: the pool may have paid places)
        assert money(room, tid, players) == before
    _, choice, again, bots2 = restarted(room, actor)
    assert choice.action == "resumed" and "deal" not in choice.why
    assert restarts_told(again, bots2, players) == []
    room.run_to_end(again)
    assert room.pool(tid) == 0 and room.check()


def test_an_accepted_deal_clears_the_column_in_the_transaction_that_pays_it(room: Room) -> None:
    """T-13, T-18: between any two reactor events after the last accept (where a crash could
    come), the database holds the deal in the making and no deal, or the deal made (paid) and
    nothing in the making — never both, never neither. A clearing written as its own unit
    (before or after the payment), or once the payment is known to be committed, fails here.
    After a restart the deal stands and nobody is told of a void deal."""
    tid = "dmade"
    actor = sit_and_go(room, tid, Hearing(room, 3), left_to_play_for=500)
    players = proposed(room, actor, 3)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    query = sa.text(
        "SELECT t.deal_pending, (SELECT count(*) FROM tournament_deals d"
        " WHERE d.tournament_id = t.id) FROM tournaments t WHERE t.id = :tid"
    )

    def look() -> tuple[bool, int]:
        with room.engine.connect() as conn:  # one statement: one committed state
            row = conn.execute(query, {"tid": tid}).one()
        return bool(row[0]), int(row[1])

    states = [look()]
    for player in players:
        actor.deals.accept(player, proposal.deal_id)
    while actor.cashier.in_flight or not room.pump.calls.empty():
        f, args, kwargs = room.pump.calls.get(timeout=30)
        states.append(look())  # committed by the database thread, not yet heard here
        f(*args, **kwargs)
    states.append(look())
    assert (True, 1) not in states
    seen = [s for n, s in enumerate(states) if n == 0 or states[n - 1] != s]
    assert seen == [(True, 0), (False, 1)], states
    _, choice, again, bots2 = restarted(room, actor)
    assert choice.action == "resumed" and "in the making" not in choice.why
    assert again.deals.record is not None and again.deals.record.deal_id == proposal.deal_id
    assert restarts_told(again, bots2, players) == []
    room.run_to_end(again)
    assert room.pool(tid) == 0 and room.check()


def test_a_deal_in_the_making_is_void_when_the_tournament_is_cancelled_for_outage(
    room: Room,
) -> None:
    """T-18: back after the resume window, the tournament is cancelled for outage: the deal in
    the making is cleared with it (the decision says so) and never paid; the refund job pays
    T-18's refunds and the ledger balances."""
    tid = "dcanc"
    actor = sit_and_go(room, tid, Hearing(room, 3))
    proposed(room, actor, 4)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    room.wait(actor.pending())
    expected = reference(room.engine, tid)  # T-18 from the stored state: no deal in it
    restart, choice, _, _ = restarted(room, actor, 11 * 60.0)
    assert choice.action == "cancelled"
    assert f"deal {proposal.deal_id} in the making was void" in choice.why
    room.wait(restart.jobs.run_now("refunds"))  # the run the restart started, or a new one
    assert pending(room, tid) is None and deals_made(room, tid) == ()
    got = paid(room.engine, tid)
    assert {p: got.get(p, 0) for p in expected.players()} == {
        p: expected.total(p) for p in expected.players()
    }
    assert room.pool(tid) == 0 and room.check()


def test_a_stored_deal_in_the_making_that_cannot_be_read_is_never_guessed(room: Room) -> None:
    """The store's rule: a column that is not a deal in the making is a `StoreError` (start-up
    leaves that tournament as it is and reports it), "" is none, a deal reads back as saved."""
    assert pending_of("") is None
    with pytest.raises(StoreError):
        pending_of('{"deal_id": "1"}')
    with pytest.raises(StoreError):
        pending_of("not json")
    deal = PendingDeal("3", "icm", "system", ("a", "b"), (10, 20), (700, 300), 0, 0, 1, 2)
    tid = "dread"
    room.wait(room.actor(config(tid)).pending())
    with room.engine.begin() as conn:
        save_deal_pending(conn, tid, deal)
    assert pending(room, tid) == deal
    with room.engine.begin() as conn:  # a cancellation (or the end) voids it with the rest
        assert store.mark_cancelled(conn, tid, store.CancelReason.STAFF, 5)
    assert pending(room, tid) is None


def test_over_the_protocol_a_player_hears_the_void_deal_after_the_table_snapshot(
    room: Room,
) -> None:
    """T-18, C-14: what a client sees. The server restarts (recovering before anyone can
    connect); each player of the deal logs in again and reads `ok`, their table's
    `table_snapshot`, then `deal_result` `restart` with the figures they were shown; logging in
    once more brings no second one; a player not in the deal gets none; the old deal's
    `deal_accept` is `no_deal`."""
    tid = "dwire"
    actor = sit_and_go(room, tid, Hearing(room, 3))
    players = proposed(room, actor, 4)
    proposal = actor.deals.flow.proposal
    assert proposal is not None
    busted = sorted(set(actor.state.players) - set(players))[0]
    before = money(room, tid, players)
    crash(room, actor)

    room.ledger.stopService()  # the process is gone; a new one starts on the same database
    room.pump = Pump()
    room.clock.advance(60)
    room.ledger = LedgerService(room.pump, room.engine)
    room.ledger.startService()
    server = ServerRoom(room.pump, room.clock, room.ledger)  # type: ignore[arg-type]
    desk = TournamentDesk(server.hub)
    scheduler = TournamentScheduler(room.clock, room.ledger, [], players=desk, recover=True)
    desk.scheduler = scheduler
    server.lobby.tournament_desk = desk
    scheduler.startService()
    try:
        (choice,) = room.wait(scheduler.recovered).choices
        assert choice.action == "resumed"
        again = scheduler.actors[tid]
        (table,) = again.floor.tables.values()
        for player in players:
            client = server.client()
            client.login(player)
            room.settle(again)
            client.read()
            kinds = ("table_snapshot", "deal_result")
            frames = [f for f in client.inbox if f["type"] in kinds]
            assert [f["type"] for f in frames] == ["table_snapshot", "deal_result"], frames
            assert frames[0]["table_id"] == table.wire_id
            result = frames[1]
            assert (result["deal_id"], result["outcome"]) == (proposal.deal_id, "restart")
            assert result["tournament_id"] == tid and result["rejected_by"] is None
            assert [(f["player"], f["chips"], f["amount"]) for f in result["figures"]] == list(
                zip(proposal.players, proposal.stacks, proposal.deal.amounts, strict=True)
            )
            client.ok("logout")
            client.ok("login", name=player, password="correct horse")
            room.settle(again)
            client.read()
            assert [f["type"] for f in client.inbox if f["type"] in kinds] == [*kinds, kinds[0]]
            code = client.error("deal_accept", tournament_id=tid, deal_id=proposal.deal_id)
            assert code == "no_deal"
        other = server.client()
        other.login(busted)
        room.settle(again)
        other.read()
        assert [f for f in other.inbox if f["type"] == "deal_result"] == []
        assert money(room, tid, players) == before and room.check()
    finally:
        scheduler.stopService()
        server.stop()
