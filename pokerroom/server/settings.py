"""Room settings from TOML (config/room.toml): server, session, C-1 caps, accounts, chat, tables."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pokerroom.admin.settings import AdminSettings
from pokerroom.cash import CashTableConfig
from pokerroom.chat import ChatRules
from pokerroom.jobs.runner import JobSettings
from pokerroom.ledger import LedgerSettings
from pokerroom.protocol.session import SessionSettings
from pokerroom.resources import default_config
from pokerroom.server.accounts import HashSettings
from pokerroom.server.lobby import DEFAULT_TABLE_CAPS
from pokerroom.server.throttle import LoginLimits

#: The room.toml the package ships (`config/room.toml` of the checkout).
DEFAULT_CONFIG = default_config()
SECTIONS = (
    "server",
    "session",
    "table_caps",
    "accounts",
    "dev",
    "chat",
    "database",
    "tables",
    "tournaments",
    "admin",
    "jobs",
)


class SettingsError(ValueError):
    """The configuration file is unreadable or holds an unknown or invalid setting."""


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """Everything `pokerroom serve` reads from the configuration file."""

    host: str = "0.0.0.0"
    port: int = 9999
    currency: str = "USD"
    log_format: str = "auto"
    session: SessionSettings = field(default_factory=SessionSettings)
    resume_minutes: float = 30.0
    table_caps: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_TABLE_CAPS))
    hashing: HashSettings = field(default_factory=HashSettings)
    login_limits: LoginLimits = field(default_factory=LoginLimits)
    allow_deposit: bool = False
    chat: ChatRules = field(default_factory=ChatRules)
    #: `[database]`: the ledger's threads, queue bounds and retry deadline (docs/SECURITY.md).
    database: LedgerSettings = field(default_factory=LedgerSettings)
    reads_per_player: int = 4  # `[database] reads_per_player`: reads in flight per player
    tables: tuple[CashTableConfig, ...] = ()
    #: `[admin]`: the staff endpoint and its limits (docs/ADMIN.md); absent: no endpoint.
    admin: AdminSettings = field(default_factory=AdminSettings)
    #: The tournament schedule file (`[tournaments] schedule`); None: the built-in one
    #: (config/tournaments/schedule/schedule.toml); "": no tournaments.
    schedule: str | None = None
    #: `[jobs]`: how often `serve` runs each scheduled job (docs/OPERATIONS.md).
    jobs: JobSettings = field(default_factory=JobSettings)


def _only(section: str, values: Mapping[str, Any], known: set[str]) -> None:
    unknown = set(values) - known
    if unknown:
        raise SettingsError(f"[{section}]: unknown settings {sorted(unknown)}")


def _dataclass(cls: type, section: str, values: Mapping[str, Any]) -> Any:
    _only(section, values, {f.name for f in fields(cls)})
    return cls(**values)


def parse_settings(data: Mapping[str, Any]) -> RoomSettings:
    """Build RoomSettings from a parsed TOML document."""
    _only("top level", data, set(SECTIONS))
    server = dict(data.get("server", {}))
    _only("server", server, {"host", "port", "currency", "log_format"})
    session = dict(data.get("session", {}))
    resume = session.pop("resume_minutes", 30.0)
    caps = {**DEFAULT_TABLE_CAPS, **data.get("table_caps", {})}
    _only("table_caps", caps, set(DEFAULT_TABLE_CAPS))
    if not all(isinstance(v, int) and v >= 1 for v in caps.values()):
        raise SettingsError("[table_caps]: each cap is a whole number of at least 1")
    accounts = dict(data.get("accounts", {}))
    _only("accounts", accounts, {f.name for f in fields(HashSettings) + fields(LoginLimits)})
    hashing = {k: v for k, v in accounts.items() if k in {f.name for f in fields(HashSettings)}}
    limits = {k: v for k, v in accounts.items() if k not in hashing}
    try:
        login_limits = LoginLimits(**limits)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"[accounts]: {exc}") from None
    dev = dict(data.get("dev", {}))
    _only("dev", dev, {"allow_deposit"})
    currency = server.get("currency", "USD")
    tables = []
    for table_id, values in data.get("tables", {}).items():
        values = {"currency": currency, **values}
        try:
            tables.append(CashTableConfig.from_mapping(table_id, values))
        except (TypeError, ValueError) as exc:
            raise SettingsError(f"[tables.{table_id}]: {exc}") from None
    tournaments = dict(data.get("tournaments", {}))
    _only("tournaments", tournaments, {"schedule"})
    schedule = tournaments.get("schedule")
    if schedule is not None and not isinstance(schedule, str):
        raise SettingsError('[tournaments]: schedule is the path of a schedule file, or ""')
    try:
        chat = ChatRules.from_mapping(data.get("chat", {}))
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"[chat]: {exc}") from None
    database = dict(data.get("database", {}))
    reads_per_player = database.pop("reads_per_player", 4)
    if not isinstance(reads_per_player, int) or reads_per_player < 1:
        raise SettingsError("[database]: reads_per_player is a whole number of at least 1")
    try:
        ledger = LedgerSettings.from_mapping(database)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"[database]: {exc}") from None
    try:
        admin = AdminSettings.from_mapping(data.get("admin", {}))
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"[admin]: {exc}") from None
    try:
        jobs = JobSettings.from_mapping(data.get("jobs", {}))
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"[jobs]: {exc}") from None
    return RoomSettings(
        admin=admin,
        jobs=jobs,
        host=server.get("host", "0.0.0.0"),
        port=int(server.get("port", 9999)),
        currency=currency,
        log_format=server.get("log_format", "auto"),
        session=_dataclass(SessionSettings, "session", session),
        resume_minutes=float(resume),
        table_caps=caps,
        hashing=_dataclass(HashSettings, "accounts", hashing),
        login_limits=login_limits,
        allow_deposit=bool(dev.get("allow_deposit", False)),
        chat=chat,
        database=ledger,
        reads_per_player=reads_per_player,
        tables=tuple(tables),
        schedule=schedule,
    )


def load_settings(path: str | Path | None = None) -> RoomSettings:
    """Read a TOML file (default: config/room.toml) into RoomSettings."""
    target = Path(path) if path else DEFAULT_CONFIG
    try:
        with target.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise SettingsError(f"cannot read {target}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{target}: {exc}") from None
    settings = parse_settings(data)
    if settings.schedule:  # a relative schedule path is relative to the config file
        path_of = target.parent / Path(settings.schedule).expanduser()
        settings = replace(settings, schedule=str(path_of))
    return settings
