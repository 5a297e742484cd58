"""Who is dealt in and who posts what: dead button, entry posts, missed blinds (C-2, C-4).

Pure: `plan_hand` reads the seats and the previous hand's blind positions and returns a
`HandPlan`; the table applies it. Cash and tournament tables both plan with it (a tournament
seat is always ready and never waits: `ALWAYS_DEALT`). Seat numbers may start at 0 or 1: only
their differences modulo `max_seats` matter. The rules chosen are written in
docs/CASH_RULES.md:

* Dead button: the big blind moves to the next ready seat each hand; the small blind goes
  to the seat that had the big blind (dead when that player is not in); the button goes to
  the seat that had the small blind, even when it is empty.
* A waiting player (new, or owing missed blinds) is dealt in by posting, unless the seat
  lies between the button and the big blind: then they wait until the button passes (C-2).
* A sitting-out player whose seat the big blind skips has missed the big blind; one whose
  seat the small blind reaches or skips has missed the small blind (C-4).
* Heads-up, the button posts the small blind and nobody posts more than a blind. A game
  that (re)starts deals everyone ready in with no posts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol


class PlannedSeat(Protocol):
    """What the planner reads of a seat (a cash `Seat`, or `ALWAYS_DEALT` in a tournament)."""

    @property
    def ready(self) -> bool:
        """May be dealt in or take the big blind."""
        ...

    @property
    def waiting(self) -> bool:
        """Owes an entry or missed-blind post before being dealt in (C-2, C-4)."""
        ...

    @property
    def wait_for_bb(self) -> bool:
        """Waits for the big blind instead of posting (C-2)."""
        ...

    @property
    def sitting_out(self) -> bool:
        """Not dealt in; misses the blinds that pass (C-3, C-4)."""
        ...

    def entry_posts(self, big_blind: int, small_blind: int) -> tuple[int, int]:
        """The (live, dead) post due to be dealt in before the big blind (C-2, C-4)."""
        ...


@dataclass(frozen=True, slots=True)
class _AlwaysDealt:
    """A tournament seat: dealt in every hand, posting only the blinds (T-12)."""

    ready: bool = True
    waiting: bool = False
    wait_for_bb: bool = False
    sitting_out: bool = False

    def entry_posts(self, big_blind: int, small_blind: int) -> tuple[int, int]:
        """Never owed: a tournament has no entry posts."""
        return 0, 0


ALWAYS_DEALT = _AlwaysDealt()


def distance(start: int, seat: int, max_seats: int) -> int:
    """Clockwise steps from `start` to `seat` (1..max_seats; `start` itself is max_seats)."""
    steps = (seat - start) % max_seats
    return steps if steps else max_seats


def strictly_between(seat: int, start: int, end: int, max_seats: int) -> bool:
    """Whether `seat` lies clockwise after `start` and before `end` (both excluded)."""
    return distance(start, seat, max_seats) < distance(start, end, max_seats)


def next_seat(after: int, candidates: Iterable[int], max_seats: int) -> int | None:
    """The first candidate clockwise after `after` (`after` itself comes last), or None."""
    pool = list(candidates)
    if not pool:
        return None
    return min(pool, key=lambda s: distance(after, s, max_seats))


def position_order(seats: Iterable[int], button: int, max_seats: int) -> list[int]:
    """Seats in engine order: first left of the button first, the button last."""
    return sorted(seats, key=lambda s: distance(button, s, max_seats))


SMALL, BIG, ENTRY = "small", "big", "entry"


@dataclass(frozen=True, slots=True)
class ButtonState:
    """Where the button and blinds were last hand; the next hand is planned from it."""

    button: int
    small_blind_seat: int
    big_blind_seat: int
    heads_up: bool = False


@dataclass(frozen=True, slots=True)
class HandPlan:
    """The dealt-in seats in engine order and each one's forced bets."""

    button: int
    small_blind_seat: int | None  # None: a dead small blind
    small_blind_position: int  # where the small blind is, posted or dead
    big_blind_seat: int
    order: tuple[int, ...]
    blinds: tuple[int, ...]
    live_posts: tuple[int, ...]
    dead_posts: tuple[int, ...]
    post_kinds: Mapping[int, str]  # seat -> small | big | entry
    missed: tuple[tuple[int, bool, bool], ...]  # (seat, missed small, missed big), C-4
    fresh: bool

    @property
    def state(self) -> ButtonState:
        """The positions the next hand is planned from."""
        return ButtonState(
            self.button, self.small_blind_position, self.big_blind_seat, len(self.order) == 2
        )


