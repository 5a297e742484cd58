"""Every table write the ledger service retries through an outage is safe to run twice (C-12).

A retry follows a failure whose commit may have happened (the connection dropped after
COMMIT): so each write, run again with the same arguments after it committed, must find its
rows and ledger keys in place and change nothing more (docs/ARCHITECTURE.md rule 16, P-2).
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.cash import memory, store
from pokerroom.cash.schema import (
    cash_hand_histories,
    cash_hand_players,
    cash_hand_rake,
    cash_hands,
    cash_seats,
)
from pokerroom.cash.store import escrow
from pokerroom.ledger.kinds import AccountKind, house, wallet
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.schema import journal
from tests.cash.conftest import USD, Harness


def rows(room: Harness, table: sa.Table) -> int:
    """How many rows a table holds."""
    with room.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def seat(n: int, player: str, stack: int = 100) -> store.SeatRow:
    """A seat row with an everyday state."""
    return store.SeatRow(n, player, f"s-{player}", stack, 0, 0, 30_000, False, False, False)


def test_seat_start_and_settle_run_twice_change_nothing_more(room: Harness) -> None:
    """Buy-in, hand start and settlement (with its history and rake shares) run twice: one
    seat row each, one hands row, one transfer per key, one history, the same balances."""
    room.fund("ann")
    room.fund("bob")
    for _ in range(2):
        store.seat_player(room.engine, "t9", seat(0, "ann"), USD, "buyin:t9:ann:1")
        store.seat_player(room.engine, "t9", seat(1, "bob"), USD, "buyin:t9:bob:1")
    assert rows(room, cash_seats) == 2
    assert room.balance(escrow("t9", "ann", USD)) == 100
    assert room.balance(wallet("ann", USD)) == 100_000 - 100
    start = {"ann": 100, "bob": 100}
    seats = [seat(0, "ann"), seat(1, "bob")]
    for _ in range(2):
        store.start_hand(room.engine, "t9-1", "t9", 1, 5, start, seats)
    assert rows(room, cash_hands) == 1 and rows(room, cash_seats) == 2
    history = ("t9", ("ann", "bob"), {"variant": "NT", "actions": ["d dh p1 AsKs"]})
    journal_before = rows(room, journal)
    for _ in range(2):
        store.settle_hand(
            room.engine, "t9-1", "t9", USD, {"ann": 18, "bob": -20}, 2, {"bob": 2}, 9, history
        )
    assert rows(room, journal) == journal_before + 1
    assert rows(room, cash_hand_histories) == 1
    assert rows(room, cash_hand_players) == 2
    assert rows(room, cash_hand_rake) == 1
    assert room.balance(escrow("t9", "ann", USD)) == 118
    assert room.balance(escrow("t9", "bob", USD)) == 80
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) == 2
    with room.engine.connect() as conn:
        assert conn.execute(sa.select(cash_hands.c.status)).scalar_one() == "settled"
    assert check_ledger(room.engine).ok


def test_cash_out_run_twice_pays_once_and_counts_one_decline(room: Harness) -> None:
    """C-8, C-10: the second run of a cash-out finds the keyed move, answers the same amount,
    keeps the rathole record at that amount and counts the decline (and its block) once."""
    room.fund("ann")
    store.seat_player(room.engine, "t9", seat(0, "ann", 150), USD, "buyin:t9:ann:1")
    outs = [
        memory.cash_out(
            room.engine, "t9", 0, "ann", USD, "cashout:t9:ann:s", "1/2", 1_000, True, (False, True)
        )
        for _ in range(2)
    ]
    assert outs[0] == outs[1] and outs[0].amount == 150 and outs[0].decline_number == 1
    assert room.balance(wallet("ann", USD)) == 100_000
    assert room.balance(escrow("t9", "ann", USD)) == 0
    assert rows(room, memory.cash_declines) == 1
    assert rows(room, cash_seats) == 0
    admission = memory.admission(room.engine, "ann", "1/2", "t9", 2_000)
    assert admission.rathole_amount == 150 and admission.missed_bb
    assert check_ledger(room.engine).ok


def test_a_second_leave_of_another_session_is_a_new_decline(room: Harness) -> None:
    """Idempotence is per leave (its key and time), not per player: two leaves, two declines."""
    room.fund("ann")
    for n in (1, 2):
        store.seat_player(room.engine, "t9", seat(0, "ann", 100), USD, f"buyin:t9:ann:{n}")
        memory.cash_out(
            room.engine,
            "t9",
            0,
            "ann",
            USD,
            f"cashout:t9:ann:{n}",
            "1/2",
            n * 1_000,
            True,
            (False, False),
        )
    assert rows(room, memory.cash_declines) == 2
