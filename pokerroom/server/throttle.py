"""Login throttling and the bounded password-hashing pool (docs/SECURITY.md, P-1).

`LoginThrottle` counts failed logins per name and per source address over a sliding window:
once `login_failures` logins for one name failed within `login_window_minutes`, every further
login for that name is refused with `too_many_attempts` (details `until_ms`) until the oldest
of those failures leaves the window, whether the password is right or not; the same holds per
address with `address_failures`. Logins still running count as failures until they end, so
logins sent at once cannot slip past the limit. It is pure: the caller passes `now` (seconds,
from its injected clock).

`HashPool` runs argon2 in a few threads of its own. Jobs wait in a bounded queue, served in
turn per source address (round robin), so that a flood of logins from one address delays
another address's login by at most one job per busy address; addresses whose last password
check failed wait behind the others. When the queue is full, a failing address's job, or the
newest job of the most crowded address, gives way to a newcomer with fewer; else the newcomer
is refused. Either refusal is `server_busy`, never an unbounded wait.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorFromThreads
from twisted.internet.threads import deferToThreadPool
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

#: The address of a connection on a unix socket (`peer_host`): no IP at all.
UNIX_PEER = "local"


def is_local(address: str) -> bool:
    """True for a loopback IP (127.0.0.0/8, ::1, ::ffff:127.x) or a unix socket's peer."""
    if address == UNIX_PEER:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def address_key(address: str, name: str | None) -> str:
    """The per-address counter a staff login counts against (docs/SECURITY.md).

    On a loopback or unix endpoint every staff member comes from the same address, so one
    address counter would let 20 wrong passwords for any name lock every name out: there the
    address's count is kept per name (`127.0.0.1/alice`; all invalid names share one). Any
    other address is counted as a whole.
    """
    if not is_local(address):
        return address
    return f"{address}/{name if name is not None else '?'}"


@dataclass(frozen=True, slots=True)
class LoginLimits:
    """Login limits (config `[accounts]`); an `..._failures` of 0 turns that limit off."""

    login_failures: int = 10
    login_window_minutes: float = 15.0
    address_failures: int = 30
    hash_threads: int = 2
    hash_queue_max: int = 64

    def __post_init__(self) -> None:
        if self.login_failures < 0 or self.address_failures < 0:
            raise ValueError("login_failures and address_failures are 0 (off) or more")
        if self.login_window_minutes <= 0:
            raise ValueError("login_window_minutes must be positive")
        if self.hash_threads < 1 or self.hash_queue_max < 1:
            raise ValueError("hash_threads and hash_queue_max must be at least 1")


@dataclass(slots=True)
class _Attempts:
    """Recent failures (times, oldest first) and logins still running, for one name or address."""

    failures: deque[float] = field(default_factory=deque)
    running: int = 0


@dataclass(frozen=True, slots=True)
class Attempt:
    """One login under way: the counters it holds until `LoginThrottle.end`."""

    entries: tuple[tuple[dict[str, _Attempts], str], ...]


class LoginThrottle:
    """Failed logins per name and per address over a sliding window (docs/SECURITY.md)."""

    def __init__(self, limits: LoginLimits | None = None) -> None:
        self.limits = limits or LoginLimits()
        self._names: dict[str, _Attempts] = {}
        self._addresses: dict[str, _Attempts] = {}
        self._next_sweep = 0.0

    @property
    def window(self) -> float:
        """The window in seconds."""
        return self.limits.login_window_minutes * 60.0

    def begin(self, name: str | None, address: str, now: float) -> Attempt:
        """Start one login for `name` (None: not a valid name) from `address`.

        Raises `too_many_attempts` with `until_ms` if the name or the address is locked.
        """
        self._sweep(now)
        checks: list[tuple[dict[str, _Attempts], str, int, str]] = []
        if name is not None and self.limits.login_failures:
            checks.append((self._names, name, self.limits.login_failures, "this name"))
        if self.limits.address_failures:
            checks.append((self._addresses, address, self.limits.address_failures, "your address"))
        for table, key, limit, what in checks:
            until = self._locked_until(table.get(key), limit, now)
            if until is not None:
                raise ProtocolError(
                    errors.TOO_MANY_ATTEMPTS,
                    f"too many failed logins for {what}; try again later",
                    {"until_ms": int(until * 1000)},
                )
        for table, key, _, _ in checks:
            table.setdefault(key, _Attempts()).running += 1
        return Attempt(tuple((table, key) for table, key, _, _ in checks))

    def end(self, attempt: Attempt, now: float, *, failed: bool) -> None:
        """The login ended; a wrong password (`failed`) is counted at `now`."""
        for table, key in attempt.entries:
            entry = table.get(key)
            if entry is None:
                continue
            entry.running -= 1
            if failed:
                entry.failures.append(now)
            elif not entry.failures and entry.running <= 0:
                del table[key]

    def locked_until(self, name: str, now: float) -> float | None:
        """When a lock on `name` ends (seconds), or None if its logins are accepted."""
        return self._locked_until(self._names.get(name), self.limits.login_failures, now)

    def _locked_until(self, entry: _Attempts | None, limit: int, now: float) -> float | None:
        if entry is None or limit <= 0:
            return None
        self._expire(entry, now)
        if len(entry.failures) + entry.running < limit:
            return None
        times = [*entry.failures, *([now] * entry.running)]  # running ones may fail too
        return times[len(times) - limit] + self.window

    def _expire(self, entry: _Attempts, now: float) -> None:
        while entry.failures and entry.failures[0] <= now - self.window:
            entry.failures.popleft()

    def _sweep(self, now: float) -> None:
        """Once per window, forget names and addresses with nothing left to count."""
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.window
        for table in (self._names, self._addresses):
            for key in list(table):
                entry = table[key]
                self._expire(entry, now)
                if not entry.failures and entry.running <= 0:
                    del table[key]

    def tracked(self) -> int:
        """How many names and addresses are remembered (bounded by the sweep)."""
        return len(self._names) + len(self._addresses)


