"""What a player sees of a cash table (C-15): its settings, every seat's public state, the
button, and the hand as that player may see it (the driver's view: only their own cards)."""

from __future__ import annotations

from collections.abc import Iterable

from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.seating import Seat
from pokerroom.protocol.events import HandView, Snapshot, SnapshotSeat, TableSummary


def cash_snapshot(
    config: CashTableConfig, seats: Iterable[Seat], button: int | None, hand: HandView | None
) -> Snapshot:
    """The table's snapshot for one player, whose view of the hand is `hand`."""
    return Snapshot(
        table_id=config.table_id,
        variant=config.variant,
        max_seats=config.max_seats,
        blinds=[config.small_blind, config.big_blind],
        currency=config.currency,
        buy_in=[config.min_buy_in, config.max_buy_in],
        button=button,
        seats=[
            SnapshotSeat(
                seat=s.number,
                player=s.player_id,
                stack=s.stack,
                sitting_out=s.sitting_out,
                waiting=s.waiting,
                in_hand=s.in_hand,
                disconnected=s.disconnected,
            )
            for s in sorted(seats, key=lambda s: s.number)
        ],
        hand=hand,
    )


def cash_summary(config: CashTableConfig, players: int, observers: int) -> TableSummary:
    """The table's lobby line: its settings and how many sit and watch there."""
    return TableSummary(
        table_id=config.table_id,
        variant=config.variant,
        max_seats=config.max_seats,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        currency=config.currency,
        min_buy_in=config.min_buy_in,
        max_buy_in=config.max_buy_in,
        action_seconds=config.action_seconds,
        timebank_seconds=config.timebank_seconds,
        players=players,
        observers=observers,
    )
