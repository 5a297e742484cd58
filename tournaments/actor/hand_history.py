"""The record of a tournament hand that just ended, as the hand histories keep it.

The same engine record a cash table keeps (`phh.history_fields`: PHH fields with every hole
card) plus the underscore fields that `pokerroom.engine.pokerstars` writes a tournament hand
from (docs/HISTORIES.md): the tournament, its buy-in and fee, the level (1-based) and its
blinds, the button, the table's number, the hand's id and when it was dealt. Built on the
reactor's thread from the table as the hand leaves it (before its result is told); the write
(`tournaments.store.hand_histories`) only carries the captured values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pokerroom.engine.phh import history_fields
from tournaments.store.hand_histories import HandHistoryRow

if TYPE_CHECKING:
    from tournaments.config import TournamentConfig
    from tournaments.tables.table import TournamentTable


def hand_history_row(
    table: TournamentTable, config: TournamentConfig, ended_at_ms: int
) -> HandHistoryRow | None:
    """The finished hand at `table` (its result not yet told) as a history row; None when
    the table has no finished hand in hand."""
    driver = table.driver
    hand, boundary = driver.hand, table.boundary
    if hand is None or not hand.is_over or boundary is None:
        return None
    levels = config.structure.levels
    index = boundary.level_index
    level = levels[min(index, len(levels) - 1)]
    registration = config.registration
    players = list(driver.players)
    fields = history_fields(
        hand,
        table.hands_played,
        players=players,
        seats=[seat + 1 for seat in driver.order],  # PHH and the director count seats from 1
        seat_count=table.max_seats,
        _table_id=str(table.table_id),
        _hand_id=driver.hand_id,
        _button=table.button,
        _tournament_id=table.tournament_id,
        _buy_in=registration.buy_in,  # a bounty tournament's bounty part included (T-14)
        _fee=registration.fee,
        _buy_in_currency=config.currency,
        _level=index + 1,
        _small_blind=level.small_blind,
        _big_blind=level.big_blind,
        _started_at_ms=round(driver.dealt_at * 1000),
    )
    return HandHistoryRow(
        driver.hand_id, table.tournament_id, table.wire_id, ended_at_ms, players, fields
    )
