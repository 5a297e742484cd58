"""Driving client windows as a person would: typing into fields and clicking buttons."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.exceptions import TimeoutError as WaitTimeout
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from pokerroom.client.widgets.table_window import TableWindow

WAIT_MS = 20_000


def click(qtbot: QtBot, button: QPushButton) -> None:
    """A left click on an enabled, visible button."""
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def client(qtbot: QtBot, folder: Path, name: str, made: list[ClientApp]) -> ClientApp:
    """A client whose settings live in `folder` (never the user's own)."""
    settings = QSettings(str(folder / f"{name}.ini"), QSettings.Format.IniFormat)
    app = ClientApp(settings)
    app.start()
    made.append(app)
    for window in (app.login_window, app.lobby_window):
        qtbot.addWidget(window)
    return app


def register(qtbot: QtBot, app: ClientApp, port: int, name: str) -> None:
    """Fill the login window and click Register; wait for the lobby."""
    login = app.login_window
    login.host.setText("127.0.0.1")
    login.port.setValue(port)
    login.name.setText(name)
    login.password.setText("password 1")
    click(qtbot, login.register_button)
    qtbot.waitUntil(
        lambda: app.lobby_window.isVisible() and bool(app.lobby.tables), timeout=WAIT_MS
    )


def deposit(qtbot: QtBot, app: ClientApp, cents: int) -> None:
    """Deposit from the lobby (a development room) and wait for the wallet to show it."""
    app.lobby_window.deposit_amount.setValue(cents)
    click(qtbot, app.lobby_window.deposit_button)
    qtbot.waitUntil(lambda: app.balance is not None and app.balance[0] == cents, timeout=WAIT_MS)


def open_table(qtbot: QtBot, app: ClientApp, table_id: str) -> TableWindow:
    """Select a table in the lobby, click Open: its window."""
    app.lobby_window.select_table(table_id)
    click(qtbot, app.lobby_window.open_button)
    qtbot.waitUntil(lambda: table_id in app.table_windows, timeout=WAIT_MS)
    window = app.table_windows[table_id]
    qtbot.addWidget(window)
    return window


def sit(qtbot: QtBot, window: TableWindow, buy_in: int) -> None:
    """Choose the buy-in and click Sit down; wait for our seat."""
    window.seat_controls.amount.setValue(buy_in)
    click(qtbot, window.seat_controls.sit_button)
    try:
        qtbot.waitUntil(lambda: window.model.my_seat is not None, timeout=WAIT_MS)
    except WaitTimeout as exc:  # say what the room answered
        raise AssertionError(f"not seated: {window.seat_controls.message.text()}") from exc


def ann_and_bob(
    qtbot: QtBot, make_client: Callable[[str], ClientApp], port: int, cents: int
) -> tuple[ClientApp, ClientApp]:
    """Clients `ann` and `bob`, each registered at the room on `port` with `cents` deposited."""
    ann, bob = make_client("ann"), make_client("bob")
    for app, name in ((ann, "ann"), (bob, "bob")):
        register(qtbot, app, port, name)
        deposit(qtbot, app, cents)
    return ann, bob


def seated(
    qtbot: QtBot, apps: Iterable[ClientApp], table_id: str, buy_in: int
) -> dict[ClientApp, TableWindow]:
    """Each client opens the table, then each sits down with `buy_in`: their windows."""
    windows = {app: open_table(qtbot, app, table_id) for app in apps}
    for window in windows.values():
        sit(qtbot, window, buy_in)
    return windows
