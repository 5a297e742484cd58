"""The pictures of docs/CLIENT.md cannot rot: the script that makes them runs here."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from pokerroom.client import screenshots


def test_the_script_renders_the_lobby_a_table_and_a_tournament(
    qtbot: QtBot, tmp_path: Path
) -> None:
    written = screenshots.render(tmp_path)
    names = ["lobby.png", "lobby-tournaments.png", "table.png", "tournament.png"]
    assert [p.name for p in written] == names
    for path in written:
        image = QImage(str(path))
        assert (image.width(), image.height()) == screenshots.SIZES[path.stem], path
    table = QImage(str(tmp_path / "table.png"))
    colours = {table.pixel(x, y) for x in range(0, 1000, 25) for y in range(0, 600, 25)}
    assert len(colours) > 10  # drawn, not a blank window


def test_the_table_picture_is_mid_hand_with_our_turn_and_a_preset_chosen(qtbot: QtBot) -> None:
    """The picture shows what it says: our cards face up, the others' backs, a bet, a
    refused chat line and the ½-pot preset within min_raise_to..max_raise_to."""
    window = screenshots.table(screenshots.ClientSession())
    qtbot.addWidget(window)
    model = window.model
    assert model.turn is not None and model.my_seat is not None
    assert model.my_seat.cards == ["Ah", "Qh"]
    assert model.seats[2].cards is None and model.seats[2].in_hand  # backs (C-15)
    assert model.pot == 72 and model.seats[2].bet == 30
    assert window.action_bar.amount.value() == 81  # call 30, then half of 72 + 30
    assert window.action_bar.raise_button.text().startswith("Raise to $0.81")
    assert "chat_advertising" in window.chat.text()
