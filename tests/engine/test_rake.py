"""Rake (C-11) in the engine: 5 % rounded down, the cap, no flop no drop, shares by contribution.

Every case checks an exact amount that a plausible wrong rake would miss: a rake that is
always the cap, one that rounds to nearest or up, one that ignores `rake_without_flop` in
either direction, or one that shares the rake equally or gives it to the winner.
"""

from __future__ import annotations

import pytest

from pokerroom.engine import Hand
from pokerroom.engine import events as ev
from tests.engine.conftest import make_hand

FIVE_PERCENT = {"rake_bps": 500, "rake_cap": 6}  # the cash default: 5 %, cap 3 BB at 1/2


def check_down(hand: Hand) -> None:
    """Check (or call) for whoever acts until the hand is over."""
    while not hand.is_over:
        hand.check_or_call(hand.actor)


def raised_pot(players: int, raise_to: int, sb_folds: bool = False, **config: object) -> Hand:
    """Blinds 1/2; the first to act raises to `raise_to`, the others call (the small blind
    folds if `sb_folds`), then everyone checks down. Heads-up the button posts the small
    blind and acts first (index 1); with three or more, index 0 is the small blind."""
    blinds = (2, 1) if players == 2 else (1, 2)
    small_blind = 1 if players == 2 else 0
    hand = make_hand((1_000,) * players, blinds=blinds, **config)
    hand.bet_or_raise(hand.actor, raise_to)
    while hand.street == 0 and not hand.is_over:
        if hand.actor == small_blind and sb_folds:
            hand.fold(hand.actor)
        else:
            hand.check_or_call(hand.actor)
    check_down(hand)
    return hand


def ended(hand: Hand) -> ev.HandEnded:
    """The hand's closing event."""
    last = hand.log[-1]
    assert type(last) is ev.HandEnded
    return last


def check_books(hand: Hand, rake: int) -> None:
    """The rake leaves the table: stacks, pot awards and per-player shares all agree on it."""
    end = ended(hand)
    assert end.rake == rake
    assert sum(end.stacks) == sum(hand.config.starting_stacks) - rake
    awards = [e for e in hand.log if type(e) is ev.PotAwarded]
    assert sum(a.rake for a in awards) == rake
    for award in awards:
        assert sum(amount for _, amount in award.shares) == award.amount - award.rake
    assert sum(end.rake_by_player) == rake and all(r >= 0 for r in end.rake_by_player)


@pytest.mark.parametrize(
    ("players", "raise_to", "sb_folds", "pot", "rake"),
    [
        (2, 10, False, 20, 1),  # 5 % of 20 is exactly 1
        (2, 19, False, 38, 1),  # 1.90 rounds down to 1, not to nearest 2
        (2, 25, False, 50, 2),  # 2.50 rounds down to 2, not half-up 3
        (2, 59, False, 118, 5),  # 5.90: 5, just below the cap of 6
        (3, 13, False, 39, 1),  # 1.95: 1
        (3, 15, True, 31, 1),  # 1.55, odd pot with a folded small blind: 1
        (3, 59, True, 119, 5),  # 5.95: 5, rounding up would reach the cap
        (4, 15, False, 60, 3),  # 3.00: 3
        (6, 13, True, 66, 3),  # 3.30: 3
    ],
)
def test_c11_rake_below_the_cap_is_five_percent_rounded_down(
    players: int, raise_to: int, sb_folds: bool, pot: int, rake: int
) -> None:
    """C-11: below the cap the rake is 5 % of the whole pot, rounded down to the cent."""
    hand = raised_pot(players, raise_to, sb_folds, **FIVE_PERCENT)
    assert hand.street == 3 and sum(hand.contrib) == pot
    check_books(hand, rake)


@pytest.mark.parametrize(
    ("players", "raise_to", "sb_folds", "pot"),
    [
        (2, 60, False, 120),  # heads-up, exactly 6
        (3, 40, False, 120),  # multiway, exactly 6
        (6, 24, True, 121),  # 6.05 rounds down to the cap itself
    ],
)
def test_c11_rake_exactly_at_the_cap(players: int, raise_to: int, sb_folds: bool, pot: int) -> None:
    """C-11: a pot whose 5 % is the cap pays the cap."""
    hand = raised_pot(players, raise_to, sb_folds, **FIVE_PERCENT)
    assert sum(hand.contrib) == pot
    check_books(hand, 6)


@pytest.mark.parametrize(
    ("players", "raise_to", "pot"),
    [
        (2, 70, 140),  # heads-up: 7 -> 6
        (3, 100, 300),  # multiway: 15 -> 6
        (6, 100, 600),  # six-way: 30 -> 6
    ],
)
def test_c11_rake_above_the_cap_is_the_cap(players: int, raise_to: int, pot: int) -> None:
    """C-11: however big the pot, the hand pays at most the cap."""
    hand = raised_pot(players, raise_to, **FIVE_PERCENT)
    assert sum(hand.contrib) == pot
    check_books(hand, 6)


def test_c11_cap_and_percentage_are_settings() -> None:
    """C-11: both are set per stake level: 10 % capped at 40 rakes a 300 pot 30, not 6 or 40."""
    hand = raised_pot(3, 100, rake_bps=1000, rake_cap=40)
    check_books(hand, 30)
    hand = raised_pot(3, 100, rake_bps=1000, rake_cap=25)
    check_books(hand, 25)


