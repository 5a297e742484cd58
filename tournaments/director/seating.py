"""Tables, seats and positions relative to the blinds; random seat draws (T-1, T-10).

A `TableSeats` is what the director knows of a table: who sits where, the button and the
big blind of its last (or current) hand, and whether a hand is being played. Positions
are read the way tournament tables move the blinds: the big blind moves to the next
player after the last big blind, so the player seated first after the big blind's seat
is the next big blind. An empty seat between the button and the big blind (inclusive of
the big blind's own seat) is a *small-blind seat*: a newcomer there would post the small
blind, or get a free button, before ever posting a big blind; the director never seats a
moved player in the small-blind part of it (T-10).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tournaments.director.errors import NO_SEAT, DirectorError
from tournaments.director.rng import Rng


@dataclass(frozen=True, slots=True)
class TableSeats:
    """One tournament table: seat number (1..max_seats) to entry id, and its blinds."""

    table_id: int
    max_seats: int
    seats: Mapping[int, str] = field(default_factory=dict)
    button: int | None = None  # the button's seat in the last or current hand
    big_blind: int | None = None  # the big blind's seat in the last or current hand
    in_hand: bool = False  # a hand is running: nobody leaves this table before it ends

    @property
    def count(self) -> int:
        """Players seated."""
        return len(self.seats)

    def open_seats(self) -> list[int]:
        """Empty seat numbers, in order."""
        return [seat for seat in range(1, self.max_seats + 1) if seat not in self.seats]

    def seat_of(self, entry: str) -> int | None:
        """The seat of `entry`, if seated here."""
        for seat, who in self.seats.items():
            if who == entry:
                return seat
        return None


@dataclass(frozen=True, slots=True)
class Seating:
    """A decision: seat `entry` at `table_id`, seat `seat` (dealt in from the next hand)."""

    entry: str
    table_id: int
    seat: int


def _clockwise(table: TableSeats, start: int, stop: int) -> list[int]:
    """Seat numbers strictly after `start` up to and including `stop`, going clockwise."""
    seats = []
    seat = start
    while True:
        seat = seat % table.max_seats + 1
        seats.append(seat)
        if seat == stop or len(seats) > table.max_seats:
            return seats


def blind_areas(table: TableSeats) -> tuple[frozenset[int], frozenset[int]]:
    """(small-blind seats, button seats): empty seats a newcomer must not / should not take."""
    if table.button is None or table.big_blind is None or table.button == table.big_blind:
        return frozenset(), frozenset()
    between = _clockwise(table, table.button, table.big_blind)  # (button, big blind]
    occupied = [seat for seat in between[:-1] if seat in table.seats]
    small_blind = occupied[-1] if occupied else table.button
    after_sb = between[between.index(small_blind) + 1 :] if occupied else between
    empty = [seat for seat in between if seat not in table.seats]
    sb_area = frozenset(seat for seat in empty if seat in after_sb)
    return sb_area, frozenset(seat for seat in empty if seat not in sb_area)


def hands_until_big_blind(table: TableSeats, seat: int) -> int | None:
    """Hands a player in `seat` plays before posting the big blind; None if no blinds yet.

    Counts the players seated strictly between the last big blind and `seat`, clockwise:
    0 means the next big blind. Seats in the button area come after every other seat.
    """
    if table.big_blind is None:
        return None
    if seat not in table.seats and seat in blind_areas(table)[1]:
        return table.count
    if seat == table.big_blind:
        return max(0, table.count - 1)
    path = _clockwise(table, table.big_blind, seat)[:-1]
    return sum(1 for other in path if other in table.seats and other != seat)


def allowed_seats(table: TableSeats) -> list[int]:
    """Empty seats a moved or new player may take: never a small-blind seat (T-10)."""
    if len(table.seats) >= table.max_seats:
        return []
    forbidden = blind_areas(table)[0]
    return [seat for seat in table.open_seats() if seat not in forbidden]


def draw_seats(
    entries: Sequence[str], max_seats: int, rng: Rng, first_table_id: int = 1
) -> list[TableSeats]:
    """T-1: seat every entry at random on as few tables as needed, balanced within one."""
    if max_seats < 2:
        raise DirectorError(NO_SEAT, "a table needs at least two seats")
    if not entries:
        return []
    table_count = -(-len(entries) // max_seats)
    order = list(entries)
    rng.shuffle(order)
    groups: list[list[str]] = [order[index::table_count] for index in range(table_count)]
    tables = []
    for offset, group in enumerate(groups):
        seat_numbers = rng.sample(range(1, max_seats + 1), len(group))
        seats = dict(zip(seat_numbers, group, strict=True))
        tables.append(TableSeats(first_table_id + offset, max_seats, seats))
    return tables


def draw_button(table: TableSeats, rng: Rng) -> int:
    """A random occupied seat for the first button of a new or redrawn table (T-1)."""
    if not table.seats:
        raise DirectorError(NO_SEAT, f"table {table.table_id} is empty")
    return rng.choice(sorted(table.seats))


def seat_newcomer(
    tables: Sequence[TableSeats], entry: str, rng: Rng, max_seats: int, next_table_id: int
) -> tuple[Seating, TableSeats | None]:
    """Seat a late registration or re-entry at random on a short table (T-1, T-5).

    An allowed seat if any table has one; else any empty seat (a blind seat: a player alone
    at a new table could not play at all, T-10); only when every table is full, the new
    table opened for it (returned; the balancer fills it from the others at once).
    """
    candidates = [table for table in tables if allowed_seats(table)]
    choose: Callable[[TableSeats], list[int]] = allowed_seats
    if not candidates:
        candidates = [table for table in tables if table.open_seats()]
        choose = TableSeats.open_seats
    if not candidates:
        table = TableSeats(next_table_id, max_seats)
        seat = rng.randint(1, max_seats)
        return Seating(entry, next_table_id, seat), table
    fewest = min(table.count for table in candidates)
    table = rng.choice([table for table in candidates if table.count == fewest])
    return Seating(entry, table.table_id, rng.choice(choose(table))), None


def seat_player(table: TableSeats, seat: int, entry: str) -> TableSeats:
    """`table` with `entry` in the empty `seat`."""
    if seat in table.seats or not 1 <= seat <= table.max_seats:
        raise DirectorError(NO_SEAT, f"seat {seat} at table {table.table_id} is not free")
    return replace(table, seats={**table.seats, seat: entry})


def unseat_player(table: TableSeats, seat: int) -> TableSeats:
    """`table` without whoever sits in `seat` (bust-out or move)."""
    seats = dict(table.seats)
    seats.pop(seat)
    return replace(table, seats=seats)
