"""Staking (T-17) in a tournament window: sell shares of our action before the start, buy from
the offers of others, and see our stakes with what each holding brought."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pokerroom.client.lobby_model import money


def percent(bps: int) -> str:
    """Basis points as a percentage: 2500 -> 25%, 1250 -> 12.5%."""
    return f"{bps / 100:g}%"


def stake_price(buy_in: int, share_bps: int, markup_bps: int) -> int:
    """What a share costs (§9): buy_in × share × markup / 10,000², rounded down to the cent."""
    return buy_in * share_bps * markup_bps // 100_000_000


class StakingPanel(QGroupBox):
    """Emits `offer(share_bps, markup_bps)`, `refresh()` and `buy(offer_id, share_bps)`."""

    offer = Signal(int, int)
    refresh = Signal()
    buy = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Staking", parent)
        self.share = QDoubleSpinBox()
        self.share.setRange(0.01, 100.0)
        self.share.setValue(25.0)
        self.share.setSuffix(" %")
        self.markup = QDoubleSpinBox()
        self.markup.setRange(1.0, 1.2)
        self.markup.setSingleStep(0.05)
        self.markup.setDecimals(2)
        self.markup.setPrefix("markup ")
        self.offer_button = QPushButton("Sell this share")
        self.refresh_button = QPushButton("Offers and my stakes")
        self.buy_button = QPushButton("Buy this share")
        self.offers = QListWidget()
        self.offers.setMaximumHeight(90)
        self.stakes = QLabel("")
        self.stakes.setWordWrap(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        amounts = QHBoxLayout()
        amounts.addWidget(self.share)
        amounts.addWidget(self.markup)
        buttons = QHBoxLayout()
        buttons.addWidget(self.offer_button)
        buttons.addWidget(self.buy_button)
        buttons.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addLayout(amounts)
        layout.addLayout(buttons)
        layout.addWidget(self.offers)
        layout.addWidget(self.stakes)
        layout.addWidget(self.message)
        self.offer_button.clicked.connect(
            lambda: self.offer.emit(
                self._bps(self.share.value()), self._bps(self.markup.value() * 100)
            )
        )
        self.refresh_button.clicked.connect(self.refresh.emit)
        self.buy_button.clicked.connect(self._buy)

    @staticmethod
    def _bps(value: float) -> int:
        return round(value * 100)

    def _buy(self) -> None:
        item = self.offers.currentItem()
        if item is not None:
            self.buy.emit(str(item.data(Qt.ItemDataRole.UserRole)), self._bps(self.share.value()))

    def select_offer(self, seller: str) -> None:
        """Select the first offer of this seller."""
        for row in range(self.offers.count()):
            item = self.offers.item(row)
            if item.text().startswith(seller + ":"):
                self.offers.setCurrentItem(item)
                return

    def show_offers(self, result: dict[str, Any]) -> None:
        """The answer to `stake_offers`: what is left to buy and its price (selection kept)."""
        current = self.offers.currentItem()
        chosen = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self.offers.clear()
        for offer in result["offers"]:
            whole = stake_price(result["buy_in"], offer["left_bps"], offer["markup_bps"])
            markup = offer["markup_bps"] / 10_000
            text = (f"{offer['seller']}: {percent(offer['left_bps'])} left at markup "
                    f"{markup:.2f} ({money(whole)} for all of it)")  # fmt: skip
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, offer["offer_id"])
            self.offers.addItem(item)
            if offer["offer_id"] == chosen:
                self.offers.setCurrentItem(item)

    def show_stakes(self, result: dict[str, Any]) -> None:
        """The answer to `my_stakes`: shares sold and bought, and what each brought."""
        lines = [f"sold {percent(s['share_bps'])} to {s['buyer']} for {money(s['price'])} "
                 f"({s['status']})" for s in result["sold"]]  # fmt: skip
        lines += [f"bought {percent(s['share_bps'])} of {s['seller']} for {money(s['price'])} "
                  f"({s['status']})" for s in result["bought"]]  # fmt: skip
        lines += [f"{r['seller']} → {r['buyer']}: received {money(r['received'])}"
                  for r in result["results"] if r["received"]]  # fmt: skip
        self.stakes.setText("\n".join(lines) or "no stakes")

    def say(self, text: str) -> None:
        """The outcome of the last staking request."""
        self.message.setText(text)
