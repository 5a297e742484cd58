"""What a connection is held to: the limits of `[session]` (docs/SECURITY.md), the caps on
open connections in all and per source address, and the address that counts against them.

The player session (`pokerroom.protocol.session`) and the staff session
(`pokerroom.admin.session`) both use them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerroom.protocol.framing import MAX_FRAME
from pokerroom.protocol.inbound import InboundBudget


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """Connection limits (`[session]` in config/room.toml; docs/SECURITY.md). 0 turns off
    `hello_timeout_seconds`, `max_connections` and `max_connections_per_address`."""

    heartbeat_seconds: float = 30.0
    idle_timeout_seconds: float = 90.0
    hello_timeout_seconds: float = 10.0
    outbound_queue_max: int = 2000
    outbound_queue_max_bytes: int = 1024 * 1024
    max_pending_requests: int = 64
    max_connections: int = 10_000
    max_connections_per_address: int = 64
    #: The inbound budget of one connection (0 turns a rate off): frames (lines) and bytes a
    #: second, each with a burst; past it the socket is not read for at least
    #: `inbound_pause_seconds`, and `inbound_pauses_max` pauses within
    #: `inbound_pause_window_seconds` close it with `goodbye` `inbound_flood` (0 = never).
    inbound_frames_per_second: float = 100.0
    inbound_frames_burst: int = 300
    inbound_bytes_per_second: float = 64 * 1024
    inbound_bytes_burst: int = 256 * 1024
    inbound_pause_seconds: float = 1.0
    inbound_pauses_max: int = 10
    inbound_pause_window_seconds: float = 60.0

    def __post_init__(self) -> None:
        for name in (
            "inbound_frames_per_second",
            "inbound_bytes_per_second",
            "inbound_pause_seconds",
            "inbound_pauses_max",
            "inbound_pause_window_seconds",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.inbound_frames_per_second and self.inbound_frames_burst < 1:
            raise ValueError("inbound_frames_burst must be at least 1")
        if self.inbound_bytes_per_second and self.inbound_bytes_burst < MAX_FRAME:
            raise ValueError(f"inbound_bytes_burst must be at least one frame ({MAX_FRAME})")

    def inbound_budget(self, now: float) -> InboundBudget:
        """A fresh budget for a connection made at `now` (its buckets full)."""
        return InboundBudget(
            now,
            frames_per_second=self.inbound_frames_per_second,
            frames_burst=self.inbound_frames_burst,
            bytes_per_second=self.inbound_bytes_per_second,
            bytes_burst=self.inbound_bytes_burst,
            pause_seconds=self.inbound_pause_seconds,
            pauses_max=self.inbound_pauses_max,
            window_seconds=self.inbound_pause_window_seconds,
        )


def peer_host(address: object) -> str:
    """The source address of a connection (its IP), the key of per-address limits."""
    host = getattr(address, "host", None)
    return host if isinstance(host, str) and host else "local"


class ConnectionGate:
    """Open connections, in all and per source address, against their caps (docs/SECURITY.md)."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total, self.per_address = total, per_address
        self.open = 0
        self._by_address: dict[str, int] = {}

    def admit(self, address: str) -> str | None:
        """Count a new connection from `address`: None if admitted, else why it is refused."""
        if self.total and self.open >= self.total:
            return "the room has as many connections as it takes; try again later"
        held = self._by_address.get(address, 0)
        if self.per_address and held >= self.per_address:
            return f"at most {self.per_address} connections from one address"
        self.open += 1
        self._by_address[address] = held + 1
        return None

    def release(self, address: str) -> None:
        """An admitted connection from `address` closed."""
        self.open -= 1
        held = self._by_address.get(address, 0) - 1
        if held > 0:
            self._by_address[address] = held
        else:
            self._by_address.pop(address, None)

    def from_address(self, address: str) -> int:
        """How many connections `address` holds."""
        return self._by_address.get(address, 0)
