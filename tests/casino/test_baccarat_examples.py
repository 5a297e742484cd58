"""Every baccarat worked example of docs/CASINO_RULES.md (B-5 … B-15, K-16), through draw()."""

from __future__ import annotations

import pytest

from pokerroom.casino.core import baccarat_bets
from pokerroom.casino.core.baccarat import BaccaratOutcome, draw, total
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.core.results import Bet


def deal(player: str, banker: str) -> BaccaratOutcome:
    """Deal the example's cards from a fixed shoe in deal order (B-5): P, B, P, B, P3, B3."""
    p, b = cards(player), cards(banker)
    order = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]
    shoe = Shoe(order + list(cards("2c 2c 2c")))  # spare cards a wrong tableau would take
    outcome = draw(shoe)
    assert outcome.player == p and outcome.banker == b, "the tableau drew differently"
    return outcome


def nets(outcome: BaccaratOutcome, rules: baccarat_bets.BaccaratRules, spots: str) -> dict:
    bets = [Bet("ann", spot, 100) for spot in spots.split()]
    return {line.spot: line.net for line in baccarat_bets.settle(bets, outcome, rules).lines}


def test_b4_totals_are_the_last_digit() -> None:  # B-4 examples
    for text, expected in [
        ("4c 2c 6c", 2), ("5c 6c 8c", 9), ("7c 3c", 0), ("Tc Jc Qc", 0), ("Ac 2c 4c", 7),
        ("Ac 2c 9c", 2),
    ]:  # fmt: skip
        assert total(cards(text)) == expected


def test_example_1_player_natural_nine(commission) -> None:  # B-6, B-14
    outcome = deal("9s Kh", "7d Qc")
    assert (outcome.player_total, outcome.banker_total) == (9, 7)
    assert nets(outcome, commission, "player banker tie player_pair small big") == {
        "player": 100, "banker": -100, "tie": -100, "player_pair": -100, "small": 150,
        "big": -100,
    }  # fmt: skip


def test_example_2_banker_five_stands_on_player_third_eight(commission, super6) -> None:  # B-8
    outcome = deal("3h 2c 8s", "4d As")
    assert (outcome.player_total, outcome.banker_total) == (3, 5)
    assert nets(outcome, commission, "banker player big") == {
        "banker": 95, "player": -100, "big": 52,
    }  # fmt: skip
    assert nets(outcome, super6, "banker") == {"banker": 100}  # won with 5, not 6 (B-11)


def test_example_3_natural_tie_pushes_main_bets(commission, super6) -> None:  # B-6, B-10, B-13
    outcome = deal("4c 4d", "6s 2h")
    assert nets(outcome, commission, "tie player banker player_pair banker_pair") == {
        "tie": 800, "player": 0, "banker": 0, "player_pair": 1100, "banker_pair": -100,
    }  # fmt: skip
    assert nets(outcome, super6, "super6") == {"super6": -100}  # B-12: 8-8 tie loses


def test_example_4_banker_two_card_six(commission, super6) -> None:  # B-8, B-11, B-12, B-15
    outcome = deal("Ks 5d 9c", "3h 3c")
    assert (outcome.player_total, outcome.banker_total) == (4, 6)
    assert nets(outcome, commission, "banker fortune6 banker_pair") == {
        "banker": 95, "fortune6": 1200, "banker_pair": 1100,
    }  # fmt: skip
    assert nets(outcome, super6, "banker super6") == {"banker": 50, "super6": 1200}


def test_example_5_banker_three_card_six(commission, super6) -> None:  # B-8, B-15
    outcome = deal("2c 2d 7s", "5h Qs Ac")
    assert (outcome.player_total, outcome.banker_total) == (1, 6)
    assert nets(outcome, commission, "banker fortune6 player_pair big") == {
        "banker": 95, "fortune6": 2000, "player_pair": 1100, "big": 52,
    }  # fmt: skip
    assert nets(outcome, super6, "banker super6") == {"banker": 50, "super6": 1200}


def test_example_6_banker_draws_when_player_stood(commission, super6) -> None:  # B-8
    outcome = deal("7c Jd", "2d 3s Ah")
    assert (outcome.player_total, outcome.banker_total) == (7, 6)
    assert nets(outcome, commission, "player banker") == {"player": 100, "banker": -100}
    assert nets(outcome, super6, "super6") == {"super6": -100}  # the Banker did not win


