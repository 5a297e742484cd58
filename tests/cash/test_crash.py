"""Outage of a cash game (C-12): interrupted hands are void, settled hands stand."""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.cash import store
from pokerroom.cash.schema import cash_hand_rake, cash_hands
from pokerroom.cash.store import escrow
from pokerroom.ledger import transfers
from pokerroom.ledger.kinds import AccountKind, house, wallet
from pokerroom.ledger.reports import check_ledger
from tests.cash.conftest import USD, Harness, next_hand, play_hand, sit_all


def statuses(room: Harness) -> dict[str, str]:
    with room.engine.connect() as conn:
        return dict(conn.execute(sa.select(cash_hands.c.id, cash_hands.c.status)).all())


def test_interrupted_hand_is_void_and_start_stacks_come_back(room: Harness) -> None:  # C-12
    """C-12: the hands row is written before the first card; a restart voids the open hand."""
    actor = room.table(rake_bps=500)
    sit_all(room, actor, ["ann", "bob", "cat"])
    play_hand(room, actor)
    play_hand(room, actor)
    settled_stacks = {s.player_id: s.stack for s in actor.seats.values()}
    next_hand(room, actor)
    assert statuses(room)[actor.hand_id] == "started"  # before any action, the row exists
    hand = actor.hand
    assert hand is not None
    actor.act(actor.players[hand.actor], "raise", 60)
    actor.act(actor.players[hand.actor], "call")
    interrupted = actor.hand_id
    actor.close()  # the server dies here: no settlement reaches the ledger

    restarted = room.table()
    assert statuses(room) == {"t1-1": "settled", "t1-2": "settled", interrupted: "void"}
    assert {s.player_id: s.stack for s in restarted.seats.values()} == settled_stacks
    for player, stack in settled_stacks.items():
        assert room.balance(escrow("t1", player, USD)) == stack
    assert restarted.hand_number == 4
    assert check_ledger(room.engine).ok
    room.advance(1)  # the table deals again with the restored players
    assert restarted.phase == "playing" and restarted.hand_id == "t1-4"


def test_crash_between_settlement_and_status_keeps_the_hand_settled(room: Harness) -> None:  # C-12
    """C-12: a hand whose settlement transfer exists stands even if the status write was lost."""
    room.fund("ann")
    room.fund("bob")
    for player in ("ann", "bob"):
        store.add_chips(room.engine, "t9", player, USD, 100, f"buyin:t9:{player}")
    rows = [
        store.SeatRow(n, p, f"s{n}", 100, 0, 0, 30_000, False, False, False)
        for n, p in enumerate(("ann", "bob"))
    ]
    store.start_hand(room.engine, "t9-1", "t9", 1, 0, {"ann": 100, "bob": 100}, rows)
    transfers.transfer(
        room.engine,
        key=store.settlement_key("t9-1"),
        kind="hand_settlement",
        currency=USD,
        postings=[
            (escrow("t9", "ann", USD), 9),
            (escrow("t9", "bob", USD), -10),
            (house(AccountKind.HOUSE_RAKE, USD), 1),
        ],
        memo='{"ann":1}',
    )
    store.start_hand(room.engine, "t9-2", "t9", 2, 0, {"ann": 109, "bob": 90}, rows)
    found = store.recover_table(room.engine, "t9", USD)
    assert found.settled == ("t9-1",) and found.voided == ("t9-2",)
    assert statuses(room) == {"t9-1": "settled", "t9-2": "void"}
    assert room.balance(escrow("t9", "ann", USD)) == 109
    with room.engine.connect() as conn:
        shares = conn.execute(sa.select(cash_hand_rake)).all()
    assert [(r.hand_id, r.player_id, r.amount) for r in shares] == [("t9-1", "ann", 1)]
    assert room.balance(wallet("ann", USD)) == 100_000 - 100
    assert found.next_number == 3 and found.returned == ()
    assert {r.player_id: r.stack for r in found.seats} == {"ann": 109, "bob": 90}


def test_a_seat_whose_cash_out_finished_is_not_restored(room: Harness) -> None:  # C-12
    """C-12: a crash between the cash-out and the seat's removal leaves no ghost seat."""
    actor = room.table()
    sit_all(room, actor, ["ann", "bob"])
    actor.close()
    transfers.move(
        room.engine,
        key="cashout:t1:ann:crash",
        kind="cash_out",
        currency=USD,
        source=escrow("t1", "ann", USD),
        destination=wallet("ann", USD),
        amount=200,
    )
    restarted = room.table()
    assert set(restarted.by_player) == {"bob"}


def test_escrow_money_without_a_seat_goes_back_to_the_wallet(room: Harness) -> None:  # C-12 P-2
    """C-12/P-2: chips in a seat escrow with no seat row are paid back on restart, once."""
    room.fund("ann")
    store.add_chips(room.engine, "t1", "ann", USD, 120, "buyin:t1:ann:lost")
    first = store.recover_table(room.engine, "t1", USD)
    assert first.returned == (("ann", 120),) and first.seats == ()
    assert room.balance(wallet("ann", USD)) == 100_000
    assert store.recover_table(room.engine, "t1", USD).returned == ()
    assert check_ledger(room.engine).ok
