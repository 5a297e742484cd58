"""Fold / check-call / bet-raise buttons with amounts, a bet slider with ⅓, ½, pot and all-in
presets kept within `min_raise_to`..`max_raise_to`, and our action clock and time bank."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from pokerroom.client.lobby_model import money
from pokerroom.client.table_model import Clock, TableModel

#: Keys (docs/CLIENT.md): F fold, C check/call, R bet/raise, 1-4 presets, Up/Down a big blind.
PRESET_KEYS = ("1", "2", "3", "4")
#: The clock bar's longest span (a turn is never longer; the bar is a QProgressBar of int).
CLOCK_MAX_MS = 600_000


class ActionBar(QWidget):
    """Emits `act(action, amount)`: the amount is the bet/raise "to" total, else None."""

    act = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model: TableModel | None = None
        self.fold_button = QPushButton("Fold  [F]")
        self.call_button = QPushButton("Check  [C]")
        self.raise_button = QPushButton("Raise  [R]")
        for button in (self.fold_button, self.call_button, self.raise_button):
            button.setMinimumHeight(40)
            button.setMinimumWidth(130)
        self.fold_button.setStyleSheet("background:#7a2626;color:white;font-weight:bold")
        self.call_button.setStyleSheet("background:#2b5d8a;color:white;font-weight:bold")
        self.raise_button.setStyleSheet("background:#2f7a3c;color:white;font-weight:bold")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.amount = QSpinBox()
        self.amount.setMinimumWidth(100)
        self.preset_buttons: dict[str, QPushButton] = {}
        self.clock_label = QLabel("")
        self.clock_bar = QProgressBar()
        self.clock_bar.setTextVisible(False)
        self.clock_bar.setMaximumHeight(8)

        presets = QHBoxLayout()
        for key, name in zip(PRESET_KEYS, ("⅓ pot", "½ pot", "pot", "all-in"), strict=True):
            button = QPushButton(f"{name} [{key}]")
            button.clicked.connect(lambda _=False, n=name: self.use_preset(n))
            self.preset_buttons[name] = button
            presets.addWidget(button)
        sizing = QHBoxLayout()
        sizing.addWidget(self.slider, 1)
        sizing.addWidget(self.amount)
        buttons = QHBoxLayout()
        buttons.addWidget(self.fold_button)
        buttons.addWidget(self.call_button)
        buttons.addWidget(self.raise_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.clock_label)
        layout.addWidget(self.clock_bar)
        layout.addLayout(presets)
        layout.addLayout(sizing)
        layout.addLayout(buttons)

        self.slider.valueChanged.connect(self.amount.setValue)
        self.amount.valueChanged.connect(self._amount_changed)
        self.fold_button.clicked.connect(self.fold)
        self.call_button.clicked.connect(self.check_or_call)
        self.raise_button.clicked.connect(self.bet_or_raise)
        self.show_turn(None)

    def _amount_changed(self, value: int) -> None:
        if self.slider.value() != value:
            self.slider.setValue(value)
        self._label_raise()

    def _label_raise(self) -> None:
        turn = self.model.turn if self.model is not None else None
        if turn is None or turn.legal.min_raise_to is None:
            self.raise_button.setText("Raise  [R]")
            return
        verb = "Raise to" if turn.legal.call > 0 or self._facing_bet() else "Bet"
        self.raise_button.setText(f"{verb} {self._money(self.amount.value())}  [R]")

    def _facing_bet(self) -> bool:
        model = self.model
        return model is not None and any(s.bet > 0 for s in model.seats.values())

    def _money(self, value: int) -> str:
        return money(value, self.model.currency if self.model is not None else None)

    def show_turn(self, model: TableModel | None) -> None:
        """Enable what the `action_request` allows (all off when it is not our turn)."""
        self.model = model
        turn = model.turn if model is not None else None
        legal = turn.legal if turn is not None else None
        self.fold_button.setEnabled(legal is not None and legal.fold)
        self.call_button.setEnabled(legal is not None)
        if legal is not None and not legal.check and legal.call > 0:
            self.call_button.setText(f"Call {self._money(legal.call)}  [C]")
        else:
            self.call_button.setText("Check  [C]")
        can_raise = legal is not None and legal.min_raise_to is not None
        for widget in (self.raise_button, self.slider, self.amount, *self.preset_buttons.values()):
            widget.setEnabled(can_raise)
        if legal is not None and legal.min_raise_to is not None and legal.max_raise_to is not None:
            for widget in (self.slider, self.amount):
                widget.blockSignals(True)
                widget.setRange(legal.min_raise_to, legal.max_raise_to)
                widget.setValue(legal.min_raise_to)
                widget.blockSignals(False)
            self.amount.setSuffix(" ¢" if model is not None and model.currency else "")
            big_blind = model.blinds[1] if model is not None else 1
            self.slider.setPageStep(max(1, big_blind))
            self.amount.setSingleStep(max(1, big_blind))
        self._label_raise()
        self.clock_bar.setMaximum(1)  # grows to the first value of this turn
        if turn is None:
            self.show_clock(None)

    def show_clock(self, clock: Clock | None) -> None:
        """Seconds left on the action clock, then on the time bank (C-6, C-7)."""
        if clock is None:
            self.clock_label.setText("")
            self.clock_bar.setValue(0)
            return
        if clock.action_ms > 0:
            self.clock_label.setText(
                f"Your turn: {clock.action_ms / 1000:.1f} s  ·  "
                f"time bank {clock.timebank_ms / 1000:.0f} s"
            )
        else:
            self.clock_label.setText(f"Time bank: {clock.timebank_ms / 1000:.1f} s left")
        left = min(clock.action_ms or clock.timebank_ms, CLOCK_MAX_MS)
        self.clock_bar.setMaximum(max(self.clock_bar.maximum(), left, 1))
        self.clock_bar.setValue(left)

    def use_preset(self, name: str) -> None:
        """Set the amount to a preset size (⅓ pot, ½ pot, pot, all-in)."""
        if self.model is None:
            return
        amount = self.model.presets().get(name)
        if amount is not None:
            self.amount.setValue(amount)

    def nudge(self, steps: int) -> None:
        """Move the amount by whole big blinds (Up/Down keys)."""
        self.amount.setValue(self.amount.value() + steps * self.amount.singleStep())

    def fold(self) -> None:
        """Fold, when allowed."""
        if self.fold_button.isEnabled():
            self.act.emit("fold", None)

    def check_or_call(self) -> None:
        """Check, or call the amount shown."""
        turn = self.model.turn if self.model is not None else None
        if turn is None:
            return
        self.act.emit("check" if turn.legal.check else "call", None)

    def bet_or_raise(self) -> None:
        """Bet or raise to the amount chosen (the server names it by the situation)."""
        if self.raise_button.isEnabled():
            self.act.emit("raise", self.amount.value())
