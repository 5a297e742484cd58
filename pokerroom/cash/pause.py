"""A table step that needs the database, tried until the database takes it (C-12, ARCH 16).

Starting a hand writes its `hands` row and settling it posts its one ledger transfer: a table
cannot go on without either. When one fails (an outage the ledger could not wait out, or any
the table *pauses*: it tells its audience (`table_paused`), tries the same step again — with
the same arguments, which is safe because both writes are idempotent (pokerroom/cash/store.py)
— after a backoff on the table's clock, and when it succeeds says `table_resumed` and carries
on. One log line when a pause starts, one when it ends with its length; nothing per try. An
outage never halts a table. Only a refusal for good (the database answered with an error that
is not an outage: a bug) halts it, through `halt`, as before (C-12: the hand is void).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from structlog.typing import FilteringBoundLogger
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

from pokerroom.ledger.errors import Busy, ServiceUnavailable
from pokerroom.ledger.faults import Backoff, first_line, is_transient
from pokerroom.protocol.events import TablePaused, TableResumed

#: Waits between a paused table's tries: short, so that it deals again within seconds of the
#: database coming back (each try itself waits up to the ledger's `retry_seconds`).
TABLE_BACKOFF = Backoff(first=0.5, most=2.0)


class TablePause:
    """Runs a table's database steps; pauses and retries the one that fails."""

    def __init__(
        self,
        table_id: str,
        clock: IReactorTime,
        notify: Callable[[TablePaused | TableResumed], None],
        log: Callable[[], FilteringBoundLogger],
        halt: Callable[[str, Failure], None],
        backoff: Backoff = TABLE_BACKOFF,
    ) -> None:
        self.table_id = table_id
        self.clock = clock
        self.notify = notify  # sends a table event to the audience
        self.halt = halt  # stops the table after a refusal for good
        self.log = log  # the table's logger as it is bound now
        self.backoff = backoff
        self.step: str | None = None  # the step the table waits on, None while it runs
        self.since = 0.0  # when the pause began (clock seconds)
        self.pauses = 0  # pauses so far (monitoring, tests)
        self._tries = 0
        self._timer: IDelayedCall | None = None
        self._stopped = False

    @property
    def paused(self) -> bool:
        """Whether the table waits for the database."""
        return self.step is not None

    def notice(self) -> TablePaused | None:
        """The `table_paused` message for a player who opens the table mid-pause, else None."""
        if self.step is None:
            return None
        return TablePaused(table_id=self.table_id, step=self.step, since_ms=_ms(self.since))

    def run(
        self, step: str, attempt: Callable[[], Deferred[Any]], then: Callable[[], None]
    ) -> None:
        """Run `attempt()`; once it succeeds call `then()`; until then retry it, paused."""
        if self._stopped:
            return
        d = attempt()
        d.addCallbacks(
            self._succeeded,
            self._failed,
            callbackArgs=(then,),
            errbackArgs=(step, attempt, then),
        )

    def stop(self) -> None:
        """No more tries (the table closes)."""
        self._stopped = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def _succeeded(self, _: object, then: Callable[[], None]) -> None:
        if self._stopped:
            return
        if self.step is not None:
            paused_ms = _ms(self.clock.seconds()) - _ms(self.since)
            self.log().warning(
                "table_resumed", step=self.step, paused_seconds=paused_ms / 1000, tries=self._tries
            )
            self.notify(TableResumed(table_id=self.table_id, step=self.step, paused_ms=paused_ms))
            self.step = None
            self._tries = 0
        then()

    def _failed(
        self,
        failure: Failure,
        step: str,
        attempt: Callable[[], Deferred[Any]],
        then: Callable[[], None],
    ) -> None:
        if self._stopped:
            return
        exc = failure.value
        assert exc is not None
        if failure.check(ServiceUnavailable, Busy) is None and not is_transient(exc):
            self.step = None
            self._stopped = True
            self.halt(step, failure)  # refused for good: retrying would not help
            return
        if self.step is None:
            self.step = step
            self.since = self.clock.seconds()
            self.pauses += 1
            self.log().warning("table_paused", step=step, error=first_line(exc))
            notice = self.notice()
            assert notice is not None
            self.notify(notice)
        delay = self.backoff.delay(self._tries)
        self._tries += 1
        self._timer = self.clock.callLater(delay, self.run, step, attempt, then)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
