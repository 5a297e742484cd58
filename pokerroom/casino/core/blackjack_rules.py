"""A blackjack table's settings (BJ-1 … BJ-19) and how `config/casino/blackjack.toml` reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pokerroom.casino.core import errors, tables
from pokerroom.casino.core.results import NO_LIMITS, Limits

VOID, PARTIAL = "void", "partial"  # BJ-18, BJ-19: `cancel_mode`


@dataclass(frozen=True, slots=True)
class BlackjackRules:
    """A blackjack table's settings (BJ-1 … BJ-19)."""

    decks: int = 8  # BJ-1 [unsourced]
    cut_from_end: int = 208  # BJ-1: four decks from the back
    burn: int = 1  # BJ-2 [unsourced]
    hole_card: str = "peek"  # BJ-5, BJ-6: "peek" or "enhc"
    surrender: bool = True  # BJ-13
    double_for_less: bool = False  # BJ-10
    split_same_rank_only: bool = False  # BJ-11
    late_dealer_bj_takes: str = "all"  # BJ-8: "all" or "original_only" [unsourced]
    cancel_mode: str = VOID  # BJ-18, BJ-19: VOID or PARTIAL
    max_boxes: int = 7  # BJ-5
    pays: Mapping[str, Fraction] = field(
        default_factory=lambda: {
            "blackjack": Fraction(3, 2),
            "win": Fraction(1),
            "insurance": Fraction(2),
            "even_money": Fraction(1),
        }
    )
    limits: Limits = NO_LIMITS

    @property
    def spots(self) -> frozenset[str]:
        """The boxes `box:1` … `box:N` (BJ-5)."""
        return frozenset(f"box:{n}" for n in range(1, self.max_boxes + 1))


def rules_from(data: Mapping[str, object]) -> BlackjackRules:
    """Read a `[blackjack]` settings table (config/casino/blackjack.toml)."""
    pays = tables.pay_table(data, "pays", "blackjack")
    missing = {"blackjack", "win", "insurance", "even_money"} - set(pays)
    if missing:
        raise errors.CasinoError(errors.BAD_CONFIG, f"blackjack.pays lacks {sorted(missing)}")
    return BlackjackRules(
        decks=tables.whole(data, "decks", 8),
        cut_from_end=tables.whole(data, "cut_card_from_end", 208),
        burn=tables.whole(data, "burn", 1),
        hole_card=tables.choice(data, "dealer_hole_card", "peek", ("peek", "enhc")),
        surrender=tables.flag(data, "surrender", True),
        double_for_less=tables.flag(data, "double_for_less", False),
        split_same_rank_only=tables.flag(data, "split_same_rank_only", False),
        late_dealer_bj_takes=tables.choice(
            data, "late_dealer_bj_takes", "all", ("all", "original_only")
        ),
        cancel_mode=tables.choice(data, "cancel_mode", VOID, (VOID, PARTIAL)),
        max_boxes=tables.whole(data, "max_boxes", 7),
        pays=pays,
        limits=tables.limits(data),
    )
