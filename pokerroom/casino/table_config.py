"""A casino table's settings, the phases of its round cycle and the listener it tells.

Apart from the actor (`pokerroom.casino.actor`) so that the blackjack table, the desk and the
tests can name them without the round-game actor.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from pokerroom.casino import events as ev

STOPPED = "stopped"
OPENING = "opening"
BETTING = "betting"
SETTLING = "settling"
BETWEEN = "between"
CLOSED = "closed"
WAITING = "waiting_for_bankroll"


class CasinoListener(Protocol):
    """The session layer's part: delivers events to players."""

    def tell(self, players: Iterable[str], event: ev.CasinoEvent) -> None:
        """Send `event` to each of `players`."""


@dataclass(frozen=True, slots=True)
class CasinoTableConfig:
    """A table: its id, game, currency, K-12 cap and K-13 threshold in that currency."""

    table_id: str
    game: str
    currency: str
    max_win: int | None = None  # K-12, minor units of `currency`
    review_at: int | None = None  # K-13, minor units of `currency`
    between_s: float = 5.0  # pause between rounds [unsourced]


def new_round_id(table_id: str) -> str:
    """A fresh round id of the table: `<table>-<12 hex digits>`."""
    return f"{table_id}-{secrets.token_hex(6)}"


def round_exposure(config: CasinoTableConfig, seated: int) -> int | None:
    """The most a round can pay from the bankroll: the K-12 cap times the players seated;
    None for a table without a cap (no bound)."""
    return None if config.max_win is None else config.max_win * seated
