"""One session per player across the cluster, and the messages for one player.

When a player logs in here, the node listens on `<p>.player.<name>` (only the node holding the
session does: hole cards, C-15) and publishes a `SessionClaim` on `<p>.session.<name>`. A node
that holds an older session of that player closes it with `session_replaced` (the newer login
wins; equal times are decided by the node's name; a node whose session is the newer answers
with its own claim, so the node of the older one closes it). The session ending here stops the
listening.
"""

from __future__ import annotations

from typing import Any

import structlog
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.payloads import Private, SessionClaim
from pokerroom.cluster.subjects import Subjects
from pokerroom.server.hub import Hub

log = structlog.get_logger("pokerroom.cluster")


class ClusterSessions:
    """This node's side of the players' sessions in the cluster."""

    def __init__(self, bus: Bus, subjects: Subjects, node: str, hub: Hub) -> None:
        self.bus, self.subjects, self.node, self.hub = bus, subjects, node, hub
        self.listening: dict[str, Deferred[Subscription]] = {}
        #: Sessions closed here because the player logged in on another node.
        self.replaced = 0

    def start(self) -> Deferred[Subscription]:
        """Listen to every player's log-in notices."""
        return self.bus.subscribe(self.subjects.all_sessions, self._on_claim)

    def attached(self, player: str) -> None:
        """`player` logged in here: listen to their messages, tell the other nodes."""
        if player not in self.listening:
            d = self.bus.subscribe(self.subjects.player(player), self._on_private)
            d.addErrback(self._failed, "listen_failed", player)
            self.listening[player] = d
        at = self.hub.attached_at.get(player, 0.0)
        claim = SessionClaim(player=player, node=self.node, at=at)
        self.bus.publish_quietly(self.subjects.session(player), encode(claim))

    def detached(self, player: str) -> None:
        """`player`'s session here ended: stop listening to their messages."""
        d = self.listening.pop(player, None)
        if d is not None:
            d.addCallback(self._stop)

    def _stop(self, subscription: Any) -> None:
        if isinstance(subscription, Subscription):
            self.bus.unsubscribe(subscription)

    def _failed(self, failure: Failure, event: str, player: str) -> None:
        log.warning(event, player_id=player, error=str(failure.value))

    def reconnected(self) -> None:
        """NATS is back: claim every session here again (a log-in elsewhere meanwhile was not
        heard; the older of the two is closed now)."""
        for player, at in sorted(self.hub.attached_at.items()):
            claim = SessionClaim(player=player, node=self.node, at=at)
            self.bus.publish_quietly(self.subjects.session(player), encode(claim))

    def _on_claim(self, data: bytes, reply: str | None) -> None:
        claim = decode(data, SessionClaim)
        if claim.node == self.node:
            return
        mine = self.hub.attached_at.get(claim.player)
        if mine is None:
            return
        if (mine, self.node) > (claim.at, claim.node):  # ours is newer: the other closes its own
            answer = SessionClaim(player=claim.player, node=self.node, at=mine)
            self.bus.publish_quietly(self.subjects.session(claim.player), encode(answer))
            return
        if self.hub.evict(claim.player):
            self.replaced += 1

    def _on_private(self, data: bytes, reply: str | None) -> None:
        message = decode(data, Private)
        self.hub.deliver((message.player,), message.frame)
