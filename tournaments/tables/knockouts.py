"""What a finished tournament hand reports: knockouts (T-9, T-14) and the table's boundaries.

`hand_knockouts` reads the engine's hand: each busted player's stack at the start of the hand
and order from the button (T-9), and who knocked them out (T-14, for bounties): the winners of
the pot that eliminated them (`bounties.bounty_winners`: the highest pot they contested; with
several side pots, the highest one they were in, which holds the last of their chips; a player
whose whole stack went in as an ante or dead post, the main pot's winners). `HandBoundary`
is a table at the start of a hand, i.e. after its last completed hand, where T-18 refunds
will read stacks, button and level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pokerroom.engine.events import PotAwarded
from pokerroom.engine.hand import Hand
from pokerroom.engine.pots import build_pots
from tournaments.director.bounties import bounty_winners
from tournaments.director.eliminations import Knockout, PotResult, order_from_button


@dataclass(frozen=True, slots=True)
class HandBoundary:
    """The table at the start of a hand, i.e. after its last completed hand (for T-18)."""

    table_id: int
    hand_number: int
    level_index: int
    button: int | None
    big_blind: int | None
    seats: tuple[tuple[int, str], ...]
    stacks: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: stacks before and after, and who was knocked out by whom (T-9, T-14)."""

    table_id: int
    hand_id: str
    level_index: int
    button: int
    start_stacks: dict[str, int]
    end_stacks: dict[str, int]
    knockouts: tuple[Knockout, ...]


def hand_knockouts(
    hand: Hand,
    busted: Sequence[int],
    order: Sequence[str],
    seats_dealt: Sequence[int],
    start_stacks: dict[str, int],
    where: tuple[int, int, int, str],
) -> tuple[Knockout, ...]:
    """T-9 order from the button and T-14 pot winners; `where` = table, seats, button, hand."""
    table_id, max_seats, button, hand_id = where
    bets = [c - d for c, d in zip(hand.contrib, hand.dead, strict=True)]
    pots = build_pots(bets, [not f for f in hand.folded], sum(hand.dead))
    awards = [e for e in hand.log if isinstance(e, PotAwarded)]
    results = [
        PotResult(
            frozenset(order[i] for i in pot.eligible),
            tuple(order[i] for i, share in award.shares if share),
        )
        for pot, award in zip(pots, awards, strict=False)
    ]
    from_button = order_from_button(button, seats_dealt, max_seats)
    return tuple(
        Knockout(
            entry=order[i],
            table_id=table_id,
            stack_at_start=start_stacks[order[i]],
            seats_from_button=from_button[seats_dealt[i]],
            busted_by=bounty_winners(order[i], results),
            hand_id=hand_id,
        )
        for i in busted
    )
