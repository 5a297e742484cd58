"""Two client windows register, deposit, sit at one table and play hands to a showdown by
clicking buttons, against a real `pokerroom serve` (C-1, C-6, C-14, C-15)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from pokerroom.client.table_model import TableModel
from tests.client.conftest import Room
from tests.client.driver import WAIT_MS, click, deposit, open_table, register, sit

pytestmark = pytest.mark.slow


def test_two_windows_play_hands_to_a_showdown_by_clicking(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    """Register and deposit from the lobby, open the same table, sit, then click check/call
    until a hand is shown down: each window shows the other's cards only once shown (C-15),
    and the chips shown add up to the buy-ins less the rake."""
    ann, bob = make_client("ann"), make_client("bob")
    for app, name in ((ann, "ann"), (bob, "bob")):
        register(qtbot, app, room.port, name)
        deposit(qtbot, app, 10_000)
    assert ann.session.table_cap == 8  # C-1: the desktop cap from `hello`
    tables = {app: open_table(qtbot, app, "nl-duel") for app in (ann, bob)}
    for app in (ann, bob):
        sit(qtbot, tables[app], 200)
    qtbot.waitUntil(lambda: ann.balance is not None and ann.balance[0] == 9_800, timeout=WAIT_MS)

    peeked: list[str] = []

    def shown_down() -> bool:
        """Click for whoever is to act; true once a showdown has been seen by both."""
        for app in (ann, bob):
            model = tables[app].model
            other = next(s for s in model.seats.values() if s.player != app.me)
            if other.cards is not None and not model.hand_over and not showdown(model):
                peeked.append(f"{app.me} saw {other.cards} before a showdown")
            if model.turn is not None and tables[app].action_bar.call_button.isEnabled():
                click(qtbot, tables[app].action_bar.call_button)
        return all(any(" shows " in line for line in tables[a].model.log) for a in (ann, bob))

    qtbot.waitUntil(shown_down, timeout=60_000)
    assert peeked == []
    for app in (ann, bob):
        model = tables[app].model
        qtbot.waitUntil(lambda m=model: m.hand_over, timeout=WAIT_MS)
        other = next(s for s in model.seats.values() if s.player != app.me)
        assert other.cards is not None and len(other.cards) == 2  # shown down
        assert model.my_seat is not None and model.my_seat.cards is not None
        assert len(model.board) == 5
        assert model.results  # the pot line
    stacks = [s.stack for s in tables[ann].model.seats.values()]
    assert 380 <= sum(stacks) <= 400  # the buy-ins, less at most the rake


def showdown(model: TableModel) -> bool:
    """Whether the running hand has come to a showdown (a `hand_shown` in its log)."""
    start = max(i for i, line in enumerate(model.log) if line.startswith("— hand"))
    return any(" shows " in line for line in model.log[start:])
