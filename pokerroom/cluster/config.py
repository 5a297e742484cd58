"""`[cluster]` of room.toml: the lease timings of a cluster node (docs/SERVER.md); NATS URLs as
logs show them."""

from __future__ import annotations

from dataclasses import dataclass


def shown(url: str) -> str:
    """A NATS URL as logs and errors show it: its user, password or token replaced by `***`
    (`nats://***@host:4222`), so credentials never reach a log line (docs/OPERATIONS.md)."""
    scheme, sep, rest = url.partition("://")
    if not sep:  # no scheme (a mistyped --cluster): its login is hidden all the same
        scheme, rest = "", url
    authority, slash, path = rest.partition("/")
    if "@" not in authority:
        return url
    host = authority.rpartition("@")[2]  # a password may hold an `@` itself
    return f"{scheme}{sep}***@{host}{slash}{path}"


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """How often a node renews its leases, how long they last, and when it stops on its own.

    A node that has not renewed a lease for `ttl_seconds - margin_seconds` (by its own clock)
    stops acting on it, before the lease can expire (docs/design/cluster.md, "Self-stop").
    """

    name: str = "room"  # the cluster's name: NATS subjects start with `pokerroom.<name>.`
    renew_seconds: float = 2.0
    ttl_seconds: float = 8.0
    margin_seconds: float = 3.0
    #: How often the node reads the bans and chat mutes in force again, in case a bell of
    #: another node's change was lost on NATS without a disconnect (docs/design/cluster.md).
    staff_reload_seconds: float = 30.0

    def __post_init__(self) -> None:
        """Refuse timings that cannot work: a renewal must fit well inside the TTL."""
        if not self.name or any(c in self.name for c in ". *>"):
            raise ValueError("cluster name: a non-empty word without dots, spaces, * or >")
        if self.renew_seconds <= 0 or self.margin_seconds < 0 or self.staff_reload_seconds <= 0:
            raise ValueError(
                "cluster renew_seconds > 0, staff_reload_seconds > 0 and margin_seconds >= 0"
            )
        if self.renew_seconds >= self.ttl_seconds - self.margin_seconds:
            raise ValueError("cluster renew_seconds must be below ttl_seconds - margin_seconds")
