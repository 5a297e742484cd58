"""Public frames for players connected to other nodes (docs/design/cluster.md, "Tournaments
across nodes").

A tournament tells its tables' events, its status and its results to lists of players
(`Hub.send_all`), not through a table's numbered broadcast: in cluster mode the hub hands the
players not connected here to this part, which publishes the frame once on `<p>.fanout` with
their names (one name: on that player's own subject, as a private message). Every node
writes it to those of the names connected to it. Never used for hole cards: those go to one
player (`Hub.send`, C-15).
"""

from __future__ import annotations

from collections.abc import Iterable

from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred

from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.payloads import Fanout, Private
from pokerroom.cluster.subjects import Subjects
from pokerroom.server.hub import Hub


class ClusterFanout:
    """Sends and delivers `Fanout` frames for one node."""

    def __init__(self, bus: Bus, subjects: Subjects, node: str, hub: Hub) -> None:
        self.bus, self.subjects, self.node, self.hub = bus, subjects, node, hub

    def start(self) -> Deferred[Subscription]:
        """Listen to every node's fan-outs."""
        return self.bus.subscribe(self.subjects.fanout, self._on_fanout)

    def send_all(self, players: list[str], frame: bytes) -> None:
        """One public frame for `players` (none of them connected here)."""
        if len(players) == 1:
            private = Private(player=players[0], frame=frame)
            self.bus.publish_quietly(self.subjects.player(players[0]), encode(private))
            return
        fanout = Fanout(node=self.node, players=players, frame=frame)
        self.bus.publish_quietly(self.subjects.fanout, encode(fanout))

    def broadcast(self, table_id: str, frame: bytes, exclude: Iterable[str]) -> None:
        """A broadcast of a table no `TableServer` numbers (a tournament's, whose events go
        by lists; a chat line there): to its audience not connected here."""
        skip = set(exclude)
        players = [
            p
            for p in sorted(self.hub.audience_of(table_id))
            if p not in skip and self.hub.session_of(p) is None
        ]
        if players:
            self.send_all(players, frame)

    def _on_fanout(self, data: bytes, reply: str | None) -> None:
        fanout = decode(data, Fanout)
        if fanout.node != self.node:
            self.hub.deliver(fanout.players, fanout.frame)
