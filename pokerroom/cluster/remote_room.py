"""The tables other nodes own, as this node sees them: requests out, events and lines in.

A node keeps a `ClusterRemoteTable` for each configured table it does not own (the lobby's
`remote`), listens to every table's events (`<p>.table.*.ev`) and to the lobby lines
(`<p>.lobby`), and delivers each event of a remote table to the players of its audience who are
connected here. Events are numbered per owner (`node`, `epoch`): a number skipped, or a new
owner, is a gap, and every player here who has the table open gets a fresh snapshot from the
owner (the owner's `reconnected`, sent on the player's subject) after the event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog
from twisted.internet.defer import Deferred, gatherResults
from twisted.python.failure import Failure

from pokerroom.cash import CashTableConfig
from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.lobby_part import RoutedLobby
from pokerroom.cluster.payloads import Command, LobbyLine, Reply, TableEvent
from pokerroom.cluster.remote_table import ClusterRemoteTable
from pokerroom.cluster.subjects import Subjects
from pokerroom.cluster.watchers import Watchers
from pokerroom.protocol.events import LobbyUpdate

log = structlog.get_logger("pokerroom.cluster")
#: Commands that say a player dropped or came back (C-14).
CONNECTION_NOTICES = ("disconnected", "reconnected")
#: The last event of a table whose snapshot could not be fetched: any next event is a gap.
UNKNOWN = ("", -1, -1)
#: A snapshot the owner could not send (after a NATS restart the owner may not serve its
#: tables again yet) is asked again this many seconds later, up to RESYNC_TRIES times in all;
#: then the table's next event asks again.
RESYNC_RETRY_SECONDS = 1.0
RESYNC_TRIES = 5


class RemoteRoom:
    """The lobby's `RemoteTables` in cluster mode, and the delivery of their events here."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        node: str,
        lobby: RoutedLobby,
        configs: Mapping[str, CashTableConfig],
    ) -> None:
        self.bus, self.subjects, self.node = bus, subjects, node
        self.lobby, self.hub = lobby, lobby.hub
        self.configs = dict(configs)
        self.tables: dict[str, ClusterRemoteTable] = {}
        #: The last event seen of each remote table: (owner, epoch, seq).
        self.last: dict[str, tuple[str, int, int]] = {}
        #: Gaps seen and snapshots asked for (status, tests).
        self.gaps = 0
        self.resyncs = 0
        #: Who of this node's players has each table open, across its moves (watchers.py).
        self.watchers = Watchers(lambda player: self.hub.session_of(player) is not None)

    def start(self) -> Deferred[Any]:
        """Listen to every table's events and to the lobby lines."""
        return gatherResults(
            [
                self.bus.subscribe(self.subjects.all_table_ev, self._on_event),
                self.bus.subscribe(self.subjects.lobby, self._on_line),
            ],
            consumeErrors=True,
        )

    # -- the registry (the lobby's RemoteTables) ------------------------------------------------
    def add(self, table_id: str) -> None:
        """The table is run by another node (or by none, between owners)."""
        config = self.configs.get(table_id)
        if config is not None and table_id not in self.tables:
            self.tables[table_id] = ClusterRemoteTable(config, self)

    def drop(self, table_id: str) -> list[str]:
        """This node runs the table now: who of its players had it open (to watch it here)."""
        table = self.tables.pop(table_id, None)
        self.last.pop(table_id, None)
        return self.watchers.taken(table_id, () if table is None else table.audience)

    def get(self, table_id: str) -> ClusterRemoteTable | None:
        """The remote table `table_id`, if another node runs it."""
        return self.tables.get(table_id)

    def ids(self) -> list[str]:
        """The ids of the remote tables."""
        return list(self.tables)

    def open_tables(self, player: str) -> list[str]:
        """The remote tables `player` has open, by their owners' audience (C-1)."""
        return [t for t, table in self.tables.items() if player in table.audience]

    # -- requests out -----------------------------------------------------------------------------
    def call(
        self, table_id: str, op: str, player: str, args: dict[str, Any], timeout: float
    ) -> Deferred[Reply]:
        """Send one command to the table's owner; its reply. A connection notice carries
        when it happened here (`at`), so the owner can tell a stale one (C-14)."""
        if op in CONNECTION_NOTICES:
            args = {**args, "at": self.hub.clock.seconds()}
        payload = encode(Command(op=op, player=player, args=args))
        d = self.bus.request(self.subjects.table_cmd(table_id), payload, timeout)
        return d.addCallback(decode, Reply)

    # -- events in --------------------------------------------------------------------------------
    def _on_event(self, data: bytes, reply: str | None) -> None:
        event = decode(data, TableEvent)
        table = self.tables.get(event.table_id)
        if table is None or event.node == self.node:  # ours: delivered by the hub already
            return
        moved = self.watchers.seen(event.table_id, (event.node, event.epoch), event.audience)
        table.audience = set(event.audience)
        before = self.last.get(event.table_id)
        self.last[event.table_id] = (event.node, event.epoch, event.seq)
        self.hub.deliver(event.audience, event.frame)
        self.rewatch(event.table_id, moved)
        if before is None:
            return
        if before[:2] != (event.node, event.epoch) or event.seq != before[2] + 1:
            self.gaps += 1
            log.info(
                "event_gap",
                table_id=event.table_id,
                owner=event.node,
                expected=before[2] + 1,
                seq=event.seq,
            )
            self.resync(event.table_id)

    def reconnected(self) -> None:
        """NATS is back: events may have been lost meanwhile, even at a table quiet since;
        every player here gets a fresh snapshot of each remote table they have open, and the
        next event of each table starts its numbers again (unless the snapshot could not be
        fetched: then that event asks again)."""
        self.last.clear()
        for table_id in sorted(self.tables):
            self.resync(table_id)

    def resync(self, table_id: str) -> None:
        """Ask the owner for a fresh snapshot for each player here who has the table open."""
        table = self.tables.get(table_id)
        if table is None:
            return
        for player in sorted(table.audience):
            self._resync_one(table_id, player, RESYNC_TRIES)

    def _resync_one(self, table_id: str, player: str, tries: int) -> None:
        table = self.tables.get(table_id)
        if table is None or self.hub.session_of(player) is None or player not in table.audience:
            return  # the table moved here, or the player left it or the node
        self.resyncs += 1

        def failed(failure: Failure) -> None:
            log.warning(
                "resync_failed", table_id=table_id, player_id=player, error=str(failure.value)
            )
            self.last[table_id] = UNKNOWN  # the table's next event asks again
            if tries > 1:
                self.hub.clock.callLater(
                    RESYNC_RETRY_SECONDS, self._resync_one, table_id, player, tries - 1
                )

        table.reconnected(player).addErrback(failed)

    def rewatch(self, table_id: str, players: list[str]) -> None:
        """The table moved to another node: each of `players` (connected here, who had it
        open) observes it again there and gets its snapshot."""
        table = self.tables.get(table_id)
        if table is None:
            return
        for player in players:
            log.info("table_rewatched", table_id=table_id, player_id=player)

            def failed(failure: Failure, player: str = player) -> None:
                log.warning(
                    "rewatch_failed", table_id=table_id, player_id=player, error=str(failure.value)
                )

            def snapshot(_: object, player: str = player) -> Deferred[Any]:
                assert table is not None
                return table.reconnected(player)

            table.observe(player).addCallback(snapshot).addErrback(failed)

    def _on_line(self, data: bytes, reply: str | None) -> None:
        line = decode(data, LobbyLine)
        table_id = line.table.get("table_id", "")
        table = self.tables.get(table_id)
        if table is None or line.node == self.node:
            return
        moved = self.watchers.seen(table_id, (line.node, line.epoch or None), line.audience)
        table.audience = set(line.audience)
        self.rewatch(table_id, moved)
        players, observers = int(line.table.get("players", 0)), int(line.table.get("observers", 0))
        if table.counted(players, observers):
            self.hub.send_all(self.lobby.subscribers, LobbyUpdate(table=table.summary()))
