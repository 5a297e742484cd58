"""The recorder: one tournament's decisions written to the database, in order, before anyone hears.

Every decision the tournament actor takes becomes a *unit*: blocking writes on one SQLAlchemy
`Connection` (tournaments/store.py, and the decision's ledger transfer by `transfer_on`), run
in ONE transaction in the ledger's money lane (docs/ARCHITECTURE.md rules 7 and 14):

- Units commit in the order they were made. While a commit is in flight, the units made
  meanwhile wait and then commit together (group commit): many tables' hands share one commit,
  and each table's stored state is still one of its completed hands (T-18). That commit is the
  ledger's settlement batch (`LedgerService.commit_in_batch`): a tournament's hands are written
  in the same transaction as other tournaments' and the cash tables' hand settlements, and a
  tournament whose writes fail (a bug, a broken constraint) fails alone, the rest committed.
- A decision made by several parts at once (a hand: its table's seats, then the knockouts,
  places, prizes and moves it causes) is gathered into one unit by a scope (`batch()`).
- Persist, then tell: a message to a client sent while units are uncommitted is held (`hold`)
  and let through, in order, once every unit made before it has committed.
- Each `write` is a group of ops that stand or fall together (a transfer and the rows that
  record it). A group the ledger refuses (insufficient funds, T-4) or the database refuses (a
  constraint) fails alone: the tournament's writes, under one savepoint, are rolled back to it
  and written again with a savepoint per group, and only the refused group is left out (a
  refused registration writes no entry; a refused prize leaves its hand stored, for the staff;
  a table's refused seats leave the other tables' hands stored).

Everything here runs on the reactor's thread except the unit's writes (`Op`), which run in
the ledger's thread pool and must therefore capture values, never read the actor's state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure

from pokerroom.ledger import LedgerService
from pokerroom.ledger.errors import LedgerError
from pokerroom.ledger.posting import StaleIds
from tournaments.actor.fence import TournamentFence

#: One blocking write of a unit, on the unit's connection; its value is the unit's answer.
Op = Callable[[Connection], Any]

log = structlog.get_logger("tournaments.recorder")


class Counter(Protocol):
    """Where units in flight are counted (the cashier's `in_flight`: simulations wait on it)."""

    in_flight: int


@dataclass(slots=True)
class Group:
    """Ops that stand or fall together; `answer` fires with their values (None: a write
    nobody waits on, whose failure goes to the recorder's `failed`)."""

    ops: list[Op]
    answer: Deferred[list[Any]] | None = None


@dataclass(slots=True)
class Unit:
    """One decision's writes (its groups), committed in one transaction."""

    number: int
    groups: list[Group] = field(default_factory=list)
    counted: bool = True  # counted in the recorder's counter until committed
    awaited: bool = False  # a group of it has an answer someone waits on


class Batch:
    """A recorder's scope as a context manager (a class: entered at every hand's end)."""

    __slots__ = ("recorder",)

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __enter__(self) -> None:
        self.recorder.begin()

    def __exit__(self, *exc: object) -> None:
        self.recorder.end()


class Refused(Exception):
    """A unit's write was refused (its cause is `__cause__`): only this unit is left out."""


def _run_groups(conn: Connection, groups: Sequence[Sequence[Op]], careful: bool) -> list[Any]:
    """Run every group's ops on `conn`; careful: each group under a savepoint of its own."""
    outcomes: list[Any] = []
    for ops in groups:
        if not careful:
            outcomes.append([op(conn) for op in ops])
            continue
        try:
            with conn.begin_nested():
                outcomes.append([op(conn) for op in ops])
        except StaleIds:
            raise
        except (LedgerError, sa.exc.IntegrityError) as exc:
            refused = Refused(f"{type(exc).__name__}: {exc}")
            refused.__cause__ = exc
            outcomes.append(refused)
    return outcomes


def commit_groups_on(conn: Connection, groups: Sequence[Sequence[Op]]) -> list[Any]:
    """Write several groups in the open transaction (the ledger's batch); per group its ops'
    values or a `Refused`.

    Blocking (the ledger's writer). The groups are written straight under one savepoint; if the
    ledger refuses one transfer or a row breaks a constraint, the savepoint is rolled back and
    the groups written again with a savepoint each, so that only the refused ones are out.
    Stale account ids are raised to the batch, which reads them again and retries.
    """
    try:
        with conn.begin_nested():
            return _run_groups(conn, groups, careful=False)
    except StaleIds:
        raise
    except (LedgerError, sa.exc.IntegrityError):
        pass
    return _run_groups(conn, groups, careful=True)


def commit_fenced_on(
    conn: Connection, groups: Sequence[Sequence[Op]], fence: TournamentFence
) -> list[Any]:
    """`commit_groups_on` after the lease check in the same transaction (cluster mode): a
    node that lost the tournament's lease writes none of the groups (`lease_lost`)."""
    fence.check(conn)
    return commit_groups_on(conn, groups)


class Recorder:
    """Writes one tournament's units in order, group-committing those made during a commit."""

    def __init__(
        self,
        ledger: LedgerService,
        counter: Counter,
        stores: bool = True,
        heartbeat: Callable[[], Op | None] | None = None,
    ) -> None:
        self.ledger = ledger
        self.counter = counter
        #: False: only the money is written (a benchmark without persistence); units still
        #: commit in order and telling still waits for them.
        self.stores = stores
        #: An op added to each commit (the level clock and when the state was saved), or None.
        self.heartbeat = heartbeat
        #: Whether a unit gathered by `batch()` (a hand and what it caused) counts in the
        #: counter until committed. A simulation that stops its clock for every counted write
        #: sets False: like the reactor, it then plays on while hands are written (a unit with
        #: an answer someone waits on, such as a request's, still counts).
        self.count_batches = True
        #: Told of the failure of a write nobody waits on (`write_quietly`).
        self.failed: Callable[[Failure], None] | None = None
        #: Cluster mode: the tournament's lease, checked first in each commit's transaction.
        self.fence: TournamentFence | None = None
        #: Stopped (the node lost the lease): nothing more is written, every write is dropped.
        self.stopped = False
        self.made = 0  # the last unit number given out
        self.committed = 0  # every unit up to this number is done (committed or refused)
        self.commits = 0  # transactions made
        self.units_written = 0
        self._queue: deque[Unit] = deque()
        self._open: Unit | None = None
        self._depth = 0
        self._flushing = False
        self._held: deque[tuple[int, Callable[..., None], tuple[Any, ...]]] = deque()
        self._waiters: list[tuple[int, Deferred[None]]] = []

    # ------------------------------------------------------------------ writing

    def write(self, *ops: Op) -> Deferred[list[Any]]:
        """Add `ops` (one group) to the decision being gathered, or make them a unit now.

        Fires with the ops' values once committed; fails with the ledger's refusal (or the
        error) if they were not written.
        """
        answer: Deferred[list[Any]] = Deferred()
        self._add(Group(list(ops), answer))
        return answer

    def write_quietly(self, *ops: Op) -> None:
        """`write` for a decision nobody waits on (a hand's seats): no answer is made; a
        failure goes to `failed` (the hot path: a Deferred a hand is measurable)."""
        self._add(Group(list(ops)))

    def stop(self) -> None:
        """Write nothing more (the node stopped the tournament: its state is as stored)."""
        self.stopped = True
        for unit in self._queue:
            if unit.counted:
                self.counter.in_flight -= 1
        self._queue.clear()
        self._held.clear()  # nobody hears what was not stored

    def _add(self, group: Group) -> None:
        if self.stopped:
            return  # never answered: the tournament stopped on this node
        if self._depth:
            unit = self._open
            if unit is None:
                self.made += 1
                unit = self._open = Unit(self.made)
            unit.groups.append(group)
            unit.awaited = unit.awaited or group.answer is not None
            return
        self.made += 1
        self._seal(Unit(self.made, [group]))

    def batch(self) -> Batch:
        """Gather every write made inside into one unit (scopes nest; the outermost seals)."""
        return Batch(self)

    def begin(self) -> None:
        """Open a scope (`batch` as a context manager is the usual way)."""
        self._depth += 1

    def end(self) -> None:
        """Close a scope: the outermost seals its unit."""
        self._depth -= 1
        if not self._depth and self._open is not None:
            unit, self._open = self._open, None
            self._seal(unit, counted=self.count_batches or unit.awaited)

    def _seal(self, unit: Unit, counted: bool = True) -> None:
        unit.counted = counted
        if counted:
            self.counter.in_flight += 1
        self._queue.append(unit)
        self._flush()

    def _flush(self) -> None:
        """Commit every sealed unit in one transaction, unless a commit is in flight."""
        if self._flushing or not self._queue or self.stopped:
            return
        units = list(self._queue)
        self._queue.clear()
        groups = [group for unit in units for group in unit.groups]
        batches = [list(group.ops) for group in groups]
        beat = self.heartbeat() if self.heartbeat is not None else None
        if beat is not None and self.stores:
            batches.append([beat])
        self._flushing = True
        self.commits += 1
        self.units_written += len(units)
        fence = self.fence
        if fence is None:
            d = self.ledger.commit_in_batch(partial(commit_groups_on, groups=batches))
        else:
            d = self.ledger.commit_in_batch(partial(commit_fenced_on, groups=batches, fence=fence))
        d.addBoth(self._committed, units, groups)

    def _committed(
        self, outcome: list[Any] | Failure, units: list[Unit], groups: list[Group]
    ) -> None:
        self._flushing = False
        if isinstance(outcome, Failure):
            log.error("tournament_write_failed", error=str(outcome.value), units=len(units))
            if self.fence is not None:  # lease_lost: the node stops the tournament
                self.fence.refused(outcome.value)
        for unit in units:
            if unit.counted:
                self.counter.in_flight -= 1
            self.committed = max(self.committed, unit.number)
        for index, group in enumerate(groups):
            value = outcome if isinstance(outcome, Failure) else outcome[index]
            if isinstance(value, Refused):
                value = Failure(value.__cause__ or value)
            answer = group.answer
            if answer is None:
                if isinstance(value, Failure) and self.failed is not None:
                    self.failed(value)
            elif isinstance(value, Failure):
                answer.errback(value)
            else:
                answer.callback(value)
        self._release()
        self._flush()

    # ------------------------------------------------------------------ telling

    @property
    def behind(self) -> bool:
        """Some unit made so far is not committed yet."""
        return self.committed < self.made or self._open is not None

    def hold(self, send: Callable[..., None], *args: Any) -> None:
        """Send now if every unit made so far is committed, else once they are (in order)."""
        if not self.behind and not self._held:
            send(*args)
            return
        self._held.append((self.made, send, args))

    def after(self, number: int) -> Deferred[None]:
        """Fires once unit `number` (and every one before it) is done."""
        if number <= self.committed:
            return succeed(None)
        d: Deferred[None] = Deferred()
        self._waiters.append((number, d))
        return d

    def idle(self) -> Deferred[None]:
        """Fires once every unit made so far is done."""
        return self.after(self.made)

    def _release(self) -> None:
        held = self._held
        while held and held[0][0] <= self.committed:
            _, send, args = held.popleft()
            try:
                send(*args)
            except Exception:  # a message that cannot be sent must not stop the others
                log.exception("held_message_failed")
        if self._waiters:
            due = [(n, d) for n, d in self._waiters if n <= self.committed]
            self._waiters = [(n, d) for n, d in self._waiters if n > self.committed]
            for _, d in due:
                d.callback(None)
