"""C-14 across nodes: which connection notices from other nodes are stale (one copy of the rule
for the owner of a cash table and the owner of a tournament).

A player's node tells the owner `reconnected` and `disconnected`, each with when it happened by
that node's clock (`at`). A node the player left may tell the drop after they came back through
another node: a `disconnected` is stale, and changes nothing, when the player is connected to
the owner itself or came back (`reconnected`) at the same place later by the clocks.
"""

from __future__ import annotations

from collections.abc import Callable

from pokerroom.cluster.payloads import Command


class ConnectionNotices:
    """When each player last came back at each place (a table, a tournament)."""

    def __init__(self, connected_here: Callable[[str], bool]) -> None:
        self.connected_here = connected_here
        #: (place, player) -> when the player last came back there, by the notice's clock.
        self.back_at: dict[tuple[str, str], float] = {}

    def stale(self, place: str, cmd: Command) -> bool:
        """Whether `cmd` is a drop notice that changes nothing (remembers comebacks)."""
        key, at = (place, cmd.player), float(cmd.args.get("at", 0.0))
        if cmd.op == "reconnected":
            self.back_at[key] = max(at, self.back_at.get(key, at))
            return False
        if cmd.op != "disconnected":
            return False
        return self.connected_here(cmd.player) or at < self.back_at.get(key, at)

    def forget(self, place: str) -> None:
        """The place is no longer served here: its comebacks are the next owner's."""
        self.back_at = {k: at for k, at in self.back_at.items() if k[0] != place}
