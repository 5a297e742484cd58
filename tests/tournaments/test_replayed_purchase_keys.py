"""P-2 keys after the actor forgot them (a restart; docs/PROTOCOL.md "Keys"): a keyed purchase
(T-2/T-3 registration, T-4 re-entry, rebuy, add-on) retried once neither the lobby nor the
tournament remembers its key reaches the ledger again, which answers the stored transfer and
moves nothing. The actor must then answer from what the key paid for — never buy again:

- the purchase still stands (its answer was lost): the first answer, nothing written twice;
- its money went back (the player unregistered): `request_undone`, nothing written;
- the key paid for something else: `idempotency_conflict`.

"Forgot" is `actor.requests.keys.keyed.clear()` (what a new process starts with), and once a
real restart (the scheduler's recovery on the same database). Real SQLite and PostgreSQL, a
fake clock.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pokerroom.ledger import LedgerService
from pokerroom.ledger.kinds import AccountKind, AccountRef
from pokerroom.server.replies import ledger_key
from tests.postgres import fresh_pg_schema
from tests.tournaments.actor_harness import USD, Room
from tournaments import store
from tournaments.actor.tournament import TournamentActor
from tournaments.config import OutageSettings, make_config
from tournaments.director.entries import can_reenter
from tournaments.director.money import prize_pool
from tournaments.director.registration import Period, TicketRefund
from tournaments.director.structure import AnteKind, Level, Structure
from tournaments.director.tickets import TicketState
from tournaments.ops.schedule import TournamentScheduler
from tournaments.ops.simulation import START, Bots, Pump
from tournaments.results import Result
from tournaments.store import purchase_keys

LEVELS = tuple(Level(10 * 2**i, 20 * 2**i, seconds=300) for i in range(14))
STRUCTURE = Structure("keys", 1000, LEVELS, AnteKind.NONE)
BUY_IN, FEE = 920, 80
PAID = BUY_IN + FEE


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Room]:
    """The actor's room on a SQLite file, or on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        harness = Room(tmp_path)
        try:
            yield harness
        finally:
            harness.close()
        return
    with fresh_pg_schema("keys_test") as url:
        harness = Room(tmp_path, url)
        try:
            yield harness
        finally:
            harness.close()


def config(tid: str, **kw: Any) -> Any:
    kw.setdefault("starts_at", START + 3600)
    kw.setdefault("buy_in", BUY_IN)
    kw.setdefault("fee", FEE)
    return make_config(tid, STRUCTURE, **kw)


def wallet(room: Room, player: str) -> int:
    return room.balance(AccountRef(AccountKind.WALLET, player, USD))


def payments(room: Room, tid: str) -> list[tuple[str, int, str, str | None]]:
    """(player, seq, kind, ledger key) of every stored purchase."""
    with room.engine.connect() as conn:
        return [(p.player, p.seq, p.kind, p.ledger_key) for p in store.load_payments(conn, tid)]


def entries(room: Room, tid: str) -> dict[tuple[str, int], str]:
    """(player, entry) -> status, as stored."""
    with room.engine.connect() as conn:
        return {(e.player, e.entry_no): e.status for e in store.load_entries(conn, tid)}


def forget(actor: TournamentActor) -> None:
    """What a restart does to the actor's memory of keys (and the lobby's, a day later)."""
    actor.requests.keys.keyed.clear()


def settle(room: Room, actor: TournamentActor) -> None:
    room.settle(actor)
    room.wait(actor.durable.recorder.idle())


def conserved(room: Room, actor: TournamentActor, *, players: dict[str, int]) -> None:
    """Every account where it should be: each wallet, the pool and the fees from what the
    actor holds as paid, the ledger balanced (check_ledger) and summing to zero."""
    settle(room, actor)
    for player, balance in players.items():
        assert wallet(room, player) == balance, player
    state = actor.state
    bought = sum(
        p.entries + p.rebuys + p.addons for p in state.players.values()
    )  # every purchase of a registered player paid BUY_IN + FEE
    assert room.pool(actor.tid) == state.collected == bought * BUY_IN
    assert room.fees() == bought * FEE
    assert room.check()


# --------------------------------------------------------------------------- registration


