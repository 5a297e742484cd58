"""K-12, K-13: the common amounts in a table's currency, at `[casino.rates]`, rounded down."""

from __future__ import annotations

import pytest

from pokerroom.casino.caps import convert, table_caps
from pokerroom.casino.core.errors import CasinoError


def test_amounts_convert_at_the_rate_rounded_down() -> None:
    assert convert(20_000_000, "SGD", "USD", {"SGD:USD": "0.74"}) == 14_800_000
    assert convert(333, "SGD", "USD", {"SGD:USD": "0.5"}) == 166  # K-16: down
    assert convert(5, "USD", "USD", {}) == 5
    with pytest.raises(CasinoError) as missing:
        convert(5, "USD", "EUR", {"SGD:USD": "0.74"})
    assert missing.value.code == "bad_config"
    with pytest.raises(CasinoError):
        convert(5, "SGD", "USD", {"SGD:USD": 0.74})  # never a float


def test_the_shipped_settings() -> None:
    """200,000 SGD and 10,000 USD (config/casino/casino.toml) for a USD and an SGD table."""
    assert table_caps("USD") == (14_800_000, 1_000_000)
    assert table_caps("SGD") == (20_000_000, 1_350_000)
