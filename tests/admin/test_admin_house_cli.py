"""`pokerroom admin house ...` against a real `pokerroom serve` (docs/ADMIN.md, "Money"):
list shows money, fund and withdraw move it with their audit rows, a retried key moves it
once, and a withdrawal past the balance exits 1 with `insufficient_funds`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.ledger import check_ledger, make_engine
from tests.admin.test_admin_end_to_end import PASSWORD, _server

pytestmark = pytest.mark.slow


def test_the_house_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.sqlite'}"
    with _server(tmp_path, url, "tcp:0:interface=127.0.0.1") as room:

        def run(user: str, *args: str) -> Any:
            env = {
                "POKERROOM_ADMIN_SERVER": room.admin,
                "POKERROOM_ADMIN_USER": user,
                "POKERROOM_ADMIN_PASSWORD": PASSWORD,
            }
            return CliRunner().invoke(main, ["admin", "house", *args], env=env)

        listed = run("sup", "list", "--json")
        assert listed.exit_code == 0, listed.output
        balances = {a["account"]: a["balance"] for a in json.loads(listed.output)["accounts"]}
        assert balances == {"casino_bankroll": 0, "casino_jackpot_seed": 0, "house_overlay": 0}
        fund = ["fund", "casino_bankroll", "123456", "--currency", "USD", "--reason", "float"]
        done = run("adm1", *fund, "--key", "f1", "--yes")
        assert done.exit_code == 0, done.output
        assert "casino_bankroll now 1,234.56 USD" in done.output
        assert run("adm1", *fund, "--key", "f1", "--yes").exit_code == 0  # retried: once
        assert run("sup", *fund, "--key", "f2", "--yes").exit_code == 1  # forbidden
        shown = run("sup", "list").output
        assert "1,234.56 USD" in shown and "house accounts" in shown
        back = ["withdraw", "casino_bankroll", "--currency", "USD", "--reason", "r", "--yes"]
        too_much = run("adm1", *back[:2], "123457", *back[2:])
        assert too_much.exit_code == 1 and "insufficient_funds" in too_much.output
        assert run("adm1", *back[:2], "23456", *back[2:]).exit_code == 0
        assert run("adm1", "fund", "house_rake", "1", "--currency", "USD", "--reason", "r",
                   "--yes").exit_code == 2  # fmt: skip
        actions = [r.action for r in room.audit_rows() if r.action.startswith("house_")]
        assert actions == ["house_fund", "house_withdraw"]
        final = json.loads(run("sup", "list", "--json").output)["accounts"]
        assert {a["account"]: a["balance"] for a in final}["casino_bankroll"] == 100_000
        engine = make_engine(url)
        try:
            assert check_ledger(engine).ok
        finally:
            engine.dispose()
