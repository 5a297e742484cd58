"""The reactor the room runs on, named by the Twisted interfaces the room uses of it.

Twisted's global reactor provides many interfaces, but `twisted.internet.reactor` is typed as a
module: `room_reactor()` imports it (only when called, never at module level: docs/ARCHITECTURE.md
rule 3) and names it `IRoomReactor` for the type checker. Tests hand the services a
`twisted.internet.task.Clock` and a thread pump in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from twisted.internet.interfaces import (
    IReactorCore,
    IReactorFromThreads,
    IReactorTCP,
    IReactorTime,
)


class IRoomReactor(IReactorCore, IReactorTime, IReactorTCP, IReactorFromThreads):
    """Run and stop (core), timers (time), the listener and bot clients (TCP), thread results."""


def room_reactor() -> IRoomReactor:
    """The global reactor (installed on first import), typed as what the room uses of it."""
    from twisted.internet import reactor

    return cast(IRoomReactor, reactor)


def lean_reads(reactor: object) -> bool:
    """Dispatch the epoll reactor's ready descriptors without Twisted's per-event log context.

    Twisted's `EPollReactor.doPoll` wraps every read in `log.callWithLogger`, which asks the
    connection for its log prefix and copies a context dict around the call (about 5 µs a
    read, 5 % of the server's Python at 600 clients: docs/PERFORMANCE.md, "Issue 20 item 3").
    The prefix only labels Twisted's own legacy log events (`system`), and the server never
    starts Twisted's logging: its lines are structlog's. Errors are handled as before:
    `_doReadOrWrite` logs an exception from a read or write and disconnects that connection,
    and anything escaping it is logged here with the connection's prefix, as
    `callWithLogger` does. Only a plain `EPollReactor` is changed (the cluster's asyncio
    reactor and the tests' clocks are left alone); True if it was.
    """
    import errno

    from twisted.internet.epollreactor import EPollReactor
    from twisted.python import log

    if type(reactor) is not EPollReactor:
        return False
    epoll = reactor
    log_err = cast(Callable[..., None], log.err)

    def do_poll(timeout: float | None) -> None:
        try:
            events = epoll._poller.poll(-1 if timeout is None else timeout, len(epoll._selectables))
        except OSError as err:
            if err.errno == errno.EINTR:
                return
            raise
        selectables = epoll._selectables
        drdw = cast(Callable[[object, int, int], None], epoll._doReadOrWrite)
        for fd, event in events:
            selectable = selectables.get(fd)
            if selectable is None:
                continue
            try:
                drdw(selectable, fd, event)
            except KeyboardInterrupt:
                raise
            except BaseException:
                log_err(system=_prefix(selectable))

    epoll.doPoll = epoll.doIteration = do_poll  # type: ignore[method-assign]
    return True


def _prefix(selectable: object) -> str:
    """The log prefix `callWithLogger` would have given an event of this descriptor."""
    try:
        return str(selectable.logPrefix())  # type: ignore[attr-defined]
    except Exception:
        return "(buggy logPrefix method)"
