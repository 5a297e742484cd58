"""Routing in cluster mode: the bus, the owner's side, the remote tables, sessions, tokens.

`ClusterRouting` is what the room builds in cluster mode (docs/design/cluster.md, "Routing over
NATS"): it connects the bus, serves the tables this node owns (`took`/`lost` follow the node's
`on_take`/`on_lose`), shows the others as remote tables in the lobby, makes the hub relay
broadcasts, private messages and log-ins to the other nodes, and keeps the resume tokens in
PostgreSQL so that a token works on every node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import structlog
from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from pokerroom.cash import CashTableConfig
from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.fanout import ClusterFanout
from pokerroom.cluster.lobby_part import RoutedLobby
from pokerroom.cluster.owner import TableServer
from pokerroom.cluster.payloads import BanChanged, MutesChanged
from pokerroom.cluster.remote_room import RemoteRoom
from pokerroom.cluster.remote_tourney import RemoteTourneys
from pokerroom.cluster.sessions import ClusterSessions
from pokerroom.cluster.subjects import Subjects
from pokerroom.cluster.tokens import ClusterTokens, Runner, purge
from pokerroom.cluster.tourney_owner import TourneyDesk, TourneyServer
from tournaments.desk.remote import RemoteTournaments

log = structlog.get_logger("pokerroom.cluster")
TABLE = "table:"
TOURNAMENT = "tournament:"
#: How often expired resume tokens are deleted from `cluster_tokens`.
TOKEN_PURGE_SECONDS = 300.0


class Bans(Protocol):
    """The staff service's side of bans (pokerroom.admin.service.AdminService)."""

    ban_changed: Callable[[str, bool], None] | None

    def enforce_ban(self, player: str, *, tell: bool = True) -> list[Deferred[Any]]:
        """Log the player out, stand them up here, refuse their logins."""
        ...

    def lift_ban(self, player: str, *, tell: bool = True) -> None:
        """Let the player log in again."""
        ...

    def reload_bans(self) -> Deferred[None]:
        """Read the bans in force and apply what changed."""
        ...


class Desk(TourneyDesk, Protocol):
    """The tournament desk as routing wires it: handed the other nodes' tournaments, and
    telling when a line of its own changed."""

    remote: RemoteTournaments | None
    line_changed: Callable[[str], None] | None
    connected: Callable[[str], bool] | None
    watchers: set[str]


class HubRelay:
    """The hub's `Relay`: log-ins and private messages to the sessions side, broadcasts to
    the owner's side, lists of players to the fan-out."""

    def __init__(
        self, sessions: ClusterSessions, server: TableServer, fanout: ClusterFanout
    ) -> None:
        self.sessions, self.server, self.fanout = sessions, server, fanout

    def attached(self, player: str) -> None:
        """`player` logged in here."""
        self.sessions.attached(player)

    def detached(self, player: str) -> None:
        """`player`'s session here ended."""
        self.sessions.detached(player)

    def send(self, player: str, frame: bytes) -> None:
        """A message for a player not connected here."""
        self.server.send(player, frame)

    def broadcast(self, table_id: str, frame: bytes, exclude: Iterable[str]) -> None:
        """A table's broadcast, for the other nodes: numbered by the owner's side for a table
        it serves, else (a tournament's table) fanned out to its audience elsewhere."""
        if table_id in self.server.served:
            self.server.broadcast(table_id, frame, exclude)
        else:
            self.fanout.broadcast(table_id, frame, exclude)

    def send_all(self, players: list[str], frame: bytes) -> None:
        """A public message for several players not connected here."""
        self.fanout.send_all(players, frame)


