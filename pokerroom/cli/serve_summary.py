"""What `pokerroom serve` prints once the room is ready, and which schedule file it runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokerroom.server.service import RoomService
    from pokerroom.server.settings import RoomSettings
    from tournaments.ops.schedule import Schedule


def schedule_file(settings: RoomSettings) -> Path | None:
    """The tournament schedule file the settings name: their file, else the built-in one (if
    present); None when they say "" (no tournaments)."""
    from tournaments.ops.schedule import SCHEDULE_FILE

    if settings.schedule == "":
        return None
    if settings.schedule is None:
        return SCHEDULE_FILE if SCHEDULE_FILE.exists() else None
    return Path(settings.schedule)


def room_schedule(settings: RoomSettings) -> Schedule | None:
    """The tournament schedule the room runs (`schedule_file`), or None: no tournaments.
    ValueError on a bad file."""
    from tournaments.ops.schedule import load_schedule_file

    path = schedule_file(settings)
    return None if path is None else load_schedule_file(path)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def startup_summary(room: RoomService, database: str) -> list[str]:
    """What `serve` prints once the room is ready, before `pokerroom listening on HOST:PORT`:
    version, database (password masked), files, endpoints, what opened, hints (staff, bankroll)."""
    from pokerroom import __version__
    from pokerroom.cli.admin_house_cmds import bankroll_hints
    from pokerroom.server.listeners import describe_address
    from pokerroom.server.settings import DEFAULT_CONFIG

    config = Path(room.settings.admin.config_file or DEFAULT_CONFIG).resolve()
    schedule = schedule_file(room.settings) if room.tournaments is not None else None

    players = describe_address(room.listening) if room.listening is not None else "none"
    staff = room.admin.address if room.admin is not None else None
    tournaments = len(room.tournaments.actors) if room.tournaments is not None else 0
    tables = _count(len(room.lobby.tables), "cash table")
    lines = [
        f"pokerroom {__version__}",
        f"  database: {database}",
        f"  config:   {config}",
        f"  schedule: {schedule.resolve() if schedule is not None else 'none'}",
        f"  players:  {players}",
        f"  staff:    {staff or 'none'}",
        f"  opened:   {tables}, {_count(tournaments, 'tournament')}",
    ]
    if room.cluster is not None:  # the node's tables open as it takes their leases
        from pokerroom.cluster.config import shown

        lines.append(f"  cluster:  node {room.cluster.node} on {shown(room.nats_url or '')}")
    if room.staff_accounts == 0:
        lines.append("  no staff account yet: pokerroom staff add NAME --role admin")
    return lines + bankroll_hints(room.casino_bankrolls)
