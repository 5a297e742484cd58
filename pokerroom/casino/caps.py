"""K-12 and K-13 in a table's currency: the common amounts converted at the day's rate.

`config/casino/casino.toml` names each amount's currency and gives `[casino.rates]`
("FROM:TO" = units of TO per unit of FROM, exact decimals); a converted amount is rounded down.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pokerroom.casino import settings
from pokerroom.casino.core.errors import BAD_CONFIG, CasinoError
from pokerroom.casino.core.money import parse_odds


def convert(amount: int, source: str, target: str, rates: Mapping[str, object]) -> int:
    """`amount` minor units of `source` in minor units of `target`, rounded down."""
    if source == target:
        return amount
    rate = rates.get(f"{source}:{target}")
    if rate is None:
        raise CasinoError(BAD_CONFIG, f"casino.rates has no {source}:{target} rate")
    exact = parse_odds(rate, f"casino.rates.{source}:{target}")
    return amount * exact.numerator // exact.denominator


def table_caps(currency: str, folder: Path | None = None) -> tuple[int, int]:
    """(max win per round K-12, large-win review threshold K-13) in `currency`."""
    common = settings.common(folder)
    rates = settings.game_table("casino", folder).get("rates", {})
    return (
        convert(common.max_win_per_round, common.max_win_currency, currency, rates),
        convert(common.large_win_review_threshold, common.large_win_currency, currency, rates),
    )
