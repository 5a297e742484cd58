"""Tournament tables seen from the room: finding one by its frame id, and its frames' way out.

A tournament table is named `<tournament_id>.<table number>` in every frame. The lobby finds
it here to let a player observe it, act at it, chat there, and get its snapshot back after a
drop (C-14); its seats and observers count toward the table cap like a cash table's (C-1).
Its section 6 events go out through the hub: to one player, or to everyone watching the
table (its `audience`), encoded once; a tournament's messages wait in a `HeldOutbox` until the
decisions before them are stored (persist, then tell).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pokerroom.protocol.events import ServerMessage
from tournaments.tables.table import TournamentTable

if TYPE_CHECKING:
    from tournaments.actor.tournament import TournamentActor


class Outbox(Protocol):
    """What the frames need of the hub."""

    def send(self, player_id: str, message: ServerMessage) -> None:
        """Deliver one message to one player, if connected."""

    def send_all(self, players: Iterable[str], message: ServerMessage) -> None:
        """Deliver one message to several players, encoded once."""


def find_table(actors: Mapping[str, TournamentActor], table_id: str) -> TournamentTable | None:
    """The table named `table_id` in a running tournament, or None."""
    tournament_id, _, number = table_id.rpartition(".")
    actor = actors.get(tournament_id)
    if actor is None or not number.isdigit():
        return None
    table = actor.floor.tables.get(int(number))
    return None if table is None or table.closed else table


def open_tables(actors: Mapping[str, TournamentActor], player: str) -> list[str]:
    """The tournament tables `player` sits at or watches (C-1, C-14)."""
    return sorted(
        table.wire_id
        for actor in actors.values()
        for table in actor.floor.tables.values()
        if not table.closed and player in table.audience
    )


class TableFrames:
    """A `TableListener` for tournament tables: frames through the hub."""

    def __init__(self, hub: Outbox, find: Callable[[str], TournamentTable | None]) -> None:
        self.hub = hub
        self.find = find

    def send(self, player_id: str, message: ServerMessage) -> None:
        """To one player (hole cards, the action request, a snapshot)."""
        self.hub.send(player_id, message)

    def broadcast(
        self, table_id: str, message: ServerMessage, exclude: set[str] | None = None
    ) -> None:
        """To everyone watching the table: its players and observers."""
        table = self.find(table_id)
        if table is not None:
            audience = table.audience
            self.hub.send_all(audience - exclude if exclude else audience, message)


class HeldOutbox:
    """The hub, with each message held until the tournament's decisions before it are stored."""

    def __init__(self, hub: Outbox, hold: Callable[..., None]) -> None:
        self.hub = hub
        self.hold = hold

    def send(self, player_id: str, message: Any) -> None:
        """One message to one player, once stored what it tells."""
        self.hold(self.hub.send, player_id, message)

    def send_all(self, players: Iterable[str], message: Any) -> None:
        """One message to several players (the list as it is now), once stored."""
        self.hold(self.hub.send_all, list(players), message)
