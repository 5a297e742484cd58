"""Room settings from TOML (config/room.toml): server, session, C-1 caps, accounts, chat, tables."""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pokerroom.admin.settings import AdminSettings
from pokerroom.cash import CashTableConfig
from pokerroom.chat import ChatRules
from pokerroom.cluster.config import ClusterSettings
from pokerroom.engine import VARIANTS
from pokerroom.jobs.runner import JobSettings
from pokerroom.ledger import LedgerSettings
from pokerroom.protocol.connection import SessionSettings
from pokerroom.resources import default_config
from pokerroom.server.accounts import HashSettings
from pokerroom.server.lobby import DEFAULT_TABLE_CAPS
from pokerroom.server.throttle import LoginLimits
from pokerroom.typed_config import ConfigProblems, OneOf, build, check, field_types, shown

T = TypeVar("T")

#: The room.toml the package ships (`config/room.toml` of the checkout).
DEFAULT_CONFIG = default_config()
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9999
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
    "cluster",
)


class SettingsError(ConfigProblems):
    """The configuration file is unreadable or holds unknown or invalid settings (one line
    each, naming the section, the key and what it expects)."""


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """Everything `pokerroom serve` reads from the configuration file."""

    host: str = DEFAULT_HOST  # loopback unless the config or --host says otherwise
    port: int = DEFAULT_PORT
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
    #: `[cluster]`: lease timings of a cluster node (docs/SERVER.md; used with `--cluster`).
    cluster: ClusterSettings = field(default_factory=ClusterSettings)


#: `[server]`: what each key is.
SERVER_KINDS: dict[str, Any] = {
    "host": str,
    "port": int,
    "currency": str,
    "log_format": OneOf(("auto", "json", "console")),
}


def _chat_rules(**values: Any) -> ChatRules:
    """`[chat]` once its keys have their types (the word list is lower-cased there)."""
    return ChatRules.from_mapping(values)


class _Parts:
    """The sections read so far and the problems found, one line each."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.problems: list[str] = []

    def section(self, name: str) -> dict[str, Any]:
        """A section's table (empty when absent or not a table)."""
        raw = self.data.get(name, {})
        if not isinstance(raw, Mapping):
            self.problems.append(f"[{name}]: expected a table, got {shown(raw)}")
            return {}
        return dict(raw)

    def checked(self, name: str, kinds: Mapping[str, Any]) -> dict[str, Any]:
        """A section's keys that have their types (the problems kept)."""
        values, problems = check(self.section(name), kinds, f"[{name}] ")
        self.problems.extend(problems)
        return values

    def build(
        self, make: Callable[..., T], values: Any, kinds: Mapping[str, Any], where: str
    ) -> T | None:
        """`make(**values)` once checked; None (and the problems kept) when it cannot be."""
        try:
            built: T = build(make, values, kinds, where)
        except ConfigProblems as exc:
            self.problems.extend(exc.problems)
            return None
        return built


