"""Sit down (buy-in, wait for the big blind), sit out / sit in, top up and leave (C-2 ... C-10)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from pokerroom.client.lobby_model import money
from pokerroom.client.table_model import TableModel


class SeatControls(QWidget):
    """Buttons for what a player does with their seat; each emits a signal with its amount."""

    sit = Signal(int, bool)  # buy-in cents, wait for the big blind
    sit_out = Signal()
    sit_in = Signal()
    top_up = Signal(int)
    leave = Signal()
    history = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.amount = QSpinBox()
        self.amount.setToolTip("the buy-in, or the stack a top-up brings you to")
        self.amount.setMinimumWidth(110)
        self.wait_bb = QCheckBox("Wait for big blind")
        self.sit_button = QPushButton("Sit down")
        self.sit_out_button = QPushButton("Sit out")
        self.sit_in_button = QPushButton("Sit in")
        self.top_up_button = QPushButton("Top up")
        self.leave_button = QPushButton("Leave")
        self.history_button = QPushButton("Hand histories")
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        for widget in (
            self.amount,
            self.wait_bb,
            self.sit_button,
            self.top_up_button,
            self.sit_out_button,
            self.sit_in_button,
            self.leave_button,
        ):
            layout.addWidget(widget)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.history_button)
        self.sit_button.clicked.connect(
            lambda: self.sit.emit(self.amount.value(), self.wait_bb.isChecked())
        )
        self.sit_out_button.clicked.connect(self.sit_out.emit)
        self.sit_in_button.clicked.connect(self.sit_in.emit)
        self.top_up_button.clicked.connect(lambda: self.top_up.emit(self.amount.value()))
        self.leave_button.clicked.connect(self.leave.emit)
        self.history_button.clicked.connect(self.history.emit)
        self._range: tuple[int, int] | None = None

    def show_model(self, model: TableModel) -> None:
        """Offer what fits: sitting down when not seated, the rest when seated; at a
        tournament table only sitting out and in."""
        cash = model.tournament_id is None
        mine = model.my_seat
        seated = mine is not None
        if model.buy_in is not None and self._range != model.buy_in:
            self._range = model.buy_in
            self.amount.setRange(model.buy_in[0], model.buy_in[1])
            self.amount.setValue(model.buy_in[1])
            self.amount.setSingleStep(max(1, model.blinds[1]))
            self.amount.setSuffix(" ¢" if model.currency else " chips")
            low, high = (money(v, model.currency) for v in model.buy_in)
            self.amount.setToolTip(f"buy-in {low} – {high} (cents)")
        self.amount.setVisible(cash)
        self.wait_bb.setVisible(cash and not seated)
        self.sit_button.setVisible(cash and not seated)
        self.top_up_button.setVisible(cash and seated)
        self.leave_button.setVisible(cash and seated)
        sitting_out = mine is not None and mine.sitting_out
        self.sit_out_button.setVisible(seated and not sitting_out)  # T-12 at a tournament
        self.sit_in_button.setVisible(seated and sitting_out)

    def say(self, text: str) -> None:
        """Show the outcome of the last seat request (a refusal's code and message)."""
        self.message.setText(text)
