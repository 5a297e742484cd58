"""Watchers (docs/design/cluster.md, "Tables that move"): which of a node's players to bring
back to a table whose owner changed — pure, no bus."""

from __future__ import annotations

from pokerroom.cluster.watchers import Watchers

HERE = {"o", "p"}


def watchers() -> Watchers:
    return Watchers(lambda player: player in HERE)


def test_a_new_owner_or_epoch_brings_back_the_players_here_missing_from_its_audience() -> None:
    """Same owner and epoch: nobody; a new epoch of the same node (it lost and took the table
    again: a line tells its epoch too) or another node: those of this node's players who had it
    open and are not in the new audience; never a player of another node."""
    w = watchers()
    assert w.seen("t", ("a", 1), {"o", "p", "x"}) == []
    assert w.seen("t", ("a", None), {"o", "p", "x"}) == []  # an old node's line: no epoch
    assert w.seen("t", ("a", 2), {"p"}) == ["o"]
    assert w.seen("t", ("b", 3), set()) == ["o", "p"]
    assert w.rewatched == 3


def test_a_player_who_closed_the_table_before_the_move_is_not_brought_back() -> None:
    w = watchers()
    w.seen("t", ("a", 1), {"o", "p"})
    w.seen("t", ("a", 1), {"o"})  # p unobserved
    assert w.seen("t", ("b", 2), set()) == ["o"]


def test_a_table_that_left_this_node_brings_back_at_the_first_owner_heard() -> None:
    """left: the actor's audience (this node's players only); the first line or event of any
    owner is a new one. taken: the players who had it open here, from what the last owner told
    and what was remembered."""
    w = watchers()
    w.left("t", {"o", "x"})
    assert w.seen("t", ("a", 5), {"x"}) == ["o"]
    w.seen("u", ("a", 1), {"p", "x"})
    assert w.taken("u", {"p", "x"}) == ["p"]
    assert "u" not in w.remembered
