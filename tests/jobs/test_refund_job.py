"""The refunds job: each T-18 case pays exactly the amounts worked out by hand from the rule text.

Every expected amount is a literal worked out from T-18, T-7 and T-5 (the derivation is in the
comment next to it), not a call to the code under test: a wrong split, a fee refunded to a busted
player, an overlay shared, a refund to the wrong account or a second payment all change a number.
Each test ends with `pokerroom ledger check`.
"""

from __future__ import annotations

import json
import time

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result

from pokerroom.cli import main
from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
from pokerroom.jobs import lock as locks
from pokerroom.jobs.runs import recent_runs
from pokerroom.jobs.schema import job_locks, job_runs
from pokerroom.ledger import transfers
from pokerroom.ledger.db import in_transaction
from tests.jobs.conftest import USD, Room, deltas, ref
from tournaments import store
from tournaments.director.payouts import PrizeTable
from tournaments.director.registration import Funding


def run(db_url: str, *args: str) -> Result:
    """`pokerroom jobs run refunds --db URL ...` in this process."""
    return CliRunner().invoke(main, ["jobs", "run", "refunds", "--db", db_url, *args])


def ledger_check(db_url: str) -> None:
    """`pokerroom ledger check` passes."""
    checked = CliRunner().invoke(main, ["ledger", "check", "--db", db_url])
    assert checked.exit_code == 0, checked.output


