"""tournaments/store.py: rows round-trip, statuses move only forward, T-18's input is exact."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from pokerroom.ledger.db import in_transaction
from tests.jobs.conftest import T0, USD, Room
from tournaments import store
from tournaments.config import make_config
from tournaments.director.payouts import PrizeTable
from tournaments.director.refunds import FeeRefund, PlayerAtStop, RefundPhase
from tournaments.director.registration import Funding
from tournaments.templates import load_structures


def test_tournament_row_round_trips_with_its_config_and_prize_table(engine: Engine) -> None:
    """Every column comes back as written; saving again replaces the row."""
    structure = load_structures()["turbo"]
    config = make_config("t1", structure, buy_in=920, fee=80, starts_at=1000.0, guarantee=50_000)
    record = store.TournamentRecord(
        "t1",
        "turbo-10",
        USD,
        T0,
        config=store.config_json(config),
        guarantee=50_000,
        fee_refund=FeeRefund.ALL_ENTRIES,
        prizes=PrizeTable(9200, (4000, 2600, 1600, 1000)),
        overlay_posted=1234,
        level_index=3,
        level_ms_left=61_500,
    )
    in_transaction(engine, lambda c: store.save_tournament(c, record))
    back = in_transaction(engine, lambda c: store.load_tournament(c, "t1"))
    assert back == record
    assert back is not None and back.config["registration"]["buy_in"] == 920
    assert back.config["structure"]["levels"][0]["big_blind"] == structure.levels[0].big_blind
    changed = store.TournamentRecord("t1", "turbo-10", USD, T0, decision="x")
    in_transaction(engine, lambda c: store.save_tournament(c, changed))
    assert in_transaction(engine, lambda c: store.load_tournament(c, "t1")) == changed
    assert in_transaction(engine, lambda c: store.load_tournament(c, "nope")) is None


def test_statuses_move_only_along_the_allowed_paths(room: Room) -> None:
    """registering -> running -> interrupted -> running | cancelled -> refunded; never back."""
    room.tournament("t1")
    room.tournament("t2")
    e = room.engine

    def go(fn: object, *args: object) -> bool:
        return bool(in_transaction(e, lambda c: fn(c, *args)))  # type: ignore[operator]

    assert not go(store.mark_refunded, "t1", T0)  # not cancelled: nothing to mark
    assert not go(store.mark_interrupted, "t1", T0)  # not running
    assert go(store.mark_started, "t1", T0)
    assert not go(store.mark_started, "t1", T0)  # already running
    assert in_transaction(e, lambda c: store.interrupt_running(c, T0 + 5)) == ("t1",)
    assert room.status("t1") == store.INTERRUPTED
    assert go(store.mark_resumed, "t1", "back after 3 min, within 10")
    assert room.status("t1") == store.RUNNING
    assert go(store.mark_cancelled, "t1", store.CancelReason.OUTAGE, T0 + 9, "away 20 min")
    assert go(store.mark_cancelled, "t2", store.CancelReason.TOO_FEW_PLAYERS, T0 + 8)
    assert in_transaction(e, lambda c: store.tournaments_with_status(c, store.CANCELLED)) == (
        "t2",
        "t1",
    )  # oldest stop first
    assert not go(store.mark_started, "t1", T0)
    assert not go(store.mark_resumed, "t1", "")
    assert go(store.mark_refunded, "t1", T0 + 10)
    assert not go(store.mark_cancelled, "t1", store.CancelReason.STAFF, T0)  # refunded stays
    t1 = in_transaction(e, lambda c: store.load_tournament(c, "t1"))
    assert t1 is not None
    assert (t1.status, t1.cancel_reason, t1.decision) == (store.REFUNDED, "outage", "away 20 min")
    assert t1.refunded_at_ms == T0 + 10
    with pytest.raises(store.StoreError, match="no tournament"):
        go(store.mark_started, "nope", T0)


def test_entries_payments_and_paid_in_by_funding(room: Room) -> None:
    """T-4: re-entries, rebuys and add-ons are money paid in; T-3: unregistered counts nothing."""
    t = room.tournament("t1")
    t.buy("ann").buy("ann", kind="rebuy", buy_in=500, fee=50, new_entry=False)
    t.buy("bob", funding=Funding.TDOLLARS).buy("bob", entry_no=2, kind="reentry")
    t.buy("cat", funding=Funding.TICKET, ticket_id="tk-9", bounty=300)
    t.buy("dan")
    in_transaction(
        room.engine,
        lambda c: store.update_entry(c, "t1", "dan", 1, status=store.UNREGISTERED),
    )
    paid = in_transaction(room.engine, lambda c: store.paid_in(c, "t1"))
    assert set(paid) == {"ann", "bob", "cat"}
    assert paid["ann"].buy_in == {Funding.CASH: 1420} and paid["ann"].fee == {Funding.CASH: 130}
    assert paid["bob"].buy_in == {Funding.TDOLLARS: 920, Funding.CASH: 920}
    assert paid["cat"].bounty == {Funding.TICKET: 300} and paid["cat"].total == 1300
    payments = in_transaction(room.engine, lambda c: store.load_payments(c, "t1"))
    assert [(p.player, p.seq, p.entry_no, p.kind) for p in payments] == [
        ("ann", 1, 1, "entry"),
        ("ann", 2, 1, "rebuy"),
        ("bob", 1, 1, "entry"),
        ("bob", 2, 2, "reentry"),
        ("cat", 1, 1, "entry"),
        ("dan", 1, 1, "entry"),
    ]
    assert payments[4].ticket_id == "tk-9" and payments[4].ledger_key == "tourney:t1:entry:cat:1"
    assert in_transaction(room.engine, lambda c: store.unpaid_keys(c, "t1")) == ()
    with pytest.raises(store.StoreError, match="no entry"):
        in_transaction(room.engine, lambda c: store.update_entry(c, "t1", "eve", 1, prize=5))


def test_record_hand_replaces_the_table_and_follows_moved_players(room: Room) -> None:
    """T-18 reads each table's last completed hand; T-10: a moved player is where the last
    hand says, never at two tables (a second row would count their chips twice)."""
    t = room.tournament("t1")
    for p in ("ann", "bob", "cat", "dan"):
        t.buy(p)
    t.start()
    t.seats("A", {"ann": 100, "bob": 200}, hand=3)
    t.seats("B", {"cat": 300, "dan": 400}, hand=5)
    t.seats("A", {"ann": 150, "bob": 150}, hand=4)
    t.seats("B", {"cat": 700, "bob": 150}, hand=6)  # dan busted, bob moved from A to B
    seats = in_transaction(room.engine, lambda c: store.load_seats(c, "t1"))
    assert [(s.table_id, s.player, s.stack, s.hand_number) for s in seats] == [
        ("A", "ann", 150, 4),
        ("B", "cat", 700, 6),
        ("B", "bob", 150, 6),
    ]
    t.seats("A", {})  # table A broken
    seats = in_transaction(room.engine, lambda c: store.load_seats(c, "t1"))
    assert {s.table_id for s in seats} == {"B"}


def test_state_at_stop_not_started_lists_every_purchase_and_the_bounty_part(room: Room) -> None:
    """T-18.1 input: every registered player with every buy-in, fee and bounty part paid."""
    t = room.tournament("t1", guarantee=100_000)
    t.buy("ann").buy("bob", buy_in=500, fee=100, bounty=400).buy("cat").buy("dan")
    in_transaction(
        room.engine,
        lambda c: store.update_entry(c, "t1", "dan", 1, status=store.UNREGISTERED),
    )
    state = in_transaction(room.engine, lambda c: store.state_at_stop(c, "t1"))
    assert state.phase is RefundPhase.NOT_STARTED
    assert state.guarantee == 100_000 and state.prizes is None
    assert state.players == (
        PlayerAtStop("ann", 920, 80, live_fee=80),
        PlayerAtStop("bob", 500, 100, live_fee=100, bounty=400),
        PlayerAtStop("cat", 920, 80, live_fee=80),
    )


def test_state_at_stop_before_and_in_the_money(room: Room) -> None:
    """T-18.2/3 input: chips from the seats, live fee of the stack in play, bounty, prizes."""
    t = room.tournament("t1")
    for p in ("ann", "bob", "cat", "dan"):
        t.buy(p)
    t.start()
    t.bust("cat").buy("cat", entry_no=2, kind="reentry")
    t.buy("cat", entry_no=2, kind="addon", buy_in=300, fee=20, new_entry=False)
    t.bust("dan").bounty("ann", 700)
    t.seats("A", {"ann": 4999, "bob": 3001, "cat": 2000})
    state = in_transaction(room.engine, lambda c: store.state_at_stop(c, "t1"))
    assert state.phase is RefundPhase.BEFORE_MONEY
    assert state.players == (
        PlayerAtStop("ann", 920, 80, live_fee=80, chips=4999, bounty=700),
        PlayerAtStop("bob", 920, 80, live_fee=80, chips=3001),
        PlayerAtStop("cat", 2140, 180, live_fee=100, chips=2000),
        PlayerAtStop("dan", 920, 80, busted=True),
    )
    t.prizes(PrizeTable(4060, (2500, 1560)))  # 3 left, 2 paid: still before the money
    state = in_transaction(room.engine, lambda c: store.state_at_stop(c, "t1"))
    assert state.phase is RefundPhase.BEFORE_MONEY and state.prizes is None
    t.bust("bob", place=3)  # bob out in 3rd: 2 left, 2 places paid -> in the money
    t.seats("A", {"ann": 7000, "cat": 3000})
    state = in_transaction(room.engine, lambda c: store.state_at_stop(c, "t1"))
    assert state.phase is RefundPhase.IN_THE_MONEY
    assert state.prizes == PrizeTable(4060, (2500, 1560))
    assert [p.player for p in state.remaining] == ["ann", "cat"]


@pytest.mark.parametrize(
    "break_it, message",
    [
        ("no_seat", "alive but no stored stack"),
        ("busted_seated", "no entry alive"),
        ("two_alive", "two entries alive"),
    ],
)
def test_state_at_stop_refuses_a_state_no_tournament_is_in(
    room: Room, break_it: str, message: str
) -> None:
    """A refund never guesses: a broken stored state is an error naming the player."""
    t = room.tournament("t1")
    t.buy("ann").buy("bob")
    t.start()
    t.seats("A", {"ann": 500, "bob": 500})
    if break_it == "no_seat":
        t.seats("A", {"ann": 1000})
    elif break_it == "busted_seated":
        t.bust("bob")
    else:
        t.buy("bob", entry_no=2, kind="reentry")
    with pytest.raises(store.StoreError, match=message):
        in_transaction(room.engine, lambda c: store.state_at_stop(c, "t1"))


def test_refund_rows_round_trip_and_are_marked_paid(room: Room) -> None:
    """The plan is written once; a row is marked paid with its transfer, or refused with why."""
    room.tournament("t1")
    rows = [
        store.RefundRow("ann", "fee", 80, "house_fees:house:USD", (("wallet:ann:USD", 80),), "k1"),
        store.RefundRow(
            "house", "rounding", 3, "prize_pool:t1:USD", (("house_rounding:house:USD", 3),), "k2"
        ),
    ]
    e = room.engine
    in_transaction(e, lambda c: store.add_refunds(c, "t1", rows, T0))
    assert in_transaction(e, lambda c: store.load_refunds(c, "t1")) == tuple(rows)
    in_transaction(e, lambda c: store.mark_refund_refused(c, "t1", "ann", "fee", "no funds"))
    assert in_transaction(e, lambda c: store.load_refunds(c, "t1"))[0].error == "no funds"
    in_transaction(e, lambda c: store.mark_refund_paid(c, "t1", "ann", "fee", 42, T0 + 1))
    back = in_transaction(e, lambda c: store.load_refunds(c, "t1"))[0]
    assert back.paid and back.transfer_id == 42 and back.error is None
    assert in_transaction(e, lambda c: store.unpaid_refunds(c, "t1")) == 1