def test_example_7_fifteen_cents_round_down(commission, super6) -> None:  # K-16
    bet = [Bet("ann", "banker", 15)]
    win_on_five = deal("3h 2c 8s", "4d As")
    assert baccarat_bets.settle(bet, win_on_five, commission).lines[0].net == 14
    win_on_six = deal("Ks 5d 9c", "3h 3c")
    assert baccarat_bets.settle(bet, win_on_six, super6).lines[0].net == 7


def test_l8_settlement_legs_balance(commission) -> None:  # L-8
    outcome = deal("Ks 5d 9c", "3h 3c")
    bets = [Bet("ann", "banker", 100), Bet("ann", "player", 100), Bet("ann", "banker_pair", 100)]
    result = baccarat_bets.settle(bets, outcome, commission)
    ann = result.player("ann")
    assert (ann.staked, ann.paid) == (300, 1395)
    bankroll = ann.staked - ann.paid
    assert bankroll == -1095 and -ann.staked + ann.paid + bankroll == 0


@pytest.mark.parametrize(
    ("spot", "code"),
    [
        ("super6", "unknown_spot"),
        ("dragon_bonus", "unknown_spot"),
        ("perfect_pair", "unknown_spot"),
    ],
)
def test_spots_not_on_a_commission_table_are_refused(commission, spot, code) -> None:  # B-12, B-16
    with pytest.raises(baccarat_bets.errors.CasinoError) as caught:
        baccarat_bets.check_bet(Bet("ann", spot, 100), commission)
    assert caught.value.code == code


def test_big_small_close_after_round_35(commission) -> None:  # B-14
    baccarat_bets.check_bet(Bet("ann", "big", 100), commission, round_in_shoe=35)
    with pytest.raises(baccarat_bets.errors.CasinoError) as caught:
        baccarat_bets.check_bet(Bet("ann", "small", 100), commission, round_in_shoe=36)
    assert caught.value.code == "spot_closed"


def test_fortune6_only_when_enabled() -> None:  # B-15: default off
    from tests.casino.conftest import table

    rules = baccarat_bets.rules_from(table("baccarat"))
    assert "fortune6" not in rules.spots
    with pytest.raises(baccarat_bets.errors.CasinoError):
        baccarat_bets.check_bet(Bet("ann", "fortune6", 100), rules)


@pytest.mark.parametrize(
    ("stake", "code"), [(50, "below_minimum"), (1_000_001, "above_maximum"), (0, "invalid_stake")]
)
def test_limits(commission, stake, code) -> None:  # K-5
    with pytest.raises(baccarat_bets.errors.CasinoError) as caught:
        baccarat_bets.check_bet(Bet("ann", "player", stake), commission)
    assert caught.value.code == code


def test_natural_nine_beats_natural_eight(commission) -> None:  # B-6 (not source 002's tie)
    outcome = deal("9s Kh", "8d Kc")
    assert nets(outcome, commission, "player tie banker") == {
        "player": 100, "tie": -100, "banker": -100,
    }  # fmt: skip


def test_a_ten_and_a_king_are_not_a_pair(commission) -> None:  # B-13: same rank, not value
    outcome = deal("Tc Kd 5s", "Qh Qs 2c")
    assert nets(outcome, commission, "player_pair banker_pair") == {
        "player_pair": -100, "banker_pair": 1100,
    }  # fmt: skip


def test_super6_loses_on_a_six_six_tie(super6) -> None:  # B-12
    outcome = deal("6c Kd", "6h Ks")
    assert outcome.winner == "tie"
    assert nets(outcome, super6, "super6 banker tie") == {"super6": -100, "banker": 0, "tie": 800}


def test_the_cap_is_per_player_not_per_round(commission) -> None:  # K-12
    outcome = deal("9s Kh", "7d Qc")
    bets = [Bet("ann", "player", 600), Bet("bob", "player", 600)]
    result = baccarat_bets.settle(bets, outcome, commission, max_win=500)
    assert [(t.player, t.capped, t.net) for t in result.players] == [
        ("ann", 100, 500), ("bob", 100, 500),
    ]  # fmt: skip
    assert baccarat_bets.settle(bets, outcome, commission, max_win=600).paid == 2400