def refund_once_and_check(room: Room, db_url: str, tid: str) -> dict[str, int]:
    """Run the job, check the ledger, run it again (nothing moves); the first run's deltas."""
    before = room.balances()
    first = run(db_url)
    assert first.exit_code == 0, first.output
    assert room.status(tid) == store.REFUNDED
    moved = deltas(before, room.balances())
    ledger_check(db_url)
    size = room.journal_size()
    again = run(db_url, "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.output)
    assert (report["outcome"], report["transfers"], report["amounts"]) == ("ok", 0, {})
    assert room.journal_size() == size and deltas(before, room.balances()) == moved
    return moved


# --- T-18.1 not started ---------------------------------------------------------------------


def test_t18_1_not_started_every_purchase_goes_back_where_it_came_from(
    room: Room, db_url: str
) -> None:
    """T-18.1, T-3, T-16: buy-in and fee back to the wallet, to T$, to the ticket (whole again);
    the bounty part back with them; the 1,000.00 guarantee is no one's money."""
    t = room.tournament("t1", guarantee=100_000)
    t.buy("ann")  # cash 920 + 80
    t.buy("bob", funding=Funding.TDOLLARS)  # T$ 920 + 80
    t.buy("cat", funding=Funding.TICKET, ticket_id="tk-1")  # a ticket worth 1000
    t.buy("dan", buy_in=500, fee=100, bounty=400)  # a bounty entry, cash
    tid = t.cancel(store.CancelReason.STAFF)
    moved = refund_once_and_check(room, db_url, tid)
    assert moved == {
        ref("wallet", "ann"): 920 + 80,
        ref("tdollars", "bob"): 920 + 80,
        ref("ticket", "tk-1"): 920 + 80,
        ref("wallet", "dan"): 500 + 100 + 400,
        ref("prize_pool", "t1"): -(920 * 3 + 500),  # to 0
        ref("house_fees", "house"): -(80 * 3 + 100),
        ref("bounty_pool", "t1"): -400,  # to 0
    }


# --- T-18.2 started, not in the money -------------------------------------------------------


def test_t18_2_before_the_money_half_equal_half_by_chips_fees_of_live_stacks(
    room: Room, db_url: str
) -> None:
    """T-18.2 (docs/TOURNAMENTS.md example 2): A, B, C, D entered, C re-entered, D is out.

    Pool 5 x 920 = 4,600. Equal half 2,300 / 3 = 766 each (2 cents to house rounding). Chip
    half 2,300 x chips / 10,000: A 4,999 -> 1,149.77 -> 1,149; B 3,001 -> 690.23 -> 690;
    C 2,000 -> 460 (1 cent left). Fees of the stacks in play, 80 each; C's busted first entry
    and D keep nothing back. B entered with a ticket: the fee comes back as T$ (a part of a
    ticket is not a seat, T-16); C re-entered with T$: that fee back to T$. A 100.00 guarantee
    not reached: the overlay is not shared (and was never posted).
    """
    t = room.tournament("t1", guarantee=10_000)
    t.buy("A").buy("B", funding=Funding.TICKET, ticket_id="tk-B").buy("C").buy("D")
    t.start()
    t.bust("C").buy("C", entry_no=2, kind="reentry", funding=Funding.TDOLLARS)
    t.bust("D")
    t.seats("table-1", {"A": 4999, "B": 3001, "C": 2000})
    tid = t.cancel()
    moved = refund_once_and_check(room, db_url, tid)
    assert moved == {
        ref("wallet", "A"): 80 + 766 + 1149,  # 1,995
        ref("tdollars", "B"): 80,
        ref("wallet", "B"): 766 + 690,  # + 80 T$ = 1,536
        ref("tdollars", "C"): 80,
        ref("wallet", "C"): 766 + 460,  # + 80 T$ = 1,306
        ref("house_rounding", "house"): 2 + 1,
        ref("house_fees", "house"): -240,
        ref("prize_pool", "t1"): -4600,
    }


def test_t18_2_bounties_come_back_from_the_bounty_pool(room: Room, db_url: str) -> None:
    """T-18.2 + T-14 (docs example 2, bounty variant): entries 500 + 400 bounty + 100 fee;
    D knocked out by A (A holds 800 of bounty, B and C 400); chips 6,000 / 3,000 / 3,000.
    Pool 2,000: equal 1,000 / 3 = 333 each (1 left); chips 500 / 250 / 250.
    A 100 + 800 + 333 + 500 = 1,733; B and C 100 + 400 + 333 + 250 = 1,083."""
    t = room.tournament("t1")
    for p in ("A", "B", "C", "D"):
        t.buy(p, buy_in=500, fee=100, bounty=400)
    t.start()
    t.bust("D").bounty("A", 800).bounty("B", 400).bounty("C", 400)
    t.seats("table-1", {"A": 6000, "B": 3000, "C": 3000})
    tid = t.cancel()
    moved = refund_once_and_check(room, db_url, tid)
    assert moved == {
        ref("wallet", "A"): 1733,
        ref("wallet", "B"): 1083,
        ref("wallet", "C"): 1083,
        ref("house_rounding", "house"): 1,
        ref("house_fees", "house"): -300,  # D's 100 stays with the house
        ref("prize_pool", "t1"): -2000,
        ref("bounty_pool", "t1"): -1600,
    }


# --- T-18.3 in the money --------------------------------------------------------------------


def in_the_money(room: Room, *, prizes: tuple[int, ...], e_prize: int, overlay: int = 0) -> str:
    """Ten entries of 920 + 80; E finished 4th and was paid; A, B, C remain (30,000 chips)."""
    t = room.tournament("t1", guarantee=10_000 if overlay else 0)
    for p in ("A", "B", "C", "E", "F", "G", "H", "I", "J", "K"):
        t.buy(p)
    t.start()
    for place, p in enumerate(("K", "J", "I", "H", "G", "F"), start=5):
        t.bust(p, place=15 - place)
    if overlay:
        t.overlay(overlay)
    t.prizes(PrizeTable(9200 + overlay, prizes), overlay_posted=overlay)
    t.prize("E", 4, e_prize)
    t.seats("final", {"A": 15001, "B": 9999, "C": 5000})
    return t.cancel()


def test_t18_3_in_the_money_next_prize_to_each_then_chips(room: Room, db_url: str) -> None:
    """T-18.3 (docs example 3): pool 9,200, prizes 4,000 / 2,600 / 1,600 / 1,000, E paid 1,000.
    Unpaid 8,200; the next player out takes 3rd: 1,600 each (4,800); 3,400 by chips: A 1,700.11
    -> 1,700, B 1,133.29 -> 1,133, C 566.67 -> 566 (1 left). E's prize stands."""
    tid = in_the_money(room, prizes=(4000, 2600, 1600, 1000), e_prize=1000)
    moved = refund_once_and_check(room, db_url, tid)
    assert moved == {
        ref("wallet", "A"): 80 + 1600 + 1700,  # 3,380
        ref("wallet", "B"): 80 + 1600 + 1133,  # 2,813
        ref("wallet", "C"): 80 + 1600 + 566,  # 2,246
        ref("house_rounding", "house"): 1,
        ref("house_fees", "house"): -240,
        ref("prize_pool", "t1"): -8200,
    }


def test_t18_3_guarantee_not_reached_the_overlay_goes_back(room: Room, db_url: str) -> None:
    """T-18 guarantee clause (docs example 3, 100.00 guarantee): 800 overlay posted, prizes
    4,000 / 2,800 / 2,000 / 1,200, E paid 1,200. Unpaid 8,800 but only 9,200 - 1,200 = 8,000 of
    paid-in money is left: 2,000 (3rd) each, 2,000 by chips -> 1,000 / 666 / 333 (1 left);
    the 800 overlay goes back to the house overlay account."""
    tid = in_the_money(room, prizes=(4000, 2800, 2000, 1200), e_prize=1200, overlay=800)
    moved = refund_once_and_check(room, db_url, tid)
    assert moved == {
        ref("wallet", "A"): 80 + 2000 + 1000,  # 3,080
        ref("wallet", "B"): 80 + 2000 + 666,  # 2,746
        ref("wallet", "C"): 80 + 2000 + 333,  # 2,413
        ref("house_rounding", "house"): 1,
        ref("house_overlay", "house"): 800,
        ref("house_fees", "house"): -240,
        ref("prize_pool", "t1"): -8800,
    }


# --- the job itself -------------------------------------------------------------------------


def case_two(room: Room) -> str:
    """The T-18.2 example, all cash: A 1,995, B 1,536, C 1,306 (see above)."""
    t = room.tournament("t1")
    for p in ("A", "B", "C", "D"):
        t.buy(p)
    t.start()
    t.bust("C").buy("C", entry_no=2, kind="reentry").bust("D")
    t.seats("table-1", {"A": 4999, "B": 3001, "C": 2000})
    return t.cancel()


EXPECTED_TWO = {"A": 1995, "B": 1536, "C": 1306}


def test_second_run_pays_nothing_and_every_run_is_a_row(room: Room, db_url: str) -> None:
    """Idempotent: the second run finds nothing due; `jobs list` shows both runs."""
    case_two(room)
    room.tournament("t2").buy("Z").cancel()  # a second tournament, not started
    first = run(db_url, "--json", "--batch", "2")
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert report["outcome"] == "ok" and sorted(report["tournaments"]) == ["t1", "t2"]
    assert report["amounts"] == {USD: 1995 + 1536 + 1306 + 1000}
    assert report["transfers"] == 9 + 1 + 2  # t1: 3 players x 3 parts, rounding; t2: 2 parts
    second = run(db_url)
    assert second.exit_code == 0 and "0 tournament(s) finished, 0 transfer(s)" in second.output
    runs = recent_runs(room.engine)
    assert [(r.outcome, r.transfers, dict(r.amounts)) for r in runs] == [
        ("ok", 0, {}),
        ("ok", 12, {USD: 5837}),
    ]
    assert all(r.ended_at_ms is not None and r.ended_at_ms >= r.started_at_ms for r in runs)
    listed = CliRunner().invoke(main, ["jobs", "list", "--db", db_url, "--json"])
    assert [r["outcome"] for r in json.loads(listed.output)] == ["ok", "ok"]
    table = CliRunner().invoke(main, ["jobs", "list", "--db", db_url])
    assert table.exit_code == 0 and "refunds" in table.output and "58.37 USD" in table.output
    ledger_check(db_url)


def test_dry_run_moves_and_writes_nothing(room: Room, db_url: str) -> None:
    """--dry-run prints who gets what (table, or JSON for machines) and changes no row."""
    tid = case_two(room)
    before, size = room.balances(), room.journal_size()
    shown = run(db_url, "--dry-run")
    assert shown.exit_code == 0, shown.output
    assert "dry run" in shown.output and "19.95" in shown.output and "13.06" in shown.output
    as_json = run(db_url, "--dry-run", "--json")
    plan = json.loads(as_json.output)["tournaments"][0]
    assert (plan["id"], plan["phase"], plan["plan_stored"]) == (tid, "before_money", False)
    per_player: dict[str, int] = {}
    for row in plan["refunds"]:
        per_player[row["player"]] = per_player.get(row["player"], 0) + row["amount"]
    assert per_player == {**EXPECTED_TWO, "house": 3}
    assert room.balances() == before and room.journal_size() == size
    assert room.status(tid) == store.CANCELLED
    with room.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(job_runs)).scalar() == 0
        refunds = sa.select(sa.func.count()).select_from(store.tournament_refunds)
        assert conn.execute(refunds).scalar() == 0


