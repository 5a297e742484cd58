"""Playing cards drawn with QPainter (no image assets): faces, backs, and the dealer button."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
#: Four colours, as most online rooms offer: clubs green, diamonds blue.
SUIT_COLOURS = {"c": "#1b7a2a", "d": "#1f4fbf", "h": "#c81e1e", "s": "#111111"}
RANKS = {"T": "10"}


def paint_card(painter: QPainter, rect: QRectF, card: str | None) -> None:
    """A card face (`"As"`) in `rect`, or a back when `card` is None."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    radius = rect.width() * 0.12
    if card is None:
        painter.setPen(QPen(QColor("#f4f4f4"), 2))
        painter.setBrush(QBrush(QColor("#8c1c2c")))
        painter.drawRoundedRect(rect, radius, radius)
        inner = rect.adjusted(5, 5, -5, -5)
        painter.setPen(QPen(QColor("#d9a0a8"), 1))
        painter.setBrush(QBrush(QColor("#8c1c2c"), Qt.BrushStyle.DiagCrossPattern))
        painter.drawRoundedRect(inner, radius / 2, radius / 2)
        painter.restore()
        return
    rank, suit = card[0], card[1]
    colour = QColor(SUIT_COLOURS.get(suit, "#111111"))
    painter.setPen(QPen(QColor("#555555"), 1))
    painter.setBrush(QBrush(QColor("#ffffff")))
    painter.drawRoundedRect(rect, radius, radius)
    painter.setPen(colour)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(8, int(rect.height() * 0.36)))
    painter.setFont(font)
    top = QRectF(rect.left() + 3, rect.top() + 1, rect.width() - 6, rect.height() * 0.45)
    painter.drawText(
        top, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, RANKS.get(rank, rank)
    )
    font.setPixelSize(max(8, int(rect.height() * 0.42)))
    painter.setFont(font)
    bottom = QRectF(
        rect.left(), rect.top() + rect.height() * 0.42, rect.width() - 4, rect.height() * 0.56
    )
    painter.drawText(
        bottom, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, SUITS.get(suit, suit)
    )
    painter.restore()


def paint_button(painter: QPainter, centre: QPointF, radius: float) -> None:
    """The dealer button: a white disc marked D."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor("#333333"), 1))
    painter.setBrush(QBrush(QColor("#fdfdf5")))
    painter.drawEllipse(centre, radius, radius)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(int(radius * 1.2))
    painter.setFont(font)
    painter.setPen(QColor("#222222"))
    box = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "D")
    painter.restore()
