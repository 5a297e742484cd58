"""Staff roles, each including the one below it: support < floor < director < admin."""

from __future__ import annotations

from enum import IntEnum

from pokerroom.admin import errors as codes
from pokerroom.protocol.errors import ProtocolError


class Role(IntEnum):
    """A staff role; a higher role may do everything a lower one may (docs/ADMIN.md)."""

    SUPPORT = 1  # players: bans, mutes, hit-and-run blocks, moderators; wallets read-only
    FLOOR = 2  # + cash tables: pause, resume, close, kick
    DIRECTOR = 3  # + tournaments; the audit log
    ADMIN = 4  # + wallet corrections and their approvals, staff accounts

    @property
    def label(self) -> str:
        """The role's name as staff type it: `support`, `floor`, `director`, `admin`."""
        return self.name.lower()

    def allows(self, required: Role) -> bool:
        """Whether this role may run a command that requires `required`."""
        return self >= required

    @classmethod
    def parse(cls, text: str) -> Role:
        """The role named `text` (any case); ValueError naming the four roles if none."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"no role {text!r}: one of {', '.join(ROLE_NAMES)}") from None


ROLE_NAMES = tuple(role.label for role in Role)


def check_role(role: Role | None, required: Role | None, what: str = "") -> Role:
    """What every staff request checks first: `role`, the staff member's role as stored now
    (None: the account is disabled or gone, `staff_disabled`), allows `required` (else
    `forbidden`, naming both roles; `what` begins the message, e.g. the command's name)."""
    if role is None:
        raise ProtocolError(codes.STAFF_DISABLED, "this staff account is disabled")
    if required is not None and not role.allows(required):
        raise ProtocolError(
            codes.FORBIDDEN,
            f"{what}needs the {required.label} role",
            {"required": required.label, "role": role.label},
        )
    return role
