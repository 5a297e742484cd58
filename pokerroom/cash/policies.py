"""RoomPolicies: what spans tables when a player sits down (C-4 memory, C-8 blocks, C-10).

The records live in the database (store.py); the decisions are the pure functions of
`declines.py`, applied here with the table's settings and `now`.
"""

from __future__ import annotations

from dataclasses import dataclass

from twisted.internet.defer import Deferred

from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.declines import (
    decline_block_minutes,
    missed_blinds_remembered,
    rathole_minimum,
)
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.memory import Admission

__all__ = [
    "AdmissionDecision",
    "RoomPolicies",
    "decide_admission",
    "decline_block_minutes",
    "rathole_minimum",
]


@dataclass(frozen=True, slots=True)
class AdmissionDecision:
    """May the player sit, with what minimum buy-in, owing which blinds."""

    blocked_until_ms: int | None  # C-8
    min_buy_in: int  # C-9 and C-10
    missed_sb: bool  # C-4, remembered from an earlier sitting at this table
    missed_bb: bool


class RoomPolicies:
    """Room-wide policies over the store; one instance is shared by every table."""

    def __init__(self, store: HandStore) -> None:
        self.store = store

    def admission(
        self, player_id: str, config: CashTableConfig, now: float
    ) -> Deferred[AdmissionDecision]:
        """Look up the player's records and decide (C-4, C-8, C-10)."""
        now_ms = round(now * 1000)
        found = self.store.admission(player_id, config.stakes, config.table_id, now_ms)
        return found.addCallback(decide_admission, config, now)


def decide_admission(found: Admission, config: CashTableConfig, now: float) -> AdmissionDecision:
    """The pure decision from the stored records."""
    left_at = found.rathole_left_at_ms / 1000 if found.rathole_left_at_ms is not None else None
    minimum = rathole_minimum(
        config.min_buy_in,
        config.max_buy_in,
        found.rathole_amount,
        left_at,
        now,
        config.rathole_minutes,
    )
    missed_at = found.missed_left_at_ms / 1000 if found.missed_left_at_ms is not None else None
    remembered = missed_blinds_remembered(missed_at, now, config.missed_blind_memory_minutes)
    return AdmissionDecision(
        blocked_until_ms=found.blocked_until_ms,
        min_buy_in=minimum,
        missed_sb=remembered and found.missed_sb,
        missed_bb=remembered and found.missed_bb,
    )
