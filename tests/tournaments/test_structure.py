"""Levels, breaks and clocks of the blind structure (T-11, T-12, C-6, C-7) and the templates."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director.errors import BAD_STRUCTURE, DirectorError
from tournaments.director.structure import (
    AnteKind,
    BreakMode,
    BreakSchedule,
    Level,
    Structure,
    blinds_for_hand,
    disconnect_grace_seconds,
    level_at,
    next_break,
    seconds_to_next_break,
    table_break_window,
    timebank_at_level_start,
)
from tournaments.templates import load_structures, structure_from_mapping

T0 = 1_800_000_000 - 1_800_000_000 % 3600  # an exact hour, UTC


def ladder(n: int = 6, minutes: int = 10) -> tuple[Level, ...]:
    """`n` rising levels of `minutes` each."""
    return tuple(Level(10 * (i + 1), 20 * (i + 1), 0, minutes * 60) for i in range(n))


def test_levels_follow_one_another_and_the_last_lasts() -> None:
    """Level k starts after the first k levels' durations; the last level never ends."""
    s = Structure("t", 1000, ladder(3))
    assert level_at(s, T0, T0).index == 0
    status = level_at(s, T0, T0 + 601)
    assert (status.index, status.seconds_into_level, status.ends_at) == (1, 1, T0 + 1200)
    assert level_at(s, T0, T0 + 10_000).index == 2
    assert level_at(s, T0, T0 + 10_000).ends_at is None


def test_operator_pause_holds_the_level_clock() -> None:
    """T-1: time the operator paused (delay) is not counted toward the level."""
    s = Structure("t", 1000, ladder(3))
    assert level_at(s, T0, T0 + 700, paused_total=200).index == 0
    assert level_at(s, T0, T0 + 700, paused_total=200).ends_at == T0 + 800


def test_t11_break_after_every_n_levels() -> None:
    """T-11: a break after every 2 levels; levels stand still during it; the lobby sees it."""
    breaks = BreakSchedule(BreakMode.AFTER_LEVELS, seconds=300, every_levels=2)
    s = Structure("t", 1000, ladder(5), breaks=breaks)
    assert next_break(s, T0, T0) == (T0 + 1200, T0 + 1500)
    assert seconds_to_next_break(s, T0, T0 + 100) == 1100
    during = level_at(s, T0, T0 + 1300)
    assert during.on_break and during.break_ends_at == T0 + 1500 and during.index == 2
    assert seconds_to_next_break(s, T0, T0 + 1300) == 0
    after = level_at(s, T0, T0 + 1501)
    assert (after.index, after.on_break, after.ends_at) == (2, False, T0 + 2100)
    assert after.next_break_at == T0 + 2700


def test_t11_clock_breaks_five_to_the_hour() -> None:
    """T-11: synchronized breaks at hh:55 for 5 minutes; the level clock skips them."""
    breaks = BreakSchedule(BreakMode.CLOCK, seconds=300, minute_of_hour=55, min_play_seconds=1800)
    s = Structure("t", 1000, ladder(12), breaks=breaks)
    assert next_break(s, T0, T0) == (T0 + 3300, T0 + 3600)
    on = level_at(s, T0, T0 + 3400)
    assert on.on_break and on.break_ends_at == T0 + 3600 and on.index == 5
    back = level_at(s, T0, T0 + 3600)
    assert (back.index, back.seconds_into_level, back.on_break) == (5, 300, False)
    assert back.ends_at == T0 + 3900 and back.next_break_at == T0 + 3600 + 3300
    # a level that runs into the break ends after it, with its remaining play
    assert level_at(s, T0, T0 + 3200).ends_at == T0 + 3600 + 300


def test_t11_clock_break_skipped_right_after_the_start() -> None:
    """T-11: a tournament started at hh:40 plays through hh:55 (less than 30 min of play)."""
    breaks = BreakSchedule(BreakMode.CLOCK, seconds=300, minute_of_hour=55, min_play_seconds=1800)
    s = Structure("t", 1000, ladder(12), breaks=breaks)
    start = T0 + 2400
    assert next_break(s, start, start) == (T0 + 3600 + 3300, T0 + 7200)
    assert not level_at(s, start, T0 + 3400).on_break


def test_t11_synchronized_break_waits_for_every_table() -> None:
    """T-11: a table finishing its hand late still resumes with the others."""
    sync = Structure("t", 1000, ladder(), breaks=BreakSchedule(BreakMode.AFTER_LEVELS))
    assert table_break_window(sync, 100, 400, 130) == (130, 400)
    alone = Structure(
        "t", 1000, ladder(), breaks=BreakSchedule(BreakMode.AFTER_LEVELS, synchronized=False)
    )
    assert table_break_window(alone, 100, 400, 130) == (130, 430)


