"""The admin endpoint of a running room: its own listener, the ban list, staff table controls.

`AdminService` serves `[admin] endpoint` (or `pokerroom serve --admin-endpoint`), a Twisted
endpoint string (`tcp:9998:interface=127.0.0.1` by default in config/room.toml; `unix:PATH`;
`ssl:...`), never the players' port. The room binds that endpoint before anything starts
(`pokerroom.server.listeners`); at start-up this service loads the active bans (logins refused
with `banned`) and the tables staff paused or closed and applies them, and `open` starts
serving staff only once the room is ready, just before the players' port. Its commands are in
`pokerroom.admin.handlers`; the protocol is docs/ADMIN.md.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
import structlog
from argon2 import PasswordHasher
from sqlalchemy.engine import Engine
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.interfaces import IReactorTime

import pokerroom.admin.handlers  # noqa: F401  (registers the commands)
from pokerroom.admin import store
from pokerroom.admin.context import Context
from pokerroom.admin.schema import staff
from pokerroom.admin.session import AdminFactory, AdminSession
from pokerroom.admin.settings import AdminSettings
from pokerroom.admin.table_handlers import CLOSED, PAUSED, stand_up
from pokerroom.ledger.db import read
from pokerroom.protocol import errors
from pokerroom.server.throttle import HashPool, LoginThrottle

if TYPE_CHECKING:
    from pokerroom.cash import HandStore, RoomPolicies
    from pokerroom.chat import ChatService
    from pokerroom.jobs.service import JobService
    from pokerroom.ledger import LedgerService
    from pokerroom.server.hub import Hub
    from pokerroom.server.listeners import HeldListener
    from pokerroom.server.lobby import Lobby
    from tournaments.ops.schedule import TournamentScheduler

log = structlog.get_logger("pokerroom.admin")


def staff_accounts(engine: Engine) -> int:
    """How many staff accounts exist, disabled ones included (the start-up summary's hint)."""
    query = sa.select(sa.func.count()).select_from(staff)
    return read(engine, lambda conn: int(conn.execute(query).scalar_one()))


class AdminService:
    """The staff endpoint and what staff commands change in the running room."""

    def __init__(
        self,
        reactor: Any,
        settings: AdminSettings,
        *,
        ledger: LedgerService,
        lobby: Lobby,
        hub: Hub,
        chat: ChatService,
        hashing: HashPool,
        currency: str,
        clock: IReactorTime | None = None,
        tournaments: TournamentScheduler | None = None,
        jobs: JobService | None = None,
        store: HandStore | None = None,
        policies: RoomPolicies | None = None,
    ) -> None:
        self.reactor = reactor
        self.clock: IReactorTime = reactor if clock is None else clock  # tests: a fake clock
        self.settings = settings
        self.ledger, self.lobby, self.hub, self.chat = ledger, lobby, hub, chat
        self.hashing = hashing
        self.currency = currency
        #: The tournaments (their scheduler), the scheduled jobs, and what a cash table opened
        #: by staff shares with the others (hand store, room policies); None: not in this room.
        self.tournaments = tournaments
        self.jobs = jobs
        self.store, self.policies = store, policies
        self.throttle = LoginThrottle(settings.login_limits())
        #: Players banned now: their logins are refused (PlayerAccounts reads this set).
        self.banned: set[str] = set()
        #: Cluster mode: told (player, banned) after a ban or its lift took effect here, so
        #: that every other node enforces it too (docs/design/cluster.md).
        self.ban_changed: Callable[[str, bool], None] | None = None
        #: Tables staff paused or closed: table_id -> `paused` | `closed`.
        self.table_states: dict[str, str] = {}
        self.sessions: set[AdminSession] = set()
        #: Cluster mode: carries a command on a table another node runs to that node
        #: (pokerroom/cluster/staff_routing.py); None, or None from it: the command runs here.
        self.router: Callable[[Context, Any], Deferred[Any] | None] | None = None
        #: The staff endpoint, bound by the room before anything started; set by `open`.
        self.listening: HeldListener | None = None
        self.address: str | None = None
        self._dummy: str | None = None

    def dummy_hash(self) -> str:
        """A hash to verify against for an unknown staff name (the same work as a known one)."""
        assert self._dummy is not None  # made in load()
        return self._dummy

    def route(self, ctx: Context, args: Any) -> Deferred[Any] | None:
        """Cluster mode: a command on a table another node runs, carried there (its answer);
        None: it runs here."""
        return None if self.router is None else self.router(ctx, args)

    @inlineCallbacks
    def load(self) -> Generator[Deferred[Any], Any, None]:
        """Read the bans and table controls and apply them (before players can connect)."""
        self.banned |= yield self.ledger.read(store.active_bans)
        states: dict[str, str] = yield self.ledger.read(store.table_states)
        for table_id, state in states.items():
            if table_id in self.lobby.tables:
                self.apply_table_state(table_id, state)
            else:
                log.warning("table_control_of_unknown_table", table_id=table_id, state=state)
        self._dummy = yield self.hashing.submit("admin", PasswordHasher().hash, "not a password")

    def open(self, listener: HeldListener) -> None:
        """Serve staff on the endpoint the room bound (after `load`, once the room is ready)."""
        listener.open(AdminFactory(self))
        self.listening = listener
        self.address = listener.address
        log.info("admin_listening", address=self.address)

    def stop(self) -> Deferred[Any]:
        """Close the listener and every staff connection."""
        for session in tuple(self.sessions):
            session.close(errors.SERVER_SHUTDOWN, "the server is stopping")
        listening, self.listening = self.listening, None
        if listening is None:
            return succeed(None)
        return listening.close()

    # -- effects in memory, after their transaction committed --------------------------------
    def apply_table_state(self, table_id: str, state: str | None) -> None:
        """Pause, close or reopen a table in memory (its stored state is already written)."""
        actor = self.lobby.tables[table_id]
        if state is None:
            self.table_states.pop(table_id, None)
            actor.release()
            return
        if state not in (PAUSED, CLOSED):
            raise ValueError(f"no table state {state!r}")
        self.table_states[table_id] = state
        actor.hold(closed=state == CLOSED)
        if state == CLOSED:  # after a restart too: whoever is still seated is stood up
            for player in sorted(actor.by_player):
                stand_up(actor, player)

    def reload_bans(self) -> Deferred[None]:
        """Cluster mode, NATS back after an outage and every `staff_reload_seconds`: read the
        bans in force and apply what changed meanwhile on other nodes (new bans enforced,
        lifted ones lifted; not told). A player banned or lifted here while the read ran keeps
        that: the read may predate it."""
        before = set(self.banned)

        def apply(found: set[str]) -> None:
            moved = before ^ self.banned  # changed here since the read began: newer than it
            for player in sorted(found - self.banned - moved):
                for standing in self.enforce_ban(player, tell=False):
                    standing.addErrback(lambda f: log.warning("stand_up_failed", error=str(f)))
            for player in sorted(self.banned - found - moved):
                self.lift_ban(player, tell=False)

        return self.ledger.read(store.active_bans).addCallback(apply)

    def lift_ban(self, player: str, *, tell: bool = True) -> None:
        """A ban was lifted (`tell`: here, so the other nodes of a cluster hear it)."""
        self.banned.discard(player)
        if tell and self.ban_changed is not None:
            self.ban_changed(player, False)

    def enforce_ban(
        self, player: str, *, tell: bool = True
    ) -> list[Deferred[dict[str, Any] | None]]:
        """A ban took effect: no resume, logged out, stood up after the running hands (`tell`:
        it was made here, so the other nodes of a cluster enforce it too)."""
        self.banned.add(player)
        if tell and self.ban_changed is not None:
            self.ban_changed(player, True)
        session = self.hub.session_of(player)
        if session is not None:
            self.hub.detach(session, player, logout=True)
            session.close(errors.BANNED, "you are banned from the room")
            self.lobby.disconnected(player)
        self.hub.revoke(player)  # a dropped player's resume token too
        outs: list[Deferred[dict[str, Any] | None]] = []
        for actor in self.lobby.tables.values():
            actor.observers.discard(player)
            if player in actor.by_player:
                outs.append(stand_up(actor, player))
        return outs
