"""`table_close` in process: answered once every seat's cash-out is committed, with the real
list, also when the table is between hands and its seats stand up at once (persist, then tell:
docs/ARCHITECTURE.md rule 14)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from twisted.internet.task import Clock

from pokerroom.admin.roles import Role
from pokerroom.admin.store import wallet_balance
from pokerroom.ledger.db import read
from tests.admin.rooms import PASSWORD, Staff, admin_of, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """One table t1 and a floor member `flo`."""
    with staffed_room(reactor, clock, ledger, {"flo": Role.FLOOR}, tables=["t1"]) as built:
        yield built


def wallet(room: Room, player: str) -> int:
    """A player's USD wallet, from the database."""
    return read(room.ledger.engine, lambda conn: wallet_balance(conn, player, "USD"))


def test_table_close_between_hands_answers_with_the_committed_cash_outs(room: Room) -> None:
    """Two players seated, no hand running (the clock has not reached the first deal): the
    answer lists both cash-outs with their amounts, and when it comes the money is already
    back in each wallet; the seats are empty."""
    for name, buy_in in (("ann", 200), ("bob", 150)):
        player = room.client()
        player.login(name)
        player.ok("deposit", amount=1_000, key="start")
        player.ok("sit", table_id="t1", buy_in=buy_in)
    actor = room.lobby.tables["t1"]
    assert not actor.hand_running and sorted(actor.by_player) == ["ann", "bob"]
    staff = Staff(room, admin_of(room))
    staff.call("staff_login", name="flo", password=PASSWORD)
    answer = staff.call("table_close", table_id="t1", reason="maintenance")
    assert answer["type"] == "ok", answer
    assert answer["result"]["cashed_out"] == [
        {"table_id": "t1", "player": "ann", "amount": 200, "currency": "USD"},
        {"table_id": "t1", "player": "bob", "amount": 150, "currency": "USD"},
    ]
    assert (wallet(room, "ann"), wallet(room, "bob")) == (1_000, 1_000)  # committed: told
    assert actor.by_player == {} and answer["result"]["state"] == "closed"


def test_table_close_of_an_empty_table_answers_an_empty_list(room: Room) -> None:
    """Nobody seated: `cashed_out: []` (a wrong implementation that always lists nothing
    passes this one only)."""
    staff = Staff(room, admin_of(room))
    staff.call("staff_login", name="flo", password=PASSWORD)
    assert staff.call("table_close", table_id="t1")["result"]["cashed_out"] == []
