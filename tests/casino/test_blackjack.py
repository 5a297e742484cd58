"""Blackjack's worked examples (BJ-1 … BJ-19) through the state machine, its refusals with their
codes, and a property sweep of random decisions."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.casino.core import blackjack
from pokerroom.casino.core.blackjack import BlackjackRound
from pokerroom.casino.core.blackjack_hand import dealer_draws, is_blackjack, total
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet
from tests.casino.conftest import table

SPARE = "2c 2c 2c 2c 2c 2c"  # cards a wrong dealer or a wrong deal would take


def rules(**changes) -> blackjack.BlackjackRules:
    return blackjack.rules_from(table("blackjack", limits={"default": [1, 10**9]}, **changes))


def round_of(order: str, stake: int = 100, **changes) -> BlackjackRound:
    """One box (box 1), the shoe in deal order: box, dealer up, box, hole (peek), then draws."""
    return BlackjackRound(rules(**changes), [Bet("ann", "box:1", stake)], Shoe(cards(order)))


def nets(game: BlackjackRound) -> dict[str, int]:
    return {line.spot: line.net for line in game.settle().lines}


def test_hand_totals() -> None:  # BJ-3, BJ-4, BJ-14
    assert total(cards("As 6d")) == (17, True)
    assert total(cards("As 6d Tc")) == (17, False)
    assert total(cards("As Ad 9c")) == (21, True)
    assert is_blackjack(cards("As Kd")) and not is_blackjack(cards("As Kd"), from_split=True)
    assert not dealer_draws(cards("As 6d")) and dealer_draws(cards("Ts 6d"))


def test_example_1_blackjack_dealer_does_not_draw() -> None:  # BJ-14, BJ-15
    game = round_of(f"As 9c Kd 7h {SPARE}")
    assert game.phase == "over" and game.dealer == list(cards("9c 7h"))
    assert nets(game) == {"box:1": 150}


def test_example_2_insurance_against_dealer_blackjack() -> None:  # BJ-6, BJ-8
    game = round_of(f"Ts Ac 6d Kh {SPARE}")
    assert game.phase == "insurance" and game.stake_for("insure", 1) == 50
    event = game.insure(1)
    assert event.stake == 50 and game.phase == "over"
    assert nets(game) == {"box:1:insurance": 100, "box:1": -100}
    assert game.settle().player("ann").net == 0


@pytest.mark.parametrize("insured", [False, True])
def test_example_4_soft_17_stands_push(insured: bool) -> None:  # BJ-6, BJ-14
    game = round_of(f"Tc Ah 7d 6c {SPARE}")
    if insured:
        game.insure(1)
    else:
        game.decline_insurance(1)
    assert game.turn == (1, 0)
    game.stand(1)
    assert game.dealer == list(cards("Ah 6c"))  # soft 17: no draw
    assert game.settle().player("ann").net == (-50 if insured else 0)


def test_example_3_split_then_double() -> None:  # BJ-10, BJ-11
    game = round_of(f"8s Td 8d 7s 3c Th Tc {SPARE}")
    assert game.can_split(1) and game.stake_for("split", 1) == 100
    game.split(1)
    assert game.turn == (1, 0) and game.boxes[0].hands[0].cards == list(cards("8s 3c"))
    assert game.can_double(1)
    game.double(1)
    assert game.turn == (1, 1)  # the second hand gets its second card now
    assert game.boxes[0].hands[1].cards == list(cards("8d Tc"))
    assert not game.can_split(1)  # one split per box
    game.stand(1)
    assert game.dealer == list(cards("Td 7s"))
    assert nets(game) == {"box:1": 200, "box:1:split": 100}


def test_example_5_split_aces_one_card_and_21_is_not_blackjack() -> None:  # BJ-12
    game = round_of(f"As 9s Ah 8c Kc 5d {SPARE}")
    game.split(1)
    assert game.phase == "over"  # both aces stood on one card
    assert [h.cards for h in game.boxes[0].hands] == [list(cards("As Kc")), list(cards("Ah 5d"))]
    assert nets(game) == {"box:1": 100, "box:1:split": -100}


def test_example_6_surrender_stands_whatever_the_hole() -> None:  # BJ-13
    game = round_of(f"Ts Td 6h 9s {SPARE}")
    assert game.phase == "playing"  # a 10 up: no peek (BJ-6)
    game.surrender(1)
    assert nets(game) == {"box:1": -50}


@pytest.mark.parametrize(("takes", "net"), [("all", -200), ("original_only", -100)])
def test_example_7_late_dealer_blackjack_takes_the_double(takes: str, net: int) -> None:  # BJ-8
    game = round_of(f"9s Kc 2d Ad 9h {SPARE}", late_dealer_bj_takes=takes)
    game.double(1)
    assert game.boxes[0].hands[0].total == 20
    assert nets(game) == {"box:1": net}


def test_example_8_double_wins_when_the_dealer_busts() -> None:  # BJ-10, BJ-14
    game = round_of(f"5s 6d 6h Qc Qd 8h {SPARE}")
    game.double(1)
    assert game.dealer == list(cards("6d Qc 8h"))
    assert nets(game) == {"box:1": 200}


def test_example_8_odd_stake_blackjack_rounds_down() -> None:  # BJ-15, K-16
    game = round_of(f"As 9c Kd 7h {SPARE}", stake=15)
    assert nets(game) == {"box:1": 22}


def test_even_money_paid_whatever_the_dealer_holds() -> None:  # BJ-7
    game = round_of(f"As Ac Kd Kh {SPARE}")
    assert game.can_take_even_money(1)
    game.take_even_money(1)
    assert game.dealer_blackjack and nets(game) == {"box:1": 100}


def test_blackjack_pushes_dealer_blackjack() -> None:  # BJ-8
    game = round_of(f"As Ac Kd Kh {SPARE}")
    game.decline_insurance(1)
    assert nets(game) == {"box:1": 0}


def test_21_of_three_cards_loses_to_dealer_blackjack() -> None:  # BJ-8 (late, a 10 up)
    game = round_of(f"5s Kc 6d Ad Tc {SPARE}")
    game.hit(1)  # 21: the hand ends (BJ-9)
    assert game.phase == "over" and nets(game) == {"box:1": -100}


def test_enhc_dealer_draws_the_second_card_after_the_boxes() -> None:  # BJ-5 variant
    game = round_of(f"Ts 9c 8d 7h {SPARE}", dealer_hole_card="enhc")
    assert game.dealer == list(cards("9c"))
    game.stand(1)
    assert game.dealer == list(cards("9c 7h 2c"))  # 16 draws the 2: 18
    assert nets(game) == {"box:1": 0}


def test_enhc_no_second_card_when_every_box_busted() -> None:  # BJ-14
    game = round_of(f"Ts 9c 6d Kh {SPARE}", dealer_hole_card="enhc")
    game.hit(1)
    assert game.dealer == list(cards("9c")) and nets(game) == {"box:1": -100}


def test_two_boxes_deal_in_order_and_decide_in_turn() -> None:  # BJ-5, BJ-9
    bets = [Bet("bob", "box:3", 100), Bet("ann", "box:1", 100)]
    game = BlackjackRound(rules(), bets, Shoe(cards(f"Ts 9s 5c Th 7d Kc {SPARE}")))
    assert game.boxes[0].hands[0].cards == list(cards("Ts Th"))
    assert game.boxes[1].hands[0].cards == list(cards("9s 7d"))
    with pytest.raises(CasinoError) as caught:
        game.stand(3)
    assert caught.value.code == "not_your_turn"
    game.stand(1)
    game.hit(3)  # 9 7 2 = 18
    game.stand(3)
    assert game.dealer == list(cards("5c Kc 2c"))  # 15 draws to 17
    assert nets(game) == {"box:1": 100, "box:3": 100}


@pytest.mark.parametrize(
    ("order", "action", "code", "changes"),
    [
        ("Ts 9c 7d 7h", "split", "not_allowed", {}),
        ("Ts 9c Kd 7h", "split", "not_allowed", {"split_same_rank_only": True}),
        ("Ts 9c 6d 7h", "surrender", "not_allowed", {"surrender": False}),
        ("Ts Ac 6d 7h", "hit", "wrong_phase", {}),
        ("Ts 9c 6d 7h", "insure", "wrong_phase", {}),
        ("Ts 9c 6d 7h", "even_money", "wrong_phase", {}),
        ("Ts Ac 6d 7h", "even_money", "not_allowed", {}),
    ],
)
def test_refusals_have_stable_codes(order, action, code, changes) -> None:  # BJ-6 … BJ-13
    game = round_of(f"{order} {SPARE}", **changes)
    call = {
        "split": lambda: game.split(1),
        "surrender": lambda: game.surrender(1),
        "hit": lambda: game.hit(1),
        "insure": lambda: game.insure(1),
        "even_money": lambda: game.take_even_money(1),
    }[action]
    with pytest.raises(CasinoError) as caught:
        call()
    assert caught.value.code == code


def test_double_after_hit_and_surrender_after_split_are_refused() -> None:  # BJ-10, BJ-13
    game = round_of(f"2s 9c 3d 7h 2h 4c 4d {SPARE}")
    game.hit(1)
    assert not game.can_double(1) and not game.can_surrender(1)
    game = round_of(f"8s 9c 8d 7h 2h {SPARE}")
    game.split(1)
    assert not game.can_surrender(1) and game.can_double(1)


def test_double_for_less() -> None:  # BJ-10 variant
    game = round_of(f"5s 6d 6h Qc Qd 8h {SPARE}")
    assert not game.can_double(1, 50)
    game = round_of(f"5s 6d 6h Qc Qd 8h {SPARE}", double_for_less=True)
    game.double(1, 50)
    assert nets(game) == {"box:1": 150}


def test_timeouts_stand_and_decline(  # BJ-16, K-10
) -> None:
    game = round_of(f"Ts Ac 6d 7h {SPARE}")
    assert game.timeout() is None and game.boxes[0].insurance == 0
    event = game.timeout()
    assert event is not None and event.kind == "stand" and game.phase == "over"


def test_void_returns_every_stake_and_partial_cancel() -> None:  # BJ-18, BJ-19
    game = round_of(f"8s 9c 8d 7h 2h 5c {SPARE}")
    game.split(1)
    game.hit(1)  # 8 2 5: three cards
    void = game.cancel()
    assert all(line.result == "push" for line in void.lines) and void.paid == 200
    game = round_of(f"8s 9c 8d 7h 2h 5c {SPARE}", cancel_mode="partial")
    game.split(1)
    game.hit(1)
    # the three-card hand counts as a win, the split hand of one card is refunded
    assert {line.spot: line.net for line in game.cancel().lines} == {"box:1": 100, "box:1:split": 0}


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), boxes=st.integers(1, 7), enhc=st.booleans())
def test_random_decisions_always_end_and_never_invent_money(seed, boxes, enhc) -> None:
    """Any legal sequence of decisions ends the round; `can_…` agrees with the action; every line
    returns at most stake × 2.5 (3:2), insurance × 3 (2:1), and stakes are whole (K-16, BJ-15)."""
    rng = random.Random(seed)
    game = BlackjackRound(
        rules(dealer_hole_card="enhc" if enhc else "peek"),
        [Bet(f"p{n}", f"box:{n}", rng.randint(1, 1000)) for n in range(1, boxes + 1)],
        Shoe.shuffled(rng, 8, cut_from_end=208, burn=1),
    )
    steps = 0
    while game.phase != "over":
        steps += 1
        assert steps < 200
        if game.phase == "insurance":
            box = next(b for b in game.boxes if not b.insurance_decided)
            choice = rng.choice(["insure", "decline", "even"])
            if choice == "even" and game.can_take_even_money(box.number):
                game.take_even_money(box.number)
            elif choice == "insure":
                game.insure(box.number)
            else:
                game.decline_insurance(box.number)
            continue
        number, _ = game.turn
        action = rng.choice(["hit", "stand", "double", "split", "surrender"])
        allowed = getattr(game, f"can_{action}")(number)
        if allowed:
            getattr(game, action)(number)
        else:
            with pytest.raises(CasinoError):
                getattr(game, f"check_{action}")(number)
    result = game.settle()
    for line in result.lines:
        top = 3 if line.spot.endswith(":insurance") else Fraction(5, 2)  # 2:1 (BJ-6), 3:2
        assert 0 <= line.returned <= line.stake * top
    house = result.staked - result.paid
    assert sum(t.net for t in result.players) + house == 0


def test_ten_and_king_split_by_value_by_default() -> None:  # BJ-11
    game = round_of(f"Ts 9c Kd 7h {SPARE}")
    assert game.can_split(1)


def test_peek_dealer_does_not_draw_when_every_box_busted() -> None:  # BJ-14
    game = round_of(f"Ts 6c 6d Th Kc {SPARE}")
    game.hit(1)  # 26: bust
    assert game.dealer == list(cards("6c Th")) and nets(game) == {"box:1": -100}
