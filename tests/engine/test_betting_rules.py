"""Betting rules of the engine, one scenario each; every illegal action changes nothing."""

from __future__ import annotations

import copy

import pytest

from pokerroom.engine import EngineError, Phase
from pokerroom.engine import events as ev
from tests.engine.conftest import make_hand


def _state(hand: object) -> dict:
    """Everything that an illegal action must leave untouched."""
    keep = ("stacks", "bets", "contrib", "folded", "board", "actor", "current_bet", "phase")
    return {name: copy.deepcopy(getattr(hand, name)) for name in keep} | {
        "log": len(hand.log)  # type: ignore[attr-defined]
    }


def _refused(hand: object, code: str, action: str, *args: object) -> None:
    before = _state(hand)
    with pytest.raises(EngineError) as info:
        getattr(hand, action)(*args)
    assert info.value.code == code
    assert _state(hand) == before


def test_preflop_order_blinds_and_big_blind_option() -> None:
    """Six-handed: blinds from the first two seats, UTG acts first, the big blind has the option."""
    hand = make_hand((200,) * 6)
    assert [type(e) for e in hand.log[:2]] == [ev.BlindPosted, ev.BlindPosted]
    assert hand.actor == 2
    for player in (2, 3, 4, 5, 0):
        hand.check_or_call(player)
    assert hand.actor == 1  # the big blind may still raise
    assert hand.legal_actions(1).min_raise_to == 4
    hand.check_or_call(1)
    assert hand.street == 1 and hand.actor == 0  # first seat left of the button acts first


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after() -> None:
    """Heads-up: index 1 is the button on the small blind; it acts first only preflop."""
    hand = make_hand((100, 100), blinds=(2, 1))
    assert hand.actor == 1
    hand.check_or_call(1)
    hand.check_or_call(0)
    assert hand.street == 1 and hand.actor == 0


def test_out_of_turn_and_unknown_player_are_refused_without_change() -> None:
    """Acting out of turn or for a seat that does not exist changes nothing (P-1)."""
    hand = make_hand((200,) * 6)
    _refused(hand, "not_your_turn", "check_or_call", 4)
    _refused(hand, "unknown_player", "fold", 9)
    _refused(hand, "not_your_turn", "bet_or_raise", 0, 10)
    _refused(hand, "unknown_player", "check_or_call", -1)


def test_negative_player_is_refused_when_nobody_is_to_act() -> None:
    """Between betting rounds the actor is -1; a request for player -1 must not act for anyone."""
    hand = make_hand((100, 100, 100))
    hand.fold(2)
    hand.fold(0)
    assert hand.is_over
    _refused(hand, "hand_over", "check_or_call", -1)


@pytest.mark.parametrize("amount", [-5, 0, 3.5, True, "10", None])
def test_bad_amounts_are_refused_without_change(amount: object) -> None:
    """Negative, zero, fractional, boolean or non-number amounts are `invalid_amount`."""
    hand = make_hand((200,) * 3)
    _refused(hand, "invalid_amount", "bet_or_raise", 2, amount)


def test_minimum_raise_is_the_last_full_raise() -> None:
    """A full raise is at least the size of the last full bet or raise."""
    hand = make_hand((500,) * 4)
    _refused(hand, "below_min_raise", "bet_or_raise", 2, 3)
    hand.bet_or_raise(2, 6)  # a raise of 4
    _refused(hand, "below_min_raise", "bet_or_raise", 3, 9)
    hand.bet_or_raise(3, 20)  # a raise of 14
    assert hand.legal_actions(0).min_raise_to == 34


def test_short_all_in_does_not_reopen_betting_to_who_already_acted() -> None:
    """A short all-in raise lets the earlier bettor only call or fold."""
    hand = make_hand((500, 500, 15, 500), blinds=(1, 2))
    # Flop: everybody calls preflop, then seat 0 bets 10 and seat 2 goes all-in short.
    hand.check_or_call(2)
    hand.check_or_call(3)
    hand.check_or_call(0)
    hand.check_or_call(1)
    assert hand.street == 1
    hand.bet_or_raise(0, 10)
    hand.check_or_call(1)
    hand.bet_or_raise(2, 13)  # all-in, 3 more: short of a full raise of 10
    assert hand.legal_actions(3).min_raise_to == 23  # seat 3 has not acted: may raise
    hand.check_or_call(3)
    legal = hand.legal_actions(0)
    assert legal.call_amount == 3 and not legal.can_raise
    _refused(hand, "raise_not_reopened", "bet_or_raise", 0, 30)


