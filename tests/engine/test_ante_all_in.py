"""A player all in for the ante alone can still win the pot their ante reached (T-9, C-9).

Classic (per-player) antes are live money: each player's ante counts as their contribution when
main and side pots are built, so a player whose whole stack went in as the ante is eligible for a
main pot of one ante from every player. A big-blind ante stays dead money (one player pays for the
table) and joins the main pot.
"""

from __future__ import annotations

from pokerroom.engine.events import PotAwarded

from .conftest import make_hand

# Dealing order: player 0's two cards, player 1's, player 2's, then the board.
AA_VS_KK_VS_QQ = ["As", "Ah", "Kd", "Kc", "Qs", "Qh", "2c", "7d", "9h", "Js", "3c"]


def awards(hand) -> dict[int, int]:
    won: dict[int, int] = {}
    for event in hand.log:
        if isinstance(event, PotAwarded):
            for player, amount in event.shares:
                won[player] = won.get(player, 0) + amount
    return won


def play_to_showdown(hand) -> None:
    while hand.actor is not None and hand.actor >= 0:
        if hand.can_check_or_call(hand.actor):
            hand.check_or_call(hand.actor)
        else:
            break


def test_player_all_in_for_the_ante_wins_the_antes_with_the_best_hand():
    """Player 0 has 1 chip, posts it as the ante, holds aces: wins 1 chip from each player."""
    hand = make_hand(
        (1, 100, 100), blinds=(0, 10, 20), cards=AA_VS_KK_VS_QQ, antes=(5, 5, 5),
        ante_trimming=True,
    )  # fmt: skip
    play_to_showdown(hand)
    won = awards(hand)
    assert won.get(0) == 3  # one chip of ante from each of the three players
    assert sum(won.values()) == 1 + 5 + 5 + 20 + 20  # every chip put in is awarded
    assert hand.stacks[0] == 3


def test_dead_antes_would_leave_the_all_in_player_with_nothing():
    """The same hand with antes as dead money: the all-in player is eligible for no pot.

    This is why tournament tables with classic antes deal them as live money.
    """
    hand = make_hand((1, 100, 100), blinds=(0, 10, 20), cards=AA_VS_KK_VS_QQ, antes=(5, 5, 5))
    play_to_showdown(hand)
    assert awards(hand).get(0, 0) == 0


def test_tournament_tables_deal_classic_antes_live_and_big_blind_antes_dead():
    """A tournament table configures each hand so the rule above holds (T-9 eliminations)."""
    import random

    from twisted.internet.task import Clock

    from tournaments.director.structure import AnteKind, Level, Structure
    from tournaments.tables.table import TournamentTable
    from tournaments.tables.timebank import TimeBanks

    level = Level(10, 20, 5, seconds=600, action_seconds=10, timebank_add_seconds=5)
    structure = Structure(
        "t", 1000, (level,), AnteKind.CLASSIC, timebank_start_seconds=30, timebank_max_seconds=60
    )

    class Quiet:
        def turn(self, table, entry):
            pass

        def hand_ended(self, table, result):
            pass

    for kind, live in ((AnteKind.CLASSIC, True), (AnteKind.BIG_BLIND, False)):
        table = TournamentTable("T", 1, 9, Clock(), Quiet(), random.Random(1), TimeBanks(structure))
        for seat, entry in {1: "a", 2: "b", 3: "c"}.items():
            table.seat(entry, seat, 1000)
        table.redraw(1)
        table.start_hand(level, 0, kind)
        assert table.hand is not None
        assert table.hand.config.ante_trimming is live
