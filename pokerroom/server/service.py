"""The service tree of `pokerroom serve`: listeners bound, then ledger, accounts, tables, open.

`RoomService` first binds its listeners, the players' TCP port and the staff endpoint, *held*:
bound so that a taken port fails at once (`ListenerError`, before anything has run), but
accepting nothing (`pokerroom.server.listeners`). `pokerroom serve` binds them even before it
opens the database and hands them in. Then its children (LedgerService, PlayerAccounts, the
tournament scheduler, the jobs) start in order and stop in reverse, so the ledger starts first
and stops last among everything that does work (docs/ARCHITECTURE.md rule 9). Once they run,
every table recovers (C-12: interrupted hands void), chat mutes, bans and table controls load
and tournaments are recovered (T-18); only then are the listeners opened, the staff endpoint
and then the players' port. Stopping closes the listeners, says goodbye to every client, stops
the tables and finally the ledger.

In cluster mode (`node` given: `serve --cluster URL --node NAME`, docs/design/cluster.md) the
room opens no table at start: its `ClusterNode` (`self.cluster`, started after the ledger and,
with NATS, only once the bus is connected: a node that cannot reach NATS writes no row and
takes no lease) takes the tables' leases and opens each table it takes
(`pokerroom/cluster/tables.py`), fenced by the lease; likewise the tournaments: the holder of
`schedule:tournaments` creates the scheduled ones, and each runs on the node holding its lease
(`pokerroom/cluster/tournaments.py`).
"""

from __future__ import annotations

import gc
from collections.abc import Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import structlog
from sqlalchemy.engine import Engine
from twisted.application.service import MultiService, Service
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.defer import (
    Deferred,
    DeferredList,
    gatherResults,
    inlineCallbacks,
    succeed,
)
from twisted.internet.interfaces import IListeningPort
from twisted.internet.task import LoopingCall

from pokerroom.admin.house_store import house_balance_of
from pokerroom.admin.service import AdminService, staff_accounts
from pokerroom.cash import HandStore, RoomPolicies, TableActor
from pokerroom.casino.rounds import RoundStore
from pokerroom.chat import ChatService
from pokerroom.jobs.pending_bets import PendingBetsJob
from pokerroom.jobs.refunds import RefundsJob
from pokerroom.jobs.runner import RunReport
from pokerroom.jobs.service import JobService
from pokerroom.ledger import LedgerService
from pokerroom.ledger.kinds import AccountKind
from pokerroom.protocol import errors
from pokerroom.protocol.session import RoomFactory
from pokerroom.server.accounts import PlayerAccounts
from pokerroom.server.casino_desk import CasinoDesk
from pokerroom.server.hub import Hub
from pokerroom.server.listeners import LISTEN_BACKLOG, RoomListeners, bind_room
from pokerroom.server.lobby import Lobby
from pokerroom.server.reactor import IRoomReactor
from pokerroom.server.settings import RoomSettings
from pokerroom.server.throttle import LoginThrottle
from pokerroom.table.deck_random import DeckRandom

if TYPE_CHECKING:
    from pokerroom.cluster.node import ClusterNode, ResourceHost
    from pokerroom.cluster.routing import ClusterRouting
    from pokerroom.cluster.tables import ClusterTables
    from tournaments.actor.tournament import TournamentActor
    from tournaments.desk.desk import TournamentDesk
    from tournaments.ops.schedule import Schedule, ScheduleEntry, TournamentScheduler

log = structlog.get_logger("pokerroom.server")
#: How often expired resume tokens are forgotten.
TOKEN_PURGE_SECONDS = 300.0


def table_info(actor: TableActor) -> dict[str, Any]:
    """The fixed part of a table's lobby line."""
    cfg = actor.config
    return {
        "variant": cfg.variant,
        "max_seats": cfg.max_seats,
        "small_blind": cfg.small_blind,
        "big_blind": cfg.big_blind,
        "currency": cfg.currency,
        "min_buy_in": cfg.min_buy_in,
        "max_buy_in": cfg.max_buy_in,
        "action_seconds": cfg.action_seconds,
        "timebank_seconds": cfg.timebank_seconds,
    }


