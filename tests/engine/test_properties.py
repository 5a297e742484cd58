"""Hypothesis properties: chips are conserved, legal action sets are exact, pots add up (C-5)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.engine import EngineError
from pokerroom.engine import events as ev
from pokerroom.engine.pots import apportion, build_pots, split_evenly
from tests.engine.conftest import make_hand

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


@PROPERTY_SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 500), st.booleans()), min_size=2, max_size=9),
    st.integers(0, 50),
)
def test_side_pots_add_up_and_nest(players: list[tuple[int, bool]], dead: int) -> None:
    """Pots sum to everything put in; each pot's players are live and nested (C-5, C-9)."""
    contributions = [c for c, _ in players]
    live = [alive for _, alive in players]
    if not any(alive and c for c, alive in players):
        live[0] = True
        contributions[0] = max(contributions) or 1
    pots = build_pots(contributions, live, dead)
    assert sum(p.amount for p in pots) == sum(contributions) + dead
    for earlier, later in itertools.pairwise(pots):
        assert set(later.eligible) < set(earlier.eligible)
    for pot in pots:
        assert all(live[i] for i in pot.eligible)


@PROPERTY_SETTINGS
@given(st.integers(0, 10_000), st.lists(st.integers(0, 9), min_size=1, max_size=9, unique=True))
def test_odd_chips_go_one_each_from_the_left_of_the_button(amount: int, winners: list) -> None:
    """C-5: equal shares; the odd units go one each to the first winners in order."""
    shares = split_evenly(amount, winners)
    assert sum(shares.values()) == amount
    values = [shares[w] for w in winners]
    assert max(values) - min(values) <= 1
    assert values == sorted(values, reverse=True)


@PROPERTY_SETTINGS
@given(st.integers(0, 10_000), st.lists(st.integers(0, 1_000), min_size=1, max_size=9))
def test_apportioned_parts_sum_to_the_whole(total: int, weights: list[int]) -> None:
    """Rake per contribution (C-11): parts sum to the whole and stay within one unit."""
    parts = apportion(total, weights)
    if sum(weights) == 0:
        assert parts == [0] * len(weights)
        return
    assert sum(parts) == total
    for part, weight in zip(parts, weights, strict=True):
        assert abs(part - total * weight / sum(weights)) < 1


def _check_legal_set_is_exact(hand: object) -> None:
    """The offered actions are accepted and everything just outside them is refused."""
    player = hand.actor
    legal = hand.legal_actions(player)
    bet, stack, current = hand.bets[player], hand.stacks[player], hand.current_bet
    assert legal.call_amount == min(max(current - bet, 0), stack)
    assert legal.can_fold == (bet < current)
    for other in range(hand.n):
        if other != player:
            assert hand.legal_actions(other) is None
            assert not hand.can_check_or_call(other)
    if legal.can_raise:
        low, high = legal.min_raise_to, legal.max_raise_to
        assert current < low <= high <= bet + stack
        assert hand.can_bet_or_raise(player, low) and hand.can_bet_or_raise(player, high)
        assert not hand.can_bet_or_raise(player, high + 1)
        if low - 1 > current:
            assert not hand.can_bet_or_raise(player, low - 1)
    else:
        try:
            hand.verify_bet_or_raise(player, bet + stack)
        except EngineError:
            pass
        else:  # pragma: no cover - a raise the legal set did not offer
            raise AssertionError("a raise was accepted that the legal set did not offer")


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    st.sampled_from(["NT", "PO", "FT"]),
    st.lists(st.integers(1, 300), min_size=2, max_size=9),
    st.data(),
)
def test_random_play_conserves_chips_and_offers_exact_legal_sets(
    variant: str, stacks: list[int], data: st.DataObject
) -> None:
    """Whatever legal actions are chosen, chips are conserved and legal sets are exact."""
    blinds = (2, 1) if len(stacks) == 2 else (1, 2)
    hand = make_hand(tuple(stacks), blinds=blinds, variant=variant)
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 200
        _check_legal_set_is_exact(hand)
        player = hand.actor
        legal = hand.legal_actions(player)
        choices = (
            ["call"] + (["fold"] if legal.can_fold else []) + (["raise"] if legal.can_raise else [])
        )
        choice = data.draw(st.sampled_from(choices))
        if choice == "fold":
            hand.fold(player)
        elif choice == "raise":
            hand.bet_or_raise(
                player, data.draw(st.integers(legal.min_raise_to, legal.max_raise_to))
            )
        else:
            hand.check_or_call(player)
        if not hand.is_over:
            assert sum(hand.stacks) + sum(hand.contrib) == sum(stacks)
        assert all(s >= 0 for s in hand.stacks)
    assert sum(hand.stacks) == sum(stacks)
    end = hand.log[-1]
    assert type(end) is ev.HandEnded and list(end.stacks) == hand.stacks
    awarded = sum(e.amount for e in hand.log if type(e) is ev.PotAwarded)
    assert awarded == sum(hand.contrib)  # every chip left in the pot was awarded
