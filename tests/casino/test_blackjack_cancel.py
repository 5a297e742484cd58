"""BJ-18 and BJ-19: a cancelled blackjack round, `void` (every stake back) and `partial` (hand by
hand), through the state machine and from the round's recorded progress (the crash path).

Each case names the wrong reading of BJ-19 it catches."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.casino import money
from pokerroom.casino.core import blackjack
from pokerroom.casino.core.blackjack import BlackjackRound
from pokerroom.casino.core.blackjack_settle import cancel_recorded
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.core.results import Bet
from pokerroom.casino.games import Settled
from tests.casino.conftest import table

SPARE = "2c 2c 2c 2c 2c 2c"


def rules(**changes) -> blackjack.BlackjackRules:
    return blackjack.rules_from(
        table("blackjack", limits={"default": [1, 10**9]}, **{"cancel_mode": "partial", **changes})
    )


def one(order: str, stake: int = 100, **changes) -> BlackjackRound:
    """ann on box 1; the shoe in deal order: box, dealer up, box, hole (peek), then draws."""
    return BlackjackRound(rules(**changes), [Bet("ann", "box:1", stake)], Shoe(cards(order)))


def two(order: str, **changes) -> BlackjackRound:
    """ann on box 1, bob on box 2: ann 1st, bob 1st, dealer up, ann 2nd, bob 2nd, hole, draws."""
    bets = [Bet("ann", "box:1", 100), Bet("bob", "box:2", 100)]
    return BlackjackRound(rules(**changes), bets, Shoe(cards(f"{order} {SPARE}")))


def cancelled(game: BlackjackRound, max_win: int | None = None) -> dict[str, int]:
    """The nets of the cancelled round; the record's cancellation must agree (the crash path)."""
    record = json.loads(json.dumps(game.progress()))
    done = game.cancel(max_win)
    assert cancel_recorded(record, max_win) == done
    return {line.spot: line.net for line in done.lines}


def test_void_mode_returns_every_stake_even_a_three_card_hand() -> None:  # BJ-18
    # wrong: applying BJ-19 whatever the mode
    game = one(f"5s 9c 4d 7h 8h {SPARE}", cancel_mode="void")
    game.hit(1)  # 5 4 8: three cards, 17
    assert game.cancel().player("ann").net == 0


def test_two_card_hand_is_refunded_not_settled() -> None:  # BJ-19 [unsourced]
    # wrong: "not busted counts as a win" for every hand, or settling it against the dealer
    game = two("Ts 9s 6c 9d Th 7h")  # ann 19, bob 19 against a 6 up
    assert cancelled(game) == {"box:1": 0, "box:2": 0}


def test_three_card_hand_wins_even_below_the_dealer() -> None:  # BJ-19
    # wrong: comparing the hand with the dealer; the round is over here, the dealer holds 20
    game = one(f"5s Tc 4d Th 8h {SPARE}")
    game.hit(1)  # 5 4 8 = 17
    game.stand(1)
    assert game.phase == "over" and game.settle().player("ann").net == -100
    assert cancelled(game) == {"box:1": 100}


def test_double_counts_as_a_win_on_both_stakes() -> None:  # BJ-19, BJ-10
    # wrong: paying the win on the original stake only
    game = two("5s Ts 9c 6d 8h Th 2d")  # ann 5 6 doubles; bob (T 8) still to act
    game.double(1)  # 5 6 2 = 13, three cards: below anything the dealer stands on
    assert game.turn == (2, 0)
    assert cancelled(game) == {"box:1": 200, "box:2": 0}


def test_busted_hand_keeps_its_loss_doubles_included() -> None:  # BJ-19
    # wrong: "more than two cards counts as a win" before the bust check; losing the original only
    game = two("9s Ts 7c 3d 8h Tc Td")  # ann 9 3 doubles and draws T: 22
    game.double(1)
    assert cancelled(game) == {"box:1": -200, "box:2": 0}


@pytest.mark.parametrize(("stake", "net"), [(100, 150), (15, 22)])
def test_blackjack_keeps_its_three_to_two(stake: int, net: int) -> None:  # BJ-19, BJ-15, K-16
    # wrong: refunding it as a two-card hand, paying it 1:1, or rounding up
    game = BlackjackRound(
        rules(),
        [Bet("ann", "box:1", stake), Bet("bob", "box:2", 100)],
        Shoe(cards(f"As Ts 9c Kd 6h 7h {SPARE}")),
    )
    assert game.turn == (2, 0)
    assert cancelled(game)["box:1"] == net


def test_blackjack_is_not_judged_by_the_unshown_hole_card() -> None:  # BJ-19, BJ-6
    # a 10 up: no peek; the hole card (an Ace) is a dealer blackjack nobody has seen.
    # wrong: reading the hole card and pushing
    game = two("As Ts Kc Kd 6h Ah")
    assert game.phase == "playing" and game.dealer_blackjack
    assert cancelled(game)["box:1"] == 150