def parse_settings(data: Mapping[str, Any]) -> RoomSettings:
    """Build RoomSettings from a parsed TOML document; SettingsError lists every problem."""
    parts = _Parts(data)
    for name in data:
        if name not in SECTIONS:
            close = difflib.get_close_matches(name, SECTIONS, n=1)
            hint = f"did you mean [{close[0]}]?" if close else "known: " + ", ".join(SECTIONS)
            parts.problems.append(f"[{name}]: unknown section ({hint})")
    server = parts.checked("server", SERVER_KINDS)
    if not 0 <= server.get("port", 0) <= 65535:
        parts.problems.append(f"[server] port: expected 0 to 65535, got {server['port']}")
    session_kinds = {**field_types(SessionSettings), "resume_minutes": float}
    session = parts.checked("session", session_kinds)
    resume = session.pop("resume_minutes", 30.0)
    session_settings = parts.build(SessionSettings, session, session_kinds, "[session] ")
    cap_kinds = dict.fromkeys(DEFAULT_TABLE_CAPS, int)
    caps = parts.checked("table_caps", cap_kinds)
    for kind, cap in caps.items():
        if cap < 1:
            parts.problems.append(f"[table_caps] {kind}: expected at least 1, got {cap}")
    hash_kinds, limit_kinds = field_types(HashSettings), field_types(LoginLimits)
    accounts = parts.checked("accounts", hash_kinds | limit_kinds)
    hashing = parts.build(
        HashSettings, {k: v for k, v in accounts.items() if k in hash_kinds}, hash_kinds,
        "[accounts] ",
    )  # fmt: skip
    login_limits = parts.build(
        LoginLimits, {k: v for k, v in accounts.items() if k in limit_kinds}, limit_kinds,
        "[accounts] ",
    )  # fmt: skip
    dev = parts.checked("dev", {"allow_deposit": bool})
    currency = server.get("currency", "USD")
    table_kinds = field_types(CashTableConfig, leave_out=("table_id",))
    table_kinds["variant"] = OneOf(tuple(VARIANTS))
    tables = []
    for table_id, values in parts.section("tables").items():
        where = f"[tables.{table_id}] "
        values = {"currency": currency, **values} if isinstance(values, Mapping) else values
        table = parts.build(partial(CashTableConfig, table_id), values, table_kinds, where)
        if table is not None:
            tables.append(table)
    tournaments = parts.checked("tournaments", {"schedule": str})
    schedule = tournaments.get("schedule")
    chat_kinds = field_types(ChatRules) | {"hand_talk_mode": OneOf(("all", "keywords"))}
    chat = parts.build(_chat_rules, parts.section("chat"), chat_kinds, "[chat] ")
    database_kinds = {**field_types(LedgerSettings), "reads_per_player": int}
    database = parts.checked("database", database_kinds)
    reads_per_player = database.pop("reads_per_player", 4)
    if reads_per_player < 1:
        parts.problems.append(
            f"[database] reads_per_player: expected at least 1, got {reads_per_player}"
        )
    ledger = parts.build(LedgerSettings, database, database_kinds, "[database] ")
    admin_kinds = field_types(AdminSettings, leave_out=("config_file",))
    admin = parts.build(AdminSettings, parts.section("admin"), admin_kinds, "[admin] ")
    jobs = parts.build(JobSettings, parts.section("jobs"), field_types(JobSettings), "[jobs] ")
    cluster_kinds = field_types(ClusterSettings)
    cluster = parts.build(ClusterSettings, parts.section("cluster"), cluster_kinds, "[cluster] ")
    if parts.problems:
        raise SettingsError(parts.problems)
    assert session_settings and hashing and login_limits and chat and ledger and admin and jobs
    assert cluster is not None
    return RoomSettings(
        cluster=cluster,
        admin=admin,
        jobs=jobs,
        host=server.get("host", DEFAULT_HOST),
        port=server.get("port", DEFAULT_PORT),
        currency=currency,
        log_format=server.get("log_format", "auto"),
        session=session_settings,
        resume_minutes=resume,
        table_caps={**DEFAULT_TABLE_CAPS, **caps},
        hashing=hashing,
        login_limits=login_limits,
        allow_deposit=dev.get("allow_deposit", False),
        chat=chat,
        database=ledger,
        reads_per_player=reads_per_player,
        tables=tuple(tables),
        schedule=schedule,
    )


def load_settings(path: str | Path | None = None) -> RoomSettings:
    """Read a TOML file (default: the shipped room.toml) into RoomSettings; SettingsError has one
    line per problem, each starting with the file (`room.toml: [server] port: expected ...`)."""
    target = Path(path) if path else DEFAULT_CONFIG
    try:
        with target.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise SettingsError(f"cannot read {target}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{target}: {exc}") from None
    try:
        settings = parse_settings(data)
    except SettingsError as exc:
        raise exc.within(f"{target}: ") from None
    if settings.schedule:  # a relative schedule path is relative to the config file
        path_of = target.parent / Path(settings.schedule).expanduser()
        settings = replace(settings, schedule=str(path_of))
    return settings
