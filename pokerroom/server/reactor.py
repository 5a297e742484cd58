"""The reactor the room runs on, named by the Twisted interfaces the room uses of it.

Twisted's global reactor provides many interfaces, but `twisted.internet.reactor` is typed as a
module: `room_reactor()` imports it (only when called, never at module level: docs/ARCHITECTURE.md
rule 3) and names it `IRoomReactor` for the type checker. Tests hand the services a
`twisted.internet.task.Clock` and a thread pump in its place.
"""

from __future__ import annotations

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
