"""What routing uses of the room's lobby (docs/ARCHITECTURE.md rule 13: a part declares the
surface it needs and is handed the object; it never takes its owner's concrete type).

`pokerroom.server.lobby.Lobby` provides it. Routing reads the node's own tables, their lobby
lines and the lobby's subscribers, posts chat lines through it (C-13), and plugs its hooks in:
the remote tables (`remote`) and the bell of the chat mutes (`chat.changed`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from twisted.internet.defer import Deferred

from pokerroom.protocol.events import TableSummary
from pokerroom.protocol.results import Empty
from pokerroom.server.hub import Hub
from pokerroom.server.remote import RemoteTables

if TYPE_CHECKING:
    from pokerroom.cash import TableActor


class Mutes(Protocol):
    """The chat service's mutes: a bell when one changed here, and a read of them all."""

    changed: Callable[[], None] | None

    def load(self) -> Deferred[None]:
        """Read the active mutes again."""
        ...


class RoutedLobby(Protocol):
    """The lobby as routing uses it."""

    remote: RemoteTables | None

    @property
    def hub(self) -> Hub:
        """Who is connected here; sends and broadcasts."""
        ...

    @property
    def tables(self) -> Mapping[str, TableActor]:
        """The cash tables this node runs, by id."""
        ...

    @property
    def chat(self) -> Mutes:
        """The chat service (its mutes)."""
        ...

    @property
    def subscribers(self) -> set[str]:
        """The players here who get `lobby_update`."""
        ...

    def summary(self, table_id: str) -> TableSummary:
        """The lobby line of a table this node runs."""
        ...

    def post_chat(self, name: str, table_id: str, text: str) -> Deferred[Empty]:
        """A chat line at a table this node runs: checked, kept and broadcast (C-13)."""
        ...