def test_blackjack_pushes_a_shown_dealer_blackjack_and_insurance_comes_back() -> None:  # BJ-19
    # The peek showed the dealer's blackjack: the round is over, not yet settled.
    # wrong: the old reading (a blackjack loses once the dealer's is known), paying insurance 2:1,
    # or settling bob's two-card hand as lost
    game = two("As Ts Ac Kd 9h Kh")
    game.decline_insurance(1)
    game.insure(2)
    assert game.phase == "over"
    assert {line.spot: line.net for line in game.settle().lines} == {
        "box:1": 0,
        "box:2:insurance": 100,
        "box:2": -100,
    }
    assert cancelled(game) == {"box:1": 0, "box:2:insurance": 0, "box:2": 0}


def test_lost_insurance_is_returned_too() -> None:  # BJ-19: every insurance stake
    # wrong: keeping an insurance the peek already lost
    game = two("Ts 9s Ac 9d 8h 7h")
    game.insure(1)
    game.decline_insurance(2)
    assert game.phase == "playing"  # no dealer blackjack
    assert cancelled(game) == {"box:1:insurance": 0, "box:1": 0, "box:2": 0}


def test_even_money_and_surrender_stand() -> None:  # BJ-19, BJ-7, BJ-13
    # wrong: refunding them like a two-card hand
    game = two("As Ts Ac Kd 6h 7h")
    game.take_even_money(1)
    game.decline_insurance(2)
    game.surrender(2)
    game = two("As Ts Ac Kd 6h 7h 9c 9c")
    game.take_even_money(1)
    game.decline_insurance(2)
    assert game.turn == (2, 0)
    assert cancelled(game) == {"box:1": 100, "box:2": 0}
    game = two("Ts Ts 9c 6d 6h 7h")
    game.surrender(1)
    assert cancelled(game) == {"box:1": -50, "box:2": 0}


def test_split_hands_one_card_two_cards_and_split_aces() -> None:  # BJ-19, BJ-11, BJ-12
    # wrong: paying split aces' A K as blackjack (3:2) or as a win; counting a one-card hand
    game = two("8s Ts 9c 8d 9h Th 3c")
    game.split(1)  # hand 0: 8 3 (two cards), hand 1: 8 (one card)
    assert cancelled(game) == {"box:1": 0, "box:1:split": 0, "box:2": 0}
    game = two("8s Ts 9c 8d 9h Th 3c 5d")
    game.split(1)
    game.hit(1)  # 8 3 5: three cards
    assert cancelled(game) == {"box:1": 100, "box:1:split": 0, "box:2": 0}
    game = two("As Ts 9c Ad 9h Th Kc 5d")
    game.split(1)  # A K and A 5, one card each (BJ-12); bob to act
    assert game.turn == (2, 0)
    assert cancelled(game) == {"box:1": 0, "box:1:split": 0, "box:2": 0}


def test_partial_cancel_is_capped_per_player() -> None:  # BJ-19, K-12
    # wrong: a cancellation outside the maximum win per round
    game = two("As Ts Kc Kd 6h 7h")
    done = game.cancel(max_win=100)
    assert done.player("ann").capped == 50 and done.player("ann").paid == 200


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), boxes=st.integers(1, 4), stop=st.integers(0, 12))
def test_cancel_anywhere_moves_every_stake_once(seed: int, boxes: int, stop: int) -> None:
    """Cancelled after `stop` random decisions: the lines carry every stake of the round (the
    bets, doubles, splits and insurance), each returns 0, half, the stake or a win, and the
    round's ledger transaction balances and empties its in_play (conservation, L-5)."""
    rng = random.Random(seed)
    game = BlackjackRound(
        rules(dealer_hole_card=rng.choice(["peek", "enhc"])),
        [Bet(f"p{n}", f"box:{n}", rng.randint(1, 1000)) for n in range(1, boxes + 1)],
        Shoe.shuffled(rng, 8, cut_from_end=208, burn=1),
    )
    for _ in range(stop):
        if game.phase == "over":
            break
        if game.phase == "insurance":
            box = next(b for b in game.boxes if not b.insurance_decided)
            name = rng.choice(["insure", "decline_insurance", "take_even_money"])
            if name != "take_even_money" or game.can_take_even_money(box.number):
                getattr(game, name)(box.number)
            continue
        number, _ = game.turn
        action = rng.choice(["hit", "stand", "double", "split", "surrender"])
        if getattr(game, f"can_{action}")(number):
            getattr(game, action)(number)
    staked = sum(box.stake for box in game.boxes) + sum(e.stake for e in game.events)
    peeked = sum(e.stake for e in game.events if e.kind == "peek")
    cap = rng.choice([None, 500])
    record = json.loads(json.dumps(game.progress()))
    cancelled = game.cancel(cap)
    assert cancel_recorded(record, cap) == cancelled  # a crash cancels as the table would
    lines = list(cancelled.lines)
    assert sum(line.stake for line in lines) == staked - peeked
    # the ledger's transaction (L-5): balanced, and the round's in_play emptied
    legs = money.settlement("r", "t", "USD", Settled(cancelled), review_at=rng.choice([None, 300]))
    assert sum(legs.values()) == 0 and legs[money.in_play("r", "USD")] == -(staked - peeked)
    for line in lines:
        assert line.returned in (0, line.stake // 2, line.stake) or (
            line.stake < line.returned <= line.stake * 5 // 2
        )