def test_a_second_runner_exits_0_saying_another_holds_the_lock(room: Room, db_url: str) -> None:
    """One runner at a time: while another holds the lock, a run pays nothing and exits 0."""
    tid = case_two(room)
    before = room.balances()
    other = locks.acquire(
        room.engine, "refunds", "otherhost:1:abc", int(time.time() * 1000), 60_000
    )
    assert isinstance(other, locks.JobLock)
    try:
        turned_away = run(db_url)
        assert turned_away.exit_code == 0, turned_away.output
        assert "another runner holds the lock" in turned_away.output
        assert room.balances() == before and room.status(tid) == store.CANCELLED
        assert [r.outcome for r in recent_runs(room.engine)] == ["skipped"]
    finally:
        locks.release(room.engine, other)
    done = run(db_url)
    assert done.exit_code == 0 and room.status(tid) == store.REFUNDED
    with room.engine.connect() as conn:
        assert conn.execute(sa.select(job_locks)).all() == []  # released after the run
    ledger_check(db_url)


def test_a_lease_left_by_a_dead_process_of_this_host_is_taken_over(room: Room) -> None:
    """SQLite lease (PostgreSQL drops the advisory lock itself): a dead owner holds nothing."""
    if room.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL drops a dead session's advisory lock itself: no lease")
    import socket

    dead = f"{socket.gethostname()}:{2**22 + 12345}:x"  # above pid_max on Linux: no such process
    now = int(time.time() * 1000)
    assert isinstance(locks.acquire(room.engine, "refunds", dead, now, 600_000), locks.JobLock)
    alive = f"{socket.gethostname()}:1:y"  # pid 1 exists
    held = locks.acquire(room.engine, "refunds", "me:2:z", now, 600_000)
    assert isinstance(held, locks.JobLock)  # the dead owner's lease is taken over
    assert isinstance(locks.acquire(room.engine, "refunds", alive, now, 1000), locks.Holder)
    assert isinstance(
        locks.acquire(room.engine, "refunds", alive, now + 600_001, 1000), locks.JobLock
    )


