"""The terms of one cash table: game, stakes, buy-in limits, rake, timers and policies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from pokerroom.engine import VARIANTS, HandConfig
from pokerroom.engine.variants import Betting


@dataclass(frozen=True, slots=True)
class CashTableConfig:
    """Everything fixed for a cash table; amounts are minor units (cents), times are seconds."""

    table_id: str
    variant: str = "NT"  # engine code: NT, PO, FT
    max_seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    currency: str = "USD"
    min_buy_in: int = 40  # 20 BB
    max_buy_in: int = 200  # 100 BB; also the top-up ceiling (C-9)
    rake_bps: int = 500  # C-11: 5 %
    rake_cap: int | None = None  # C-11: None means 3 big blinds
    rake_without_flop: bool = False  # C-11: no flop, no drop
    action_seconds: float = 15.0  # C-6
    timebank_seconds: float = 30.0  # C-7: the bank a player sits down with
    timebank_refill_seconds: float = 5.0  # C-7
    timebank_refill_hands: int = 10  # C-7
    timebank_max_seconds: float = 60.0  # C-7
    sitout_max_minutes: float = 15.0  # C-3
    missed_blind_memory_minutes: float = 30.0  # C-4
    rathole_minutes: float = 60.0  # C-10
    decline_hands: int = 10  # C-8: leaving before this many hands is a decline
    hit_and_run: bool = True  # C-8: off for fast-fold pools
    between_hands_seconds: float = 2.0  # pause after a hand before the next one

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}")
        if not 2 <= self.max_seats <= 10:
            raise ValueError("a cash table has 2 to 10 seats")
        if not 0 < self.small_blind <= self.big_blind:
            raise ValueError("blinds must be positive, small <= big")
        if not 0 < self.min_buy_in <= self.max_buy_in:
            raise ValueError("buy-in limits must be positive, min <= max")

    @classmethod
    def from_mapping(cls, table_id: str, values: Mapping[str, Any]) -> CashTableConfig:
        """Build from a TOML table; unknown keys are an error so that typos are caught."""
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown cash table settings: {sorted(unknown)}")
        return cls(table_id=table_id, **{k: v for k, v in values.items() if k != "table_id"})

    @property
    def stakes(self) -> str:
        """The blind level shared by C-8 blocks and C-10 rathole memory: `USD:1/2`."""
        return f"{self.currency}:{self.small_blind}/{self.big_blind}"

    @property
    def effective_rake_cap(self) -> int:
        """The per-hand rake cap (C-11): configured, else three big blinds."""
        return 3 * self.big_blind if self.rake_cap is None else self.rake_cap

    def hand_config(
        self,
        stacks: tuple[int, ...],
        blinds: tuple[int, ...],
        live_posts: tuple[int, ...],
        dead_posts: tuple[int, ...],
    ) -> HandConfig:
        """The engine terms for one hand with these stacks and forced bets (C-2, C-4, C-11)."""
        variant = VARIANTS[self.variant]
        fixed = variant.betting is Betting.FIXED_LIMIT
        return HandConfig(
            variant=variant,
            starting_stacks=stacks,
            blinds_or_straddles=blinds,
            min_bet=self.big_blind,
            small_bet=self.big_blind if fixed else 0,
            big_bet=2 * self.big_blind if fixed else 0,
            live_posts=live_posts if any(live_posts) else (),
            dead_posts=dead_posts if any(dead_posts) else (),
            rake_bps=self.rake_bps,
            rake_cap=self.effective_rake_cap,
            rake_without_flop=self.rake_without_flop,
        )
