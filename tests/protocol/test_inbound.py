"""The inbound budget (`pokerroom.protocol.inbound`, docs/SECURITY.md "Inbound flood"): two
token buckets, frames and bytes per second with a burst, a shortest pause, and the count of
pauses that makes a sustained flood. Pure: times are plain floats."""

from __future__ import annotations

from typing import Any

import pytest

from pokerroom.protocol.connection import SessionSettings
from pokerroom.protocol.inbound import InboundBudget, TokenBucket
from pokerroom.server.settings import SettingsError, load_settings, parse_settings

T0 = 1_800_000_000.0


def budget(**kw: Any) -> InboundBudget:
    """A budget of 10 frames/s (burst 20) and 1,000 bytes/s (burst 4,000), pause 1 s, 3 pauses
    in 60 s; `kw` overrides."""
    values: dict[str, Any] = {
        "frames_per_second": 10,
        "frames_burst": 20,
        "bytes_per_second": 1000,
        "bytes_burst": 4000,
        "pause_seconds": 1.0,
        "pauses_max": 3,
        "window_seconds": 60.0,
    }
    values.update(kw)
    return InboundBudget(T0, **values)


def test_a_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    """Tokens come back at `rate` a second and never pile up past `burst` (a client idle for
    an hour gets one burst, not an hour's worth)."""
    bucket = TokenBucket(rate=4, burst=8, tokens=8, stamp=T0)
    assert bucket.charge(8, T0) == 0.0  # the whole burst at once
    assert bucket.charge(1, T0) == 0.25  # one frame of debt: 0.25 s at 4/s
    assert bucket.charge(0, T0 + 0.125) == 0.125  # half repaid
    assert bucket.charge(0, T0 + 0.25) == 0.0  # repaid
    assert bucket.charge(8, T0 + 3600) == 0.0
    assert bucket.charge(1, T0 + 3600) == 0.25  # an hour idle: still one burst


def test_a_read_past_either_bucket_waits_for_the_larger_debt_and_at_least_the_pause() -> None:
    """Frames and bytes are charged together; the wait is the longer repayment, and never
    shorter than `pause_seconds`."""
    b = budget()
    assert b.charge(20, 4000, T0) == 0.0  # both bursts exactly
    assert b.charge(1, 0, T0) == 1.0  # 0.1 s of frame debt: the shortest pause
    b = budget()
    assert b.charge(60, 100, T0) == pytest.approx(4.0)  # 40 frames of debt at 10/s
    b = budget()
    assert b.charge(1, 10_000, T0) == pytest.approx(6.0)  # 6,000 bytes of debt at 1,000/s


def test_a_rate_of_zero_turns_that_bucket_off() -> None:
    """0 frames a second: only bytes count (and the other way round); both 0: no budget."""
    assert budget(frames_per_second=0).charge(10_000, 100, T0) == 0.0
    assert budget(bytes_per_second=0).charge(1, 10**9, T0) == 0.0
    assert budget(frames_per_second=0).charge(1, 5000, T0) == 1.0
    assert budget(frames_per_second=0, bytes_per_second=0).charge(10**6, 10**9, T0) == 0.0


def test_pauses_make_a_flood_only_within_the_window() -> None:
    """`pauses_max` pauses within `window_seconds` is a flood; pauses further apart are not
    (the window slides: old pauses are forgotten), and 0 never calls anything a flood."""
    b = budget(pauses_max=3, window_seconds=10)
    assert [b.paused(T0 + t) for t in (0, 11, 22, 33, 44)] == [False] * 5
    b = budget(pauses_max=3, window_seconds=10)
    assert [b.paused(T0 + t) for t in (0, 4, 8)] == [False, False, True]
    b = budget(pauses_max=3, window_seconds=10)
    assert [b.paused(T0 + t) for t in (0, 5, 10, 14)] == [False, False, False, True]
    b = budget(pauses_max=0)
    assert not any(b.paused(T0 + t) for t in range(100))


def test_the_room_defaults_leave_room_for_a_busy_player() -> None:
    """config/room.toml and the dataclass agree, and the defaults hold a busy player's
    second with room to spare: acting at eight tables eight times a second, a ping and a
    200-character chat line (about 70 frames of 250 bytes at most)."""
    settings = load_settings().session
    assert settings == SessionSettings()
    b = settings.inbound_budget(T0)
    for second in range(600):
        now = T0 + second
        assert b.charge(64, 64 * 90, now) == 0.0  # the acts
        assert b.charge(1, 40, now + 0.5) == 0.0  # ping
        assert b.charge(1, 260, now + 0.6) == 0.0  # a chat line


@pytest.mark.parametrize(
    "values",
    [
        {"inbound_frames_per_second": -1},
        {"inbound_bytes_per_second": -5},
        {"inbound_pause_seconds": -1},
        {"inbound_pauses_max": -1},
        {"inbound_frames_burst": 0},
        {"inbound_bytes_burst": 1000},  # less than one 64 KiB frame
    ],
)
def test_bad_inbound_settings_stop_the_server_with_the_section_named(
    values: dict[str, Any],
) -> None:
    """A negative rate or a burst smaller than one frame is a settings error naming [session],
    not a Python traceback at start-up."""
    with pytest.raises(SettingsError, match=r"\[session\]"):
        parse_settings({"session": values})
