"""A tournament: level, blinds, next break, players left, prize pool and payouts, our table,
results, and a deal proposal to accept or reject (T-6, T-11, T-13)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pokerroom.client.lobby_model import money
from pokerroom.client.tournament_model import TournamentModel
from pokerroom.client.widgets.staking_panel import StakingPanel


def seconds(value: object) -> str:
    """A duration in seconds as m:ss, or — when unknown."""
    if not isinstance(value, int | float):
        return "—"
    whole = int(value)
    return f"{whole // 60}:{whole % 60:02d}"


class TournamentWindow(QWidget):
    """Shows a `TournamentModel`; the app calls `refresh` after each tournament message."""

    show_table = Signal(str)
    ask_deal = Signal(str)
    answer_deal = Signal(str, str, bool)  # tournament id, deal id, accept
    purchase = Signal(str, str)  # tournament id, reenter | rebuy | addon (T-4)

    def __init__(
        self, model: TournamentModel, now_ms: Callable[[], int], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.now_ms = now_ms  # the server's clock: a deal's deadline is on it
        self.setWindowTitle(f"{model.name} — pokerroom")
        self.fields: dict[str, QLabel] = {}
        self.title = QLabel("")
        self.title.setStyleSheet("font-size:18px;font-weight:bold")
        form = QFormLayout()
        for key, label in (
            ("status", "Status"),
            ("level", "Level"),
            ("blinds", "Blinds"),
            ("next_level", "Next level in"),
            ("next_break", "Next break in"),
            ("players", "Players left"),
            ("average", "Average stack"),
            ("pool", "Prize pool"),
            ("bounties", "Bounties"),
            ("table", "Your table"),
        ):
            self.fields[key] = QLabel("—")
            form.addRow(label, self.fields[key])
        self.payouts = QListWidget()
        self.table_button = QPushButton("Show my table")
        self.deal_button = QPushButton("Ask for a deal")
        self.purchase_buttons = {
            kind: QPushButton(label)
            for kind, label in (("reenter", "Re-enter"), ("rebuy", "Rebuy"), ("addon", "Add-on"))
        }
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.deal_box = QGroupBox("Deal proposal")
        self.deal_text = QLabel("")
        self.deal_text.setWordWrap(True)
        self.accept_button = QPushButton("Accept deal")
        self.reject_button = QPushButton("Reject deal")
        deal_buttons = QHBoxLayout()
        deal_buttons.addWidget(self.accept_button)
        deal_buttons.addWidget(self.reject_button)
        deal_layout = QVBoxLayout(self.deal_box)
        deal_layout.addWidget(self.deal_text)
        deal_layout.addLayout(deal_buttons)
        self.log = QListWidget()
        self.staking = StakingPanel()
        left = QVBoxLayout()
        left.addWidget(self.title)
        left.addLayout(form)
        left.addWidget(self.table_button)
        left.addWidget(self.deal_button)
        purchases = QHBoxLayout()
        for kind, button in self.purchase_buttons.items():
            purchases.addWidget(button)
            button.clicked.connect(lambda _=False, k=kind: self._purchase(k))
        left.addLayout(purchases)
        left.addWidget(self.message)
        left.addWidget(self.deal_box)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Payouts</b>"))
        right.addWidget(self.payouts, 1)
        right.addWidget(QLabel("<b>News</b>"))
        right.addWidget(self.log, 1)
        right.addWidget(self.staking)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 1)
        self.resize(900, 640)
        self.table_button.clicked.connect(self._show_table)
        self.deal_button.clicked.connect(lambda: self.ask_deal.emit(self.model.tournament_id))
        self.accept_button.clicked.connect(lambda: self._answer(True))
        self.reject_button.clicked.connect(lambda: self._answer(False))
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self.refresh()

    def _tick(self) -> None:
        if self.model.deal is not None:
            self._show_deal(self.model.deal)

    def _show_deal(self, deal: dict[str, Any]) -> None:
        lines = [f"{fig['player']}: {money(fig['amount'])} ({fig['chips']:,} chips)"
                 for fig in deal["figures"]]  # fmt: skip
        lines.append(f"left to play for: {money(deal['left_to_play_for'])} ({deal['kind']})")
        left = max(0, (deal["deadline_ms"] - self.now_ms()) // 1000)
        lines.append(f"answer within {left} s (silence rejects it)")
        self.deal_text.setText("\n".join(lines))

    def _purchase(self, kind: str) -> None:
        self.purchase.emit(self.model.tournament_id, kind)

    def say(self, text: str) -> None:
        """The outcome of the last request made from this window (a refusal's code)."""
        self.message.setText(text)

    def _show_table(self) -> None:
        if self.model.table is not None:
            self.show_table.emit(self.model.table)

    def _answer(self, accept: bool) -> None:
        deal = self.model.deal
        if deal is not None:
            self.answer_deal.emit(self.model.tournament_id, str(deal["deal_id"]), accept)
            self.accept_button.setEnabled(False)
            self.reject_button.setEnabled(False)

    def refresh(self) -> None:
        """Show the model as it is now."""
        model, status = self.model, self.model.status
        self.setWindowTitle(f"{model.name} — pokerroom")
        summary = model.summary
        title = model.name
        if "buy_in" in summary:
            kind = "Sit & Go" if summary.get("kind") == "sit_and_go" else "MTT"
            title += f"  ·  {kind}  ·  {money(summary['buy_in'])} + {money(summary['fee'])}"
        self.title.setText(title)
        f = self.fields
        f["status"].setText(str(status.get("status") or model.summary.get("status") or "—"))
        f["level"].setText(str(status.get("level", "—")))
        if "big_blind" in status:
            ante = f" ante {status['ante']}" if status.get("ante") else ""
            f["blinds"].setText(f"{status['small_blind']}/{status['big_blind']}{ante}")
        f["next_level"].setText(seconds(status.get("next_level_in")))
        f["next_break"].setText(
            "on break" if status.get("on_break") else seconds(status.get("next_break_in"))
        )
        if "players_left" in status:
            f["players"].setText(f"{status['players_left']} of {status['entries']}")
            f["average"].setText(f"{status['average_stack']:,}")
            f["pool"].setText(money(status["prize_pool"]))
        if status.get("bounty_format"):
            f["bounties"].setText(
                f"{status['bounty_format']}: {money(status.get('bounties_in_play', 0))} in play"
            )
        f["table"].setText(model.table or "—")
        self.table_button.setEnabled(model.table is not None)
        self.payouts.clear()
        for place, amount in model.payouts():
            self.payouts.addItem(f"{place}. {money(amount)}")
        if model.results is not None:
            for place in model.results["results"]:
                self.payouts.addItem(
                    f"{place['place']}. {place['player']} — {money(place['prize'])}"
                )
        deal = model.deal
        self.deal_box.setVisible(deal is not None)
        if deal is not None:
            self._show_deal(deal)
            open_ = model.me in [fig["player"] for fig in deal["figures"]]
            self.accept_button.setEnabled(open_ and self.accept_button.isEnabled())
            self.reject_button.setEnabled(open_ and self.reject_button.isEnabled())
        else:
            self.accept_button.setEnabled(True)
            self.reject_button.setEnabled(True)
        self.log.clear()
        self.log.addItems(model.log[-50:])