class ClusterRouting:
    """Everything NATS carries for one node."""

    def __init__(
        self,
        bus: Bus,
        node: str,
        cluster_name: str,
        lobby: RoutedLobby,
        tables: Mapping[str, CashTableConfig],
        clock: IReactorTime,
        *,
        owned: Callable[[], frozenset[str]] = frozenset,
        epoch: Callable[[str], int | None] = lambda resource: None,
        tokens: Runner | None = None,
        bans: Bans | None = None,
        desk: Desk | None = None,
        staff_reload_seconds: float = 30.0,
    ) -> None:
        self.bus, self.node, self.lobby = bus, node, lobby
        self.subjects = Subjects(cluster_name)
        self.owned = owned
        self.server = TableServer(bus, self.subjects, node, lobby, clock, epoch)
        self.remote = RemoteRoom(bus, self.subjects, node, lobby, tables)
        self.sessions = ClusterSessions(bus, self.subjects, node, lobby.hub)
        self.fanout = ClusterFanout(bus, self.subjects, node, lobby.hub)
        self.desk = desk
        self.tourney_server: TourneyServer | None = None
        self.tourneys: RemoteTourneys | None = None
        if desk is not None:
            self.tourney_server = TourneyServer(
                bus, self.subjects, node, desk, lobby.hub, clock, post_chat=lobby.post_chat
            )
            self.tourneys = RemoteTourneys(
                bus, self.subjects, node, lobby.hub, clock, lambda: sorted(desk.watchers)
            )
        self.tokens = None if tokens is None else ClusterTokens(tokens, node)
        self.bans = bans
        self.started = False
        self._purge = LoopingCall(self._purge_tokens)
        self._purge.clock = clock
        #: Bans and mutes read again every `staff_reload_seconds`: a lost bell costs at most that.
        self._staff_reload = LoopingCall(self._reload_staff_state)
        self._staff_reload.clock = clock
        self.staff_reload_seconds = staff_reload_seconds

    def start(self) -> Deferred[Any]:
        """Connect, listen, and take the place of the hub's and lobby's cluster hooks."""
        hub = self.lobby.hub
        hub.relay = HubRelay(self.sessions, self.server, self.fanout)
        if self.tokens is not None:
            hub.token_store = self.tokens
        self.lobby.remote = self.remote
        self.lobby.chat.changed = self._mutes_changed
        self.bus.on_reconnected += [
            self.remote.reconnected,
            self.sessions.reconnected,
            self.server.publish_lines,
            self._reload_staff_state,
        ]
        if self.bans is not None:
            self.bans.ban_changed = self._ban_changed
        desk, tourney_server, tourneys = self.desk, self.tourney_server, self.tourneys
        if desk is not None and tourney_server is not None and tourneys is not None:
            desk.remote = tourneys
            desk.line_changed = tourney_server.changed
            desk.connected = tourney_server.connected  # T-12: players of other nodes too
            self.bus.on_reconnected += [tourney_server.publish_lines, tourneys.resync]
        for table_id in self.remote.configs:
            if TABLE + table_id not in self.owned():
                self.remote.add(table_id)

        def listen(_: object) -> Deferred[Any]:
            self.started = True
            for resource in sorted(self.owned()):  # taken before the bus was up
                self.took(resource)
            self.server.start()
            parts = [self.remote.start(), self.sessions.start(), self.fanout.start()]
            if tourney_server is not None and tourneys is not None:
                parts += [tourney_server.start(), tourneys.start()]
            if self.tokens is not None:
                self._purge.start(TOKEN_PURGE_SECONDS, now=False)
            self._staff_reload.start(self.staff_reload_seconds, now=False)
            bells = [
                self.bus.subscribe(self.subjects.mutes, self._on_mutes),
                self.bus.subscribe(self.subjects.bans, self._on_ban),
            ]
            return gatherResults([*parts, *bells], consumeErrors=True).addCallback(
                lambda _: self.bus.flush()
            )

        return self.bus.connect().addCallback(listen)

    def took(self, resource: str) -> None:
        """The node runs `resource` now (its `on_take`)."""
        if resource.startswith(TABLE):
            table_id = resource[len(TABLE) :]
            watched = self.remote.drop(table_id)
            if self.started and table_id not in self.server.served:
                self.server.serve(table_id)
            self._rewatch_here(table_id, watched)
        elif resource.startswith(TOURNAMENT) and self.tourney_server is not None:
            tid = resource[len(TOURNAMENT) :]
            if self.tourneys is not None:
                self.tourneys.drop(tid)
            if self.started and tid not in self.tourney_server.served:
                self.tourney_server.serve(tid)

    def _rewatch_here(self, table_id: str, players: list[str]) -> None:
        """The table moved here: its watchers connected here who are not in its audience
        observe it again and get its snapshot (docs/design/cluster.md, "Tables that move")."""
        actor = self.lobby.tables.get(table_id)
        if actor is None:
            return
        for player in players:
            if player not in actor.audience:
                log.info("table_rewatched", table_id=table_id, player_id=player)
                self.remote.watchers.rewatched += 1
                actor.observe(player)
                actor.reconnected(player)

    def left(self, table_id: str, audience: Iterable[str]) -> None:
        """The table is stopping here (before `lost`): remember who of this node's players
        had it open, to watch it again at the next owner."""
        self.remote.watchers.left(table_id, audience)

    def lost(self, resource: str) -> None:
        """The node stopped running `resource` (its `on_lose`)."""
        if resource.startswith(TABLE):
            table_id = resource[len(TABLE) :]
            self.server.unserve(table_id)
            self.remote.add(table_id)
        elif resource.startswith(TOURNAMENT) and self.tourney_server is not None:
            self.tourney_server.lost(resource[len(TOURNAMENT) :])

    def _mutes_changed(self) -> None:
        """A mute was stored or lifted here: the other nodes read theirs again (C-13)."""
        self.bus.publish_quietly(self.subjects.mutes, encode(MutesChanged(node=self.node)))

    def _on_mutes(self, data: bytes, reply: str | None) -> None:
        if decode(data, MutesChanged).node == self.node:
            return

        def failed(failure: Failure) -> None:
            log.warning("mutes_reload_failed", error=str(failure.value))

        self.lobby.chat.load().addErrback(failed)

    def _ban_changed(self, player: str, banned: bool) -> None:
        """Staff banned a player here (or lifted it): every other node enforces it too."""
        change = BanChanged(node=self.node, player=player, banned=banned)
        self.bus.publish_quietly(self.subjects.bans, encode(change))

    def _reload_staff_state(self) -> None:
        """Read the mutes and bans in force again: NATS is back (what other nodes made
        meanwhile was not heard), or `staff_reload_seconds` passed (a bell may have been lost)."""

        def failed(failure: Failure) -> None:
            log.warning("staff_state_reload_failed", error=str(failure.value))

        self.lobby.chat.load().addErrback(failed)
        if self.bans is not None:
            self.bans.reload_bans().addErrback(failed)

    def _on_ban(self, data: bytes, reply: str | None) -> None:
        change = decode(data, BanChanged)
        if change.node == self.node or self.bans is None:
            return
        log.info("ban_from_node", player_id=change.player, banned=change.banned, by=change.node)
        if not change.banned:
            self.bans.lift_ban(change.player, tell=False)
            return

        def failed(failure: Failure) -> None:
            log.warning("ban_stand_up_failed", player_id=change.player, error=str(failure.value))

        for standing in self.bans.enforce_ban(change.player, tell=False):
            standing.addErrback(failed)

    def _purge_tokens(self) -> None:
        if self.tokens is None:
            return

        def failed(failure: Failure) -> None:
            log.warning("token_purge_failed", error=str(failure.value))

        self.tokens.runner.write_log(purge).addErrback(failed)

    def stop(self) -> Deferred[None]:
        """Stop serving and close the bus."""
        for loop in (self._purge, self._staff_reload):
            if loop.running:
                loop.stop()
        self.server.stop()
        if self.tourney_server is not None:
            self.tourney_server.stop()
        return self.bus.close()
