"""Forced bets (C-2, C-4), showdown and ties (C-5), rake (C-11) and card rules (C-15)."""

from __future__ import annotations

import pytest

from pokerroom.engine import VARIANTS, EngineError, Hand, HandConfig
from pokerroom.engine import events as ev
from pokerroom.engine.evaluation import holdem_rank, omaha_rank
from tests.engine.conftest import make_hand


def test_entry_post_is_live_and_counts_toward_the_bet() -> None:
    """C-2: a new player's big-blind post is live: they may check when nobody raised."""
    hand = make_hand((200,) * 5, live_posts=(0, 0, 0, 2, 0))
    assert ev.BlindPosted(3, 2) in hand.log
    for player in (2, 3, 4, 0):
        if player == 3:
            assert hand.call_amount(3) == 0  # the live post already matches the big blind
        hand.check_or_call(player)
    assert hand.actor == 1  # the big blind still has the option
    hand.check_or_call(1)
    assert sum(hand.contrib) == 10


def test_missed_both_blinds_posts_live_bb_and_dead_sb() -> None:
    """C-4: live big blind + dead small blind; the dead part is in the pot, not the bet."""
    hand = make_hand((200,) * 5, live_posts=(0, 0, 0, 2, 0), dead_posts=(0, 0, 0, 1, 0))
    assert ev.DeadPosted(3, 1) in hand.log and ev.BlindPosted(3, 2) in hand.log
    assert hand.bets[3] == 2 and hand.contrib[3] == 3
    hand.check_or_call(2)
    assert hand.call_amount(3) == 0


def test_dead_post_goes_to_the_main_pot_even_when_its_poster_folds() -> None:
    """C-4: the dead small blind stays in the pot and goes to the winner."""
    hand = make_hand((200,) * 4, live_posts=(0, 0, 0, 2), dead_posts=(0, 0, 0, 1))
    hand.bet_or_raise(2, 10)
    hand.fold(3)
    hand.fold(0)
    hand.fold(1)
    # Seat 3 loses its live 2 and dead 1; seat 2 wins 1 + 2 + 2 + 1 uncontested.
    assert hand.stacks == [199, 198, 206, 197]


def test_dead_button_small_blind_missing_big_blind_opens_after() -> None:
    """A dead small blind: only a big blind at index 0; action starts at index 1."""
    hand = make_hand((200,) * 4, blinds=(0, 2))
    assert hand.actor == 2
    hand2 = make_hand((200,) * 4, blinds=(2,))
    assert hand2.actor == 1


def test_tied_pot_odd_chip_goes_left_of_button_one_unit_each() -> None:
    """C-5: three-way split of 11 gives 4, 4, 3 in order from the left of the button."""
    from pokerroom.engine.pots import split_evenly

    assert split_evenly(11, [0, 2, 4]) == {0: 4, 2: 4, 4: 3}
    # In a hand: both players play the board (a royal flush), pot 3 after the blinds... odd unit.
    cards = ["2c", "3d", "4c", "5d", "7h", "8s", "As", "Ks", "Qs", "Js", "Ts"]
    hand = make_hand((100, 100, 100), cards=cards, antes=(1, 1, 1))
    hand.check_or_call(2)
    hand.check_or_call(0)
    hand.check_or_call(1)
    while not hand.is_over:
        hand.check_or_call(hand.actor)
    award = next(e for e in hand.log if type(e) is ev.PotAwarded)
    assert award.amount == 9
    assert dict(award.shares) == {0: 3, 1: 3, 2: 3}


def test_odd_chip_with_two_winners_goes_to_the_first_left_of_button() -> None:
    """C-5: pot of 5 split between seats 1 and 2: seat 1 gets the odd chip."""
    cards = ["2c", "3d", "4c", "5d", "7h", "8s", "As", "Ks", "Qs", "Js", "Ts"]
    hand = make_hand((100, 100, 100), cards=cards, blinds=(1, 2))
    hand.check_or_call(2)
    hand.fold(0)
    while not hand.is_over:
        hand.check_or_call(hand.actor)
    award = next(e for e in hand.log if type(e) is ev.PotAwarded)
    assert dict(award.shares) == {1: 3, 2: 2}


