"""The table drawn from a `TableModel`: seats with names, stacks, bets and cards, the button,
the board and the pot. Our own seat is at the bottom; cards are drawn (card_painter)."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPaintEvent, QPen, QRadialGradient
from PySide6.QtWidgets import QSizePolicy, QWidget

from pokerroom.client.lobby_model import money
from pokerroom.client.table_model import SeatState, TableModel
from pokerroom.client.widgets.card_painter import paint_button, paint_card

CARD_W, CARD_H = 42.0, 60.0
BOX_W, BOX_H = 132.0, 50.0


class TableFelt(QWidget):
    """Paints one table; call `update()` after the model changes."""

    def __init__(
        self, model: TableModel, now_ms: Callable[[], int], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.now_ms = now_ms
        self.setMinimumSize(640, 400)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        """Room for nine seats around an oval."""
        return QSize(860, 480)

    def amount(self, value: int) -> str:
        """Money at a cash table, chips at a tournament table."""
        return money(value, self.model.currency)

    def seat_centre(self, seat: int) -> QPointF:
        """Where a seat's box sits: round the oval, our own seat at the bottom."""
        model = self.model
        mine = model.my_seat
        offset = mine.seat if mine is not None else 0
        slot = (seat - offset) % max(1, model.max_seats)
        angle = math.pi / 2 + 2 * math.pi * slot / max(1, model.max_seats)
        w, h = self.width(), self.height()
        return QPointF(
            w / 2 + (w / 2 - BOX_W / 2 - 6) * math.cos(angle),
            h / 2 + (h / 2 - BOX_H / 2 - 40) * math.sin(angle),
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        """Felt, board, pot, then every seat."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = float(self.width()), float(self.height())
        painter.fillRect(self.rect(), QColor("#1d2229"))
        oval = QRectF(70, 50, w - 140, h - 100)
        gradient = QRadialGradient(oval.center(), max(oval.width(), oval.height()) / 2)
        gradient.setColorAt(0, QColor("#2f8a4c"))
        gradient.setColorAt(1, QColor("#1d5e33"))
        painter.setPen(QPen(QColor("#6b4423"), 14))
        painter.setBrush(QBrush(gradient))
        painter.drawEllipse(oval)
        self._paint_middle(painter, oval)
        for held in self.model.seats.values():
            self._paint_seat(painter, held)
        painter.end()

    def _paint_middle(self, painter: QPainter, oval: QRectF) -> None:
        model = self.model
        centre = oval.center()
        board = model.board
        gap = 6.0
        left = centre.x() - (5 * CARD_W + 4 * gap) / 2
        top = centre.y() - CARD_H / 2 - 10
        for i in range(5):
            rect = QRectF(left + i * (CARD_W + gap), top, CARD_W, CARD_H)
            if i < len(board):
                paint_card(painter, rect, board[i])
            else:
                painter.setPen(QPen(QColor(255, 255, 255, 50), 1, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(rect, 5, 5)
        font = QFont()
        font.setPixelSize(15)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#f5f0c8"))
        text = f"Pot {self.amount(model.pot)}" if model.pot else ""
        if model.results and model.hand_over:
            text = " · ".join(model.results)
        painter.drawText(
            QRectF(oval.left(), top + CARD_H + 6, oval.width(), 22),
            Qt.AlignmentFlag.AlignCenter,
            text,
        )
        font.setPixelSize(12)
        font.setBold(False)
        painter.setFont(font)
        painter.setPen(QColor("#cfe8d5"))
        ante = f" ante {self.amount(model.ante)}" if model.ante else ""
        blinds = f"{self.amount(model.blinds[0])}/{self.amount(model.blinds[1])}{ante}"
        caption = f"{model.table_id} · {blinds}"
        if model.status:
            caption += " · " + model.status
        painter.drawText(
            QRectF(oval.left(), top - 26, oval.width(), 18), Qt.AlignmentFlag.AlignCenter, caption
        )

    def _paint_seat(self, painter: QPainter, held: SeatState) -> None:
        model = self.model
        centre = self.seat_centre(held.seat)
        box = QRectF(centre.x() - BOX_W / 2, centre.y() - BOX_H / 2, BOX_W, BOX_H)
        towards = QPointF(self.width() / 2 - centre.x(), self.height() / 2 - centre.y())
        length = math.hypot(towards.x(), towards.y()) or 1.0
        unit = QPointF(towards.x() / length, towards.y() / length)
        # hole cards, above the box (toward the middle for the top seats)
        if held.in_hand and not held.folded:
            count = 4 if model.variant == "PO" else 2
            cards: list[str | None] = list(held.cards) if held.cards else [None] * count
            small = 0.75 if len(cards) > 2 else 1.0
            cw, ch = CARD_W * small, CARD_H * small
            width = len(cards) * (cw + 3) - 3
            y = box.top() - ch - 2 if unit.y() <= 0.2 else box.bottom() + 2
            for i, card in enumerate(cards):
                paint_card(painter, QRectF(centre.x() - width / 2 + i * (cw + 3), y, cw, ch), card)
        acting = model.actor == held.seat and not model.hand_over
        border = QColor("#ffd34d") if acting else QColor("#7a8694")
        painter.setPen(QPen(border, 3 if acting else 1))
        fill = QColor("#2b3440") if not held.folded else QColor("#23272d")
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(box, 8, 8)
        font = QFont()
        font.setPixelSize(14)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#ffffff") if held.player != model.me else QColor("#ffe58a"))
        name = held.player + (" ⚡" if held.disconnected else "")
        painter.drawText(box.adjusted(6, 3, -6, -26), Qt.AlignmentFlag.AlignCenter, name)
        font.setBold(False)
        font.setPixelSize(13)
        painter.setFont(font)
        painter.setPen(QColor("#9fe0a8"))
        status = self.amount(held.stack)
        if held.bounty:
            status += f" · bounty {money(held.bounty)}"
        painter.drawText(box.adjusted(6, 20, -6, -12), Qt.AlignmentFlag.AlignCenter, status)
        note = held.last_action or ("sitting out" if held.sitting_out else "")
        if held.waiting and not held.in_hand:
            note = "waiting"
        painter.setPen(QColor("#c7cdd4"))
        font.setPixelSize(11)
        painter.setFont(font)
        painter.drawText(box.adjusted(6, 34, -6, 0), Qt.AlignmentFlag.AlignCenter, note)
        if acting and model.actor_deadline_ms is not None:
            left = max(0, model.actor_deadline_ms - self.now_ms())
            painter.setPen(QColor("#ffd34d"))
            painter.drawText(
                QRectF(box.left(), box.bottom() + 1, BOX_W, 14),
                Qt.AlignmentFlag.AlignCenter,
                f"{left / 1000:.0f} s",
            )
        if held.bet:
            spot = QPointF(centre.x() + unit.x() * 96, centre.y() + unit.y() * 105)
            painter.setBrush(QBrush(QColor("#e8c547")))
            painter.setPen(QPen(QColor("#8a6d12"), 1))
            painter.drawEllipse(spot, 7, 7)
            painter.setPen(QColor("#ffffff"))
            font.setPixelSize(13)
            font.setBold(True)
            painter.setFont(font)
            painter.drawText(
                QRectF(spot.x() + 10, spot.y() - 9, 90, 18),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self.amount(held.bet),
            )
        if model.button == held.seat:
            # just outside the box, toward the middle and turned aside from the bet
            turn = math.radians(40)
            side = QPointF(
                unit.x() * math.cos(turn) - unit.y() * math.sin(turn),
                unit.x() * math.sin(turn) + unit.y() * math.cos(turn),
            )
            spot = QPointF(
                centre.x() + side.x() * (BOX_W / 2 + 16), centre.y() + side.y() * (BOX_H / 2 + 16)
            )
            paint_button(painter, spot, 11)
