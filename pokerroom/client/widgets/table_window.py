"""A table window: the felt, our action bar, seat controls and the chat, for one open table."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QVBoxLayout, QWidget

from pokerroom.client.lobby_model import money
from pokerroom.client.net import ClientSession
from pokerroom.client.table_model import TableModel
from pokerroom.client.widgets.action_bar import PRESET_KEYS, ActionBar
from pokerroom.client.widgets.chat_panel import ChatPanel
from pokerroom.client.widgets.felt import TableFelt
from pokerroom.client.widgets.history_dialog import HistoryDialog
from pokerroom.client.widgets.seat_controls import SeatControls

PRESETS = ("⅓ pot", "½ pot", "pot", "all-in")


def refusal(answer: dict[str, Any]) -> str:
    """An `error` answer for people: its code and message."""
    return f"{answer.get('code')}: {answer.get('message', '')}"


class TableWindow(QWidget):
    """One table: the app feeds `model` and calls `refresh`; requests go out on `session`."""

    closing = Signal(str)  # table id: the window was closed by the player
    wallet_changed = Signal()  # a sit, top-up or leave was answered: the wallet moved

    def __init__(
        self, model: TableModel, session: ClientSession, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.session = session
        self.setWindowTitle(f"{model.table_id} — pokerroom")
        self.felt = TableFelt(model, session.server_now_ms)
        self.action_bar = ActionBar()
        self.seat_controls = SeatControls()
        self.chat = ChatPanel()
        self.chat.setMinimumWidth(260)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.felt)
        split.addWidget(self.chat)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.action_bar, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split, 1)
        layout.addWidget(self.seat_controls)
        layout.addLayout(bottom)
        self.resize(1180, 720)

        self.action_bar.act.connect(self.act)
        self.chat.send.connect(self.send_chat)
        self.seat_controls.sit.connect(self.sit)
        self.seat_controls.sit_out.connect(lambda: self.sit_out(True))
        self.seat_controls.sit_in.connect(lambda: self.sit_out(False))
        self.seat_controls.top_up.connect(self.top_up)
        self.seat_controls.leave.connect(self.leave)
        self.seat_controls.history.connect(self.show_histories)
        self.history: HistoryDialog | None = None
        self._shortcuts()
        self.timer = QTimer(self)
        self.timer.setInterval(200)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self.refresh()

    def _shortcuts(self) -> None:
        keys: dict[str, Callable[[], None]] = {
            "F": self.action_bar.fold,
            "C": self.action_bar.check_or_call,
            "R": self.action_bar.bet_or_raise,
            "Up": lambda: self.action_bar.nudge(1),
            "Down": lambda: self.action_bar.nudge(-1),
        }
        for key, name in zip(PRESET_KEYS, PRESETS, strict=True):
            keys[key] = partial(self.action_bar.use_preset, name)
        for key, slot in keys.items():
            QShortcut(QKeySequence(key), self, slot)

    # -- from the app --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the model as it is now (after each event)."""
        self.seat_controls.show_model(self.model)
        turn = self.model.turn
        key = (turn.hand_id, turn.deadline_ms) if turn is not None else None
        if key != getattr(self, "_turn_key", ()):
            self._turn_key = key
            self.action_bar.show_turn(self.model if turn is not None else None)
            if turn is not None:
                self.raise_()
                self.activateWindow()
        self.chat.show_lines(self.model.chat, self.model.log)
        self.tick()

    def tick(self) -> None:
        """The clocks count down (C-6, C-7); the felt repaints."""
        self.action_bar.show_clock(self.model.clock(self.session.server_now_ms()))
        self.felt.update()

    # -- to the server -------------------------------------------------------------------------
    def act(self, action: str, amount: object) -> None:
        """Answer our `action_request` (§5 `act`); the bar is off until the next one."""
        turn = self.model.turn
        if turn is None:
            return
        fields: dict[str, Any] = {"table_id": self.model.table_id, "action": action}
        if isinstance(amount, int):
            fields["amount"] = amount
        self.action_bar.show_turn(None)
        self.session.request("act", self._acted, **fields)

    def _acted(self, answer: dict[str, Any]) -> None:
        if answer["type"] == "error":
            self.seat_controls.say(refusal(answer))
            if self.model.turn is not None:
                self.action_bar.show_turn(self.model)

    def sit(self, buy_in: int, wait_for_big_blind: bool) -> None:
        """Take a seat with this buy-in (C-9), or wait for the big blind (C-2)."""
        self.session.request(
            "sit",
            self._said,
            table_id=self.model.table_id,
            buy_in=buy_in,
            wait_for_big_blind=wait_for_big_blind,
        )

    def top_up(self, amount: int) -> None:
        """Top the stack up to `amount` from the wallet (C-9); during a hand after it."""
        mine = self.model.my_seat
        if mine is None:
            return
        add = amount - mine.stack  # the amount box is the stack to reach
        if add <= 0:
            self.seat_controls.say(f"the stack is {money(mine.stack, self.model.currency)} already")
            return
        self.session.request("top_up", self._topped_up, table_id=self.model.table_id, amount=add)

    def _topped_up(self, answer: dict[str, Any]) -> None:
        if answer["type"] == "ok":
            self.model.topped_up(answer["result"]["stack"], answer["result"]["pending"])
            self.wallet_changed.emit()
        self._said(answer)

    def leave(self) -> None:
        """Stand up after this hand (C-8): the answer says the cash-out and any block."""
        self.seat_controls.say("leaving after this hand …")
        self.session.request("leave", self._left, table_id=self.model.table_id)

    def _left(self, answer: dict[str, Any]) -> None:
        if answer["type"] == "error":
            self.seat_controls.say(refusal(answer))
            return
        self.wallet_changed.emit()
        result = answer["result"]
        text = f"cashed out {money(result['amount'], self.model.currency)}"
        if result.get("blocked_until_ms"):
            left = (result["blocked_until_ms"] - self.session.server_now_ms()) // 60_000
            decline = result["decline_number"]
            text += f"; C-8: back at this table in {max(0, left)} min (decline {decline})"
        self.seat_controls.say(text)

    def sit_out(self, out: bool) -> None:
        """Sit out or back in: C-3/C-4 at a cash table (missed blinds posted), T-12 at a
        tournament table (still dealt in and acted for)."""
        tournament_id = self.model.tournament_id
        if tournament_id is not None:
            self.session.request("tournament_sit_out", self._said, tournament_id=tournament_id,
                                 sitting_out=out)  # fmt: skip
        elif out:
            self.session.request("sit_out", self._said, table_id=self.model.table_id)
        else:
            self.session.request("sit_in", self._said, table_id=self.model.table_id, post=True)

    def _said(self, answer: dict[str, Any]) -> None:
        self.seat_controls.say(refusal(answer) if answer["type"] == "error" else "")
        self.refresh()

    def show_histories(self) -> None:
        """Our finished hands at this table, newest first (`hand_histories`, PHH or PokerStars)."""
        if self.history is not None:
            self.history.close()
        dialog = self.history = HistoryDialog(self.model.table_id, self)
        dialog.older.connect(lambda cursor: self._histories(dialog, cursor))
        dialog.restart.connect(lambda: self._histories(dialog, None))
        dialog.show()
        self._histories(dialog, None)

    def _histories(self, dialog: HistoryDialog, before: str | None) -> None:
        fields: dict[str, Any] = {
            "table_id": self.model.table_id,
            "limit": 10,
            "format": dialog.format(),
        }
        if before is not None:
            fields["before"] = before
        self.session.request("hand_histories", dialog.show_page, **fields)

    def send_chat(self, text: str) -> None:
        """A chat line; a refusal shows in the chat with its reason (C-13)."""
        at = self.session.server_now_ms()

        def answered(answer: dict[str, Any]) -> None:
            if answer["type"] == "error":
                self.model.chat_refused(
                    text, str(answer.get("code")), str(answer.get("message", "")), at
                )
                self.refresh()

        self.session.request("chat", answered, table_id=self.model.table_id, text=text)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window stands up (C-8) or stops watching."""
        self.timer.stop()
        self.closing.emit(self.model.table_id)
        super().closeEvent(event)
