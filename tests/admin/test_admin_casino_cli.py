"""`pokerroom admin casino ...` against a real `pokerroom serve` (docs/ADMIN.md): list, close
and open with their audit rows; a void with nothing to void is refused with its code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pokerroom.cli import main
from tests.admin.test_admin_end_to_end import PASSWORD, _server

pytestmark = pytest.mark.slow


def test_the_casino_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    with _server(tmp_path, url, "tcp:0:interface=127.0.0.1") as room:
        env = {
            "POKERROOM_ADMIN_SERVER": room.admin,
            "POKERROOM_ADMIN_USER": "flo",
            "POKERROOM_ADMIN_PASSWORD": PASSWORD,
        }

        def run(*args: str) -> Any:
            return CliRunner().invoke(main, ["admin", "casino", *args], env=env)

        listed = run("list", "--json")
        assert listed.exit_code == 0, listed.output
        tables = {t["table_id"]: t for t in json.loads(listed.output)["tables"]}
        assert "roulette-1" in tables and tables["roulette-1"]["phase"] == "between"
        assert "casino tables" in run("list").output
        closed = run("close", "roulette-1", "--reason", "wheel service", "--yes")
        assert closed.exit_code == 0 and "audit" in closed.output, closed.output
        assert run("open", "roulette-1", "--yes").exit_code == 0
        nothing = run("void", "roulette-1", "--reason", "test", "--yes")
        assert nothing.exit_code == 1 and "no_change" in nothing.output
        assert run("void", "roulette-1", "--yes").exit_code == 2  # --reason is required
        actions = [r.action for r in room.audit_rows()]
        assert actions[-2:] == ["casino_table_close", "casino_table_open"]
        held = run("held", "--json")  # K-13: nothing held in a fresh room
        assert held.exit_code == 0 and json.loads(held.output) == {"held": []}, held.output
        assert "held casino wins" in run("held").output
        release = ["release", "ann", "--amount", "100", "--reason", "reviewed", "--yes"]
        refused = run(*release)  # floor may not: releasing money is an admin's
        assert refused.exit_code == 1 and "forbidden" in refused.output, refused.output
        assert run(*release[:4], "--yes").exit_code == 2  # --reason is required
