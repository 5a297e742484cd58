"""BJ-19 at the blackjack table, `cancel_mode = "partial"`: a staff void, a crash and the
pending-bets job cancel the round hand by hand in ONE transaction under the round's key (L-5),
on SQLite and PostgreSQL; the money is conserved and the ledger check passes."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from twisted.internet.defer import Deferred

from pokerroom.casino import events as ev
from pokerroom.casino import money, store
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.schema import casino_rounds
from pokerroom.jobs import JobContext, PendingBetsJob, job_run, run_blocking
from pokerroom.jobs.pending_bets import DAY_MS
from pokerroom.ledger.kinds import wallet
from pokerroom.ledger.schema import journal
from tests.casino.table_harness import USD, Casino, table, two_boxes

HOUSE = 10_000_000
# alice 5 6 doubles and draws 9 (20, three cards); bob T 9; the dealer 9 up, 7 in the hole
DOUBLED = "5h Th 9d 6s 9h 7d 9c"
# alice 5 4 hits 8 (17, three cards) and stands; bob 5 6; the dealer 9 up, 7 in the hole
HIT = "5h 5s 9d 4s 6h 7d 8c"


def seated(casino: Casino, order: str, store_: RoundStore | None = None) -> Any:
    return two_boxes(casino, order, store_, cancel_mode="partial")


def wallets(casino: Casino) -> tuple[int, int]:
    return casino.balance(wallet("alice", USD)), casino.balance(wallet("bob", USD))


def row(casino: Casino, round_id: str) -> Any:
    with casino.engine.connect() as conn:
        return conn.execute(sa.select(casino_rounds).where(casino_rounds.c.id == round_id)).one()


def keyed(casino: Casino, round_id: str) -> list[Any]:
    with casino.engine.connect() as conn:
        key = money.round_key(round_id)
        return conn.execute(sa.select(journal).where(journal.c.idempotency_key == key)).all()


def test_staff_void_cancels_by_bj19_in_one_transaction(casino: Casino) -> None:
    """alice's doubled three-card 20 counts as a win on both stakes (+200), bob's two-card 19 is
    refunded; the bankroll pays 200; ONE entry under the round's key; the round is void with
    its record; each player hears the void (partial) and their own lines; history says 400."""
    casino.fund_house(HOUSE)
    actor, inbox = seated(casino, DOUBLED)
    casino.wait(actor.decide("alice", 1, "double", key="d1"))
    round_id = actor.round.round_id
    voided = casino.wait(actor.void_round("card reader fault"))
    assert dict(voided.refunds) == {"alice": 400, "bob": 100}
    assert wallets(casino) == (1_200, 1_000)
    assert casino.balance(money.bankroll(USD)) == HOUSE - 200
    assert len(keyed(casino, round_id)) == 1
    found = row(casino, round_id)
    assert found.status == "void" and json.loads(found.summary)["partial"] is True
    assert json.loads(found.summary)["paid"] == {"alice": 400, "bob": 100}
    assert [v.partial for v in inbox.of("bob", ev.RoundVoided)] == [True]
    own = inbox.of("alice", ev.OwnSettlement)[0]
    assert (own.staked, own.paid) == (200, 400)
    assert [(x.spot, x.result, x.returned) for x in own.lines] == [("box:1", "win", 400)]
    assert inbox.of("bob", ev.OwnSettlement)[0].paid == 100
    (mine,) = casino.wait(casino.store.history("alice"))
    assert (mine.status, mine.paid) == ("void", 400)
    assert actor.phase == "closed"  # K-7 still holds
    casino.ok()


def test_the_bankroll_short_returns_every_stake(casino: Casino) -> None:
    """A partial cancellation the bankroll cannot pay falls back to L-5's full refund."""
    actor, inbox = seated(casino, DOUBLED)
    casino.wait(actor.decide("alice", 1, "double", key="d1"))
    voided = casino.wait(actor.void_round("card reader fault"))
    assert voided.settlement is None and dict(voided.refunds) == {"alice": 200, "bob": 100}
    assert wallets(casino) == (1_000, 1_000)
    assert [v.partial for v in inbox.of("alice", ev.RoundVoided)] == [False]
    casino.ok()


class LostDouble(RoundStore):
    """The process dies while a double is posted: the stake lands, the table never hears."""

    def place(
        self, round_id: str, player: str, currency: str, bets: Any, key: str, confirmed_ms: int
    ) -> Any:
        posted = super().place(round_id, player, currency, bets, key, confirmed_ms)
        if any(spot.endswith(":double") for spot, _ in bets):
            return Deferred()
        return posted


def test_restart_cancels_from_the_recorded_progress(casino: Casino) -> None:
    """A crash: alice's recorded 5 4 8 counts as a win (+100); bob's two-card 11 comes back,
    and so does his double, posted but never applied (the record does not know it); once."""
    casino.fund_house(HOUSE)
    actor, _ = seated(casino, HIT, LostDouble(casino.ledger))
    actor.decide("alice", 1, "hit")
    actor.decide("alice", 1, "stand")
    actor.decide("bob", 2, "double", key="d2")
    casino.drain()
    assert wallets(casino) == (900, 800)
    actor.stop()
    again, _ = table(casino, HIT, cancel_mode="partial")
    assert [dict(v.refunds) for v in casino.voided_at_start] == [{"alice": 200, "bob": 200}]
    assert wallets(casino) == (1_100, 1_000)
    assert casino.balance(money.bankroll(USD)) == HOUSE - 100
    again.stop()
    third, _ = table(casino, HIT, cancel_mode="partial")
    assert casino.voided_at_start == ()
    third.stop()
    casino.ok()


def test_the_pending_bets_job_cancels_by_bj19_too(casino: Casino) -> None:
    """K-11, L-5: a partial round the table never reopened is cancelled by BJ-19 by the job."""
    casino.fund_house(HOUSE)
    actor, _ = seated(casino, HIT)
    actor.decide("alice", 1, "hit")
    casino.drain()
    round_id, due = actor.round.round_id, actor.round.closes_ms
    actor.stop()
    now = due + 91 * DAY_MS
    ctx = JobContext(lambda: now / 1000)
    report = run_blocking(casino.engine, job_run(PendingBetsJob(), "test", ctx)).as_dict()
    assert report["outcome"] == "ok", report
    assert wallets(casino) == (1_100, 1_000)  # alice's three cards win, bob's two come back
    assert json.loads(row(casino, round_id).summary)["paid"] == {"alice": 200, "bob": 100}
    again = run_blocking(casino.engine, job_run(PendingBetsJob(), "test", ctx)).as_dict()
    assert again["outcome"] == "ok" and wallets(casino) == (1_100, 1_000)
    casino.ok()


def test_an_older_progress_never_replaces_a_newer_one(casino: Casino) -> None:
    """The progress writes are not waited for: one that arrives late changes nothing."""
    casino.fund_house(HOUSE)
    actor, _ = seated(casino, HIT)
    actor.decide("alice", 1, "hit")
    casino.drain()
    round_id = actor.round.round_id
    newer = json.loads(row(casino, round_id).outcome)
    older = {**newer, "moves": newer["moves"] - 1, "boxes": []}
    store.save_progress(casino.engine, round_id, older)
    assert json.loads(row(casino, round_id).outcome) == newer
    assert "7d" not in row(casino, round_id).outcome  # never the hole card
    (mine,) = casino.wait(casino.store.history("alice"))
    assert (mine.status, mine.outcome, mine.paid) == ("open", {}, None)  # the record stays inside
    actor.stop()