def test_p2_t3_a_register_key_replayed_after_unregistering_and_a_restart_buys_nothing(
    room: Room,
) -> None:
    """The reproduction: ann registers with key r1, unregisters (refunded), the actor forgets
    its keys; r1 again is `request_undone`, she is not registered and her wallet is whole.
    On the old code she was registered again with her money still in her wallet (the ledger
    answered the first transfer, moving nothing, and the entry was written again)."""
    actor = room.actor(config("reg"))
    room.fund_player("ann", 5_000)
    room.fund_player("bob", 5_000)
    r1 = ledger_key("ann", "r1")
    first = room.wait(actor.register("ann", key=r1))
    room.wait(actor.register("bob"))
    room.wait(actor.unregister("ann"))
    assert wallet(room, "ann") == 5_000
    forget(actor)
    refused = room.failure(actor.register("ann", key=r1))
    assert getattr(refused, "code", None) == "request_undone", refused
    assert "ann" not in actor.state.players and "ann" not in actor.alive
    assert entries(room, "reg") == {("ann", 1): store.UNREGISTERED, ("bob", 1): store.ALIVE}
    conserved(room, actor, players={"ann": 5_000, "bob": 5_000 - PAID})
    # a new key registers her again (one payment); r1 stays undone, remembered or not: the
    # entry it paid for was given back (a wrong reading: "she is registered, answer r1")
    again = room.wait(actor.register("ann", key=ledger_key("ann", "r2")))
    assert (again.chips, first.chips) == (1000, 1000)
    refused = room.failure(actor.register("ann", key=r1))
    assert getattr(refused, "code", None) == "request_undone", refused
    forget(actor)
    refused = room.failure(actor.register("ann", key=r1))
    assert getattr(refused, "code", None) == "request_undone", refused
    assert [p for p in payments(room, "reg") if p[0] == "ann"] == [
        ("ann", 1, "entry", ledger_key("ann", "r2"))
    ]
    conserved(room, actor, players={"ann": 5_000 - PAID, "bob": 5_000 - PAID})


def test_p2_the_retry_of_a_registration_whose_answer_was_lost_answers_the_first_answer(
    room: Room,
) -> None:
    """The legitimate retry: r1 committed, its answer was lost, the actor forgot its keys;
    r1 again answers the first answer (entry 1, the chips), registers nothing twice and takes
    no money twice — the old code answered `already_registered`."""
    actor = room.actor(config("retry"))
    room.fund_player("cat", 5_000)
    r1 = ledger_key("cat", "r1")
    first = room.wait(actor.register("cat", key=r1))
    forget(actor)
    again = room.wait(actor.register("cat", key=r1))
    assert again.action == first.action == "register"
    assert again.state.players["cat"].entries == first.state.players["cat"].entries == 1
    assert again.chips == first.chips == 1000
    assert room.wait(actor.register("cat", key=r1)) is again  # remembered again now
    assert actor.state.entries == 1 and payments(room, "retry") == [("cat", 1, "entry", r1)]
    conserved(room, actor, players={"cat": 5_000 - PAID})
    # a key not used before is refused as before (the lookup changes no refusal)
    refused = room.failure(actor.register("cat", key=ledger_key("cat", "new")))
    assert getattr(refused, "code", None) == "already_registered"


def test_p2_a_ticket_registration_replayed_after_unregistering_uses_no_ticket(
    room: Room,
) -> None:
    """T-3/T-16: a ticket's registration with key t1, unregistered (the ticket given back),
    forgotten: t1 again is `request_undone`, and the ticket stays returned with its value (the
    old code used it again for an entry its transfer did not pay)."""
    actor = room.actor(config("tkt", ticket_refund=TicketRefund.RETURN_TICKET))
    room.fund(AccountRef(AccountKind.PRIZE_POOL, "sat0", USD), PAID)
    won = actor.tickets.new_ticket(
        "dan", source="sat0", label="tkt", target="tkt", buy_in=BUY_IN, fee=FEE
    )
    ticket = room.wait(actor.tickets.issue(won, prize_pool("sat0"), "seat:dan"))
    account = AccountRef(AccountKind.TICKET, ticket.ticket_id, USD)
    t1 = ledger_key("dan", "t1")
    room.wait(actor.register("dan", ticket_id=ticket.ticket_id, key=t1))
    assert room.balance(account) == 0
    room.wait(actor.unregister("dan"))
    forget(actor)
    refused = room.failure(actor.register("dan", ticket_id=ticket.ticket_id, key=t1))
    assert getattr(refused, "code", None) == "request_undone", refused
    stored = room.wait(actor.tickets.get(ticket.ticket_id))
    assert stored is not None and stored.state is TicketState.RETURNED
    assert room.balance(account) == PAID
    assert "dan" not in actor.state.players and room.pool("tkt") == 0 and room.check()


