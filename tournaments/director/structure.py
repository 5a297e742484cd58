"""Blind structure: levels, antes, breaks, action clock and time bank (T-11, T-12, C-6, C-7).

Everything here is a function of the structure, the tournament's start time, the seconds
the operator paused it (`paused_total`, a pause still running counted up to `now`) and
`now`. Times are seconds since the epoch (UTC), ints or floats; the actor passes its
reactor's `seconds()`. A new level applies from the next hand a table starts: the actor
asks `level_at` when it starts a hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from tournaments.director.errors import BAD_STRUCTURE, DirectorError

HOUR = 3600


class AnteKind(StrEnum):
    """How a level's ante is paid."""

    NONE = "none"
    CLASSIC = "classic"  # every player dealt in pays the ante
    BIG_BLIND = "big_blind"  # the big blind pays one ante for the whole table


class BreakMode(StrEnum):
    """When the breaks of T-11 fall."""

    NONE = "none"
    AFTER_LEVELS = "after_levels"  # a break after every `every_levels` levels
    CLOCK = "clock"  # a break at minute `minute_of_hour` of every hour, e.g. 5 to the hour


@dataclass(frozen=True, slots=True)
class Level:
    """One blind level: blinds and ante in chips, its length and its clock settings."""

    small_blind: int
    big_blind: int
    ante: int = 0
    seconds: int = 600
    action_seconds: int = 15  # C-6, per tournament stage
    timebank_add_seconds: int = 0  # C-7: seconds added to every bank when the level starts


@dataclass(frozen=True, slots=True)
class BreakSchedule:
    """The break schedule of T-11; `synchronized` breaks pause every table together."""

    mode: BreakMode = BreakMode.NONE
    seconds: int = 300
    every_levels: int = 6
    minute_of_hour: int = 55
    min_play_seconds: int = 1800  # CLOCK: no break before this much play
    synchronized: bool = True


@dataclass(frozen=True, slots=True)
class Structure:
    """A tournament's blind structure, break schedule and clocks."""

    name: str
    starting_stack: int
    levels: tuple[Level, ...]
    ante_kind: AnteKind = AnteKind.NONE
    breaks: BreakSchedule = field(default_factory=BreakSchedule)
    timebank_start_seconds: int = 30  # C-7
    timebank_max_seconds: int = 120
    disconnect_extra_seconds: int = 60  # T-12, once per level from the bubble

    def __post_init__(self) -> None:
        verify_structure(self)


@dataclass(frozen=True, slots=True)
class LevelStatus:
    """Where the clock stands at `now`: the level, its end, and the breaks around it."""

    index: int  # 0-based index into `structure.levels`
    level: Level
    seconds_into_level: float
    ends_at: float | None  # None for the last level, which lasts until the end
    on_break: bool
    break_ends_at: float | None  # set when on_break
    next_break_at: float | None  # the start of the next break after now (T-11 lobby)


def verify_structure(structure: Structure) -> None:
    """Raise `bad_structure` unless blinds rise, chips are positive ints and breaks make sense."""
    if not structure.levels:
        raise DirectorError(BAD_STRUCTURE, "a structure needs at least one level")
    if structure.starting_stack <= 0:
        raise DirectorError(BAD_STRUCTURE, "starting stack must be positive")
    previous = 0
    for number, level in enumerate(structure.levels, start=1):
        if not 0 < level.small_blind <= level.big_blind or level.ante < 0:
            raise DirectorError(BAD_STRUCTURE, f"level {number}: bad blinds or ante")
        if level.big_blind < previous:
            raise DirectorError(BAD_STRUCTURE, f"level {number}: big blind goes down")
        if level.seconds <= 0 or level.action_seconds <= 0 or level.timebank_add_seconds < 0:
            raise DirectorError(BAD_STRUCTURE, f"level {number}: bad durations")
        if structure.ante_kind is AnteKind.NONE and level.ante:
            raise DirectorError(BAD_STRUCTURE, f"level {number}: ante in a structure without")
        previous = level.big_blind
    breaks = structure.breaks
    if breaks.mode is not BreakMode.NONE and breaks.seconds <= 0:
        raise DirectorError(BAD_STRUCTURE, "breaks need a positive length")
    if breaks.mode is BreakMode.AFTER_LEVELS and breaks.every_levels <= 0:
        raise DirectorError(BAD_STRUCTURE, "every_levels must be positive")
    if breaks.mode is BreakMode.CLOCK and not (
        0 <= breaks.minute_of_hour < 60 and breaks.minute_of_hour * 60 + breaks.seconds <= HOUR
    ):
        raise DirectorError(BAD_STRUCTURE, "a clock break must fit inside its hour")


