"""Shared fixtures of the casino core tests: the shipped rules of every game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pokerroom.casino import settings
from pokerroom.casino.core import baccarat_bets, dragon_tiger, roulette, sicbo


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