def test_state_and_ledger_disagree_nothing_is_paid(room: Room, db_url: str) -> None:
    """A pool that does not hold what the plan takes (here: refunded once already by another
    path) stops that tournament before any transfer: fees are not paid twice."""
    t = room.tournament("t1")
    t.buy("ann").buy("bob")
    tid = t.cancel()
    transfers.move(
        room.engine,
        key="elsewhere",
        kind="refund",
        currency=USD,
        source=ref("prize_pool", "t1"),
        destination=ref("wallet", "ann"),
        amount=920,
    )
    before = room.balances()
    refused = run(db_url)
    assert refused.exit_code == 1
    assert "prize_pool:t1:USD holds 920 but the unpaid refunds take 1840" in refused.output
    assert room.balances() == before and room.status(tid) == store.CANCELLED
    assert recent_runs(room.engine)[0].outcome == "failed"
    ledger_check(db_url)


def test_a_purchase_the_ledger_never_got_is_refused(room: Room, db_url: str) -> None:
    """A payment row whose transfer is not in the journal: no plan, no refund (staff look)."""
    t = room.tournament("t1")
    t.buy("ann")
    ghost = store.Payment("bob", 1, 1, "entry", Funding.CASH, 920, 80, ledger_key="never-posted")
    in_transaction(
        room.engine,
        lambda c: store.add_entries(c, "t1", [store.EntryRecord("bob")], [ghost]),
    )
    t.cancel()
    refused = run(db_url)
    assert refused.exit_code == 1 and "never-posted" in refused.output
    with room.engine.connect() as conn:
        refunds = sa.select(sa.func.count()).select_from(store.tournament_refunds)
        assert conn.execute(refunds).scalar() == 0


def test_a_refused_transfer_leaves_its_row_unpaid_and_the_rest_paid(
    room: Room, db_url: str
) -> None:
    """The house fees account short (the operator took the fees out): each fee refund is
    refused alone (its savepoint), the pool shares are paid; once funded, a rerun completes."""
    tid = case_two(room)
    transfers.move(
        room.engine,
        key="fees-out",
        kind="withdrawal",
        currency=USD,
        source=ref("house_fees", "house"),
        destination="external:world:USD",
        amount=5 * 80 - 100,  # 100 of the five fees left: A's 80 fits, B's and C's do not
    )
    before = room.balances()
    first = run(db_url, "--batch", "50")
    assert first.exit_code == 1 and "insufficient_funds" in first.output
    moved = deltas(before, room.balances())
    assert moved[ref("house_fees", "house")] == -80  # only the first fee refund fit
    assert room.status(tid) == store.CANCELLED
    rows = in_transaction(room.engine, lambda c: store.load_refunds(c, tid))
    unpaid = sorted((r.player, r.component) for r in rows if not r.paid)
    assert unpaid == [("B", "fee"), ("C", "fee")]
    assert all(r.error and "insufficient_funds" in r.error for r in rows if not r.paid)
    room.deposit(ref("house_fees", "house"), 500)
    second = run(db_url)
    assert second.exit_code == 0, second.output
    total = deltas(before, room.balances())
    assert {p: total[ref("wallet", p)] for p in EXPECTED_TWO} == EXPECTED_TWO
    assert room.status(tid) == store.REFUNDED
    ledger_check(db_url)