def level_at(
    structure: Structure, started_at: float, now: float, paused_total: float = 0
) -> LevelStatus:
    """The level in force at `now` for a tournament started at `started_at` (T-11)."""
    if structure.breaks.mode is BreakMode.CLOCK:
        return _clock_status(structure, started_at, now, paused_total)
    return _schedule_status(structure, started_at, now, paused_total)


def next_break(
    structure: Structure, started_at: float, now: float, paused_total: float = 0
) -> tuple[float, float] | None:
    """The (start, end) of the next break not yet begun at `now`, or None (T-11 lobby)."""
    status = level_at(structure, started_at, now, paused_total)
    if status.next_break_at is None:
        return None
    return status.next_break_at, status.next_break_at + structure.breaks.seconds


def seconds_to_next_break(
    structure: Structure, started_at: float, now: float, paused_total: float = 0
) -> float | None:
    """What the lobby shows: seconds until the next break, 0 during one, None if none (T-11)."""
    status = level_at(structure, started_at, now, paused_total)
    if status.on_break:
        return 0
    return None if status.next_break_at is None else status.next_break_at - now


def table_break_window(
    structure: Structure, break_start: float, break_end: float, hand_ended_at: float
) -> tuple[float, float]:
    """When one table rests for a break it reached at `hand_ended_at` (T-11).

    Synchronized: every table waits until the common end, so a table finishing its hand
    late rests less. Otherwise each table takes the full break from the end of its hand.
    """
    begins = max(break_start, hand_ended_at)
    if structure.breaks.synchronized:
        return begins, max(begins, break_end)
    return begins, begins + structure.breaks.seconds


def blinds_for_hand(level: Level, ante_kind: AnteKind, players_dealt: int) -> dict[str, int]:
    """Blinds and the total ante of one hand: a big-blind ante is one ante paid by the big blind."""
    if ante_kind is AnteKind.CLASSIC:
        antes = level.ante * players_dealt
    elif ante_kind is AnteKind.BIG_BLIND:
        antes = level.ante
    else:
        antes = 0
    return {"small_blind": level.small_blind, "big_blind": level.big_blind, "antes_total": antes}


def timebank_at_level_start(structure: Structure, bank_seconds: int, level: Level) -> int:
    """A player's time bank after the level's refill, capped at the structure's maximum (C-7)."""
    return min(structure.timebank_max_seconds, bank_seconds + level.timebank_add_seconds)


def disconnect_grace_seconds(
    structure: Structure, players_left: int, paid_places: int, used_this_level: bool
) -> int:
    """Extra seconds a disconnected player gets, once per level, from the bubble on (T-12)."""
    if used_this_level or players_left > paid_places + 1:
        return 0
    return structure.disconnect_extra_seconds


def _level_index(structure: Structure, play_seconds: float) -> tuple[int, float]:
    """The level reached after `play_seconds` of play, and the seconds spent in it."""
    elapsed = max(0.0, float(play_seconds))
    last = len(structure.levels) - 1
    for index, level in enumerate(structure.levels):
        if index == last or elapsed < level.seconds:
            return index, elapsed
        elapsed -= level.seconds
    raise AssertionError("unreachable")


