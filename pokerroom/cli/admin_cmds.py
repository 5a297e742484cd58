"""`pokerroom admin ...`: staff commands over the admin endpoint (docs/ADMIN.md).

The `admin` group and what every command shares are in `admin_base`; the commands, one module
per concern, attach themselves to it when imported here: `admin_table_cmds` (tables,
players), `admin_money_cmds` (wallets, approvals, audit), `admin_tournament_cmds`
(tournaments), `admin_ops_cmds` (jobs, opening a table), `admin_casino_cmds` (casino
tables) and `admin_house_cmds` (the house's accounts). `pokerroom staff ...` (accounts,
offline) is `staff_cmds`.
"""

from __future__ import annotations

from pokerroom.cli import (
    admin_casino_cmds,
    admin_house_cmds,
    admin_money_cmds,
    admin_ops_cmds,
    admin_table_cmds,
    admin_tournament_cmds,
)
from pokerroom.cli.admin_base import admin

__all__ = [
    "admin",
    "admin_casino_cmds",
    "admin_house_cmds",
    "admin_money_cmds",
    "admin_ops_cmds",
    "admin_table_cmds",
    "admin_tournament_cmds",
]
