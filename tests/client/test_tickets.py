"""Tickets in the client (T-16, T-3): the lobby lists the player's tickets, and "Register with
ticket" pays a sit-and-go's entry with one (no money leaves the wallet); a refused
unregistration shows its code; a used ticket pays no other entry; a player without a ticket
that fits is told so and not registered. Against a real `pokerroom serve` whose database
holds a ticket issued to ann."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from pokerroom.ledger import external, make_engine, transfer
from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.kinds import AccountKind, AccountRef
from tests.client.conftest import Room, start_room
from tests.client.driver import WAIT_MS, ann_and_bob, click
from tests.client.test_sit_and_go import sng_id
from tests.serving import migrated_sqlite, stop
from tournaments import store
from tournaments.director.tickets import Ticket

pytestmark = pytest.mark.slow

TICKET = "tk-client-test"
PRICE = 550  # the schedule's sit-and-goes: 500 + 50
NOW_MS = 1_796_000_000_000  # issued before the test, valid for a long while


def issue_ticket(folder: Path) -> None:
    """An any-of-level 500 + 50 ticket for ann, with its value in its ledger account."""
    engine = make_engine(migrated_sqlite(folder))
    try:
        account = AccountRef(AccountKind.TICKET, TICKET, "USD")
        transfer(engine, key="test:ticket", kind="deposit", currency="USD",
                 postings={account: PRICE, external("USD"): -PRICE})  # fmt: skip
        ticket = Ticket(TICKET, "ann", 500, 50, "", NOW_MS, NOW_MS + 10 * 365 * 86_400_000,
                        source="test", any_of_level=True)  # fmt: skip
        in_transaction(engine, lambda conn: store.add_ticket(conn, ticket, "USD", NOW_MS))
    finally:
        engine.dispose()


@pytest.fixture
def ticket_room(tmp_path: Path) -> Iterator[Room]:
    """A room whose database holds ann's ticket before it starts."""
    issue_ticket(tmp_path)
    served = start_room(tmp_path)
    try:
        yield served
    finally:
        stop(served.process)


def ticket_row(app: ClientApp) -> list[str]:
    """The cells of the lobby's one ticket row."""
    table = app.lobby_window.tickets
    assert table.rowCount() == 1
    return [table.item(0, c).text() for c in range(table.columnCount())]  # type: ignore[union-attr]


def test_a_ticket_is_listed_and_pays_an_entry_from_the_lobby(
    qtbot: QtBot, ticket_room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    ann, bob = ann_and_bob(qtbot, make_client, ticket_room.port, 2_000)
    qtbot.waitUntil(lambda: bool(ann.lobby.tournaments and ann.lobby.tickets), timeout=WAIT_MS)
    assert ticket_row(ann) == [TICKET, "any $5.50 tournament", "$5.50", "issued",
                               "2036-11-27 00:53 UTC", "—"]  # fmt: skip
    tid = sng_id(ann)
    name = ann.lobby.tournaments[tid]["name"]
    # bob has no ticket: told so, not registered, nothing paid
    bob.lobby_window.select_tournament(tid)
    click(qtbot, bob.lobby_window.ticket_button)
    assert "no ticket of yours" in bob.lobby_window.status.text()
    assert bob.lobby.tickets == [] and tid not in bob.tournament_windows
    # ann registers with her ticket: the entry is paid, her wallet is untouched
    ann.lobby_window.tabs.setCurrentIndex(2)
    ann.lobby_window.select_tournament(tid)
    click(qtbot, ann.lobby_window.ticket_button)
    qtbot.waitUntil(lambda: ticket_row(ann)[3] == "used", timeout=WAIT_MS)
    assert ticket_row(ann)[5] == name and "registered (entry 1)" in ann.lobby_window.status.text()
    qtbot.addWidget(ann.tournament_windows[tid])
    # this room's sit-and-goes keep a ticket's entry: unregistering is refused, and says why
    before = ann.lobby_window.status.text()
    ann.lobby_window.select_tournament(tid)
    click(qtbot, ann.lobby_window.unregister_button)
    qtbot.waitUntil(lambda: ann.lobby_window.status.text() != before, timeout=WAIT_MS)
    assert ann.lobby_window.status.text().startswith("ticket_not_refundable: ")
    click(qtbot, ann.lobby_window.tickets_button)  # asked again: still used, still there
    qtbot.waitUntil(lambda: ann.lobby_window.tickets.rowCount() == 1, timeout=WAIT_MS)
    assert ticket_row(ann)[3] == "used" and ann.tournaments[tid].registered
    # a used ticket pays nothing more: "Register with ticket" finds none for another one
    other = sng_id(ann, "deal-sng")
    ann.lobby_window.select_tournament(other)
    click(qtbot, ann.lobby_window.ticket_button)
    assert "no ticket of yours" in ann.lobby_window.status.text()
    ann.refresh_wallet()
    qtbot.waitUntil(lambda: ann.balance == (2_000, "USD"), timeout=WAIT_MS)  # never moved


def test_the_ticket_for_a_tournament_is_its_own_first_and_of_its_price() -> None:
    """`ticket_for`: a usable ticket whose value is the tournament's buy-in plus fee, one
    named for it before one for any of its level; used, expired or other-priced ones never."""
    from pokerroom.client.lobby_model import LobbyModel

    model = LobbyModel()
    model.set_tournaments([
        {"tournament_id": "a", "name": "A", "buy_in": 500, "fee": 50, "status": "registering"},
        {"tournament_id": "b", "name": "B", "buy_in": 900, "fee": 100, "status": "registering"},
    ])  # fmt: skip

    def ticket(tid: str, target: str, state: str = "issued", value: int = 550) -> dict:
        return {"ticket_id": tid, "target": target or None, "any_of_level": not target,
                "value": value, "state": state}  # fmt: skip

    model.set_tickets([ticket("any", ""), ticket("own", "a"), ticket("used", "a", "used")])
    assert model.ticket_for("a")["ticket_id"] == "own"  # type: ignore[index]
    assert model.ticket_for("b") is None  # 550 pays no 1000 entry
    model.set_tickets([ticket("any", "", "returned"), ticket("gone", "", "expired")])
    assert model.ticket_for("a")["ticket_id"] == "any"  # type: ignore[index]
    model.set_tickets([ticket("used", "a", "used"), ticket("other", "b", value=1000)])
    assert model.ticket_for("a") is None and model.ticket_for("b")["ticket_id"] == "other"  # type: ignore[index]
    assert model.ticket_for("nope") is None
