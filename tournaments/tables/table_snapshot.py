"""What clients see of a tournament table (docs/PROTOCOL.md section 6): its `table_id` in
frames, its snapshot for one player, and frames to nobody (a table no client watches)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pokerroom.engine.variants import VARIANTS
from pokerroom.protocol.events import (
    UNSET,
    HandView,
    ServerMessage,
    Snapshot,
    SnapshotSeat,
    UnsetType,
)
from tournaments.director.structure import Level
from tournaments.tables.presence import Presence

NO_LIMIT = VARIANTS["NT"]


class NoFrames:
    """Frames to nobody: a table no client watches (simulations, benchmarks)."""

    def send(self, player_id: str, message: ServerMessage) -> None:
        """Drop the message."""

    def broadcast(
        self, table_id: str, message: ServerMessage, exclude: set[str] | None = None
    ) -> None:
        """Drop the message."""


def wire_id(tournament_id: str, table_id: int) -> str:
    """The table's `table_id` in frames: `<tournament_id>.<table number>`."""
    return f"{tournament_id}.{table_id}"


def table_snapshot(
    table_id: str,
    max_seats: int,
    level: Level | None,
    button: int | None,
    seats: Mapping[int, str],
    stacks: Mapping[str, int],
    dealt: Iterable[str],
    presence: Presence,
    bounty_of: Callable[[str], int | None] | None,
    hand: HandView | None,
    tournament_id: str,
) -> Snapshot:
    """The table as one player may see it: `stacks` as shown (a player in the hand at their
    stack when it started), `hand` their view of the hand in play (C-15)."""
    in_hand = set(dealt)
    return Snapshot(
        table_id=table_id,
        variant=NO_LIMIT.code,
        max_seats=max_seats,
        blinds=[level.small_blind, level.big_blind] if level else [0, 0],
        currency=None,  # chips, not money
        buy_in=None,
        button=button - 1 if button is not None else None,
        seats=[
            SnapshotSeat(
                seat=number - 1,
                player=entry,
                stack=stacks[entry],
                sitting_out=presence.sitting_out(entry),
                waiting=False,
                in_hand=entry in in_hand,
                disconnected=entry in presence.disconnected,
                bounty=_or_unset(None if bounty_of is None else bounty_of(entry)),  # T-14
            )
            for number, entry in sorted(seats.items())
        ],
        hand=hand,
        tournament_id=tournament_id,
        ante=level.ante if level else 0,
    )


def _or_unset(value: int | None) -> int | UnsetType:
    """A value, or UNSET (left out of the frame) for None."""
    return UNSET if value is None else value
