"""Our finished hands at a table (`hand_histories`), newest first, as the room keeps them (PHH
text) or as PokerStars text that trackers import, which the player can save to a file; other
players' cards only where they were shown down (C-15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

#: The formats offered: the label shown and the protocol's `format` (docs/HISTORIES.md).
FORMATS = (("PHH", "phh"), ("PokerStars", "pokerstars"))


class HistoryDialog(QDialog):
    """Shows pages of hand histories; `older` asks for the page after the cursor given,
    `restart` for the newest page again (the format changed)."""

    older = Signal(str)
    restart = Signal()

    def __init__(self, table_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Hand histories — {table_id}")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.status = QLabel("asking the room …")
        self.older_button = QPushButton("Older hands")
        self.older_button.setEnabled(False)
        self.format_box = QComboBox()
        for label, _ in FORMATS:
            self.format_box.addItem(label)
        self.save_button = QPushButton("Save…")
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.format_box)
        bar.addWidget(self.save_button)
        bar.addWidget(self.older_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addLayout(bar)
        self.resize(720, 560)
        self._next: str | None = None
        self.older_button.clicked.connect(self._older)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.save_button.clicked.connect(self._ask_where)

    def format(self) -> str:
        """The protocol's `format` of the pages asked for (`phh` or `pokerstars`)."""
        return FORMATS[self.format_box.currentIndex()][1]

    def _format_changed(self) -> None:
        self.text.clear()
        self._next = None
        self.older_button.setEnabled(False)
        self.status.setText("asking the room …")
        self.restart.emit()

    def _ask_where(self) -> None:
        suffix = "txt" if self.format() == "pokerstars" else "phh"
        path, _ = QFileDialog.getSaveFileName(self, "Save hand histories", f"hands.{suffix}")
        if path:
            self.save(Path(path))

    def save(self, path: Path) -> None:
        """Write the hands shown (every page asked for so far) to `path`, one empty line
        between hands: a file a tracker imports when the format is PokerStars."""
        try:
            path.write_text(self.text.toPlainText() + "\n", encoding="utf-8")
        except OSError as error:
            self.status.setText(f"not saved: {error.strerror or error}")
            return
        self.status.setText(f"saved to {path}")

    def _older(self) -> None:
        if self._next is not None:
            self.older_button.setEnabled(False)
            self.older.emit(self._next)

    def show_page(self, answer: dict[str, Any]) -> None:
        """Add a page of the `hand_histories` answer (or show its refusal)."""
        if answer["type"] != "ok":
            self.status.setText(f"{answer.get('code')}: {answer.get('message', '')}")
            return
        result = answer["result"]
        hands: list[str] = result["hands"]
        if hands:
            shown = self.text.toPlainText()
            self.text.setPlainText((shown + "\n\n" if shown else "") + "\n\n".join(hands))
        self._next = result.get("next")
        self.older_button.setEnabled(self._next is not None)
        self.status.setText("newest first" if self.text.toPlainText() else "no finished hands yet")
