"""§4 from the client: it answers `keepalive` with `ping`, so a logged-in client that does
nothing is not dropped for `idle_timeout` (a room with a 0.5 s heartbeat and a 2 s idle limit)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from pokerroom.client.app import ClientApp
from tests.client.conftest import start_room
from tests.client.driver import WAIT_MS, register

pytestmark = pytest.mark.slow

FAST = """
[session]
heartbeat_seconds = 0.5
idle_timeout_seconds = 2.0
"""


def test_an_idle_client_answers_keepalives_and_stays_connected(
    qtbot: QtBot, tmp_path: Path, make_client: Callable[[str], ClientApp]
) -> None:
    room = start_room(tmp_path, FAST)
    try:
        app = make_client("gus")
        register(qtbot, app, room.port, "gus")
        frames: list[dict[str, Any]] = []
        app.session.received.connect(frames.append)
        keepalives = lambda: sum(f.get("type") == "keepalive" for f in frames)  # noqa: E731
        qtbot.waitUntil(lambda: keepalives() >= 8, timeout=WAIT_MS)  # over 2 idle limits
        assert not any(f.get("type") == "goodbye" for f in frames)
        assert app.session.online and app.session.goodbye is None
    finally:
        room.process.terminate()
        room.process.wait(timeout=20)
