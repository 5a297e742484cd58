"""The client's tests: Qt offscreen, and a real `pokerroom serve` for the end-to-end ones."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.driver import client
from tests.serving import ROOM_HEAD, migrated_sqlite, start_serve, stop

#: Deposits on (`[dev] allow_deposit`), cheap password hashes, short pauses between hands.
ROOM = (
    ROOM_HEAD
    + """[table_caps]
desktop = 2
[tables.nl-duel]
variant = "NT"
max_seats = 6
small_blind = 1
big_blind = 2
min_buy_in = 40
max_buy_in = 200
between_hands_seconds = 0.2
[tables.nl-other]
variant = "NT"
max_seats = 9
small_blind = 5
big_blind = 10
min_buy_in = 200
max_buy_in = 1000
[tables.nl-clock]
variant = "NT"
small_blind = 1
big_blind = 2
min_buy_in = 40
max_buy_in = 200
action_seconds = 1.5
timebank_seconds = 2.0
between_hands_seconds = 0.2
[tables.plo-small]
variant = "PO"
small_blind = 5
big_blind = 10
min_buy_in = 200
max_buy_in = 1000
[tournaments]
schedule = "{schedule}"
"""
)

#: 2-player sit-and-goes with short stacks: all-in hands end one quickly; the other allows deals.
SCHEDULE = """
[[structure]]
name = "shove"
starting_stack = 200
level_minutes = 5
levels = [[10, 20], [20, 40], [50, 100]]

[[sit_and_go]]
name = "duel-sng"
structure = "shove"
buy_in = 500
fee = 50
players = 2
between_hands_seconds = 0.2

[[sit_and_go]]
name = "deal-sng"
structure = "shove"
buy_in = 500
fee = 50
players = 2
between_hands_seconds = 0.2
deals = { max_players = 2, answer_seconds = 60 }
"""


@dataclass
class Room:
    """A running `pokerroom serve` on loopback."""

    port: int
    process: subprocess.Popen[str]
    log: Path


def start_room(folder: Path, extra: str = "") -> Room:
    """`pokerroom serve --port 0 --admin-endpoint none` on a migrated temp SQLite file (`extra`:
    more TOML for the room's config)."""
    url = migrated_sqlite(folder)
    (folder / "schedule.toml").write_text(SCHEDULE)
    (folder / "room.toml").write_text(ROOM.format(schedule=folder / "schedule.toml") + extra)
    args = ["serve", "--db", url, "--port", "0", "--admin-endpoint", "none",
            "--config", str(folder / "room.toml")]  # fmt: skip
    log = folder / "server.log"
    port, proc = start_serve(args, log)
    return Room(port=port, process=proc, log=log)


@pytest.fixture
def make_client(qtbot: QtBot, tmp_path: Path) -> Iterator[Callable[[str], ClientApp]]:
    """Clients with settings in the test's folder; their connections closed after the test."""
    made: list[ClientApp] = []
    yield lambda name: client(qtbot, tmp_path, name, made)
    for app in made:
        app.shutdown()


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    """A room process for one test, stopped after it."""
    served = start_room(tmp_path)
    try:
        yield served
    finally:
        stop(served.process)
