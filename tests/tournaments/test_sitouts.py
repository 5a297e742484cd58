"""T-12: the report of players who sit out at the same time repeatedly."""

from __future__ import annotations

from tournaments.director.sitouts import SitOut, SitOutPair, repeated_sitouts


def test_t12_players_sitting_out_together_repeatedly_are_reported() -> None:
    """T-12: a and b sit out together three times (at two tables); c once; a short overlap no."""
    sitouts = []
    for k in range(3):
        base = 1000 * k
        sitouts += [SitOut("a", 1, base, base + 120), SitOut("b", 2, base + 10, base + 100)]
    sitouts += [SitOut("c", 1, 20, 90), SitOut("d", 3, 115, 140)]
    report = repeated_sitouts(sitouts, min_times=3)
    assert report == [SitOutPair(("a", "b"), 3)]
    assert repeated_sitouts(sitouts, min_times=1)[0] == SitOutPair(("a", "b"), 3)
    assert ("a", "d") not in {p.players for p in repeated_sitouts(sitouts, min_times=1)}