def test_big_blind_ante_is_one_ante_for_the_table() -> None:
    """A big-blind ante is paid once, by the big blind; a classic ante by everyone dealt."""
    level = Level(100, 200, 200)
    assert blinds_for_hand(level, AnteKind.BIG_BLIND, 9)["antes_total"] == 200
    assert blinds_for_hand(level, AnteKind.CLASSIC, 9)["antes_total"] == 1800
    assert blinds_for_hand(Level(1, 2), AnteKind.NONE, 9)["antes_total"] == 0


def test_c6_c7_action_clock_and_bank_per_level() -> None:
    """C-6/C-7: each level has its action clock; the bank refills per level up to a cap."""
    s = Structure("t", 1000, (Level(1, 2, action_seconds=20, timebank_add_seconds=15),))
    assert level_at(s, T0, T0).level.action_seconds == 20
    assert timebank_at_level_start(s, 30, s.levels[0]) == 45
    assert timebank_at_level_start(s, 115, s.levels[0]) == s.timebank_max_seconds


def test_t12_disconnect_grace_from_the_bubble_once_per_level() -> None:
    """T-12: 60 extra seconds once per level from the bubble on; none before or twice."""
    s = Structure("t", 1000, ladder())
    assert disconnect_grace_seconds(s, players_left=30, paid_places=20, used_this_level=False) == 0
    assert disconnect_grace_seconds(s, 21, 20, used_this_level=False) == 60
    assert disconnect_grace_seconds(s, 15, 20, used_this_level=True) == 0


@pytest.mark.parametrize(
    "levels",
    [(), (Level(20, 10),), (Level(10, 20), Level(5, 10)), (Level(10, 20, 0, 0),)],
)
def test_bad_structures_are_refused(levels: tuple[Level, ...]) -> None:
    """No levels, a small blind above the big, falling blinds or zero length: bad_structure."""
    with pytest.raises(DirectorError) as caught:
        Structure("t", 1000, levels)
    assert caught.value.code == BAD_STRUCTURE


def test_templates_turbo_regular_deep_load() -> None:
    """config/tournaments holds turbo, regular and deep; chips are ints; breaks scheduled."""
    found = load_structures()
    assert {"turbo", "regular", "deep"} <= set(found)
    assert found["turbo"].levels[0].seconds < found["regular"].levels[0].seconds
    assert found["deep"].starting_stack > found["regular"].starting_stack
    for s in found.values():
        assert s.breaks.mode is not BreakMode.NONE and s.ante_kind is AnteKind.BIG_BLIND


def test_template_level_overrides_and_errors() -> None:
    """A level may override its minutes and clock; an unknown key is bad_structure."""
    s = structure_from_mapping(
        {"name": "x", "starting_stack": 100, "levels": [[1, 2], {"sb": 2, "bb": 4, "minutes": 3}]}
    )
    assert s.levels[1].seconds == 180 and s.levels[0].seconds == 600
    with pytest.raises(DirectorError):
        structure_from_mapping({"name": "x", "starting_stack": 100, "levels": [{"sb": 1, "x": 2}]})


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    minutes=st.lists(st.integers(1, 20), min_size=1, max_size=12),
    mode=st.sampled_from(list(BreakMode)),
    start=st.integers(0, 7200),
    times=st.lists(st.integers(0, 30_000), min_size=2, max_size=6),
)
def test_t11_property_levels_only_go_up_and_end_when_they_say(
    minutes: list[int], mode: BreakMode, start: int, times: list[int]
) -> None:
    """T-11: the level never goes back; at `ends_at` the next level begins, not before."""
    levels = tuple(Level(10 * (i + 1), 20 * (i + 1), 0, m * 60) for i, m in enumerate(minutes))
    breaks = BreakSchedule(mode, seconds=300, every_levels=2, min_play_seconds=600)
    s = Structure("p", 1000, levels, breaks=breaks)
    began = T0 + start
    previous = -1
    for t in sorted(times):
        status = level_at(s, began, began + t)
        assert status.index >= previous
        previous = status.index
        if status.ends_at is not None and not status.on_break:
            assert status.ends_at > began + t - 1e-9
            assert level_at(s, began, status.ends_at).index == status.index + 1
            assert level_at(s, began, status.ends_at - 0.5).index == status.index
        if status.next_break_at is not None:
            assert status.next_break_at >= began + t or status.on_break
