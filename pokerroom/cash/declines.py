"""Hit-and-run (C-8) and ratholing (C-10): pure decisions that take `now`."""

from __future__ import annotations

#: C-8: the block, in minutes, after the n-th decline inside the window (1st: none).
BLOCK_MINUTES = (0, 5, 15, 30, 60)
#: C-8: declines are counted over any rolling 12-hour window.
DECLINE_WINDOW_SECONDS = 12 * 3600


def decline_block_minutes(n: int) -> int:
    """Minutes blocked after the n-th decline in the window (n >= 1)."""
    if n < 1:
        return 0
    return BLOCK_MINUTES[min(n, len(BLOCK_MINUTES)) - 1]


def is_decline(
    hands_played: int,
    decline_hands: int,
    others_seated: int,
    others_sitting_out: int,
) -> bool:
    """Whether leaving now declines to play (C-8).

    A decline needs at least one hand played and fewer than `decline_hands`. Leaving is
    not a decline when the leaver is the only player seated, or when every other player
    at the table is sitting out.
    """
    if hands_played < 1 or hands_played >= decline_hands:
        return False
    return not (others_seated == 0 or others_sitting_out == others_seated)


def block_until(now: float, declines_in_window: int) -> float | None:
    """When the block for the latest decline ends, or None when there is no block."""
    minutes = decline_block_minutes(declines_in_window)
    return now + minutes * 60 if minutes else None


def rathole_minimum(
    min_buy_in: int,
    max_buy_in: int,
    left_with: int | None,
    left_at: float | None,
    now: float,
    rathole_minutes: float,
) -> int:
    """The smallest buy-in allowed (C-10): what the player left with, if recent, up to the max."""
    if left_with is None or left_at is None or now - left_at >= rathole_minutes * 60:
        return min_buy_in
    return max(min_buy_in, min(left_with, max_buy_in))


def missed_blinds_remembered(left_at: float | None, now: float, memory_minutes: float) -> bool:
    """Whether a missed-blind debt recorded on leaving still applies on return (C-4)."""
    return left_at is not None and now - left_at < memory_minutes * 60
