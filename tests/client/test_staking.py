"""T-17 from the client: a registered player sells a share of their action in the tournament
window, another player buys part of it there (the price leaves the wallet), and when the seller
unregisters the buyer gets the price back."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import Room
from tests.client.driver import WAIT_MS, ann_and_bob, click
from tests.client.test_sit_and_go import sng_id

pytestmark = pytest.mark.slow


def test_a_share_sold_bought_and_given_back_when_the_seller_unregisters(
    qtbot: QtBot, room: Room, make_client: Callable[[str], ClientApp]
) -> None:
    ann, bob = ann_and_bob(qtbot, make_client, room.port, 2_000)
    qtbot.waitUntil(lambda: bool(ann.lobby.tournaments), timeout=WAIT_MS)
    tid = sng_id(ann, "deal-sng")
    ann.lobby_window.select_tournament(tid)
    click(qtbot, ann.lobby_window.register_button)
    qtbot.waitUntil(lambda: tid in ann.tournament_windows, timeout=WAIT_MS)
    selling = ann.tournament_windows[tid].staking
    qtbot.addWidget(ann.tournament_windows[tid])
    selling.share.setValue(50.0)
    click(qtbot, selling.offer_button)
    qtbot.waitUntil(lambda: selling.message.text().startswith("offered 50%"), timeout=WAIT_MS)

    bob.lobby_window.select_tournament(tid)
    click(qtbot, bob.lobby_window.open_tournament_button)
    qtbot.waitUntil(lambda: tid in bob.tournament_windows, timeout=WAIT_MS)
    qtbot.addWidget(bob.tournament_windows[tid])
    buying = bob.tournament_windows[tid].staking
    click(qtbot, buying.refresh_button)
    qtbot.waitUntil(lambda: buying.offers.count() == 1, timeout=WAIT_MS)
    assert buying.offers.item(0).text() == "ann: 50% left at markup 1.00 ($2.50 for all of it)"
    buying.select_offer("ann")
    buying.share.setValue(25.0)
    click(qtbot, buying.buy_button)
    qtbot.waitUntil(lambda: buying.message.text() == "bought for $1.25", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bob.balance == (2_000 - 125, "USD"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "bought 25% of ann for $1.25 (held)" in buying.stakes.text(),
                    timeout=WAIT_MS)  # fmt: skip
    buying.share.setValue(30.0)  # more than the 25% left: refused with its code
    click(qtbot, buying.buy_button)
    qtbot.waitUntil(lambda: buying.message.text().startswith("oversold"), timeout=WAIT_MS)
    buying.share.setValue(25.0)  # the rest
    click(qtbot, buying.buy_button)
    qtbot.waitUntil(lambda: bob.balance == (2_000 - 250, "USD"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: buying.offers.count() == 0, timeout=WAIT_MS)  # nothing left to buy

    ann.lobby_window.select_tournament(tid)
    click(qtbot, ann.lobby_window.unregister_button)
    qtbot.waitUntil(lambda: ann.balance == (2_000, "USD"), timeout=WAIT_MS)
    click(qtbot, buying.refresh_button)  # the stakes, and the wallet with them
    qtbot.waitUntil(lambda: "(refunded)" in buying.stakes.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bob.balance == (2_000, "USD"), timeout=WAIT_MS)  # T-17: paid back
