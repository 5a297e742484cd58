"""C-14 from the client: a connection dropped under it mid-hand is resumed with the token, the
table window keeps its table and the player acts again; a `session_replaced` goodbye is not
resumed (that would take the session back from the newer login)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import Room
from tests.client.driver import (
    WAIT_MS,
    ann_and_bob,
    click,
    register,
    seated,
)

pytestmark = pytest.mark.slow


def test_a_connection_dropped_mid_hand_is_resumed_and_the_table_plays_on(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 5_000)
    windows = seated(qtbot, (ann, bob), "nl-duel", 100)
    window = windows[ann]
    qtbot.waitUntil(lambda: window.model.turn is not None or windows[bob].model.turn is not None,
                    timeout=WAIT_MS)  # fmt: skip
    if window.model.turn is None:  # let bob act first, so that it is ann's turn
        click(qtbot, windows[bob].action_bar.call_button)
        qtbot.waitUntil(lambda: window.model.turn is not None, timeout=WAIT_MS)
    hand, token, snapshots = window.model.hand_id, ann.session.token, window.model.snapshots
    with qtbot.waitSignal(ann.session.resumed, timeout=WAIT_MS):
        ann.session.connection.socket.abort()  # the socket closes under the client
    # the same window, a fresh snapshot of the same hand, our turn again (C-14)
    assert ann.table_windows["nl-duel"] is window and ann.session.token != token
    qtbot.waitUntil(lambda: window.model.snapshots > snapshots, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.model.turn is not None, timeout=WAIT_MS)
    assert window.model.hand_id == hand and window.model.my_seat is not None
    assert window.model.my_seat.cards is not None and len(window.model.my_seat.cards) == 2

    def hand_played_out() -> bool:
        """Check or call for whoever is to act, until the resumed hand is over."""
        for app in (ann, bob):
            bar = windows[app].action_bar
            if windows[app].model.turn is not None and bar.call_button.isEnabled():
                click(qtbot, bar.call_button)
        return all(
            windows[a].model.hand_id != hand or windows[a].model.hand_over for a in (ann, bob)
        )

    qtbot.waitUntil(hand_played_out, timeout=WAIT_MS)
    assert "resumed" in ann.lobby_window.status.text()


def test_a_replaced_session_is_not_resumed(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    first = make_client("first")
    register(qtbot, first, room.port, "cara")
    second = make_client("second")
    login = second.login_window
    login.port.setValue(room.port)
    login.name.setText("cara")
    login.password.setText("password 1")
    with qtbot.waitSignal(first.session.ended, timeout=WAIT_MS):
        click(qtbot, login.login_button)
    qtbot.waitUntil(second.lobby_window.isVisible, timeout=WAIT_MS)
    assert first.login_window.isVisible() and not first.lobby_window.isVisible()
    assert "session_replaced" in first.login_window.message.text()
    assert second.session.online and not first.session.online
