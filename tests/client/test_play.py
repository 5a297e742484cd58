"""Two client windows register, deposit, sit at one table and play hands to a showdown by
clicking buttons, against a real `pokerroom serve` (C-1, C-6, C-14, C-15)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from pokerroom.client.lobby_model import money
from pokerroom.client.table_model import TableModel
from tests.client.conftest import Room
from tests.client.driver import (
    WAIT_MS,
    ann_and_bob,
    click,
    deposit,
    open_table,
    register,
    seated,
    sit,
)

pytestmark = pytest.mark.slow


def test_two_windows_play_hands_to_a_showdown_by_clicking(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp], tmp_path: Path
) -> None:
    """Register and deposit from the lobby, open the same table, sit, then click check/call
    until a hand is shown down: each window shows the other's cards only once shown (C-15),
    and the chips shown add up to the buy-ins less the rake; the hand histories as PHH, then
    as PokerStars text saved to a file."""
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 10_000)
    assert ann.session.table_cap == 2  # C-1: the desktop cap from `hello` (the room's setting)
    tables = {app: open_table(qtbot, app, "nl-duel") for app in (ann, bob)}
    other = open_table(qtbot, ann, "nl-other")
    ann.lobby_window.select_table("plo-small")
    click(qtbot, ann.lobby_window.open_button)  # a third table: refused by the client (C-1)
    assert "C-1: at most 2 tables" in ann.lobby_window.status.text()
    assert "plo-small" not in ann.table_windows
    other.close()  # unobserve: room for another table again
    qtbot.waitUntil(lambda: "nl-other" not in ann.table_windows, timeout=WAIT_MS)
    for app in (ann, bob):
        sit(qtbot, tables[app], 200)
    qtbot.waitUntil(lambda: ann.balance is not None and ann.balance[0] == 9_800, timeout=WAIT_MS)

    peeked: list[str] = []

    def shown_down() -> bool:
        """Click for whoever is to act; true once a showdown has been seen by both."""
        for app in (ann, bob):
            model = tables[app].model
            other = next(s for s in model.seats.values() if s.player != app.me)
            if other.cards is not None and not model.hand_over and not showdown(model):
                peeked.append(f"{app.me} saw {other.cards} before a showdown")
            if model.turn is not None and tables[app].action_bar.call_button.isEnabled():
                click(qtbot, tables[app].action_bar.call_button)
        return all(any(" shows " in line for line in tables[a].model.log) for a in (ann, bob))

    qtbot.waitUntil(shown_down, timeout=60_000)
    assert peeked == []
    for app in (ann, bob):
        model = tables[app].model
        qtbot.waitUntil(lambda m=model: m.hand_over, timeout=WAIT_MS)
        other = next(s for s in model.seats.values() if s.player != app.me)
        # shown down, or mucked by the loser: then never sent (C-15)
        assert (other.cards is not None and len(other.cards) == 2) or other.last_action == "mucks"
        assert model.my_seat is not None and model.my_seat.cards is not None
        assert len(model.board) == 5
        assert model.results  # the pot line
    stacks = [s.stack for s in tables[ann].model.seats.values()]
    assert 380 <= sum(stacks) <= 400  # the buy-ins, less at most the rake
    click(qtbot, tables[bob].seat_controls.history_button)  # our finished hands, PHH text
    dialog = tables[bob].history
    assert dialog is not None
    qtbot.waitUntil(lambda: "actions = [" in dialog.text.toPlainText(), timeout=WAIT_MS)
    assert "ann" in dialog.text.toPlainText() and dialog.status.text() == "newest first"
    dialog.format_box.setCurrentIndex(1)  # PokerStars text, saved to a file a tracker imports
    qtbot.waitUntil(lambda: "PokerStars Hand #" in dialog.text.toPlainText(), timeout=WAIT_MS)
    assert "actions = [" not in dialog.text.toPlainText()  # the PHH page went
    dialog.save(tmp_path / "hands.txt")
    saved = (tmp_path / "hands.txt").read_text()
    assert saved.startswith("PokerStars Hand #") and "*** SUMMARY ***" in saved
    assert "Dealt to bob [" in saved and "Dealt to ann" not in saved  # C-15
    assert dialog.status.text() == f"saved to {tmp_path / 'hands.txt'}"


def test_keys_chat_refusals_sit_out_and_leave(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    """Actions by keyboard (C checks or calls, 4 then R goes all-in), a refused chat line shown
    with its C-13 code, sit out and back in (C-3), and leave with its cash-out (C-8)."""
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 10_000)
    tables = seated(qtbot, (ann, bob), "nl-duel", 100)
    window = tables[ann]
    window.chat.line.setText("cheap chips at www.example.com")
    qtbot.keyClick(window.chat.line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "chat_advertising" in window.chat.text(), timeout=WAIT_MS)

    def our_turn() -> bool:
        if tables[bob].model.turn is not None:
            click(qtbot, tables[bob].action_bar.call_button)
        return window.model.turn is not None

    qtbot.waitUntil(our_turn, timeout=WAIT_MS)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    hand = window.model.hand_id
    with qtbot.waitSignal(ann.session.received, timeout=WAIT_MS,
                          check_params_cb=lambda f: f.get("type") == "player_acted"):  # fmt: skip
        legal = window.model.turn.legal
        assert legal.max_raise_to is not None and legal.min_raise_to is not None
        qtbot.keyClick(window, Qt.Key.Key_4)  # the all-in preset ...
        assert window.action_bar.amount.value() == legal.max_raise_to
        qtbot.keyClick(window, Qt.Key.Key_Down)  # a big blind less
        assert window.action_bar.amount.value() == max(legal.min_raise_to, legal.max_raise_to - 2)
        qtbot.keyClick(window, Qt.Key.Key_4)
        qtbot.keyClick(window, Qt.Key.Key_R)  # ... and raise
    mine = window.model.my_seat
    assert mine is not None and "all-in" in mine.last_action and mine.stack == 0

    def played_out() -> bool:
        for app in (ann, bob):
            if tables[app].model.turn is not None:
                click(qtbot, tables[app].action_bar.call_button)
        return window.model.hand_id != hand or window.model.hand_over

    qtbot.waitUntil(played_out, timeout=WAIT_MS)
    loser = ann if window.model.my_seat is None or window.model.my_seat.stack == 0 else bob
    keeper = bob if loser is ann else ann
    controls = tables[keeper].seat_controls
    qtbot.waitUntil(controls.sit_out_button.isVisible, timeout=WAIT_MS)
    click(qtbot, controls.sit_out_button)
    qtbot.waitUntil(lambda: tables[keeper].model.my_seat.sitting_out, timeout=WAIT_MS)  # type: ignore[union-attr]
    qtbot.waitUntil(controls.sit_in_button.isVisible, timeout=WAIT_MS)
    click(qtbot, controls.sit_in_button)
    qtbot.waitUntil(lambda: not tables[keeper].model.my_seat.sitting_out, timeout=WAIT_MS)  # type: ignore[union-attr]
    stack = tables[keeper].model.my_seat.stack  # type: ignore[union-attr]
    click(qtbot, controls.leave_button)
    qtbot.waitUntil(lambda: "cashed out" in controls.message.text(), timeout=WAIT_MS)
    assert f"cashed out {money(stack)}" in controls.message.text()
    qtbot.waitUntil(lambda: keeper.balance == (10_000 - 100 + stack, "USD"), timeout=WAIT_MS)


def showdown(model: TableModel) -> bool:
    """Whether the running hand has come to a showdown (a `hand_shown` in its log)."""
    start = max(i for i, line in enumerate(model.log) if line.startswith("— hand"))
    return any(" shows " in line for line in model.log[start:])


def test_leaving_twice_after_a_hand_shows_the_c8_block_and_the_refused_sit(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    """C-8: a second decline within the window blocks the level for 5 minutes; the leave's
    answer shows it, and Sit down is then refused with `blocked`."""
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 10_000)
    tables = {app: open_table(qtbot, app, "nl-duel") for app in (ann, bob)}
    sit(qtbot, tables[bob], 100)
    window, controls = tables[ann], tables[ann].seat_controls
    for decline in (1, 2):
        sit(qtbot, window, 200)  # the most: never below what we left with (C-10)
        hand = window.model.hand_id

        def one_hand_played(before: str | None = hand) -> bool:
            for app in (ann, bob):  # fold at once: one hand, then leave
                if tables[app].model.turn is not None:
                    bar = tables[app].action_bar
                    click(
                        qtbot, bar.fold_button if bar.fold_button.isEnabled() else bar.call_button
                    )
            model = window.model
            return model.hand_id not in (None, before) and model.hand_over

        qtbot.waitUntil(one_hand_played, timeout=WAIT_MS)
        click(qtbot, controls.leave_button)
        qtbot.waitUntil(lambda: "cashed out" in controls.message.text(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: window.model.my_seat is None, timeout=WAIT_MS)
        blocked = "C-8: back at this table in" in controls.message.text()
        assert blocked == (decline == 2), controls.message.text()
    assert "(decline 2)" in controls.message.text()
    click(qtbot, controls.sit_button)
    qtbot.waitUntil(lambda: controls.message.text().startswith("blocked:"), timeout=WAIT_MS)
    assert window.model.my_seat is None


def test_top_up_alone_at_a_table_between_hands(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    """C-9: Top up brings the stack to the amount in the box, from the wallet, at once between
    hands; the box cannot go past the table maximum."""
    ann = make_client("ann")
    register(qtbot, ann, room.port, "ann")
    deposit(qtbot, ann, 10_000)
    window = open_table(qtbot, ann, "nl-other")  # buy-in $2 – $10
    sit(qtbot, window, 200)
    controls = window.seat_controls
    assert controls.amount.maximum() == 1_000 and controls.top_up_button.isVisible()
    controls.amount.setValue(650)
    click(qtbot, controls.top_up_button)
    qtbot.waitUntil(lambda: window.model.my_seat is not None and window.model.my_seat.stack == 650,
                    timeout=WAIT_MS)  # fmt: skip
    qtbot.waitUntil(lambda: ann.balance == (10_000 - 650, "USD"), timeout=WAIT_MS)
    controls.amount.setValue(5_000)
    assert controls.amount.value() == 1_000