def test_c11_rake_shares_follow_each_players_contribution() -> None:
    """C-11: shares are in proportion to what each put in, rounded down, the rest by largest
    remainder: contributions 1/40/40 (pot 81, rake 4) share 0/2/2, not 2/1/1 or 0/4/0."""
    hand = raised_pot(3, 40, sb_folds=True, **FIVE_PERCENT)
    assert hand.contrib == [1, 40, 40]
    assert ended(hand).rake == 4 and ended(hand).rake_by_player == (0, 2, 2)


def test_c11_rake_shares_with_a_flop_bet_and_unequal_contributions() -> None:
    """C-11: four players put in 1/40/40/10 (pot 91, rake 4): shares 0/2/2/0 sum to the rake."""
    hand = make_hand((1_000,) * 4, **FIVE_PERCENT)
    hand.bet_or_raise(2, 10)
    hand.check_or_call(3)
    hand.fold(0)
    hand.check_or_call(1)
    assert hand.street == 1
    hand.bet_or_raise(1, 30)
    hand.check_or_call(2)
    hand.fold(3)
    check_down(hand)
    assert hand.contrib == [1, 40, 40, 10]
    end = ended(hand)
    assert end.rake == 4 and end.rake_by_player == (0, 2, 2, 0)
    assert sum(end.stacks) == 4_000 - 4


def test_c11_rake_with_a_side_pot_is_shared_across_pots_and_players() -> None:
    """C-11: one rake for the whole hand (230 at 5 % = 11 under a cap of 100), split over the
    main pot (90) and the side pot (140) as 4 + 7, and over contributions 30/100/100 as 1/5/5."""
    hand = make_hand((30, 1_000, 1_000), rake_bps=500, rake_cap=100)
    hand.bet_or_raise(2, 100)
    hand.check_or_call(0)  # all in for 30
    hand.check_or_call(1)
    check_down(hand)
    awards = [e for e in hand.log if type(e) is ev.PotAwarded]
    assert [(a.amount, a.rake) for a in awards] == [(90, 4), (140, 7)]
    end = ended(hand)
    assert end.rake == 11 and end.rake_by_player == (1, 5, 5)
    assert sum(end.stacks) == 2_030 - 11


def preflop_reraise_and_folds(players: int, **config: object) -> Hand:
    """A hand that ends before the flop with money in the pot: a raise to 30 is called, the
    big blind re-raises to 90 and everyone folds. The pot is 30 from each player still in."""
    blinds = (2, 1) if players == 2 else (1, 2)
    big_blind = 0 if players == 2 else 1
    hand = make_hand((1_000,) * players, blinds=blinds, **config)
    hand.bet_or_raise(hand.actor, 30)
    while hand.actor != big_blind:
        hand.check_or_call(hand.actor)
    hand.bet_or_raise(big_blind, 90)
    while not hand.is_over:
        hand.fold(hand.actor)
    assert hand.street == 0 and not any(type(e) is ev.BoardDealt for e in hand.log)
    return hand


@pytest.mark.parametrize(("players", "pot", "rake"), [(2, 60, 3), (3, 90, 4)])
def test_c11_no_flop_no_drop_by_default(players: int, pot: int, rake: int) -> None:
    """C-11: a hand that ends before the flop pays no rake, though its pot would pay some."""
    hand = preflop_reraise_and_folds(players, **FIVE_PERCENT)
    assert sum(hand.contrib) == pot
    end = ended(hand)
    assert end.rake == 0 and end.rake_by_player == (0,) * players
    assert sum(end.stacks) == 1_000 * players
    assert all(e.rake == 0 for e in hand.log if type(e) is ev.PotAwarded)


@pytest.mark.parametrize(
    ("players", "pot", "rake", "shares"), [(2, 60, 3, (2, 1)), (3, 90, 4, (2, 1, 1))]
)
def test_c11_rake_without_flop_switched_on_rakes_a_preflop_hand(
    players: int, pot: int, rake: int, shares: tuple[int, ...]
) -> None:
    """C-11 (setting): with `rake_without_flop` the same preflop hand pays 5 % of its pot."""
    hand = preflop_reraise_and_folds(players, rake_without_flop=True, **FIVE_PERCENT)
    assert sum(hand.contrib) == pot
    check_books(hand, rake)
    assert ended(hand).rake_by_player == shares


def test_c11_a_preflop_all_in_that_runs_the_board_is_raked() -> None:
    """C-11: the flop was dealt, so the hand did not end before it: 5 % of 100 is 5."""
    hand = make_hand((50, 50), blinds=(2, 1), **FIVE_PERCENT)
    hand.bet_or_raise(1, 50)
    hand.check_or_call(0)
    check_down(hand)
    assert hand.street == 3
    check_books(hand, 5)


def test_c11_a_hand_reaching_the_flop_is_raked_with_the_setting_off_or_on() -> None:
    """C-11: the setting only concerns hands that end before the flop: a bet on the flop that
    nobody calls still leaves a raked pot (3 x 30 = 90 -> 4) with the setting off or on."""
    for without_flop in (False, True):
        hand = make_hand((1_000,) * 3, rake_without_flop=without_flop, **FIVE_PERCENT)
        hand.bet_or_raise(2, 30)
        hand.check_or_call(0)
        hand.check_or_call(1)
        hand.bet_or_raise(0, 100)
        hand.fold(1)
        hand.fold(2)
        assert hand.street == 1
        check_books(hand, 4)