def _schedule_status(
    structure: Structure, started_at: float, now: float, paused_total: float
) -> LevelStatus:
    """NONE and AFTER_LEVELS: levels and breaks follow one another on the tournament clock."""
    breaks = structure.breaks
    origin = started_at + paused_total
    elapsed = max(0.0, now - origin)
    cursor = 0.0
    last = len(structure.levels) - 1
    for index, level in enumerate(structure.levels):
        level_end = cursor + level.seconds
        has_break = (
            breaks.mode is BreakMode.AFTER_LEVELS
            and index < last
            and (index + 1) % breaks.every_levels == 0
        )
        if index == last or elapsed < level_end:
            nxt = _next_scheduled_break(structure, index, level_end)
            return LevelStatus(
                index=index,
                level=level,
                seconds_into_level=elapsed - cursor,
                ends_at=None if index == last else origin + level_end,
                on_break=False,
                break_ends_at=None,
                next_break_at=None if nxt is None else origin + nxt,
            )
        if has_break and elapsed < level_end + breaks.seconds:
            following = index + 1
            following_end = level_end + breaks.seconds + structure.levels[following].seconds
            nxt = _next_scheduled_break(structure, following, following_end)
            return LevelStatus(
                index=following,
                level=structure.levels[following],
                seconds_into_level=0.0,
                ends_at=None if following == last else origin + following_end,
                on_break=True,
                break_ends_at=origin + level_end + breaks.seconds,
                next_break_at=None if nxt is None else origin + nxt,
            )
        cursor = level_end + (breaks.seconds if has_break else 0)
    raise AssertionError("unreachable")


def _next_scheduled_break(structure: Structure, index: int, level_end: float) -> float | None:
    """Schedule-clock start of the first break after level `index` (which ends at `level_end`)."""
    breaks = structure.breaks
    if breaks.mode is not BreakMode.AFTER_LEVELS:
        return None
    cursor = level_end
    for later in range(index, len(structure.levels) - 1):
        if later > index:
            cursor += structure.levels[later].seconds
        if (later + 1) % breaks.every_levels == 0:
            return cursor
    return None


def _clock_breaks_from(structure: Structure, started_at: float, t: float) -> tuple[float, float]:
    """The first wall-clock break window that ends after `t` and is eligible to be taken."""
    breaks = structure.breaks
    earliest = started_at + breaks.min_play_seconds
    hour = math.floor(t / HOUR) * HOUR
    while True:
        start = hour + breaks.minute_of_hour * 60
        end = start + breaks.seconds
        if end > t and start >= earliest:
            return start, end
        hour += HOUR


def _clock_break_seconds(structure: Structure, started_at: float, now: float) -> float:
    """Seconds of wall-clock breaks between the start and `now`."""
    total = 0.0
    t = started_at
    while t < now:
        start, end = _clock_breaks_from(structure, started_at, t)
        if start >= now:
            break
        total += min(end, now) - max(start, t)
        t = end
    return total


def _clock_status(
    structure: Structure, started_at: float, now: float, paused_total: float
) -> LevelStatus:
    """CLOCK: breaks at fixed minutes of the hour; levels count only the play in between."""
    play = (now - started_at) - paused_total - _clock_break_seconds(structure, started_at, now)
    index, into = _level_index(structure, play)
    level = structure.levels[index]
    start, end = _clock_breaks_from(structure, started_at, max(now, started_at))
    on_break = start <= now < end
    next_at = _clock_breaks_from(structure, started_at, end)[0] if on_break else start
    ends_at: float | None = None
    if index < len(structure.levels) - 1:
        remaining = level.seconds - into
        t = end if on_break else now
        while True:
            b_start, b_end = _clock_breaks_from(structure, started_at, t)
            if t + remaining <= b_start:
                ends_at = t + remaining
                break
            remaining -= b_start - t
            t = b_end
    return LevelStatus(
        index=index,
        level=level,
        seconds_into_level=into,
        ends_at=ends_at,
        on_break=on_break,
        break_ends_at=end if on_break else None,
        next_break_at=next_at,
    )
