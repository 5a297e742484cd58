"""What an admin command's handler works with: the room's parts, who asks, and the clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from twisted.internet.defer import Deferred

from pokerroom.admin.audit import Actor, Audited, Change, RecorderAudit, audited
from pokerroom.admin.commands import Command
from pokerroom.admin.roles import Role

if TYPE_CHECKING:
    from pokerroom.admin.service import AdminService

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Context:
    """One request: the admin service (the room's parts), the staff member and the command."""

    room: AdminService
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
