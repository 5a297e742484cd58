"""What the desk uses of tournaments another node runs (cluster mode, docs/design/cluster.md).

In cluster mode a tournament and all its tables run on the node holding its lease; the desk of
every other node is handed this registry (`TournamentDesk.remote`, built by
pokerroom.cluster.remote_tourney) and carries each request for such a tournament to its owner,
for the session's player (ARCH 8). The desk declares the surface here; it never imports the
cluster package (ARCHITECTURE rule 13).
"""

from __future__ import annotations

from typing import Any, Protocol

from twisted.internet.defer import Deferred

from pokerroom.protocol.results import Empty
from pokerroom.protocol.tournament_messages import TournamentSummary
from pokerroom.server.remote import LobbyTable


class RemoteTournamentTable(LobbyTable, Protocol):
    """A table of another node's tournament: what the lobby asks of it, chat included (its
    owner checks, keeps and broadcasts the line, C-13)."""

    def post_chat(self, player_id: str, text: str) -> Deferred[Empty]:
        """A chat line at the table, posted by the owner."""
        ...


class RemoteTournaments(Protocol):
    """The tournaments other nodes run, as this node's desk sees them."""

    def knows(self, tournament_id: str) -> bool:
        """Whether another node told it runs (or ran) `tournament_id`."""
        ...

    def call(
        self, tournament_id: str, player: str, name: str, args: dict[str, Any]
    ) -> Deferred[Any]:
        """Run the request `name` (with its checked `args`) for `player` at the owner; its
        result, or the owner's refusal with the same code; `cluster_unavailable` if none
        answers (`unknown_tournament` if no node ever told of it)."""
        ...

    def table(self, table_id: str) -> RemoteTournamentTable | None:
        """A table of a tournament another node runs (`<tournament_id>.<n>`), if open."""
        ...

    def open_tables(self, player: str) -> list[str]:
        """The remote tournament tables `player` sits at or watches (C-1, C-14)."""
        ...

    def lines(self) -> list[TournamentSummary]:
        """The lobby lines of the open tournaments other nodes run."""
        ...

    def reconnected(self, player: str) -> None:
        """After login/resume here: each owner tells the player the deal a restart voided
        (`deal_result` `restart`, T-13, T-18), once."""
        ...