def test_run_blocking_reports_what_the_run_did(room: Room) -> None:
    """The same run, driven in-process with a fixed clock: the report and the run row agree."""
    case_two(room)
    ctx = JobContext(lambda: 1_900_000_000.0, JobSettings(batch=4))
    report = run_blocking(room.engine, job_run(RefundsJob(), "host:1:t", ctx))
    assert (report.outcome, report.tournaments, report.transfers) == ("ok", ("t1",), 10)
    assert report.amounts == {USD: 1995 + 1536 + 1306} and report.exit_code == 0
    row = recent_runs(room.engine)[0]
    assert (row.runner, row.started_at_ms, row.ended_at_ms) == (
        "host:1:t",
        1_900_000_000_000,
        1_900_000_000_000,
    )
    assert (row.tournaments, dict(row.amounts)) == (("t1",), {USD: 4837})


def test_a_long_run_renews_its_lease_and_stops_if_another_runner_took_it(room: Room) -> None:
    """SQLite lease: renewed while the run goes on; if it expired and another runner took it,
    the run stops before its next step (it never pays beside the new holder)."""
    if room.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's advisory lock lasts as long as its connection: no lease")
    case_two(room)
    now = [1_900_000_000.0]

    def clock() -> float:
        now[0] += 50.0  # every step: 50 s later, lease 120 s
        return now[0]

    def steal(line: str) -> None:
        if ": paid 2 of" in line:  # after the first batch: the lease lapses, another takes it
            with room.engine.begin() as conn:
                conn.execute(sa.update(job_locks).values(owner="thief:1:x"))

    ctx = JobContext(clock, JobSettings(batch=2, lease_seconds=120), progress=steal)
    report = run_blocking(room.engine, job_run(RefundsJob(), "host:1:r", ctx))
    assert report.outcome == "failed" and "taken by another runner" in report.message
    assert report.transfers == 2  # the first batch only
    rows = in_transaction(room.engine, lambda c: store.load_refunds(c, "t1"))
    assert sum(r.paid for r in rows) == 2
    with room.engine.connect() as conn:
        assert conn.execute(sa.select(job_locks.c.owner)).scalar() == "thief:1:x"  # left alone
        conn.execute(sa.delete(job_locks))
        conn.commit()
    ctx = JobContext(clock, JobSettings(batch=2, lease_seconds=120))
    rest = run_blocking(room.engine, job_run(RefundsJob(), "host:1:s", ctx))
    assert (rest.outcome, rest.transfers) == ("ok", len(rows) - 2)  # renewed at every step
    assert room.status("t1") == store.REFUNDED
    room.check()


def test_dry_run_of_a_partly_paid_plan_shows_what_is_left(room: Room, db_url: str) -> None:
    """After a partial run, the dry run reads the stored plan: paid rows marked, the rest due."""
    tid = case_two(room)
    transfers.move(
        room.engine,
        key="fees-out",
        kind="withdrawal",
        currency=USD,
        source=ref("house_fees", "house"),
        destination="external:world:USD",
        amount=5 * 80,  # no fee can be refunded
    )
    assert run(db_url).exit_code == 1
    plan = json.loads(run(db_url, "--dry-run", "--json").output)["tournaments"][0]
    assert (plan["id"], plan["plan_stored"], plan["error"]) == (tid, True, None)
    unpaid = sorted((r["player"], r["component"]) for r in plan["refunds"] if not r["paid"])
    assert unpaid == [("A", "fee"), ("B", "fee"), ("C", "fee")]
    assert plan["to_pay"] == 3 * 80
    shown = run(db_url, "--dry-run")
    assert "2/3 paid" in shown.output
