"""Seats of a cash table: who sits where, their chips and status, and a seat as the database
keeps it (the clockwise arithmetic is in pokerroom.table.positions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pokerroom.cash.store import SeatRow
from pokerroom.table.clock import seconds_to_ms


@dataclass(slots=True)
class Seat:
    """One occupied seat. `stack` is what the player may bet in the next hand (C-9)."""

    number: int
    player_id: str
    stack: int
    session: str  # one sitting: names the cash-out key and the C-8 hand count
    sat_at: float
    timebank_ms: int
    pending_chips: int = 0  # a top-up bought during a hand, added when it ends (C-9)
    sitting_out: bool = False  # C-3
    sat_out_at: float | None = None
    waiting: bool = True  # not dealt in until an entry/missed post or the big blind (C-2, C-4)
    wait_for_bb: bool = False  # C-2: wait for the big blind rather than post
    missed_sb: bool = False  # C-4
    missed_bb: bool = False  # C-4
    hands_played: int = 0  # C-8: hands dealt in during this sitting
    hands_since_refill: int = 0  # C-7
    leaving: bool = False  # asked to leave; stands up when the hand ends
    disconnected: bool = False  # C-14: the seat and the clock stay
    timed_out: bool = False  # C-6: sat out by the clock; acting again sits back in
    in_hand: bool = False  # dealt into the current hand

    @property
    def ready(self) -> bool:
        """May be dealt in or take the big blind: present, in, with chips."""
        return not self.sitting_out and not self.leaving and self.stack > 0

    @property
    def active(self) -> bool:
        """Ready and owing nothing: dealt in without a post."""
        return self.ready and not self.waiting

    @property
    def owes(self) -> bool:
        """Whether a missed blind is owed (C-4)."""
        return self.missed_sb or self.missed_bb

    def entry_posts(self, big_blind: int, small_blind: int) -> tuple[int, int]:
        """The (live, dead) post due to be dealt in before the big blind (C-2, C-4)."""
        dead = small_blind if self.missed_sb and self.missed_bb else 0
        return big_blind, dead

    def clear_debts(self) -> None:
        """Posting the big blind, an entry post or a missed-blind post settles every debt."""
        self.waiting = False
        self.wait_for_bb = False
        self.missed_sb = False
        self.missed_bb = False


def free_seat(taken: Iterable[int], max_seats: int) -> int | None:
    """The lowest free seat number, or None when the table is full."""
    used = set(taken)
    return next((s for s in range(max_seats) if s not in used), None)


def seat_row(seat: Seat) -> SeatRow:
    """The seat as the database keeps it at a hand boundary (C-12)."""
    return SeatRow(
        seat=seat.number,
        player_id=seat.player_id,
        session=seat.session,
        stack=seat.stack,
        sat_at_ms=seconds_to_ms(seat.sat_at),
        hands_played=seat.hands_played,
        timebank_ms=seat.timebank_ms,
        sitting_out=seat.sitting_out,
        missed_sb=seat.missed_sb,
        missed_bb=seat.missed_bb,
    )


def seat_of_row(row: SeatRow) -> Seat:
    """C-12: a seat found at start-up, with its escrow stack; nobody is connected (C-14)."""
    return Seat(
        number=row.seat,
        player_id=row.player_id,
        stack=row.stack,
        session=row.session,
        sat_at=row.sat_at_ms / 1000,
        timebank_ms=row.timebank_ms,
        waiting=False,
        missed_sb=row.missed_sb,
        missed_bb=row.missed_bb,
        hands_played=row.hands_played,
        disconnected=True,  # C-14: nobody is connected after a restart
    )