def plan_hand(
    seats: Mapping[int, PlannedSeat],
    max_seats: int,
    small_blind: int,
    big_blind: int,
    previous: ButtonState | None,
    pick_button: Callable[[list[int]], int],
) -> HandPlan | None:
    """Plan the next hand, or None when fewer than two players are ready."""
    ready = sorted(n for n, s in seats.items() if s.ready)
    if len(ready) < 2:
        return None
    if previous is not None:
        plan = _continue(seats, max_seats, small_blind, big_blind, previous, ready)
        if plan is not None:
            return plan
    hint = previous.big_blind_seat if previous is not None else pick_button(ready)
    plan = _fresh(max_seats, small_blind, big_blind, hint, ready)
    if previous is None:
        return plan
    # The blinds still pass the seats of those sitting out (heads-up included, C-4).
    missed = tuple(_missed(seats, max_seats, previous, plan.big_blind_seat))
    return replace(plan, missed=missed)


def _fresh(max_seats: int, sb: int, bb: int, button: int, ready: list[int]) -> HandPlan:
    """Everyone ready is dealt in and nobody posts more than a blind."""
    small: int | None  # next_seat may find none; the asserts below rule that out
    if len(ready) == 2:
        big = next_seat(button, ready, max_seats)
        assert big is not None
        button = small = next(s for s in ready if s != big)
    else:
        small = next_seat(button, ready, max_seats)
        assert small is not None
        big = next_seat(small, ready, max_seats)
        assert big is not None
    return _build(max_seats, sb, bb, (button, small, small), big, set(ready), {}, (), fresh=True)


def _continue(
    seats: Mapping[int, PlannedSeat],
    max_seats: int,
    sb: int,
    bb: int,
    previous: ButtonState,
    ready: list[int],
) -> HandPlan | None:
    """The dead-button move from the previous hand; None if it would deal in fewer than two."""
    big = next_seat(previous.big_blind_seat, ready, max_seats)
    assert big is not None
    button = previous.small_blind_seat
    small_seat = previous.big_blind_seat
    dealt = {big}
    posts: dict[int, tuple[int, int]] = {}
    for n in ready:
        seat = seats[n]
        if n == big:
            continue
        if not seat.waiting:
            dealt.add(n)
        elif not seat.wait_for_bb and not strictly_between(n, button, big, max_seats):
            dealt.add(n)  # C-2: posts to come in; the button rule keeps the others waiting
            posts[n] = seat.entry_posts(bb, sb)
    if len(dealt) < 2:
        return None
    missed = tuple(_missed(seats, max_seats, previous, big))
    if len(dealt) == 2:
        # Heads-up: the other player is the button and posts the small blind; no posts.
        other = next(s for s in dealt if s != big)
        heads_up = (other, other, other)
        return _build(max_seats, sb, bb, heads_up, big, dealt, {}, missed, fresh=False)
    if button == big:
        # The big blind jumped onto the old small blind: put the button just before the
        # small blind so that the order stays small blind, big blind, ..., button.
        others = dealt - {big, small_seat}
        button = min(others, key=lambda s: distance(s, small_seat, max_seats))
    small = small_seat if small_seat in dealt and small_seat not in posts else None
    where = (button, small, small_seat)
    return _build(max_seats, sb, bb, where, big, dealt, posts, missed, fresh=False)


def _missed(
    seats: Mapping[int, PlannedSeat], max_seats: int, previous: ButtonState, big: int
) -> list[tuple[int, bool, bool]]:
    """Sitting-out seats the big blind skipped or the small blind reached (C-4)."""
    out = []
    for n, seat in sorted(seats.items()):
        if not seat.sitting_out:
            continue
        missed_bb = strictly_between(n, previous.big_blind_seat, big, max_seats)
        missed_sb = n == previous.big_blind_seat or strictly_between(
            n, previous.small_blind_seat, previous.big_blind_seat, max_seats
        )
        if missed_bb or missed_sb:
            out.append((n, missed_sb, missed_bb))
    return out


def _build(
    max_seats: int,
    sb: int,
    bb: int,
    where: tuple[int, int | None, int],
    big: int,
    dealt: set[int],
    posts: Mapping[int, tuple[int, int]],
    missed: tuple[tuple[int, bool, bool], ...],
    *,
    fresh: bool,
) -> HandPlan:
    button, small, small_position = where
    order = tuple(position_order(dealt, button, max_seats))
    blinds, lives, deads, kinds = [], [], [], {}
    for n in order:
        live, dead = posts.get(n, (0, 0))
        blind = bb if n == big else sb if n == small else 0
        blinds.append(blind)
        lives.append(live)
        deads.append(dead)
        if blind or live:
            kinds[n] = BIG if n == big else SMALL if n == small else ENTRY
    return HandPlan(
        button=button,
        small_blind_seat=small,
        small_blind_position=small_position,
        big_blind_seat=big,
        order=order,
        blinds=tuple(blinds),
        live_posts=tuple(lives),
        dead_posts=tuple(deads),
        post_kinds=kinds,
        missed=missed,
        fresh=fresh,
    )
