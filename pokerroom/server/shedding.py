"""Fair load shedding for reads: a few in flight per player, a bound on all (ARCH 16).

Wallet and hand-history requests are database reads. Each player may have `per_player` of
them waiting at once; one more is answered at once with `server_busy` (details `in_flight`),
without touching the database. The ledger's read lane bounds them all (`read_queue_max`) and
refuses past it with the same code. So one player, or a crowd of them, pipelining reads costs
reads only: money has its own lane and the tables keep dealing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from twisted.internet.defer import Deferred

from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

T = TypeVar("T")


class ReadLimit:
    """Counts each player's reads in flight and refuses one more than `per_player`."""

    def __init__(self, per_player: int = 4) -> None:
        if per_player < 1:
            raise ValueError("reads_per_player is at least 1")
        self.per_player = per_player
        self.in_flight: dict[str, int] = {}
        self.refused = 0

    def run(self, player: str, start: Callable[[], Deferred[T]]) -> Deferred[T]:
        """Start the read `start()` for `player`, or raise server_busy if they have too many."""
        held = self.in_flight.get(player, 0)
        if held >= self.per_player:
            self.refused += 1
            raise ProtocolError(
                errors.SERVER_BUSY,
                f"at most {self.per_player} reads at a time; wait for the answers",
                {"in_flight": held},
            )
        self.in_flight[player] = held + 1
        try:
            d = start()
        except BaseException:
            self._release(player)
            raise

        def release(result: T) -> T:
            self._release(player)
            return result

        return d.addBoth(release)

    def _release(self, player: str) -> None:
        left = self.in_flight.get(player, 0) - 1
        if left > 0:
            self.in_flight[player] = left
        else:
            self.in_flight.pop(player, None)
