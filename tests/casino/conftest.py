"""Shared fixtures of the casino tests: the shipped rules of every game, and `casino`, a room
database with its ledger (`table_harness.Casino`) on SQLite, then on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pokerroom.casino import settings
from pokerroom.casino.core import baccarat_bets, dragon_tiger, roulette, sicbo
from tests.casino.table_harness import Casino
from tests.postgres import fresh_pg_schema


@pytest.fixture(params=["sqlite", "postgresql"])
def casino(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Casino]:
    """A room database with its ledger: SQLite, then PostgreSQL (a fresh schema)."""
    if request.param == "sqlite":
        room = Casino(f"sqlite:///{tmp_path / 'casino.sqlite'}")
        try:
            yield room
        finally:
            room.close()
        return
    with fresh_pg_schema("casino") as url:
        room = Casino(url)
        try:
            yield room
        finally:
            room.close()


def table(game: str, **changes: Any) -> Mapping[str, Any]:
    """The shipped settings table of `game`, with some keys changed."""
    return {**settings.game_table(game), **changes}


@pytest.fixture
def commission() -> baccarat_bets.BaccaratRules:
    return baccarat_bets.rules_from(table("baccarat", fortune6=True))


@pytest.fixture
def super6() -> baccarat_bets.BaccaratRules:
    return baccarat_bets.rules_from(table("baccarat", variant="super6", fortune6=True))


@pytest.fixture
def dt_rules() -> dragon_tiger.DragonTigerRules:
    return dragon_tiger.rules_from(table("dragon_tiger"))


@pytest.fixture
def roulette_rules() -> roulette.RouletteRules:
    return roulette.rules_from(table("roulette"))


@pytest.fixture
def sicbo_rules() -> sicbo.SicBoRules:
    return sicbo.rules_from(table("sicbo"))