def test_p2_a_key_that_paid_in_another_tournament_is_a_conflict(room: Room) -> None:
    """The same client key used for another tournament's registration (both forgotten):
    `idempotency_conflict`, not `request_undone` nor a registration; nothing moves."""
    one, two = room.actor(config("one")), room.actor(config("two"))
    room.fund_player("eve", 5_000)
    k = ledger_key("eve", "k")
    room.wait(one.register("eve", key=k))
    forget(one)
    refused = room.failure(two.register("eve", key=k))
    assert getattr(refused, "code", None) == "idempotency_conflict", refused
    assert "eve" not in two.state.players and payments(room, "two") == []
    assert wallet(room, "eve") == 5_000 - PAID and room.pool("two") == 0 and room.check()


def test_p2_the_guard_lets_a_retried_commit_of_the_same_purchase_through(room: Room) -> None:
    """The guard in the purchase's transaction: a unit retried after its commit landed (the
    database went away while answering) is the same purchase — the player's same numbered
    purchase of the same kind, still counting — and goes through to be written again as it
    is; anything else the key paid for refuses it. A guard that refused every key the journal
    holds would turn such a retry into a refusal of money that moved."""
    actor = room.actor(config("gd"))
    room.fund_player("gil", 5_000)
    k = ledger_key("gil", "g1")
    room.wait(actor.register("gil", key=k))
    settle(room, actor)

    def guard(tid: str = "gd", key: str = k, seq: int = 1, kind: str = "entry") -> bool:
        with room.engine.begin() as conn:
            try:
                purchase_keys.guard(
                    conn, tournament_id=tid, key=key, player="gil", seq=seq, kind=kind
                )
            except purchase_keys.KeyReplayed:
                return False
        return True

    assert guard()  # the same purchase, retried
    assert guard(key=ledger_key("gil", "fresh"))  # a key never used
    assert not guard(seq=2)  # a later purchase with an old key
    assert not guard(kind="rebuy")
    assert not guard(tid="elsewhere")
    room.wait(actor.unregister("gil"))
    settle(room, actor)
    assert not guard()  # given back: not the same purchase any more


# --------------------------------------------------------------------------- after a restart


class Restart:
    """A second process on the same database: a new ledger and a scheduler that recovers
    the stored tournaments (T-18), `later` seconds after the first stopped."""

    def __init__(self, room: Room, later: float) -> None:
        room.ledger.stopService()
        room.pump = Pump()
        room.clock.advance(later)
        room.ledger = LedgerService(room.pump, room.engine)
        room.ledger.startService()
        self.scheduler = TournamentScheduler(room.clock, room.ledger, [], recover=True)
        self.scheduler.startService()
        room.wait(self.scheduler.recovered)

    def actor(self, tid: str) -> TournamentActor:
        return self.scheduler.actors[tid]


def test_p2_keys_across_a_real_restart(room: Room) -> None:
    """A real restart (recovery from the store): fay's lost answer is answered again (her
    entry stands), gus's unregistered entry is `request_undone`; nothing moves, nothing is
    registered twice, every account is where it should be."""
    first = room.actor(config("rs", outage=OutageSettings(resume_within_minutes=5)))
    for player in ("fay", "gus", "hal"):
        room.fund_player(player, 5_000)
    fay, gus = ledger_key("fay", "f1"), ledger_key("gus", "g1")
    answer = room.wait(first.register("fay", key=fay))
    room.wait(first.register("gus", key=gus))
    room.wait(first.register("hal"))
    room.wait(first.unregister("gus"))
    settle(room, first)
    restart = Restart(room, 60.0)
    actor = restart.actor("rs")
    assert sorted(actor.state.players) == ["fay", "hal"] and not actor.requests.keys.keyed
    again = room.wait(actor.register("fay", key=fay))
    assert (again.state.players["fay"].entries, again.chips) == (1, answer.chips)
    refused = room.failure(actor.register("gus", key=gus))
    assert getattr(refused, "code", None) == "request_undone", refused
    assert sorted(actor.state.players) == ["fay", "hal"] and actor.state.entries == 2
    conserved(room, actor, players={"fay": 5_000 - PAID, "gus": 5_000, "hal": 5_000 - PAID})
    restart.scheduler.stopService()


# --------------------------------------------------------------------------- T-4 purchases