BUSY_MESSAGE = "too many logins are waiting; try again in a few seconds"


@dataclass(slots=True)
class _Job:
    result: Deferred[Any]
    work: Callable[..., Any]
    args: tuple[Any, ...]
    key: str


class HashPool:
    """Password hashing in `threads` threads, fed fairly per key from a bounded queue.

    Two tiers: keys (addresses) whose last password check failed wait behind the others, so a
    genuine login from a clean address is next whatever the attack's size. Within a tier,
    keys take turns (round robin). A job whose result is `False` (a password that did not
    match) moves its key to the back tier; one whose result is `True` moves it to the front.
    """

    #: Keys remembered as failing (oldest forgotten first).
    MAX_FAILING = 10_000

    def __init__(self, reactor: IReactorFromThreads, threads: int = 2, queue_max: int = 64) -> None:
        self._reactor = reactor
        self.threads, self.queue_max = threads, queue_max
        self._pool = ThreadPool(minthreads=threads, maxthreads=threads, name="password-hash")
        #: The front tier (clean keys) and the back tier (keys whose last check failed).
        self._tiers: tuple[OrderedDict[str, deque[_Job]], ...] = (OrderedDict(), OrderedDict())
        self._failing: OrderedDict[str, None] = OrderedDict()
        self.waiting = 0  # jobs queued, not yet started
        self.running = 0  # jobs in the threads

    def start(self) -> None:
        """Start the threads."""
        self._pool.start()

    def stop(self) -> None:
        """Refuse what waits and stop the threads."""
        tiers, self._tiers, self.waiting = self._tiers, (OrderedDict(), OrderedDict()), 0
        for tier in tiers:
            for jobs in tier.values():
                for job in jobs:
                    job.result.errback(ProtocolError(errors.SERVER_BUSY, "the server is stopping"))
        self._pool.stop()

    def submit(self, key: str, work: Callable[..., Any], *args: Any) -> Deferred[Any]:
        """Run `work(*args)` in a hashing thread when `key`'s turn comes.

        When the queue is full, a job of the back tier gives way to a newcomer of the front
        tier; within a tier the key with the most jobs waiting gives up its newest one if it
        holds more than `key` would. Otherwise this job is refused. Either refusal is
        `server_busy`, so a flood from a few addresses cannot keep others out.
        """
        tier = self._tiers[key in self._failing]
        if self.waiting >= self.queue_max and not self._shed_for(key, tier):
            raise ProtocolError(errors.SERVER_BUSY, BUSY_MESSAGE)
        job = _Job(Deferred(), work, args, key)
        tier.setdefault(key, deque()).append(job)
        self.waiting += 1
        self._pump()
        return job.result

    def _shed_for(self, key: str, tier: OrderedDict[str, deque[_Job]]) -> bool:
        """Refuse one waiting job to make room for `key`'s; False if none should give way."""
        front, back = self._tiers
        if tier is front and back:
            victims, mine = back, 0  # any back-tier job gives way to a clean key
        else:
            victims, mine = tier, len(tier.get(key, ())) + 1
        crowded = max(victims, key=lambda k: len(victims[k]), default=None)
        if crowded is None or len(victims[crowded]) <= mine:
            return False
        jobs = victims[crowded]
        shed = jobs.pop()
        if not jobs:
            del victims[crowded]
        self.waiting -= 1
        shed.result.errback(ProtocolError(errors.SERVER_BUSY, BUSY_MESSAGE))
        return True

    def ahead(self, key: str) -> int | None:
        """How many waiting jobs start before `key`'s next one; None if `key` has none waiting.

        Every job of the front tier goes before the back tier; within a tier, one job of every
        key ahead in the rotation, however many each has queued.
        """
        front, back = self._tiers
        for position, waiting in enumerate(front):
            if waiting == key:
                return position
        for position, waiting in enumerate(back):
            if waiting == key:
                return sum(len(jobs) for jobs in front.values()) + position
        return None

    def _pump(self) -> None:
        while self.running < self.threads and self.waiting:
            tier = next(t for t in self._tiers if t)
            key, jobs = next(iter(tier.items()))
            job = jobs.popleft()
            if jobs:
                tier.move_to_end(key)  # round robin: the other keys go first
            else:
                del tier[key]
            self.waiting -= 1
            self.running += 1
            d = deferToThreadPool(self._reactor, self._pool, job.work, *job.args)
            d.addBoth(self._finished, job)

    def _finished(self, result: Any, job: _Job) -> None:
        self.running -= 1
        if result is False:  # a password that did not match: this key waits behind others
            self._failing[job.key] = None
            self._failing.move_to_end(job.key)
            if len(self._failing) > self.MAX_FAILING:
                self._failing.popitem(last=False)
        elif result is True:
            self._failing.pop(job.key, None)
        self._pump()
        if isinstance(result, Failure):
            job.result.errback(result)
        else:
            job.result.callback(result)
