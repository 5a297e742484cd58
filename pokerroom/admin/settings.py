"""`[admin]` settings: the admin endpoint, staff login limits, the approval threshold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from pokerroom.server.throttle import LoginLimits

#: What config/room.toml ships: loopback only, never the players' port.
DEFAULT_ENDPOINT = "tcp:9998:interface=127.0.0.1"


@dataclass(frozen=True, slots=True)
class AdminSettings:
    """The `[admin]` section of config/room.toml (docs/ADMIN.md); no section: no endpoint."""

    #: A Twisted server endpoint string (`tcp:9998:interface=127.0.0.1`, `unix:/run/room.sock`,
    #: `ssl:9998:privateKey=key.pem:certKey=cert.pem`); empty: no admin endpoint.
    endpoint: str = ""
    login_failures: int = 5  # failed logins for one staff name in the window: then locked
    login_window_minutes: float = 15.0
    address_failures: int = 20  # ... from one address
    #: Cents: corrections made at once to one wallet within `correction_window_hours` (their
    #: absolute amounts summed, by one admin and by all) may reach this; past it, approval.
    correction_approval_above: int = 10_000
    correction_window_hours: float = 24.0
    approval_expire_hours: float = 24.0  # a pending approval older than this cannot be approved
    max_connections: int = 32  # open admin connections in all (0: no cap)
    max_connections_per_address: int = 8  # ... from one source address (0: no cap)
    login_timeout_seconds: float = 30.0  # log in within this long of connecting
    idle_timeout_seconds: float = 900.0  # nothing heard for this long: goodbye idle_timeout
    max_pending_requests: int = 16  # requests waiting on one connection: then too_many_requests
    #: The room file `pokerroom serve` read (set by `serve`, never in the file): `table_open`
    #: reads its `[tables]` again; empty: config/room.toml.
    config_file: str = ""

    def __post_init__(self) -> None:
        """Refuse settings that cannot work."""
        if self.correction_approval_above < 0:
            raise ValueError("correction_approval_above is 0 or more cents")
        if min(self.login_timeout_seconds, self.idle_timeout_seconds) <= 0:
            raise ValueError("login_timeout_seconds and idle_timeout_seconds must be positive")
        if min(self.correction_window_hours, self.approval_expire_hours) <= 0:
            raise ValueError("correction_window_hours and approval_expire_hours must be positive")
        if min(self.max_connections, self.max_connections_per_address) < 0:
            raise ValueError("max_connections and max_connections_per_address are 0 (off) or more")
        if self.max_pending_requests < 1:
            raise ValueError("max_pending_requests is at least 1")
        self.login_limits()  # its own checks

    @property
    def correction_window_ms(self) -> int:
        """The rolling window of corrections made at once, in ms."""
        return round(self.correction_window_hours * 3_600_000)

    @property
    def approval_expire_ms(self) -> int:
        """How long an approval may stay pending, in ms."""
        return round(self.approval_expire_hours * 3_600_000)

    def login_limits(self) -> LoginLimits:
        """The staff login throttle's limits (the players' throttle, with the staff numbers)."""
        return LoginLimits(
            login_failures=self.login_failures,
            login_window_minutes=self.login_window_minutes,
            address_failures=self.address_failures,
        )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> AdminSettings:
        """Build from the `[admin]` TOML table; unknown keys are an error."""
        unknown = set(values) - {f.name for f in fields(cls)} | ({"config_file"} & set(values))
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)}")
        return cls(**values)