class RoomService(MultiService):
    """The whole room in one process."""

    # Twisted's service classes have no annotations: their methods are called through the
    # named base (`MultiService.x(self)`, `Service.x(child, ...)`), which mypy's
    # `untyped_calls_exclude` (pyproject) recognises; `super()` and subclass names it does not.

    def __init__(
        self,
        reactor: IRoomReactor,
        database: Engine | str,
        settings: RoomSettings,
        *,
        port: int | None = None,
        schedule: Schedule | Sequence[ScheduleEntry] = (),
        listeners: RoomListeners | None = None,
        node: str | None = None,
        nats_url: str | None = None,
    ) -> None:
        MultiService.__init__(self)
        self.reactor = reactor
        self.settings = settings
        self.port_number = settings.port if port is None else port
        #: The players' port and the staff endpoint, bound and held: handed in by `serve`
        #: (bound before the database opens), else bound by `startService`.
        self.listeners = listeners
        self.ledger = LedgerService(reactor, database, settings=settings.database)
        Service.setServiceParent(self.ledger, self)  # first child: starts first, stops last
        self.accounts = PlayerAccounts(
            reactor, self.ledger, settings.hashing, settings.login_limits
        )
        Service.setServiceParent(self.accounts, self)
        self.hub = Hub(reactor, resume_seconds=settings.resume_minutes * 60)
        #: Cluster mode: this node (leases, spread, failover) and the NATS URL (routing's).
        self.cluster: ClusterNode | None = None
        self.cluster_tables: ClusterTables | None = None
        self.nats_url = nats_url
        self.routing: ClusterRouting | None = None
        self.tournaments: TournamentScheduler | None = None
        self.desk: TournamentDesk | None = None
        if isinstance(schedule, Sequence):
            entries, structures = schedule, None
        else:
            entries, structures = schedule.entries, schedule.structures
        if entries:  # the recurring tournaments (docs/SERVER.md, "Tournaments")
            import pokerroom.protocol.catalog  # noqa: F401  (registers the types)
            from tournaments.desk.desk import TournamentDesk
            from tournaments.ops.schedule import TournamentScheduler

            self.desk = TournamentDesk(self.hub)
            self.tournaments = TournamentScheduler(
                reactor,
                self.ledger,
                entries,
                structures,
                currency=settings.currency,
                players=self.desk,
                on_change=self.desk.changed,
                recover=True,  # T-18: stored tournaments resume or are cancelled first
                refunds=self.refunds_now,
                cluster=node is not None,  # the node creates, takes and resumes them
            )
            self.desk.scheduler = self.tournaments
            Service.setServiceParent(self.tournaments, self)  # after the ledger: stops before it
        #: Scheduled jobs (T-18 refunds, K-11 pending bets) on `[jobs]` intervals; they stop
        #: before the ledger.
        self.jobs = JobService(
            reactor, self.ledger, settings.jobs, [RefundsJob(), PendingBetsJob()]
        )
        Service.setServiceParent(self.jobs, self)
        if self.desk is not None:  # T-18: refunded players hear `tournament_cancelled`
            desk = self.desk

            def tell_refunded(report: RunReport) -> None:
                told = desk.refunded(report.tournaments)
                told.addErrback(lambda f: log.error("refund_notice_failed", error=str(f.value)))

            self.jobs.listeners.append(tell_refunded)
        self.chat = ChatService(reactor, self.ledger, settings.chat)
        self.store = HandStore(self.ledger)
        self.policies = RoomPolicies(self.store)
        self.lobby = Lobby(
            self.hub,
            self.accounts,
            self.chat,
            caps=settings.table_caps,
            currency=settings.currency,
            allow_deposit=settings.allow_deposit,
            histories=self.store.history_page,
            reads_per_player=settings.reads_per_player,
        )
        self.lobby.tournament_desk = self.desk
        #: The casino tables (docs/CASINO.md): one of each round game, opened in `_open`.
        self.casino = CasinoDesk(reactor, RoundStore(self.ledger), self.hub, settings.currency)
        self.lobby.casino_desk = self.casino
        if self.desk is not None:  # lobby subscribers also get `tournament_lobby_update`
            self.desk.watchers = self.lobby.subscribers
        self.factory = RoomFactory(
            self.hub,
            self.lobby,
            self.accounts,
            reactor,
            settings.session,
            throttle=LoginThrottle(settings.login_limits),
        )
        self.admin: AdminService | None = None  # the staff endpoint (docs/ADMIN.md)
        if settings.admin.endpoint:
            self.admin = AdminService(
                reactor,
                settings.admin,
                ledger=self.ledger,
                lobby=self.lobby,
                hub=self.hub,
                chat=self.chat,
                hashing=self.accounts.hashing,
                currency=settings.currency,
                tournaments=self.tournaments,
                jobs=self.jobs,
                store=self.store,
                policies=self.policies,
            )
            self.accounts.banned = self.admin.banned  # banned players cannot log in
        if node is not None:
            self._cluster_node(node)
        self.listening: IListeningPort | None = None
        self.ready: Deferred[IListeningPort] = Deferred()
        #: Staff accounts in the database at start-up (None until read): the summary's hint.
        self.staff_accounts: int | None = None
        #: The casino bankroll in each currency of the casino tables opened (read at start-up,
        #: empty until then): the summary's hint when one is 0 (docs/CASINO.md).
        self.casino_bankrolls: dict[str, int] = {}
        self._purge = LoopingCall(self.hub.purge_tokens)
        self._purge.clock = reactor

    def _cluster_node(self, node: str) -> None:
        """Cluster mode: the node service and the tables it opens as it takes their leases."""
        from pokerroom.cluster.node import ClusterNode
        from pokerroom.cluster.tables import ClusterTables

        def add(actor: TableActor, staff_state: str | None) -> None:
            self.lobby.add_table(actor.table_id, actor, table_info(actor))
            if staff_state is not None and self.admin is not None:  # paused or closed by staff
                self.admin.apply_table_state(actor.table_id, staff_state)

        self.cluster_tables = ClusterTables(
            self.reactor,
            self.ledger,
            self.settings.tables,
            listener=self.hub,
            rng=DeckRandom(),  # C-15
            policies=self.policies,
            add=add,
            remove=self._remove_table,
            staff_state=self._staff_state if self.admin is not None else None,
        )
        self.cluster = ClusterNode(
            node, self.ledger, self._cluster_hosts(), self.settings.cluster, clock=self.reactor
        )
        if self.nats_url is not None:
            self._cluster_routing(node, self.nats_url)

    def _cluster_hosts(self) -> ResourceHost:
        """The node's resources: the cash and casino tables, and with a schedule the schedule
        and tournaments."""
        from pokerroom.cluster.casino import CASINO, ClusterCasino
        from pokerroom.cluster.hosts import Hosts
        from pokerroom.cluster.schedule import SCHEDULE, ClusterSchedule
        from pokerroom.cluster.tournaments import ClusterTournaments

        assert self.cluster_tables is not None
        self.casino.prepare()  # its tables are leases too: `casino:<id>`, run by one node
        casino = ClusterCasino(self.ledger, self.casino)
        scheduler = self.tournaments
        if scheduler is None:
            return Hosts({"table": self.cluster_tables, CASINO: casino})

        def opened(actor: TournamentActor) -> None:
            scheduler.actors[actor.tid] = actor
            if scheduler.on_change is not None:
                scheduler.on_change(actor, "opened")

        def closed(actor: TournamentActor) -> None:
            scheduler.actors.pop(actor.tid, None)

        tournaments = ClusterTournaments(
            self.reactor,
            self.ledger,
            scheduler.actor_for,
            opened=opened,
            closed=closed,
            cancelled=self.refunds_now,
        )
        schedule = ClusterSchedule(self.reactor, self.ledger, scheduler)
        hosts: dict[str, ResourceHost] = {
            "table": self.cluster_tables,
            CASINO: casino,
            SCHEDULE: schedule,
        }
        return Hosts({**hosts, "tournament": tournaments})

    def _cluster_routing(self, node: str, nats_url: str) -> None:
        """Cluster mode: routing over NATS (tables of other nodes, sessions, shared tokens)."""
        from pokerroom.cluster.bus import Bus
        from pokerroom.cluster.casino import CASINO
        from pokerroom.cluster.casino_routing import CasinoRouting
        from pokerroom.cluster.routing import ClusterRouting
        from pokerroom.cluster.staff_routing import StaffRouting

        assert self.cluster is not None
        loop = getattr(self.reactor, "_asyncioEventloop", None)  # the asyncio reactor's loop
        self.routing = ClusterRouting(
            Bus(nats_url, name=node, loop=loop),
            node,
            self.settings.cluster.name,
            self.lobby,
            {config.table_id: config for config in self.settings.tables},
            self.reactor,
            owned=self.cluster.owned,
            epoch=self.cluster.epoch,
            tokens=self.ledger,
            bans=self.admin,
            desk=self.desk,  # the tournaments of other nodes, and this node's served to them
            staff_reload_seconds=self.settings.cluster.staff_reload_seconds,
        )
        self.cluster.on_take.append(self.routing.took)
        self.cluster.on_lose.append(self.routing.lost)
        self.casino_routing = CasinoRouting(
            self.routing.bus,
            self.routing.subjects,
            self.casino,
            self.reactor,
            lambda player: self.hub.session_of(player) is not None,
        )
        self.casino.remote = self.casino_routing  # casino tables other nodes run
        self.cluster.on_take.append(self.casino_routing.took)
        self.cluster.on_lose.append(self.casino_routing.lost)
        if self.admin is not None:  # staff commands on a table another node runs go there
            cash_ids = {config.table_id for config in self.settings.tables}

            def elsewhere(kind: str, table_id: str) -> bool:
                if kind == CASINO:
                    return table_id in self.casino.specs and table_id not in self.casino.tables
                return table_id in cash_ids and table_id not in self.lobby.tables

            def configured(kind: str) -> Iterable[str]:
                return self.casino.specs if kind == CASINO else cash_ids

            self.staff_routing = StaffRouting(
                self.routing.bus, self.routing.subjects, self.admin, elsewhere, configured
            )
            self.admin.router = self.staff_routing.route
            self.cluster.on_take.append(self.staff_routing.took)
            self.cluster.on_lose.append(self.staff_routing.lost)

    def _staff_state(self, table_id: str) -> Deferred[str | None]:
        """The hold staff stored for a table (`paused`, `closed`), or None (docs/ADMIN.md)."""
        from pokerroom.admin.store import table_states

        states: Deferred[dict[str, str]] = self.ledger.read(table_states)
        return states.addCallback(lambda found: found.get(table_id))

    def _remove_table(self, table_id: str) -> None:
        """A cluster node stopped acting on a table: out of this node's lobby (who of its
        players had it open is kept: they watch it again at the next owner)."""
        actor = self.lobby.tables.pop(table_id, None)
        if actor is not None and self.routing is not None:
            self.routing.left(table_id, actor.audience)

    def refunds_now(self) -> Deferred[Any]:
        """Run the refund job now for a cancelled tournament, unless `[jobs]
        refunds_interval_seconds` is 0: then only cron, a person or `pokerroom admin jobs run`
        runs it (docs/OPERATIONS.md), and staff may still override an outage's cancellation."""
        if not self.settings.jobs.interval("refunds"):
            return succeed(None)
        return self.jobs.run_now("refunds")

    def bind(self) -> RoomListeners:
        """Bind the players' port and the staff endpoint, held (nothing is accepted yet);
        `ListenerError` if one is taken. Done once; nothing else has started."""
        if self.listeners is None:
            endpoint = self.settings.admin.endpoint if self.admin is not None else ""
            self.listeners = bind_room(
                self.reactor,
                self.settings.host,
                self.port_number,
                endpoint,
                backlog=LISTEN_BACKLOG,
            )
        return self.listeners

    def startService(self) -> None:
        """Bind the listeners, start the ledger and accounts, recover the tables, then open."""
        listeners = self.bind()  # ListenerError: a port is taken and nothing has started
        if (listeners.admin is None) != (self.admin is None):
            raise ValueError("the listeners handed in do not match [admin] endpoint")
        if self.cluster is not None:  # where players reach this node (cluster status)
            host = cast(IPv4Address | IPv6Address, listeners.players.port.getHost())
            self.cluster.address = f"{host.host}:{host.port}"
            if self.cluster.parent is None and self.routing is None:  # after the ledger
                Service.setServiceParent(self.cluster, self)  # so it stops before it
        try:
            MultiService.startService(self)  # SchemaNotAtHead before anything else runs
        except BaseException:
            listeners.close()
            raise
        self._open(listeners).chainDeferred(self.ready)

    @inlineCallbacks
    def _open(self, listeners: RoomListeners) -> Generator[Deferred[Any], Any, IListeningPort]:
        rng = DeckRandom()  # C-15: a cryptographically secure shuffle, one read a deck
        actors: list[TableActor] = []
        for config in self.settings.tables if self.cluster is None else ():
            actor = TableActor(
                config,
                clock=self.reactor,
                ledger=self.ledger,
                listener=self.hub,
                rng=rng,
                store=self.store,
                policies=self.policies,
            )
            actors.append(actor)
        yield gatherResults([a.start() for a in actors] + [self.chat.load()], consumeErrors=True)
        for actor in actors:
            self.lobby.add_table(actor.table_id, actor, table_info(actor))
        if self.cluster is None:  # in cluster mode the node opens each as it takes its lease
            yield self.casino.open_default()  # their rounds a crash left open are voided first
        if self.admin is not None:  # bans and table holds apply before any player connects
            yield self.admin.load()
        if self.tournaments is not None:  # T-18: resumed, kept or cancelled before opening
            yield self.tournaments.recovered
        self.staff_accounts = yield self.ledger.read(staff_accounts)
        casino_currencies = sorted({config.currency for config, _ in self.casino.specs.values()})
        self.casino_bankrolls = yield self.ledger.read(
            house_balance_of, AccountKind.CASINO_BANKROLL, casino_currencies
        )
        if self.routing is not None:  # cluster mode: NATS up before any player connects
            yield self.routing.start()
            if self.cluster is not None and self.cluster.parent is None:  # and before the
                Service.setServiceParent(self.cluster, self)  # node's row or any lease
        if self.admin is not None and listeners.admin is not None:
            self.admin.open(listeners.admin)  # staff first: the room is theirs to run
        listeners.players.open(self.factory)
        listening = listeners.players.port
        self.listening = listening
        self._purge.start(TOKEN_PURGE_SECONDS, now=False)
        # What exists now (modules, SQLAlchemy, the hand-rank tables, the actors) lives as long
        # as the process: keep it out of the cyclic collector's full passes, which otherwise
        # stall the reactor for about 100 ms each under load (PERFORMANCE.md, "Server").
        gc.collect()
        gc.freeze()
        # A TCP port's address is an IPv4Address or IPv6Address; IListeningPort says IAddress.
        address = cast(IPv4Address | IPv6Address, listening.getHost())
        log.info("listening", host=address.host, port=address.port, tables=len(actors))
        return listening

    def stopService(self) -> Deferred[Any]:
        """Close the listeners, say goodbye, stop the tables; the ledger stops last."""
        waits: list[Deferred[Any]] = []
        if self.listeners is not None:  # bound, open or not
            waits.append(self.listeners.close())
        self.listeners, self.listening = None, None
        if self._purge.running:
            self._purge.stop()
        if self.admin is not None:
            waits.append(self.admin.stop())
        if self.cluster is not None:  # its tables stop, its leases are released
            waits.append(self.cluster.stop())
        if self.routing is not None:
            waits.append(self.routing.stop())
        self.hub.close_all(errors.SERVER_SHUTDOWN, "the server is stopping")
        gc.unfreeze()  # collectable again, e.g. by a test process that goes on running
        for actor in self.lobby.tables.values():
            actor.close()
        self.casino.stop()
        waits.append(self.chat.close())  # the last chat lines, before the ledger stops
        waits.append(self.jobs.close())  # a job run's last step (its row, its lock) first

        def stop_children(_: object) -> Deferred[Any]:
            stopping: Deferred[Any] = MultiService.stopService(self)  # the ledger stops last
            return stopping

        def log_stopped(_: object) -> None:
            log.info("stopped")

        return DeferredList(waits).addCallback(stop_children).addCallback(log_stopped)
