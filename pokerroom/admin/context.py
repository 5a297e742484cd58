"""What an admin command's handler works with: the room's parts, who asks, and the clock.

The handlers see the room through `AdminRoom`, the parts of the running room a staff command
reads or changes; `pokerroom.admin.service.AdminService` provides it (the handlers never
import the service that calls them: docs/ARCHITECTURE.md rule 13).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime

from pokerroom.admin.audit import Actor, Audited, Change, RecorderAudit, audited
from pokerroom.admin.commands import Command
from pokerroom.admin.roles import Role

if TYPE_CHECKING:
    from pokerroom.admin.settings import AdminSettings
    from pokerroom.cash import HandStore, RoomPolicies
    from pokerroom.chat import ChatService
    from pokerroom.jobs.service import JobService
    from pokerroom.ledger import LedgerService
    from pokerroom.server.hub import Hub
    from pokerroom.server.lobby import Lobby
    from tournaments.ops.schedule import TournamentScheduler

T = TypeVar("T")


class AdminRoom(Protocol):
    """The parts of the running room that staff commands read and change."""

    reactor: Any
    clock: IReactorTime
    settings: AdminSettings
    ledger: LedgerService
    lobby: Lobby
    hub: Hub
    chat: ChatService
    currency: str
    tournaments: TournamentScheduler | None
    jobs: JobService | None
    store: HandStore | None
    policies: RoomPolicies | None
    #: Players banned now; tables staff paused or closed (table_id -> `paused` | `closed`).
    banned: set[str]
    table_states: dict[str, str]

    def apply_table_state(self, table_id: str, state: str | None) -> None:
        """Pause, close or reopen a table in memory (its stored state is already written)."""

    def enforce_ban(self, player: str) -> list[Deferred[dict[str, Any] | None]]:
        """A ban took effect: no resume, logged out, stood up after the running hands."""

    def lift_ban(self, player: str) -> None:
        """A ban was lifted: the player may log in again."""


@dataclass(frozen=True, slots=True)
class Context:
    """One request: the room's parts, the staff member and the command."""

    room: AdminRoom
    staff: str
    role: Role
    command: Command[Any]

    def now_ms(self) -> int:
        """The room's clock in ms."""
        return int(self.room.clock.seconds() * 1000)

    def change(
        self, action: str, target: str, reason: str, work: Callable[..., Change], *args: Any
    ) -> Deferred[Audited]:
        """Run `work(conn, *args)` with its audit row in one transaction (money lane)."""
        actor = Actor(self.staff, self.role.label, self.command.role)
        return self.room.ledger.run(
            audited, actor, action, target, reason, self.now_ms(), work, *args
        )

    def audit_row(self, action: str, target: str, reason: str) -> RecorderAudit:
        """The audit row of a decision a tournament's recorder writes with its effect."""
        return RecorderAudit(
            Actor(self.staff, self.role.label), action, target, reason, self.now_ms()
        )

    def read(self, work: Callable[..., T], *args: Any) -> Deferred[T]:
        """Run read-only `work(engine, *args)` in the ledger's read lane."""
        return self.room.ledger.read(work, *args)
