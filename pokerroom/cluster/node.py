"""ClusterNode: a node's row, its leases and the resources it acts on (docs/design/cluster.md).

A Twisted Service of the room in cluster mode only (`room.cluster`), started after the ledger.
It registers the node's `cluster_nodes` row, then every `renew_seconds`, in one round in the
ledger's money lane (ARCH 7): the heartbeat (which says whether the node is to drain), ONE
renewal of all its leases, and who is alive and owns what. Then, on the reactor thread:

- a lease left out of the renewal is lost: its resource stops at once (`on_lose`);
- **self-stop**: a lease not renewed for `ttl - margin` seconds by the node's own clock stops
  before it can expire (a timer set at each renewal, and checked first thing every round, so a
  node that was paused stops before it does anything else it can help);
- **drain** (`cluster drain NAME`) or **balance** (owning more than `ceil(resources / live
  nodes)`): the table deals no new hand; once none runs the node stops it and releases the lease
  (epoch kept) for another node to take — no hand is void;
- **spread**: while it owns fewer than its share, it takes free or expired leases (tables in
  name order, a new epoch each) and opens them (`on_take`).

A write refused by the fence (`lease_lost`) stops that resource at once too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import structlog
from sqlalchemy.engine import Engine
from twisted.application.service import Service
from twisted.internet.defer import Deferred, DeferredList, inlineCallbacks, succeed
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

import pokerroom.cluster.leases as leases
from pokerroom.cluster.config import ClusterSettings
from pokerroom.cluster.fence import LeaseFence
from pokerroom.ledger.fenced import WriteFence
from pokerroom.ledger.service import LedgerService

log = structlog.get_logger("pokerroom.cluster")
#: PostgreSQL ends a transaction of a node left idle this long (at least; or the margin).
IDLE_TRANSACTION_SECONDS = 2.0
#: An extra round runs this long after a lease it waits for expires (clocks are the database's).
EXPIRY_SLACK = 0.05


class ResourceHost(Protocol):
    """What the node opens and closes as it takes and loses leases (pokerroom/cluster/tables.py)."""

    def resources(self) -> list[str]:
        """Every resource this host can run, in the order they are taken."""
        ...

    def open(self, resource: str, fence: WriteFence) -> Deferred[None]:
        """Start acting on `resource`, every write fenced by `fence`."""
        ...

    def close(self, resource: str) -> None:
        """Stop acting on `resource` now."""
        ...

    def hold(self, resource: str) -> None:
        """Begin nothing new on `resource` (a drain)."""
        ...

    def idle(self, resource: str) -> bool:
        """Whether `resource` can be handed over now without voiding anything."""
        ...


@dataclass(frozen=True, slots=True)
class Round:
    """What one round read and wrote: drain flag, leases renewed, live nodes, owners."""

    draining: bool
    renewed: frozenset[str]
    live: int  # nodes alive and not draining (this one included unless it drains)
    owners: dict[str, str]  # resource -> owner, of the leases not expired
    expiring: dict[str, float]  # resource -> seconds to expiry, of those leases


def one_round(
    engine: Engine, name: str, held: dict[str, int], ttl: float, live_within: float
) -> Round:
    """The blocking part of a round (a ledger thread): heartbeat, renew, live nodes, owners."""
    draining = leases.heartbeat(engine, name)
    renewed = leases.renew(engine, name, held, ttl)
    live = sum(1 for n in leases.live_nodes(engine, live_within) if not n.draining)
    found = [lease for lease in leases.leases(engine) if lease.expires_in > 0]
    owners = {lease.resource: lease.owner for lease in found}
    expiring = {lease.resource: lease.expires_in for lease in found}
    return Round(draining, frozenset(renewed), live, owners, expiring)


#: Kinds of resource balanced on their own: a node's share of each is ceil(its count / live
#: nodes), so that each node runs some cash tables and some casino tables; the other kinds
#: (cash tables, the schedule, tournaments) share one count.
APART = ("casino",)


def pool_of(resource: str) -> str:
    """The pool a resource is balanced in: its kind if it is balanced apart, else ""."""
    kind = resource.partition(":")[0]
    return kind if kind in APART else ""


def _tournament_last(resource: str) -> tuple[bool, str]:
    """Hand-over order, reversed: other resources (highest names first), then tournaments."""
    return (not resource.startswith(f"{leases.TOURNAMENT}:"), resource)


class ClusterNode(Service):
    """One node of the cluster: its row, its leases, the resources it acts on."""

    name = "cluster"

    def __init__(
        self,
        node: str,
        ledger: LedgerService,
        host: ResourceHost,
        settings: ClusterSettings,
        *,
        clock: IReactorTime,
        address: str = "",
    ) -> None:
        self.node = node  # this node's name (`--node`); `name` is the Service's
        self.ledger = ledger
        self.host = host
        self.settings = settings
        self.clock = clock
        self.address = address
        #: resource -> epoch of every lease this node acts on (opening, open or handing over).
        self.held: dict[str, int] = {}
        self.handing_over: set[str] = set()  # held, dealing nothing new, released once idle
        self.draining = False
        self.on_take: list[Callable[[str], None]] = []
        self.on_lose: list[Callable[[str], None]] = []
        self.renewed_at: dict[str, float] = {}  # resource -> last renewal sent (own clock)
        self._loop = LoopingCall(self.tick)
        self._loop.clock = clock
        self._round: Deferred[Any] | None = None  # the round in flight
        self._watchdog: IDelayedCall | None = None
        self._early: IDelayedCall | None = None  # an extra round when a lease we want expires
        self._retry: IDelayedCall | None = None  # the next try to write the node's row
        self._registering: Deferred[Any] | None = None  # the row's write in flight
        self.registered = False  # the node's row is written (deleted again by `stop`)
        self.stopping = False  # `stop` ran: take nothing more
        self.rounds = 0

    # ------------------------------------------------------------------ interfaces

    def owned(self) -> frozenset[str]:
        """The resources this node owns and acts on now."""
        return frozenset(self.held)

    def epoch(self, resource: str) -> int | None:
        """The epoch this node holds `resource` at, or None."""
        return self.held.get(resource)

    # ------------------------------------------------------------------ lifecycle

    def startService(self) -> None:
        """Write the node's row, then run a round every `renew_seconds`."""
        Service.startService(self)
        leases.install_fence(self.ledger.engine)  # here, once, not first in a worker thread
        if self.ledger.engine.dialect.name == "postgresql":  # a paused node holds no lock long
            idle = max(self.settings.margin_seconds, IDLE_TRANSACTION_SECONDS)
            leases.limit_idle_transactions(self.ledger.engine, idle)
        self._register()

    def _register(self) -> None:
        """Write the node's row; tried again every `renew_seconds` until the database takes it."""
        self._retry = None
        if not self.running or self.stopping:
            return
        d = self.ledger.run(leases.register, self.node, self.address)
        self._registering = d
        d.addCallbacks(self._registered, self._not_registered)
        d.addBoth(self._registration_done)

    def _registration_done(self, _: object) -> None:
        self._registering = None

    def _not_registered(self, failure: Failure) -> None:
        self._round_failed(failure)
        if self.running:
            self._retry = self.clock.callLater(self.settings.renew_seconds, self._register)

    def _registered(self, _: object) -> None:
        self.registered = True
        log.info("node_registered", node=self.node, address=self.address)
        if self.running and not self.stopping and not self._loop.running:
            self._loop.start(self.settings.renew_seconds, now=True)

    def stop(self) -> Deferred[Any]:
        """The room is stopping: stop every resource now (a hand mid-way stays `started`, void
        at the next owner, C-12); once the round or row write in flight is back, release each
        lease (epoch kept) and delete the node's row, so the other nodes count it gone and take
        its resources at their next round, not after the TTL."""
        self.stopping = True
        if self._loop.running:
            self._loop.stop()
        self._cancel_watchdog()
        for timer in (self._early, self._retry):
            if timer is not None and timer.active():
                timer.cancel()
        held = dict(self.held)
        for resource in sorted(held):
            self._lose(resource, "node_stopping")
        waits = [_after(d) for d in (self._round, self._registering) if d is not None]
        gone = DeferredList(waits).addCallback(lambda _: self._leave(held))
        return gone.addErrback(self._round_failed)

    @inlineCallbacks
    def _leave(self, held: dict[str, int]) -> Generator[Deferred[Any], Any, None]:
        """Release the leases `held` had (each as its own write) and delete the node's row."""
        releases = [
            self.ledger.run(leases.release, resource, self.node, epoch)
            for resource, epoch in sorted(held.items())
        ]
        yield DeferredList(releases, consumeErrors=True)
        if self.registered:
            yield self.ledger.run(leases.deregister, self.node)
            self.registered = False
            log.info("node_left", node=self.node, released=len(held))

    def stopService(self) -> Deferred[Any]:
        """Stop acting on anything (leases released by `stop`, else they expire)."""
        Service.stopService(self)
        if self.held or self._loop.running:
            return self.stop()
        return succeed(None)

    # ------------------------------------------------------------------ rounds

    def tick(self) -> None:
        """One round: self-stop first (own clock), then heartbeat, renew, spread, hand over."""
        self._self_stop()
        if self._round is not None or not self.running:
            return  # the last round has not come back: the watchdog guards the leases
        self.rounds += 1
        refresh = getattr(self.host, "refresh", None)  # lists that change (tournaments)
        if refresh is None:
            self._run_round()
            return
        d = refresh()
        self._round = d
        d.addErrback(self._round_failed)
        d.addCallback(lambda _: self._run_round())

    def _run_round(self) -> Deferred[Any]:
        """The round's thread call, then its answer on the reactor thread."""
        sent = self.clock.seconds()
        held = dict(self.held)
        s = self.settings
        d = self.ledger.run(one_round, self.node, held, s.ttl_seconds, s.ttl_seconds)
        self._round = d
        d.addCallback(self._answered, held, sent)
        d.addErrback(self._round_failed)
        return d.addBoth(self._round_done)

    def _round_done(self, _: object) -> None:
        self._round = None

    def _round_failed(self, failure: Failure) -> None:
        log.warning("cluster_round_failed", node=self.node, error=failure.getErrorMessage())

    def _answered(self, found: Round, held: dict[str, int], sent: float) -> Deferred[Any]:
        for resource, epoch in held.items():
            if self.held.get(resource) != epoch:
                continue  # lost or released meanwhile
            if resource in found.renewed:
                self.renewed_at[resource] = sent
            else:
                self._lose(resource, "lease_lost")
        self._arm_watchdog()
        if found.draining != self.draining:
            self.draining = found.draining
            log.warning("node_draining" if self.draining else "node_undrained", node=self.node)
        self._hand_over(found)
        for resource in sorted(set(self.held) - self.configured):  # a tournament that ended
            if self.host.idle(resource):
                self._release(resource)
        return self._spread(found)

    # ------------------------------------------------------------------ self-stop

    def _deadline(self) -> float | None:
        """When the oldest renewal stops counting (own clock): `ttl - margin` after it."""
        if not self.renewed_at:
            return None
        s = self.settings
        return min(self.renewed_at.values()) + s.ttl_seconds - s.margin_seconds

    def _self_stop(self) -> None:
        """Stop every resource whose last renewal is `ttl - margin` old (own clock)."""
        s = self.settings
        limit = self.clock.seconds() - (s.ttl_seconds - s.margin_seconds)
        for resource, at in list(self.renewed_at.items()):
            if at <= limit and resource in self.held:
                self._lose(resource, "not_renewed")

    def _arm_watchdog(self) -> None:
        self._cancel_watchdog()
        deadline = self._deadline()
        if deadline is not None:
            delay = max(0.0, deadline - self.clock.seconds())
            self._watchdog = self.clock.callLater(delay, self._watchdog_fired)

    def _watchdog_fired(self) -> None:
        self._watchdog = None
        self._self_stop()
        self._arm_watchdog()

    def _cancel_watchdog(self) -> None:
        if self._watchdog is not None and self._watchdog.active():
            self._watchdog.cancel()
        self._watchdog = None

    # ------------------------------------------------------------------ losing, handing over

    def _lose(self, resource: str, reason: str) -> None:
        """Stop acting on `resource` now (its lease is not released: it may be another's)."""
        epoch = self.held.pop(resource, None)
        if epoch is None:
            return
        self.renewed_at.pop(resource, None)
        self.handing_over.discard(resource)
        log.warning("resource_lost", node=self.node, resource=resource, epoch=epoch, why=reason)
        self.host.close(resource)
        for listener in list(self.on_lose):
            listener(resource)

    def fenced_out(self, resource: str, epoch: int) -> None:
        """A write of `resource` at `epoch` was refused by the fence: stop it."""
        if self.held.get(resource) == epoch:
            self._lose(resource, "write_fenced")

    @property
    def configured(self) -> frozenset[str]:
        """Every resource the host runs."""
        return frozenset(self.host.resources())

    def _share(self, found: Round, pool: str = "") -> int:
        """How many resources of `pool` this node should own: ceil(resources / live nodes)."""
        count = sum(1 for r in self.host.resources() if pool_of(r) == pool)
        return math.ceil(count / max(1, found.live))

    def _hand_over(self, found: Round) -> None:
        """Drain everything, or the surplus over the node's share; release what is idle."""
        if self.draining:
            wanted = set(self.held)
        else:
            mine = set(self.held) & self.configured  # an ended tournament's is released apart
            wanted = set(self.handing_over)
            for pool in sorted({pool_of(r) for r in mine}):
                theirs = {r for r in mine if pool_of(r) == pool}
                surplus = len(theirs) - self._share(found, pool)
                going = wanted & theirs
                # tournaments last (one moved pauses its players `outage.reconnect_seconds`)
                for resource in sorted(theirs - going, key=_tournament_last, reverse=True):
                    if len(going) >= max(0, surplus):
                        break
                    going.add(resource)
                wanted |= going
        for resource in sorted(wanted):
            if resource not in self.handing_over:
                self.handing_over.add(resource)
                log.info("resource_handing_over", node=self.node, resource=resource)
                self.host.hold(resource)
            if self.host.idle(resource):
                self._release(resource)

    def _release(self, resource: str) -> None:
        epoch = self.held.get(resource)
        if epoch is None:
            return
        self._lose(resource, "handed_over")
        d = self.ledger.run(leases.release, resource, self.node, epoch)
        d.addErrback(self._round_failed)

    # ------------------------------------------------------------------ spreading

    @inlineCallbacks
    def _spread(self, found: Round) -> Generator[Deferred[Any], Any, None]:
        """Take free or expired leases while this node owns fewer than its share."""
        if self.draining or self.stopping or not self.running:
            return
        self._round_at_expiry(found)
        resources = self.host.resources()
        configured = frozenset(resources)
        shares = {pool: self._share(found, pool) for pool in {pool_of(r) for r in resources}}
        for resource in resources:
            if not self.running:
                return
            pool = pool_of(resource)
            mine = sum(1 for r in self.held if r in configured and pool_of(r) == pool)
            if mine >= shares[pool]:
                continue  # this node has its share of the pool
            if resource in self.held or found.owners.get(resource, self.node) != self.node:
                continue  # ours already, or another's (a lease of our name: a past run's)
            sent = self.clock.seconds()
            epoch = yield self.ledger.run(
                leases.take, resource, self.node, self.settings.ttl_seconds
            )
            if epoch is None:
                continue
            if self.stopping or not self.running:  # taken as the node stopped: give it back
                yield self.ledger.run(leases.release, resource, self.node, int(epoch))
                return
            self._take(resource, int(epoch), sent)

    def _round_at_expiry(self, found: Round) -> None:
        """An extra round just after the soonest other node's lease of these resources
        expires, when that is before the next round (a live node's never is: it renews every
        round): a dead node's tables are taken then, not up to `renew_seconds` later. (Its
        heartbeat, written with its renewal, says it is dead from then on: the share grows.)"""
        if self.draining or (self._early is not None and self._early.active()):
            return
        theirs = [
            seconds
            for resource, seconds in found.expiring.items()
            if resource in self.configured and found.owners.get(resource) != self.node
        ]
        if theirs and min(theirs) < self.settings.renew_seconds:
            self._early = self.clock.callLater(min(theirs) + EXPIRY_SLACK, self.tick)

    def _take(self, resource: str, epoch: int, sent: float) -> None:
        self.held[resource] = epoch
        self.renewed_at[resource] = sent
        self._arm_watchdog()
        log.info("resource_taken", node=self.node, resource=resource, epoch=epoch)
        fence = LeaseFence(resource, self.node, epoch, self.fenced_out)
        d = self.host.open(resource, fence)
        d.addCallbacks(
            self._opened,
            self._open_failed,
            callbackArgs=(resource, epoch),
            errbackArgs=(resource, epoch),
        )

    def _opened(self, _: object, resource: str, epoch: int) -> None:
        if self.held.get(resource) != epoch:
            return
        log.info("resource_opened", node=self.node, resource=resource, epoch=epoch)
        for listener in list(self.on_take):
            listener(resource)

    def _open_failed(self, failure: Failure, resource: str, epoch: int) -> None:
        log.error("resource_open_failed", resource=resource, error=failure.getErrorMessage())
        if self.held.get(resource) == epoch:
            self._lose(resource, "open_failed")


def _after(d: Deferred[Any]) -> Deferred[None]:
    """A Deferred that fires (with None) once `d` has, leaving `d`'s own result alone."""
    done: Deferred[None] = Deferred()

    def passed(result: object) -> object:
        done.callback(None)
        return result

    d.addBoth(passed)
    return done