def rebuy_config(tid: str, **periods: Period) -> Any:
    """A rebuy tournament whose periods are replaced by `periods` (rebuy, addon, reentry)."""
    cfg = config(tid, fmt="rebuy", starts_at=START + 60)
    return replace(cfg, registration=replace(cfg.registration, **periods))


def started(room: Room, actor: TournamentActor, players: list[str]) -> None:
    for player in players:
        room.fund_player(player, 10_000)
        room.wait(actor.register(player))
    while actor.status != "running":
        room.advance(10, actor, step=10)


def test_p2_t4_a_rebuy_key_replayed_after_a_restart_buys_no_chips(room: Room) -> None:
    """T-4: ivy rebuys with key b1 (rebuys at any stack here, so a second one is allowed);
    forgotten, b1 again answers the first rebuy's chips and adds none: her stack, her wallet,
    the chips issued and the purchases are as after one rebuy. The old code gave 1000 chips
    for nothing (the ledger replayed the transfer and the stack grew)."""
    open_rebuy = Period(3, 0, 3, BUY_IN, FEE, 1000, max_stack=None)
    actor = room.actor(rebuy_config("rb", rebuy=open_rebuy))
    started(room, actor, ["ivy", "jon", "kim"])
    b1 = ledger_key("ivy", "b1")
    first = room.wait(actor.rebuy("ivy", key=b1))
    assert first.chips == 1000
    stack, issued = actor.requests._stack("ivy"), actor.chips_issued
    forget(actor)
    again = room.wait(actor.rebuy("ivy", key=b1))
    assert (again.action, again.chips) == ("rebuy", 1000)
    assert actor.requests._stack("ivy") == stack and actor.chips_issued == issued
    assert actor.state.players["ivy"].rebuys == 1
    assert [p for p in payments(room, "rb") if p[0] == "ivy"] == [
        ("ivy", 1, "entry", "tourney:rb:register:ivy:1"),
        ("ivy", 2, "rebuy", b1),
    ]
    conserved(room, actor, players={"ivy": 10_000 - 2 * PAID})
    # a key used for the rebuy, sent as an add-on: a conflict, nothing bought
    refused = room.failure(actor.addon("ivy", key=b1))
    assert getattr(refused, "code", None) in ("idempotency_conflict", "period_closed")
    assert actor.chips_issued == issued


def test_p2_t4_a_rebuy_key_refused_now_answers_its_first_answer(room: Room) -> None:
    """T-4 as configured (rebuys only at or below the starting stack): after a rebuy (2000
    chips) and a forgotten key, b1 again is its first answer, not `stack_too_big`."""
    actor = room.actor(config("rb2", fmt="rebuy", starts_at=START + 60))
    started(room, actor, ["lea", "max", "ned"])
    b1 = ledger_key("lea", "b1")
    room.wait(actor.rebuy("lea", key=b1))
    forget(actor)
    again = room.wait(actor.rebuy("lea", key=b1))
    assert again.chips == 1000 and actor.state.players["lea"].rebuys == 1
    conserved(room, actor, players={"lea": 10_000 - 2 * PAID})


class Quiet(Bots):
    """Bots that never add on, rebuy or re-enter for `kept` (the test does) nor for others."""

    def __init__(self, kept: str, policy: str = "aggressive") -> None:
        super().__init__(random.Random(11), policy=policy)
        self.kept = kept
        self._addons.add(kept)
        self.busts: list[Result] = []

    def finished(self, result: Result) -> None:
        """`kept`'s busts are noted; nobody re-enters or rebuys by themselves (a short field
        keeps the money, which closes late registration, T-5, far away)."""
        if result.entry == self.kept:
            self.busts.append(result)


def test_p2_t4_an_addon_key_replayed_after_a_restart_adds_no_chips(room: Room) -> None:
    """T-4 with two add-ons allowed (levels 2-3): oz adds on with key a1; forgotten, a1 again
    answers the first add-on and adds nothing (the old code: a second add-on, unpaid)."""
    two_addons = Period(2, 2, 3, BUY_IN, FEE, 1000)
    bots = Quiet("oz", "tight")
    actor = room.actor(rebuy_config("ad", addon=two_addons, rebuy=Period()), bots)
    started(room, actor, ["oz", "pia", "quo", "rex"])
    while actor.director_clock().level_index < 2 or "oz" not in actor.alive:
        assert "oz" in actor.alive, "oz busted before the add-on period"
        room.advance(5, actor, step=5)
    a1 = ledger_key("oz", "a1")
    first = room.wait(actor.addon("oz", key=a1))
    issued = actor.chips_issued
    forget(actor)
    again = room.wait(actor.addon("oz", key=a1))
    assert (again.action, again.chips) == ("addon", first.chips)
    assert actor.chips_issued == issued and actor.state.players["oz"].addons == 1
    assert [p[2:] for p in payments(room, "ad") if p[0] == "oz"] == [
        ("entry", "tourney:ad:register:oz:1"),
        ("addon", a1),
    ]
    assert wallet(room, "oz") == 10_000 - 2 * PAID and room.check()


