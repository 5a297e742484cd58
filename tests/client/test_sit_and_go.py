"""A 2-player sit-and-go registered from the lobby and played to the end by clicking (T-1,
T-2, T-7, T-8): the table window opens by itself, the tournament window shows the results and
the winner's wallet has the prize."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import Room
from tests.client.driver import WAIT_MS, ann_and_bob, click

pytestmark = pytest.mark.slow


def sng_id(app: ClientApp, name: str = "duel-sng") -> str:
    """The open sit-and-go of that name in the lobby."""
    return next(t["tournament_id"] for t in app.lobby.tournament_rows()
                if t["name"] == name and t["status"] == "registering")  # fmt: skip


def test_a_sit_and_go_registered_and_played_to_the_end_from_the_client(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 2_000)
    qtbot.waitUntil(lambda: bool(ann.lobby.tournaments), timeout=WAIT_MS)
    tid = sng_id(ann)
    for app in (ann, bob):
        app.lobby_window.select_tournament(tid)
        click(qtbot, app.lobby_window.register_button)
        qtbot.waitUntil(lambda a=app: tid in a.tournament_windows, timeout=WAIT_MS)
        for window in app.tournament_windows.values():
            qtbot.addWidget(window)
    # full: it starts, and each player's table window opens by itself (T-10 seat, C-14 snapshot)
    qtbot.waitUntil(lambda: all(a.tournaments[tid].table in a.table_windows for a in (ann, bob)),
                    timeout=WAIT_MS)  # fmt: skip
    assert ann.balance is not None and ann.balance[0] == 2_000 - 550  # buy-in + fee (T-2)
    assert ann.tournament_windows[tid].fields["status"].text() == "running"
    click(qtbot, ann.tournament_windows[tid].purchase_buttons["rebuy"])  # a freezeout: refused
    qtbot.waitUntil(lambda: "not_allowed" in ann.tournament_windows[tid].message.text(),
                    timeout=WAIT_MS)  # fmt: skip
    table = bob.table_windows[bob.tournaments[tid].table or ""]
    click(qtbot, table.seat_controls.sit_out_button)  # T-12: sitting out, still dealt in
    qtbot.waitUntil(lambda: table.model.my_seat.sitting_out, timeout=WAIT_MS)  # type: ignore[union-attr]
    click(qtbot, table.seat_controls.sit_in_button)
    qtbot.waitUntil(lambda: not table.model.my_seat.sitting_out, timeout=WAIT_MS)  # type: ignore[union-attr]

    def over() -> bool:
        """Shove (all-in preset, then raise) or call, until both have the results."""
        for app in (ann, bob):
            table = app.tournaments[tid].table
            window = app.table_windows.get(table) if table else None
            if window is None or window.model.turn is None:
                continue
            bar = window.action_bar
            if bar.raise_button.isEnabled():
                click(qtbot, bar.preset_buttons["all-in"])
                click(qtbot, bar.raise_button)
            elif bar.call_button.isEnabled():
                click(qtbot, bar.call_button)
        return all(a.tournaments[tid].results is not None for a in (ann, bob))

    qtbot.waitUntil(over, timeout=120_000)
    places = {p["player"]: p for p in ann.tournaments[tid].results["results"]}  # type: ignore[index]
    assert sorted(p["place"] for p in places.values()) == [1, 2]
    winner = next(name for name, p in places.items() if p["place"] == 1)
    prize = places[winner]["prize"]
    assert prize == 1_000  # the whole pool: two buy-ins (T-6, T-7)
    apps = {"ann": ann, "bob": bob}
    for name, app in apps.items():
        finish = app.tournaments[tid].finish
        assert finish is not None and finish["place"] == places[name]["place"]
        expected = 2_000 - 550 + (prize if name == winner else 0)
        qtbot.waitUntil(lambda a=app, e=expected: a.balance == (e, "USD"), timeout=WAIT_MS)
    shown = ann.tournament_windows[tid]
    shown.refresh()
    rows = [shown.payouts.item(i).text() for i in range(shown.payouts.count())]
    assert any(winner in row and "$10" in row for row in rows), rows


def test_a_deal_asked_for_proposed_and_accepted_from_the_tournament_window(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    """T-13 heads-up: both click Ask for a deal, the hand is played out, the proposal shows in
    both tournament windows, both click Accept: the deal is made and paid, the tournament ends."""
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 2_000)
    qtbot.waitUntil(lambda: bool(ann.lobby.tournaments), timeout=WAIT_MS)
    tid = sng_id(ann, "deal-sng")
    for app in (ann, bob):
        app.lobby_window.select_tournament(tid)
        click(qtbot, app.lobby_window.register_button)
        qtbot.waitUntil(lambda a=app: tid in a.tournament_windows, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: all(a.tournaments[tid].table in a.table_windows for a in (ann, bob)),
                    timeout=WAIT_MS)  # fmt: skip
    windows = {app: app.tournament_windows[tid] for app in (ann, bob)}
    for window in windows.values():
        qtbot.addWidget(window)
        assert not window.deal_box.isVisible()
        click(qtbot, window.deal_button)

    def proposed() -> bool:
        """Fold for whoever is to act until the tables stop and the proposal comes."""
        for app in (ann, bob):
            table = app.table_windows.get(app.tournaments[tid].table or "")
            if table is not None and table.model.turn is not None:
                bar = table.action_bar
                click(qtbot, bar.fold_button if bar.fold_button.isEnabled() else bar.call_button)
        return all(a.tournaments[tid].deal is not None for a in (ann, bob))

    qtbot.waitUntil(proposed, timeout=60_000)
    for window in windows.values():
        assert window.deal_box.isVisible() and "ann: $" in window.deal_text.text()
        assert re.search(r"answer within (\d+) s", window.deal_text.text())
        click(qtbot, window.accept_button)
    qtbot.waitUntil(lambda: all(a.tournaments[tid].results is not None for a in (ann, bob)),
                    timeout=WAIT_MS)  # fmt: skip
    result = ann.tournaments[tid].deal_result
    assert result is not None and result["outcome"] == "made"
    paid = {f["player"]: f["amount"] for f in result["figures"]}
    assert sum(paid.values()) == 1_000  # the whole pool, shared by the deal
    for name, app in (("ann", ann), ("bob", bob)):
        expected = 2_000 - 550 + paid[name]
        qtbot.waitUntil(lambda a=app, e=expected: a.balance == (e, "USD"), timeout=WAIT_MS)
    assert not windows[ann].deal_box.isVisible() and "deal made" in "\n".join(
        ann.tournaments[tid].log
    )
