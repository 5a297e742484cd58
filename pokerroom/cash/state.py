"""TableState: what a cash table holds, shared by its two halves (docs/design/room.md).

`TableActor` (actor.py) is `HandLoop` (play.py: runs hands) plus `Membership` (membership.py:
changes who sits where). Both build on this class: the table's parts, seats, current hand and
timers, the helpers both use, and, declared abstract, the few methods each half calls in the
other, so that every call is checked against one signature. Reactor thread only.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from typing import Any, Protocol

import structlog
from structlog.typing import FilteringBoundLogger
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

from pokerroom.cash import errors as codes
from pokerroom.cash.config import CashTableConfig
from pokerroom.cash.hand_store import HandStore
from pokerroom.cash.pause import TablePause
from pokerroom.cash.policies import AdmissionDecision, RoomPolicies
from pokerroom.cash.seating import Seat
from pokerroom.cash.store import SeatRow
from pokerroom.engine import Hand
from pokerroom.ledger.service import LedgerService
from pokerroom.protocol.errors import ProtocolError
from pokerroom.table.clock import ActionClock, seconds_to_ms
from pokerroom.table.positions import ButtonState, HandPlan
from pokerroom.table.views import Message, TableListener, message

IDLE, STARTING, PLAYING, SETTLING, HALTED = "idle", "starting", "playing", "settling", "halted"


class Shuffler(Protocol):
    """The deck's random source: secrets.SystemRandom in production, seeded in tests (C-15)."""

    def shuffle(self, x: list[Any]) -> None:
        """Shuffle in place."""
        ...

    def randrange(self, n: int) -> int:
        """An int in [0, n)."""
        ...


class TableState(ABC):
    """One table's parts and state; the base of HandLoop and Membership."""

    def __init__(
        self,
        config: CashTableConfig,
        *,
        clock: IReactorTime,
        ledger: LedgerService,
        listener: TableListener,
        rng: Shuffler | None = None,
        store: HandStore | None = None,
        policies: RoomPolicies | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.ledger = ledger
        self.listener = listener
        self.rng: Shuffler = rng if rng is not None else secrets.SystemRandom()
        self.store = store if store is not None else HandStore(ledger)
        self.policies = policies if policies is not None else RoomPolicies(self.store)
        self.log: FilteringBoundLogger = structlog.get_logger("pokerroom.cash").bind(
            table_id=config.table_id
        )
        self.seats: dict[int, Seat] = {}
        self.by_player: dict[str, int] = {}
        self.observers: set[str] = set()
        self.button_state: ButtonState | None = None
        self.phase = IDLE
        self.hand: Hand | None = None
        self.plan: HandPlan | None = None
        self.hand_id = ""
        self.hand_number = 1  # the next hand's number at this table
        self.hand_seq = 0  # the current hand's number
        self.order: tuple[int, ...] = ()
        self.players: tuple[str, ...] = ()
        self.start_stacks: dict[str, int] = {}
        self.action_clock = ActionClock(clock, self._on_timebank, self._on_timeout)
        self._seen = 0
        self._next_hand: IDelayedCall | None = None
        self._closed = False
        #: Staff hold (docs/ADMIN.md): `paused` deals no new hand; `closed` also seats no one.
        self.staff_hold: str | None = None
        self._reserved: set[int] = set()  # seats being sat in or cashed out
        self._joining: set[str] = set()
        self._topping_up: dict[str, int] = {}
        self._admitted: dict[str, AdmissionDecision] = {}
        self._leaves: dict[str, list[Deferred[dict[str, Any]]]] = {}
        #: Players whose cash-out waits for the database, with the timer of its next try.
        self._cashing_out: dict[str, IDelayedCall | None] = {}
        #: Hand starts and settlements, paused and retried while the database is out (C-12).
        self.pause = TablePause(clock, self._notify, lambda: self.log, self._halt)
        self._sitout_timers: dict[str, IDelayedCall] = {}

    # ------------------------------------------------------------------ helpers

    @property
    def table_id(self) -> str:
        """The table's id."""
        return self.config.table_id

    def _now_ms(self) -> int:
        return seconds_to_ms(self.clock.seconds())

    def _broadcast(self, msg: Message, exclude: set[str] | None = None) -> None:
        self.listener.broadcast(self.config.table_id, msg, exclude or set())

    def _notify(self, fields: dict[str, Any]) -> None:
        """Broadcast a table event given as its fields with `type` (`table_paused`, ...)."""
        rest = dict(fields)
        self._broadcast(message(self.table_id, rest.pop("type"), **rest))

    def _seat_of(self, player_id: str) -> Seat:
        if self._closed or self.phase == HALTED:
            raise ProtocolError(codes.TABLE_CLOSED, "the table is closed")
        number = self.by_player.get(player_id)
        if number is None:
            raise ProtocolError(codes.NOT_SEATED, "you are not seated at this table")
        return self.seats[number]

    def _seat_rows(self) -> list[SeatRow]:
        return [
            SeatRow(
                seat=s.number,
                player_id=s.player_id,
                session=s.session,
                stack=s.stack,
                sat_at_ms=seconds_to_ms(s.sat_at),
                hands_played=s.hands_played,
                timebank_ms=s.timebank_ms,
                sitting_out=s.sitting_out,
                missed_sb=s.missed_sb,
                missed_bb=s.missed_bb,
            )
            for s in sorted(self.seats.values(), key=lambda s: s.number)
        ]

    def _seat_event(self, kind: str, seat: Seat, **extra: Any) -> None:
        self._broadcast(
            message(self.table_id, kind, seat=seat.number, player=seat.player_id, **extra)
        )

    # ------------------------------------------------------------------ across the halves

    @abstractmethod
    def snapshot_message(self, player_id: str) -> Message:
        """The `table_snapshot` message for one player (TableActor)."""

    @abstractmethod
    def _maybe_schedule_hand(self) -> None:
        """Deal the next hand after the pause, if two players are ready (HandLoop)."""

    @abstractmethod
    def _halt(self, step: str, failure: Failure) -> None:
        """The database refused a hand's step for good: stop dealing (HandLoop, C-12)."""

    @abstractmethod
    def _on_timebank(self, remaining_ms: int) -> None:
        """The action time ran out and the bank started (HandLoop, C-7)."""

    @abstractmethod
    def _on_timeout(self) -> None:
        """No time left for the player to act (HandLoop, C-6)."""

    @abstractmethod
    def _auto_act(self, index: int, *, timed_out: bool) -> None:
        """Check if free, else fold, for engine index `index` (HandLoop, C-6)."""

    @abstractmethod
    def _sit_out_seat(self, seat: Seat, *, reason: str, announce: bool = True) -> None:
        """Sit the seat out and start its C-3 timer (Membership)."""

    @abstractmethod
    def _stand_up(self, seat: Seat) -> None:
        """Remove the seat and cash out (Membership, C-8, C-10)."""
