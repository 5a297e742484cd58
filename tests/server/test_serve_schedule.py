"""Operators define their own schedule (T-1): `pokerroom serve --schedule PATH` or
`[tournaments] schedule` in the room config. A client that knows only docs/PROTOCOL.md finds
the operator's own sit-and-go in the lobby, registers, and is told when it starts (§9)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.server.settings import load_settings
from tests.server.test_end_to_end import CONFIG, Wire
from tests.serving import migrated_sqlite, start_serve, stop

#: A schedule of one sit-and-go with its own blind structure: two players start it.
SCHEDULE = """
[[structure]]
name = "blitz"
starting_stack = 1000
level_minutes = 1
levels = [[10, 20], [20, 40], [40, 80]]

[[sit_and_go]]
name = "duel"
structure = "blitz"
buy_in = 100
fee = 10
players = 2
"""


def serve_with(tmp_path: Path, url: str, config: str) -> tuple[int, subprocess.Popen[str]]:
    """`pokerroom serve` with this room config; returns once it listens."""
    (tmp_path / "room.toml").write_text(config)
    args = ["serve", "--db", url, "--port", "0", "--config", str(tmp_path / "room.toml")]
    return start_serve(args, tmp_path / "server.log")


def first(wire: Wire, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first frame passing `test`, among those already read or the next ones (a push may
    come before the answer of the request that caused it, §2)."""
    return next((f for f in wire.frames if test(f)), None) or wire.until(test)


def test_a_relative_schedule_path_in_the_config_is_the_config_folder_s(tmp_path: Path) -> None:
    (tmp_path / "room.toml").write_text('[tournaments]\nschedule = "mine.toml"\n')
    assert load_settings(tmp_path / "room.toml").schedule == str(tmp_path / "mine.toml")
    (tmp_path / "none.toml").write_text('[tournaments]\nschedule = ""\n')
    assert load_settings(tmp_path / "none.toml").schedule == ""


def test_serve_refuses_a_schedule_that_names_an_unknown_structure(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(SCHEDULE.replace('structure = "blitz"', 'structure = "x"'))
    db = migrated_sqlite(tmp_path)
    result = CliRunner().invoke(
        main, ["serve", "--db", db, "--schedule", str(tmp_path / "bad.toml")]
    )
    assert result.exit_code != 0 and 'structure: unknown structure "x"' in result.output


@pytest.mark.slow
def test_serve_runs_the_operators_own_sit_and_go(tmp_path: Path) -> None:
    """T-1, T-5, T-11 over TCP with a custom schedule: the lobby line, `unknown_tournament`,
    two registrations answered {entry, chips}, then `tournament_status` (running) to both
    players and `tournament_lobby_update` to a lobby subscriber."""
    (tmp_path / "duel.toml").write_text(SCHEDULE)
    config = CONFIG + f'\n[tournaments]\nschedule = "{tmp_path / "duel.toml"}"\n'
    port, proc = serve_with(tmp_path, migrated_sqlite(tmp_path), config)
    wires: list[Wire] = []
    try:
        watcher, ann, bea = (Wire(port) for _ in range(3))
        wires = [watcher, ann, bea]
        for wire, name in zip(wires, ("watcher", "ann", "bea"), strict=True):
            wire.ok("hello", version=1, client="desktop")
            wire.ok("register", name=name, password="password 1")
        watcher.ok("lobby_subscribe")
        (line,) = watcher.ok("tournament_list")["tournaments"]
        assert line["name"] == "duel" and line["kind"] == "sit_and_go"
        assert line["status"] == "registering" and line["starts_at_ms"] is None  # when full
        assert (line["buy_in"], line["fee"], line["max_entries"]) == (100, 10, 2)
        assert line["late_registration_levels"] == 0 and line["next_break_in"] is None
        assert line["registration_open"] is True
        tid = line["tournament_id"]
        status = watcher.ok("tournament_status_request", tournament_id=tid)["status"]
        assert (status["level"], status["small_blind"], status["big_blind"]) == (1, 10, 20)
        missing = watcher.call("tournament_register", tournament_id="nope")
        assert missing["code"] == "unknown_tournament"
        for wire in (ann, bea):
            wire.ok("deposit", amount=1_000)
            entered = wire.ok("tournament_register", tournament_id=tid, key="duel-1")
            assert entered == {"entry": 1, "chips": 1000}
        for wire in (ann, bea):
            pushed = first(wire, lambda f: f["type"] == "tournament_status")
            assert pushed["tournament_id"] == tid and pushed["status"] == "running"
            assert pushed["players_left"] == 2 and pushed["level"] == 1
        update = first(
            watcher,
            lambda f: (
                f["type"] == "tournament_lobby_update" and f["tournament"]["status"] == "running"
            ),
        )
        assert update["tournament"]["entries"] == 2
    finally:
        for wire in wires:
            wire.close()
        stop(proc)