def test_pot_limit_maximum_is_the_pot_after_calling() -> None:
    """Pot limit: the largest raise is to the current bet plus the pot after the call."""
    hand = make_hand((500,) * 4, variant="PO")
    assert hand.legal_actions(2).max_raise_to == 7  # 2 + (1 + 2 + 2)
    _refused(hand, "above_pot_limit", "bet_or_raise", 2, 8)
    hand.bet_or_raise(2, 7)
    assert hand.legal_actions(3).max_raise_to == 24  # 7 + (1 + 2 + 7 + 7)


def test_fixed_limit_sizes_and_cap_of_four_bets() -> None:
    """Fixed limit: raises of one small bet preflop, at most four bets and raises a street."""
    hand = make_hand((500,) * 6, variant="FT")
    _refused(hand, "not_fixed_limit_size", "bet_or_raise", 2, 5)
    for player, to in ((2, 4), (3, 6), (4, 8), (5, 10)):
        assert hand.legal_actions(player).min_raise_to == to
        hand.bet_or_raise(player, to)
    assert not hand.legal_actions(0).can_raise
    _refused(hand, "betting_capped", "bet_or_raise", 0, 12)


def test_uncalled_bet_is_returned() -> None:
    """The part of a bet nobody called goes back to the bettor before the pot is awarded."""
    hand = make_hand((100, 100, 100))
    hand.bet_or_raise(2, 50)
    hand.fold(0)
    hand.fold(1)
    returned = [e for e in hand.log if type(e) is ev.BetReturned]
    assert returned == [ev.BetReturned(2, 48)]
    assert hand.stacks == [99, 98, 103]
    assert hand.is_over


def test_fold_when_checking_is_free_is_refused() -> None:
    """Folding is only offered against a bet; the big blind with the option may not fold."""
    hand = make_hand((100, 100, 100))
    hand.check_or_call(2)
    hand.check_or_call(0)
    _refused(hand, "fold_not_needed", "fold", 1)


def test_actions_after_the_hand_are_hand_over() -> None:
    """Any action once the hand has ended is refused with `hand_over`."""
    hand = make_hand((100, 100, 100))
    hand.fold(2)
    hand.fold(0)
    assert hand.phase is Phase.OVER
    _refused(hand, "hand_over", "check_or_call", 1)


def test_cannot_raise_more_than_the_stack() -> None:
    """Table stakes (C-9): a bet above what is on the table is `insufficient_chips`."""
    hand = make_hand((100, 100, 100))
    _refused(hand, "insufficient_chips", "bet_or_raise", 2, 101)


def test_all_in_call_for_less_builds_a_side_pot() -> None:
    """A short stack calls all-in for less and can win only the main pot (C-9)."""
    cards = ["As", "Ah", "Ks", "Kh", "2c", "7d", "3c", "4d", "9s", "Jh", "Qc"]
    hand = make_hand((30, 200, 200), cards=cards)
    hand.bet_or_raise(2, 100)
    hand.check_or_call(0)  # all-in for 30 in total
    hand.check_or_call(1)
    while not hand.is_over:
        hand.check_or_call(hand.actor)
    awards = [e for e in hand.log if type(e) is ev.PotAwarded]
    assert [(a.amount, a.shares) for a in awards] == [(90, ((0, 90),)), (140, ((1, 140),))]
    assert hand.stacks == [90, 240, 100]


def test_all_in_preflop_shows_hands_then_runs_the_board() -> None:
    """With no more betting possible, hands are shown before the rest of the board."""
    cards = ["As", "Ah", "Ks", "Kh", "2c", "7d", "3c", "4d", "9s", "Jh", "Qc"]
    hand = make_hand((100, 100), blinds=(2, 1), cards=cards)
    hand.bet_or_raise(1, 100)
    hand.check_or_call(0)
    kinds = [type(e) for e in hand.log]
    assert kinds.index(ev.HandShown) < kinds.index(ev.BoardDealt)
    assert hand.stacks == [200, 0]
