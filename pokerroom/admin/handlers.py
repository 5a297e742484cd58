"""The admin commands, one module per concern; importing this module registers them all.

Each command is one typed args class, a required role and a function `fn(ctx, args)` returning
the `ok` result or a Deferred of it (docs/ADMIN.md). A command that changes something checks
what it can in memory first, then runs its unit of work with its audit row in one transaction
(`Context.change`), and only after the commit changes what the room holds in memory (the
table's pause, the ban list, the mutes) or asks a table to stand a player up (persist, then
act: docs/ARCHITECTURE.md rule 14). A refused command changes nothing and writes no audit row
(P-1). Adding a command is one args class and one function in the module of its concern:

- `table_handlers`: cash tables (list, show, pause, resume, close, kick);
- `casino_handlers`: casino tables (list, close, open, void a round);
- `casino_held`: casino wins held for staff review (K-13: list, release);
- `player_handlers`: players (show, ban, unban, block lift, mute, unmute, moderator);
- `money_handlers`: wallet corrections, approvals (P-2), funding the house's accounts and
  the audit log;
- `tournament_handlers` (their args in `tournament_args`): tournaments;
- `ops_handlers`: the room's operation (jobs, opening a cash table).

The argument fields they share are in `pokerroom.admin.args`.
"""

from __future__ import annotations

from pokerroom.admin import (
    casino_handlers,
    casino_held,
    money_handlers,
    ops_handlers,
    player_handlers,
    table_handlers,
    tournament_handlers,
)

__all__ = [
    "casino_handlers",
    "casino_held",
    "money_handlers",
    "ops_handlers",
    "player_handlers",
    "table_handlers",
    "tournament_handlers",
]
