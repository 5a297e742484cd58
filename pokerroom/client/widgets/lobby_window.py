"""The lobby: wallet, cash tables (stakes, game, seats, players; a game filter),
tournaments (status, start, buy-in + fee, guarantee, bounties) with register/unregister, and
the player's tickets (T-16), one of which registers for a tournament it pays."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from pokerroom.client.lobby_model import (
    VARIANTS,
    LobbyModel,
    money,
    stakes,
    ticket_use,
    tournament_bounty,
)

CASH_COLUMNS = ("Table", "Game", "Stakes", "Seats", "Buy-in", "Watching")
TOURNAMENT_COLUMNS = (
    "Name",
    "Kind",
    "Status",
    "Starts",
    "Buy-in + fee",
    "Guarantee",
    "Bounty",
    "Entries (left)",
    "Late reg.",
)
TICKET_COLUMNS = ("Ticket", "For", "Value", "State", "Expires", "Used in")


def start_text(summary: dict[str, Any]) -> str:
    """When a tournament starts: a UTC time, or "when full" for a sit-and-go."""
    starts = summary.get("starts_at_ms")
    if starts is None:
        return "when full" if summary.get("kind") == "sit_and_go" else "—"
    return dt.datetime.fromtimestamp(starts / 1000, dt.UTC).strftime("%H:%M UTC")


def day_text(ms: int) -> str:
    """A day and time in UTC, for people: `2027-01-15 08:00 UTC`."""
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    return table


class LobbyWindow(QWidget):
    """What the player picks from; every choice is a signal the app turns into requests."""

    open_table = Signal(str)
    open_tournament = Signal(str)
    register = Signal(str)
    register_with_ticket = Signal(str, str)  # tournament, ticket (T-16)
    tickets_wanted = Signal()
    unregister = Signal(str)
    deposit = Signal(int)
    logout = Signal()

    def __init__(self, model: LobbyModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.setWindowTitle("pokerroom — lobby")
        self.who = QLabel("")
        self.wallet = QLabel("")
        self.wallet.setStyleSheet("font-weight:bold")
        self.deposit_amount = QSpinBox()
        self.deposit_amount.setRange(100, 10_000_000)
        self.deposit_amount.setValue(10_000)
        self.deposit_amount.setPrefix("¢ ")
        self.deposit_button = QPushButton("Deposit (dev rooms)")
        self.logout_button = QPushButton("Log out")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.who)
        top.addWidget(self.wallet)
        top.addStretch(1)
        top.addWidget(self.deposit_amount)
        top.addWidget(self.deposit_button)
        top.addWidget(self.logout_button)

        self.filter = QComboBox()
        self.filter.addItem("All games", "")
        for code, name in VARIANTS.items():
            self.filter.addItem(name, code)
        self.hide_full = QCheckBox("Hide full")
        self.hide_empty = QCheckBox("Hide empty")
        self.cash = _table(CASH_COLUMNS)
        self.open_button = QPushButton("Open table")
        cash_page = QWidget()
        cash_bar = QHBoxLayout()
        cash_bar.addWidget(QLabel("Game:"))
        cash_bar.addWidget(self.filter)
        cash_bar.addWidget(self.hide_full)
        cash_bar.addWidget(self.hide_empty)
        cash_bar.addStretch(1)
        cash_bar.addWidget(self.open_button)
        cash_layout = QVBoxLayout(cash_page)
        cash_layout.addLayout(cash_bar)
        cash_layout.addWidget(self.cash)

        self.tournaments = _table(TOURNAMENT_COLUMNS)
        self.register_button = QPushButton("Register")
        self.ticket_button = QPushButton("Register with ticket")
        self.unregister_button = QPushButton("Unregister")
        self.open_tournament_button = QPushButton("Open tournament")
        tournament_page = QWidget()
        tournament_bar = QHBoxLayout()
        tournament_bar.addStretch(1)
        for button in (self.register_button, self.ticket_button, self.unregister_button,
                       self.open_tournament_button):  # fmt: skip
            tournament_bar.addWidget(button)
        tournament_layout = QVBoxLayout(tournament_page)
        tournament_layout.addLayout(tournament_bar)
        tournament_layout.addWidget(self.tournaments)

        self.tickets = _table(TICKET_COLUMNS)
        self.tickets_button = QPushButton("Refresh tickets")
        tickets_page = QWidget()
        tickets_bar = QHBoxLayout()
        tickets_bar.addWidget(QLabel("Satellite seats and other tickets: each pays one entry."))
        tickets_bar.addStretch(1)
        tickets_bar.addWidget(self.tickets_button)
        tickets_layout = QVBoxLayout(tickets_page)
        tickets_layout.addLayout(tickets_bar)
        tickets_layout.addWidget(self.tickets)

        self.tabs = QTabWidget()
        self.tabs.addTab(cash_page, "Cash tables")
        self.tabs.addTab(tournament_page, "Tournaments")
        self.tabs.addTab(tickets_page, "Tickets")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        self.resize(1000, 560)

        self.filter.currentIndexChanged.connect(self._filter)
        self.hide_full.toggled.connect(self._filter)
        self.hide_empty.toggled.connect(self._filter)
        self.open_button.clicked.connect(self._open_selected)
        self.cash.doubleClicked.connect(self._open_selected)
        self.register_button.clicked.connect(lambda: self._tournament(self.register))
        self.ticket_button.clicked.connect(self._register_with_ticket)
        self.tickets_button.clicked.connect(self.tickets_wanted.emit)
        self.unregister_button.clicked.connect(lambda: self._tournament(self.unregister))
        self.open_tournament_button.clicked.connect(lambda: self._tournament(self.open_tournament))
        self.tournaments.doubleClicked.connect(lambda: self._tournament(self.open_tournament))
        self.deposit_button.clicked.connect(lambda: self.deposit.emit(self.deposit_amount.value()))
        self.logout_button.clicked.connect(self.logout.emit)

    def _filter(self) -> None:
        self.model.variant_filter = str(self.filter.currentData() or "")
        self.model.hide_full = self.hide_full.isChecked()
        self.model.hide_empty = self.hide_empty.isChecked()
        self.refresh()

    def _selected(self, table: QTableWidget) -> str | None:
        rows = table.selectionModel().selectedRows()
        if not rows:
            return None
        item = table.item(rows[0].row(), 0)
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def _open_selected(self) -> None:
        table_id = self._selected(self.cash)
        if table_id is not None:
            self.open_table.emit(table_id)

    def _tournament(self, signal: Any) -> None:
        tournament_id = self._selected(self.tournaments)
        if tournament_id is not None:
            signal.emit(tournament_id)

    def _register_with_ticket(self) -> None:
        """Register for the selected tournament with a ticket that pays it (T-16)."""
        tournament_id = self._selected(self.tournaments)
        if tournament_id is None:
            self.say("select a tournament first")
            return
        ticket = self.model.ticket_for(tournament_id)
        if ticket is None:
            self.say("no ticket of yours pays an entry in this tournament")
            return
        self.register_with_ticket.emit(tournament_id, ticket["ticket_id"])

    def select_table(self, table_id: str) -> None:
        """Select a cash table's row (by id)."""
        self._select(self.cash, table_id)

    def select_tournament(self, tournament_id: str) -> None:
        """Select a tournament's row (by id)."""
        self.tabs.setCurrentIndex(1)
        self._select(self.tournaments, tournament_id)

    def _select(self, table: QTableWidget, key: str) -> None:
        for row in range(table.rowCount()):
            item = table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == key:
                table.selectRow(row)
                return

    def show_wallet(self, player: str, balance: int, currency: str) -> None:
        """The logged-in player and their wallet balance."""
        self.who.setText(f"Logged in as <b>{player}</b>")
        self.wallet.setText(f"Wallet: {money(balance, currency)}")

    def say(self, text: str) -> None:
        """A line at the bottom: the last outcome or refusal."""
        self.status.setText(text)

    def refresh(self) -> None:
        """Fill both lists from the model, keeping the selection."""
        selected = self._selected(self.cash)
        rows = self.model.cash_rows()
        self.cash.setRowCount(len(rows))
        for row, summary in enumerate(rows):
            currency = summary.get("currency")
            cells: tuple[str, ...] = (
                summary["table_id"],
                VARIANTS.get(summary["variant"], summary["variant"]),
                stakes(summary),
                f"{summary['players']}/{summary['max_seats']}",
                "–".join(money(summary[k], currency) for k in ("min_buy_in", "max_buy_in")),
                str(summary["observers"]),
            )
            self._fill(self.cash, row, summary["table_id"], cells)
        if selected is not None:
            self._select(self.cash, selected)
        selected = self._selected(self.tournaments)
        entries = self.model.tournament_rows()
        self.tournaments.setRowCount(len(entries))
        for row, summary in enumerate(entries):
            cap = summary.get("max_entries")
            late = summary.get("late_registration_levels") or 0
            running = summary["status"] == "running"
            left = f" ({summary['players_left']} left)" if running else ""
            cells = (
                str(summary["name"]),
                "Sit & Go" if summary["kind"] == "sit_and_go" else "MTT",
                summary["status"],
                start_text(summary),
                f"{money(summary['buy_in'])} + {money(summary['fee'])}",
                money(summary["guarantee"]) if summary["guarantee"] else "—",
                tournament_bounty(summary) or "—",
                f"{summary['entries']}" + (f"/{cap}" if cap else "") + left,
                f"{late} levels" if late else "—",
            )
            self._fill(self.tournaments, row, summary["tournament_id"], cells)
        if selected is not None:
            self._select(self.tournaments, selected)

    def refresh_tickets(self) -> None:
        """Fill the tickets list from the model (T-16): newest first, as the room sends it."""
        tickets = self.model.tickets
        self.tickets.setRowCount(len(tickets))
        for row, ticket in enumerate(tickets):
            used = ticket.get("used_in")
            cells = (
                ticket["ticket_id"],
                ticket_use(ticket, self.model.tournaments),
                money(ticket["value"]),
                ticket["state"],
                day_text(ticket["expires_at_ms"]),
                str(self.model.tournaments.get(used, {}).get("name", used)) if used else "—",
            )
            self._fill(self.tickets, row, ticket["ticket_id"], cells)

    def _fill(self, table: QTableWidget, row: int, key: str, cells: tuple[str, ...]) -> None:
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column == 0:
                item.setData(Qt.ItemDataRole.UserRole, key)
            table.setItem(row, column, item)
