"""Our finished hands at a table, as the room keeps them (PHH text, `hand_histories`), newest
first; other players' cards only where they were shown down (C-15)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class HistoryDialog(QDialog):
    """Shows pages of hand histories; `older` asks for the page after the cursor given."""

    older = Signal(str)

    def __init__(self, table_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Hand histories — {table_id}")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.status = QLabel("asking the room …")
        self.older_button = QPushButton("Older hands")
        self.older_button.setEnabled(False)
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.older_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addLayout(bar)
        self.resize(720, 560)
        self._next: str | None = None
        self.older_button.clicked.connect(self._older)

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
