"""The login window: the address and name remembered (QSettings), refusals shown with their
codes (§3), a room that does not answer."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import Room
from tests.client.driver import WAIT_MS, click, register

pytestmark = pytest.mark.slow


def test_the_server_address_and_name_are_remembered(
    qtbot: QtBot, tmp_path: Path, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    first = make_client("dora")
    register(qtbot, first, room.port, "dora")
    again = make_client("dora")  # the same settings file, as after a restart
    login = again.login_window
    assert (login.host.text(), login.port.value(), login.name.text()) == (
        "127.0.0.1", room.port, "dora")  # fmt: skip
    assert login.password.text() == "" and "password" not in (tmp_path / "dora.ini").read_text()


def test_a_wrong_password_and_a_taken_name_are_shown_with_their_codes(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    register(qtbot, make_client("erin"), room.port, "erin")
    other = make_client("other")
    login = other.login_window
    login.port.setValue(room.port)
    login.name.setText("erin")
    login.password.setText("not the password")
    click(qtbot, login.login_button)
    qtbot.waitUntil(lambda: "bad_credentials" in login.message.text(), timeout=WAIT_MS)
    assert login.login_button.isEnabled() and not other.lobby_window.isVisible()
    click(qtbot, login.register_button)
    qtbot.waitUntil(lambda: "name_taken" in login.message.text(), timeout=WAIT_MS)


def test_a_room_that_does_not_answer_is_shown_in_the_login_window(
    qtbot: QtBot, make_client: Callable[[str], ClientApp]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = make_client("fay")
    login = app.login_window
    login.port.setValue(port)
    login.name.setText("fay")
    login.password.setText("password 1")
    click(qtbot, login.login_button)
    qtbot.waitUntil(lambda: "disconnected" in login.message.text(), timeout=WAIT_MS)
    assert "refused" in login.message.text().lower() and login.login_button.isEnabled()
