"""What the lobby uses of tables another node runs (cluster mode, docs/design/cluster.md).

In cluster mode a node's lobby holds the tables it owns as actors and is handed the others
as *remote tables* (pokerroom.cluster.remote_table): the same surface the lobby uses of a table
actor, each request carried to the owner. The lobby declares that surface here and is handed
the registry (`RemoteTables`); it never imports the cluster package (ARCHITECTURE rule 13).
"""

from __future__ import annotations

from typing import Protocol

from twisted.internet.defer import Deferred

from pokerroom.protocol.events import TableSummary
from pokerroom.protocol.results import Empty


class LobbyTable(Protocol):
    """What the lobby reads and asks of any table, local or remote (C-1, C-13, C-14)."""

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events: its players and observers."""
        ...

    @property
    def hand_running(self) -> bool:
        """Whether a hand is being dealt or played (C-13)."""
        ...

    def in_hand(self, player_id: str) -> bool:
        """Whether the player holds live cards in the running hand (C-13)."""
        ...

    def observe(self, player_id: str) -> object:
        """Start receiving the table's public events; the snapshot (or a Deferred of it)."""
        ...

    def unobserve(self, player_id: str) -> object:
        """Stop receiving them."""
        ...

    def act(self, player_id: str, action: str, amount: int | None = None) -> object:
        """A betting action of the player whose turn it is."""
        ...

    def disconnected(self, player_id: str) -> None:
        """C-14: the player dropped; the seat stays, the clock runs."""
        ...

    def reconnected(self, player_id: str) -> object:
        """C-14: the snapshot again, and the action request if it is the player's turn."""
        ...


class CashTable(LobbyTable, Protocol):
    """A cash table's requests (buy-ins, top-ups, sitting out and leaving)."""

    def sit(
        self, player_id: str, seat: int | None, buy_in: int, wait_for_big_blind: bool = False
    ) -> object:
        """Take a seat and buy in."""
        ...

    def top_up(self, player_id: str, amount: int, key: str | None = None) -> object:
        """Add chips from the wallet."""
        ...

    def sit_out(self, player_id: str) -> object:
        """Keep the seat, stop being dealt in."""
        ...

    def sit_in(self, player_id: str, post: bool = True) -> object:
        """Come back."""
        ...

    def leave(self, player_id: str) -> object:
        """Stand up and cash out."""
        ...


class RemoteTable(CashTable, Protocol):
    """A table another node owns: its lobby line and chat also go through the owner."""

    def summary(self) -> TableSummary:
        """Its lobby line, as the owner last told it."""
        ...

    def post_chat(self, player_id: str, text: str) -> Deferred[Empty]:
        """A chat line, posted and broadcast by the owner."""
        ...


class ChatRelay(Protocol):
    """A table another node runs, where a chat line is checked, kept and broadcast by its
    owner (C-13: only the owner knows who is in the running hand)."""

    @property
    def audience(self) -> set[str]:
        """Who receives the table's public events, by the owner."""
        ...

    def post_chat(self, player_id: str, text: str) -> Deferred[Empty]:
        """A chat line, posted and broadcast by the owner."""
        ...


class RemoteTables(Protocol):
    """The tables other nodes own, as this node's lobby sees them."""

    def get(self, table_id: str) -> RemoteTable | None:
        """The remote table `table_id`, if another node runs it."""
        ...

    def ids(self) -> list[str]:
        """The ids of the remote tables."""
        ...

    def open_tables(self, player: str) -> list[str]:
        """The remote tables `player` has open (watches or sits at)."""
        ...
