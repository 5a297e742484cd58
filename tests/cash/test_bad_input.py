"""Bad requests get a ProtocolError with a stable code and change nothing (P-1)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from pokerroom.cash import TableActor
from pokerroom.protocol.errors import ProtocolError
from tests.cash.conftest import Harness, next_hand, sit_all


def state(actor: TableActor) -> Any:
    hand = actor.hand
    log = len(hand.log) if hand else 0
    return (copy.deepcopy(actor.snapshot("ann")), log, sorted(actor.by_player), actor.phase)


def refused(actor: TableActor, code: str, call: Callable[[], Any]) -> None:
    before = state(actor)
    with pytest.raises(ProtocolError) as info:
        call()
    assert info.value.code == code, info.value
    assert state(actor) == before


@pytest.fixture
def table(room: Harness) -> TableActor:
    """ann, bob, cat seated; hand 1 running, ann (seat 0) to act facing the big blind."""
    actor = room.table()
    sit_all(room, actor, ["ann", "bob", "cat"])
    room.fund("zed")
    next_hand(room, actor)
    hand = actor.hand
    assert hand is not None and actor.players[hand.actor] == "ann"
    return actor


def test_betting_errors(table: TableActor) -> None:  # P-1
    """Out of turn, illegal sizes, bad amounts, bad actions: stable codes, no change."""
    refused(table, "not_your_turn", lambda: table.act("bob", "call"))
    refused(table, "below_min_raise", lambda: table.act("ann", "raise", 3))
    refused(table, "insufficient_chips", lambda: table.act("ann", "raise", 10_000))
    for bad in (-4, 0, 4.5, "10", True, None):
        refused(table, "invalid_amount", lambda bad=bad: table.act("ann", "raise", bad))
    refused(table, "invalid_amount", lambda: table.act("ann", "call", -1))
    refused(table, "bad_action", lambda: table.act("ann", "allin"))
    refused(table, "cannot_check", lambda: table.act("ann", "check"))
    refused(table, "not_seated", lambda: table.act("zed", "fold"))


def test_seat_and_money_errors(room: Harness, table: TableActor) -> None:  # P-1 C-9
    """Unknown or taken seats, bad buy-ins, commands by players who do not sit here."""
    for seat in (6, -1, "1", 2.0):
        refused(table, "unknown_seat", lambda seat=seat: table.sit("zed", seat, 100))
    refused(table, "seat_taken", lambda: table.sit("zed", 2, 100))
    refused(table, "already_seated", lambda: table.sit("ann", 5, 100))
    for amount in (-100, 0, 99.5, "100"):
        refused(table, "invalid_amount", lambda amount=amount: table.sit("zed", 5, amount))
        refused(table, "invalid_amount", lambda amount=amount: table.top_up("ann", amount))
    refused(table, "not_seated", lambda: table.top_up("zed", 10))
    refused(table, "not_seated", lambda: table.sit_out("zed"))
    refused(table, "not_seated", lambda: table.leave("zed"))
    refused(table, "not_sitting_out", lambda: table.sit_in("ann"))
    refused(table, "still_seated", lambda: table.unobserve("ann"))


def test_acting_when_not_dealt_in(room: Harness, table: TableActor) -> None:  # P-1 C-2
    """A player seated after the deal is not in the hand."""
    room.wait(table.sit("zed", 5, 100))
    refused(table, "not_in_hand", lambda: table.act("zed", "fold"))


def test_a_wallet_too_small_changes_nothing(room: Harness, table: TableActor) -> None:  # P-1 P-2
    """P-1/P-2: a failed buy-in leaves no seat and moves no money."""
    before = state(table)
    with pytest.raises(ProtocolError) as info:
        room.wait(table.sit("poor", 5, 100))
    assert info.value.code == "insufficient_funds"
    assert state(table) == before and 5 not in table.roster._reserved
