"""Watchers: a node's players keep a table open when it moves to another node
(docs/design/cluster.md, "Tables that move").

A table's observers are its owner's, in memory: the next owner (a drain, a balance, a failover)
starts with none, and only the seated come back (from their escrows, C-12). So each node
remembers, per table, which of the players connected to it have the table open (its audience,
as the owner tells it in each event and lobby line, or the actor's when the table leaves this
node), and when the table's owner changes it asks the new owner to `observe` again for each of
them who is missing from the new owner's audience, then for their snapshot (`reconnected`), as
after a gap. A player who closed the table meanwhile is out of the audience before the move, so
is not brought back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

#: The owner of a table as last seen: (node, epoch); epoch None when not told.
Owner = tuple[str, int | None]


class Watchers:
    """Who of this node's players has each table open, across its changes of owner."""

    def __init__(self, connected: Callable[[str], bool]) -> None:
        self.connected = connected  # whether a player's session is on this node
        self.remembered: dict[str, set[str]] = {}
        self.owner: dict[str, Owner] = {}
        #: Tables that left this node: the next owner seen is a new one.
        self.pending: set[str] = set()
        self.rewatched = 0  # players brought back to a table that moved (status, tests)

    def _here(self, players: Iterable[str]) -> set[str]:
        return {p for p in players if self.connected(p)}

    def left(self, table_id: str, audience: Iterable[str]) -> None:
        """The table stopped here (its actor's audience, before it closed)."""
        self.remembered[table_id] = self._here(audience)
        self.owner.pop(table_id, None)
        self.pending.add(table_id)

    def taken(self, table_id: str, audience: Iterable[str]) -> list[str]:
        """The table runs here now (`audience`: what the last owner told): who of this node's
        players to watch it again here."""
        had = self._here(audience) | self.remembered.pop(table_id, set())
        self.owner.pop(table_id, None)
        self.pending.discard(table_id)
        return sorted(had)

    def seen(self, table_id: str, owner: Owner, audience: Iterable[str]) -> list[str]:
        """An event or lobby line of a table another node runs, with its audience: who of
        this node's players to watch it again there (the owner changed and they are not in
        its audience); the audience is remembered."""
        before = self.owner.get(table_id)
        node, epoch = owner
        if epoch is None and before is not None and before[0] == node:
            epoch = before[1]  # not told: the owner's epoch as last seen
        self.owner[table_id] = (node, epoch)
        moved = table_id in self.pending or (
            before is not None
            and (before[0] != node or (None not in (epoch, before[1]) and before[1] != epoch))
        )
        self.pending.discard(table_id)
        now = set(audience)
        missing = set()
        if moved:
            missing = {p for p in self.remembered.get(table_id, ()) if self.connected(p)} - now
        self.remembered[table_id] = self._here(now) | missing
        self.rewatched += len(missing)
        return sorted(missing)
