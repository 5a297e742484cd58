"""Sitting out and coming back at a cash table (C-3, C-4): each seat sitting out has a timer
that stands it up after `sitout_max_minutes`; back in, it posts what it owes or waits for the
big blind.

The roster owns one `SitOuts` and calls it (docs/ARCHITECTURE.md rule 13); it tells the table's
audience through `SitOutTable` and hands an expired seat back through the `expired` callback.
Reactor thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from structlog.typing import FilteringBoundLogger
from twisted.internet.interfaces import IDelayedCall, IReactorTime

from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.seating import Seat
from pokerroom.protocol.events import PlayerSatIn, PlayerSatOut, ServerMessage


class SitOutTable(Protocol):
    """What sitting out asks of the table."""

    def broadcast(self, msg: ServerMessage) -> None:
        """Tell the table's audience."""
        ...

    def deal_soon(self) -> None:
        """Deal the next hand after the pause, if two players are ready."""
        ...


class SitOuts:
    """The seats sitting out at one table, with their C-3 timers."""

    def __init__(
        self,
        config: CashTableConfig,
        *,
        clock: IReactorTime,
        table: SitOutTable,
        expired: Callable[[str], None],
        log: Callable[[], FilteringBoundLogger],
    ) -> None:
        self.config = config
        self.clock = clock
        self.table = table
        self._expired = expired  # a player's timer ran out (C-3): stand them up
        self._log = log
        self._timers: dict[str, IDelayedCall] = {}

    def sit_out(self, seat: Seat, *, reason: str, announce: bool = True) -> None:
        """Sit the seat out and start its C-3 timer; tell the audience unless restoring."""
        seat.sitting_out = True
        seat.sat_out_at = self.clock.seconds()
        self.forget(seat.player_id)
        self._timers[seat.player_id] = self.clock.callLater(
            self.config.sitout_max_minutes * 60, self._ran_out, seat.player_id
        )
        self._log().info("sat_out", player_id=seat.player_id, reason=reason)
        if announce:
            self.table.broadcast(
                PlayerSatOut(
                    table_id=self.config.table_id,
                    seat=seat.number,
                    player=seat.player_id,
                    reason=reason,
                )
            )

    def sit_in(self, seat: Seat, post: bool) -> None:
        """Back in: post what is owed (`post`) or wait for the big blind (C-4)."""
        self.forget(seat.player_id)
        seat.sitting_out = False
        seat.timed_out = False
        seat.sat_out_at = None
        if seat.owes:
            seat.waiting = True
            seat.wait_for_bb = not post
        self.table.broadcast(
            PlayerSatIn(
                table_id=self.config.table_id,
                seat=seat.number,
                player=seat.player_id,
                owes=seat.owes,
                wait_for_bb=seat.wait_for_bb,
            )
        )
        self.table.deal_soon()

    def forget(self, player_id: str) -> None:
        """Stop the player's timer, if any (back in, or standing up)."""
        timer = self._timers.pop(player_id, None)
        if timer is not None and timer.active():
            timer.cancel()

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()

    def _ran_out(self, player_id: str) -> None:
        self._timers.pop(player_id, None)
        self._expired(player_id)
