"""A table another node owns, as this node's lobby sees it (docs/design/cluster.md).

It has the surface the lobby uses of a table actor (`pokerroom.server.remote.RemoteTable`);
each request goes to the owner as a `Command` on `<p>.table.<id>.cmd` and its answer comes back
as the owner's `Reply`. Its audience (every node's players and observers) is the owner's, as
told by the last reply, event or lobby line: the node holding a player's session counts that
player's open tables from it (C-1).
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec
import structlog
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.cash import CashTableConfig
from pokerroom.cash.snapshot import cash_summary
from pokerroom.cluster.payloads import Reply
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.events import Snapshot, TableSummary
from pokerroom.protocol.results import Empty

log = structlog.get_logger("pokerroom.cluster")

#: How long a request waits for the owner's answer, by request; others `DEFAULT_SECONDS`.
#: A `leave` is answered when the hand ends, a `sit` or `top_up` when the ledger has moved the
#: money.
TIMEOUTS = {"leave": 600.0, "sit": 30.0, "top_up": 30.0}
DEFAULT_SECONDS = 5.0


class Caller(Protocol):
    """How a remote table reaches its owner (the routing's bus side)."""

    def call(
        self, table_id: str, op: str, player: str, args: dict[str, Any], timeout: float
    ) -> Deferred[Reply]:
        """Send one command to the table's owner; its reply (`cluster_unavailable` if none)."""
        ...


class ClusterRemoteTable:
    """A remote table: requests carried to the owner, its lobby line and audience mirrored."""

    def __init__(self, config: CashTableConfig, caller: Caller) -> None:
        self.config = config
        self.table_id = config.table_id
        self.caller = caller
        self.audience: set[str] = set()
        self.players = 0
        self.observers = 0

    # -- what the lobby reads ---------------------------------------------------------------
    @property
    def hand_running(self) -> bool:
        """Not known here; chat asks the owner, which knows (C-13)."""
        return False

    def in_hand(self, player_id: str) -> bool:
        """Not known here; chat asks the owner, which knows (C-13)."""
        return False

    def summary(self) -> TableSummary:
        """The lobby line: the settings from room.toml, the counts from the owner."""
        return cash_summary(self.config, self.players, self.observers)

    def counted(self, players: int, observers: int) -> bool:
        """The owner's counts; True if they changed."""
        changed = (players, observers) != (self.players, self.observers)
        self.players, self.observers = players, observers
        return changed

    # -- requests, carried to the owner -------------------------------------------------------
    def _call(self, op: str, player: str, **args: Any) -> Deferred[Any]:
        timeout = TIMEOUTS.get(op, DEFAULT_SECONDS)
        return self.caller.call(self.table_id, op, player, args, timeout).addCallback(
            self._answered
        )

    def _answered(self, reply: Reply) -> Any:
        if reply.audience is not None:
            self.audience = set(reply.audience)
        return answered(reply)

    def observe(self, player_id: str) -> Deferred[Snapshot]:
        """Start receiving the table's events; the snapshot."""
        return self._call("observe", player_id).addCallback(as_snapshot)

    def unobserve(self, player_id: str) -> Deferred[Any]:
        """Stop receiving them."""
        return self._call("unobserve", player_id)

    def act(self, player_id: str, action: str, amount: int | None = None) -> Deferred[Any]:
        """A betting action."""
        return self._call("act", player_id, action=action, amount=amount)

    def sit(
        self, player_id: str, seat: int | None, buy_in: int, wait_for_big_blind: bool = False
    ) -> Deferred[Any]:
        """Take a seat and buy in (the owner moves the money)."""
        return self._call(
            "sit", player_id, seat=seat, buy_in=buy_in, wait_for_big_blind=wait_for_big_blind
        )

    def top_up(self, player_id: str, amount: int, key: str | None = None) -> Deferred[Any]:
        """Add chips; `key` (the ledger's, P-2) makes a retry move money once, on any node."""
        return self._call("top_up", player_id, amount=amount, key=key)

    def sit_out(self, player_id: str) -> Deferred[Any]:
        """Keep the seat, stop being dealt in."""
        return self._call("sit_out", player_id)

    def sit_in(self, player_id: str, post: bool = True) -> Deferred[Any]:
        """Come back."""
        return self._call("sit_in", player_id, post=post)

    def leave(self, player_id: str) -> Deferred[Any]:
        """Stand up after the hand and cash out."""
        return self._call("leave", player_id)

    def post_chat(self, player_id: str, text: str) -> Deferred[Empty]:
        """A chat line: the owner checks, keeps and broadcasts it."""
        return self._call("chat", player_id, text=text).addCallback(lambda _: Empty())

    def reconnected(self, player_id: str) -> Deferred[Any]:
        """C-14: the owner sends the snapshot to the player (on their `player` subject)."""
        return self._call("reconnected", player_id)

    def disconnected(self, player_id: str) -> None:
        """C-14: the player dropped (told to the owner; nobody waits)."""

        def failed(failure: Failure) -> None:
            log.warning("remote_notice_failed", table_id=self.table_id, error=str(failure.value))

        self._call("disconnected", player_id).addErrback(failed)


def answered(reply: Reply) -> Any:
    """The owner's result, or its refusal raised with the same code, message and details."""
    if not reply.ok:
        raise ProtocolError(reply.code, reply.message, reply.details)
    return reply.result


def as_snapshot(result: Any) -> Snapshot | Any:
    """The owner's snapshot as the typed object the `observed` answer carries."""
    try:
        return msgspec.convert(result, Snapshot)
    except msgspec.ValidationError:  # sent on as the owner wrote it
        return result
