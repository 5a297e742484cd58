"""C-6 and C-7 in the client: our action clock counts down, then our time bank, then the
table acts for us; the other player sees our time bank start (a table with a 1.5 s clock and
a 2 s bank)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import Room
from tests.client.driver import WAIT_MS, ann_and_bob, seated

pytestmark = pytest.mark.slow


def test_the_action_clock_then_the_time_bank_count_down_then_the_table_acts(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 1_000)
    tables = seated(qtbot, (ann, bob), "nl-clock", 100)
    qtbot.waitUntil(lambda: any(tables[a].model.turn is not None for a in (ann, bob)),
                    timeout=WAIT_MS)  # fmt: skip
    slow = ann if tables[ann].model.turn is not None else bob  # nobody clicks: the clock runs
    other = bob if slow is ann else ann
    window, seat = tables[slow], tables[slow].model.turn.seat  # type: ignore[union-attr]
    seen: list[str] = []
    watched: list[int | None] = []

    def timed_out() -> bool:
        seen.append(window.action_bar.clock_label.text())
        if tables[other].model.actor == seat:
            watched.append(tables[other].model.actor_deadline_ms)
        return any(line.endswith("[timeout]") for line in window.model.log)

    qtbot.waitUntil(timed_out, timeout=WAIT_MS)
    turn = [s for s in seen if s.startswith("Your turn: ")]
    bank = [s for s in seen if s.startswith("Time bank: ")]
    assert turn and bank and seen.index(turn[-1]) < seen.index(bank[0])  # clock, then bank
    clock = [float(re.findall(r"[\d.]+", s)[0]) for s in turn]
    assert clock[0] <= 1.5 and clock == sorted(clock, reverse=True)  # counting down (C-6)
    banked = [float(re.findall(r"[\d.]+", s)[0]) for s in bank]
    assert banked[0] <= 2.0 and banked == sorted(banked, reverse=True)  # then the bank (C-7)
    assert any(w is not None for w in watched)  # the other saw the bank start (timebank_started)
    mine = window.model.my_seat
    qtbot.waitUntil(lambda: mine is not None and mine.sitting_out, timeout=WAIT_MS)  # C-6
    window.tick()
    assert window.model.turn is None and window.action_bar.clock_label.text() == ""
    assert not window.action_bar.fold_button.isEnabled()
