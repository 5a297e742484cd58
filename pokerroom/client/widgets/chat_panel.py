"""A table's chat: the lines, ours refused shown with the rule's reason (C-13), and a line
to type into."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QTextEdit, QVBoxLayout, QWidget

from pokerroom.client.table_model import ChatEntry


class ChatPanel(QWidget):
    """Emits `send(text)` when the player presses Enter in the line."""

    send = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = QTextEdit()
        self.view.setReadOnly(True)
        self.line = QLineEdit()
        self.line.setPlaceholderText("Chat (Enter to send)")
        self.line.setMaxLength(2000)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.line)
        self.line.returnPressed.connect(self._send)
        self._shown = -1

    def _send(self) -> None:
        text = self.line.text()
        if text.strip():
            self.send.emit(text)
            self.line.clear()

    def show_lines(self, lines: list[ChatEntry], log: list[str]) -> None:
        """Show the chat lines, then the table's hand log under them (only when changed)."""
        key = hash((len(lines), lines[-1] if lines else None, len(log), log[-1] if log else ""))
        if key == self._shown:
            return
        self._shown = key
        parts = []
        for entry in lines:
            text = html.escape(entry.text)
            if entry.error:
                parts.append(
                    f'<span style="color:#c62828">✗ {text} — {html.escape(entry.error)}</span>'
                )
            else:
                parts.append(f"<b>{html.escape(entry.player)}</b>: {text}")
        parts.extend(f'<span style="color:#666">{html.escape(line)}</span>' for line in log[-30:])
        self.view.setHtml("<br>".join(parts))
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def text(self) -> str:
        """The whole chat as plain text (for tests and people copying it)."""
        return self.view.toPlainText()