def test_p2_t4_a_reentry_key_replayed_after_a_restart_buys_no_entry(room: Room) -> None:
    """T-4 (two re-entries allowed): uma busts and re-enters with key e1; the key is forgotten;
    she busts again; e1 again answers the first re-entry (entry 2) and buys no third entry
    (the old code: a free entry with a new stack)."""
    bots = Quiet("uma")
    cfg = config("re", fmt="reentry", late_registration_levels=8, starts_at=START + 60)
    actor = room.actor(cfg, bots)
    started(room, actor, ["uma"] + [f"p{n:02d}" for n in range(17)])

    def until_busted(times: int) -> None:
        while len(bots.busts) < times:
            assert actor.status == "running", "the tournament ended first"
            room.advance(5, actor, step=5)

    until_busted(1)
    e1 = ledger_key("uma", "e1")
    first = room.wait(actor.reenter("uma", key=e1))
    assert first.state.players["uma"].entries == 2
    forget(actor)
    until_busted(2)
    clock = actor.director_clock()  # a re-entry is open to her now: e1 could buy one
    assert can_reenter(actor.settings, actor.state, clock, "uma", 10**9)
    entries_before, issued = actor.state.entries, actor.chips_issued
    again = room.wait(actor.reenter("uma", key=e1))
    assert again.state.players["uma"].entries == 2 and again.chips == first.chips
    assert "uma" not in actor.alive and actor.state.entries == entries_before
    assert actor.chips_issued == issued
    assert [p[2:] for p in payments(room, "re") if p[0] == "uma"] == [
        ("entry", "tourney:re:register:uma:1"),
        ("reentry", e1),
    ]
    assert wallet(room, "uma") == 10_000 - 2 * PAID and room.check()


# --------------------------------------------------------------------------- T-17 stake_buy


def test_p2_t17_a_stake_buy_key_after_a_real_restart_buys_nothing(room: Room) -> None:
    """T-17: no hole here, and this says why: a restart restores every stored purchase by
    (buyer, key), refunded ones too, so a retry finds its purchase before the ledger is asked.
    kai's purchase (held) and lou's (refunded when their seller left) are answered as they
    stand after the restart; no wallet moves, the escrow holds only kai's price."""
    first = room.actor(config("st", outage=OutageSettings(resume_within_minutes=5)))
    for player in ("sel", "off", "kai", "lou"):
        room.fund_player(player, 5_000)
    for player in ("sel", "off"):
        room.wait(first.register(player))
    sold = room.wait(first.stakes.offer("sel", 5000, 10_000))
    leaving = room.wait(first.stakes.offer("off", 5000, 10_000))
    kept = room.wait(first.stakes.buy("kai", sold.offer_id, 2500, "k1"))
    gone = room.wait(first.stakes.buy("lou", leaving.offer_id, 2500, "l1"))
    room.wait(first.unregister("off"))  # lou is refunded in off's refund transfer
    settle(room, first)
    wallets = {p: wallet(room, p) for p in ("sel", "off", "kai", "lou")}
    assert wallets["lou"] == 5_000 and wallets["kai"] == 5_000 - kept.price
    restart = Restart(room, 60.0)
    actor = restart.actor("st")
    again = room.wait(actor.stakes.buy("kai", sold.offer_id, 2500, "k1"))
    assert again == kept and actor.stakes.status_of(again) == "held"
    undone = room.wait(actor.stakes.buy("lou", leaving.offer_id, 2500, "l1"))
    assert undone == gone and actor.stakes.status_of(undone) == "refunded"
    settle(room, actor)
    assert {p: wallet(room, p) for p in wallets} == wallets
    escrow = AccountRef(AccountKind.STAKING_ESCROW, "st", USD)
    assert room.balance(escrow) == kept.price and room.check()
    restart.scheduler.stopService()
