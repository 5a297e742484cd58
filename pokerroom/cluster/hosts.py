"""Hosts: several resource hosts (tables, tournaments) as the one a ClusterNode drives.

Each resource is `<kind>:<id>`; a resource goes to the host of its kind (`table` to
ClusterTables, `tournament` to ClusterTournaments). The resources are the hosts' in the order
given (tables first), and `refresh` reads again the lists that change (the tournaments still to
run) before each of the node's rounds.
"""

from __future__ import annotations

from collections.abc import Mapping

from twisted.internet.defer import Deferred, gatherResults, succeed

from pokerroom.cluster.node import ResourceHost
from pokerroom.ledger.fenced import WriteFence


class Hosts:
    """Hosts by resource kind, as one ResourceHost."""

    def __init__(self, hosts: Mapping[str, ResourceHost]) -> None:
        self.hosts = dict(hosts)  # kind -> host, in the order their resources are taken

    def _of(self, resource: str) -> ResourceHost:
        return self.hosts[resource.partition(":")[0]]

    def resources(self) -> list[str]:
        """Every host's resources, host after host."""
        return [resource for host in self.hosts.values() for resource in host.resources()]

    def refresh(self) -> Deferred[None]:
        """Each host that has a changing list reads it again."""
        reads = [host.refresh() for host in self.hosts.values() if hasattr(host, "refresh")]
        if not reads:
            return succeed(None)
        return gatherResults(reads, consumeErrors=True).addCallback(lambda _: None)

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """Open `resource` on its kind's host."""
        return self._of(resource).open(resource, fence)

    def close(self, resource: str) -> None:
        """Close `resource` on its kind's host."""
        self._of(resource).close(resource)

    def hold(self, resource: str) -> None:
        """Hold `resource` on its kind's host."""
        self._of(resource).hold(resource)

    def idle(self, resource: str) -> bool:
        """Whether `resource` can be handed over now."""
        return self._of(resource).idle(resource)