def test_omaha_uses_exactly_two_hole_cards() -> None:
    """Four spades in hand and one on board is no flush in Omaha (two plus three)."""
    board = ("Ts", "9d", "2c", "3d", "4h")
    assert omaha_rank(("As", "Ks", "Qs", "Js"), board) > 6185  # high card, not a flush
    assert holdem_rank(("As", "Ks"), ("Qs", "Js", "Ts", "2d", "3c")) == 1  # royal flush


def test_showdown_loser_mucks_and_winner_shows() -> None:
    """The last aggressor shows first; a hand that cannot win is mucked."""
    cards = ["As", "Ah", "7c", "2d", "3h", "8s", "Ks", "Kd", "4c", "5d", "9h"]
    hand = make_hand((100, 100, 100), cards=cards)
    hand.check_or_call(2)
    hand.check_or_call(0)
    hand.check_or_call(1)
    hand.bet_or_raise(0, 10)
    hand.check_or_call(1)
    hand.fold(2)
    while not hand.is_over:
        hand.check_or_call(hand.actor)
    shown = [e.player for e in hand.log if type(e) is ev.HandShown]
    mucked = [e.player for e in hand.log if type(e) is ev.HandMucked]
    assert shown == [0] and mucked == [1]


def test_rake_is_capped_and_not_taken_without_a_flop() -> None:
    """C-11: 5 % with a cap, from the pot before the award; nothing if no flop was dealt."""
    rake = {"rake_bps": 500, "rake_cap": 6}
    hand = make_hand((200,) * 3, **rake)
    hand.bet_or_raise(2, 10)
    hand.fold(0)
    hand.fold(1)
    assert hand.log[-1].rake == 0
    hand = make_hand((200,) * 3, **rake)
    hand.bet_or_raise(2, 100)
    hand.check_or_call(0)
    hand.check_or_call(1)
    while not hand.is_over:
        hand.check_or_call(hand.actor)
    end = hand.log[-1]
    assert end.rake == 6  # 5 % of 300 is 15, capped at 6
    assert sum(end.rake_by_player) == 6 and end.rake_by_player == (2, 2, 2)
    assert sum(hand.stacks) == 600 - 6


def test_rake_without_flop_can_be_switched_on() -> None:
    """C-11: the no-flop-no-drop rule is a setting: the same preflop hand (a raise to 30
    called, a re-raise, two folds: pot 90) pays 10 % with it on and nothing with it off."""
    for without_flop, rake in ((True, 9), (False, 0)):
        hand = make_hand((200,) * 3, rake_bps=1000, rake_cap=100, rake_without_flop=without_flop)
        hand.bet_or_raise(2, 30)
        hand.check_or_call(0)
        hand.bet_or_raise(1, 90)
        hand.fold(2)
        hand.fold(0)
        assert hand.is_over and hand.street == 0 and sum(hand.contrib) == 90
        end = hand.log[-1]
        assert type(end) is ev.HandEnded and end.rake == rake
        assert sum(hand.stacks) == 600 - rake


def test_dealing_a_card_twice_or_a_bad_card_is_refused() -> None:
    """C-15: every card comes from one deck; a repeated or unknown card is refused."""
    config = HandConfig(VARIANTS["NT"], (100, 100), (2, 1), min_bet=2)
    hand = Hand(config)
    hand.deal_hole(0, ("As", "Ah"))
    with pytest.raises(EngineError) as info:
        hand.deal_hole(1, ("As", "Kd"))
    assert info.value.code == "card_already_dealt"
    with pytest.raises(EngineError) as info:
        hand.deal_hole(1, ("Zz", "Kd"))
    assert info.value.code == "bad_cards"
    with pytest.raises(EngineError) as info:
        hand.deal_hole(1, ("Kd",))
    assert info.value.code == "wrong_card_count"


@pytest.mark.parametrize(
    "fields",
    [
        {"starting_stacks": (100,)},
        {"starting_stacks": (100, -1)},
        {"starting_stacks": (100, 100), "blinds_or_straddles": (1,)},
        {"starting_stacks": (100, 100), "blinds_or_straddles": ()},
        {"starting_stacks": (100, 100), "antes": (1, True)},
        {"starting_stacks": (100, 100), "min_bet": 0},
    ],
)
def test_bad_configs_are_refused(fields: dict) -> None:
    """A hand with impossible terms is `bad_config`."""
    base = {"starting_stacks": (100, 100), "blinds_or_straddles": (1, 2), "min_bet": 2}
    with pytest.raises(EngineError) as info:
        HandConfig(VARIANTS["NT"], **(base | fields))
    assert info.value.code == "bad_config"
