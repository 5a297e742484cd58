"""The worked examples of dragon tiger (DT-), roulette (R-) and sic bo (S-) in
docs/CASINO_RULES.md, stake 100 on each bet listed."""

from __future__ import annotations

import pytest

from pokerroom.casino.core import dragon_tiger, roulette, sicbo
from pokerroom.casino.core.cards import Shoe, cards
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.core.results import Bet
from tests.casino.conftest import table


def nets(settlement) -> dict[str, int]:
    return {line.spot: line.net for line in settlement.lines}


def bets(spots: str, stake: int = 100) -> list[Bet]:
    return [Bet("ann", spot, stake) for spot in spots.split()]


# -- dragon tiger --------------------------------------------------------------------------
def dt(dragon: str, tiger: str) -> dragon_tiger.DragonTigerOutcome:
    return dragon_tiger.draw(Shoe(cards(f"{dragon} {tiger}")))


def test_dt_example_1_dragon_wins(dt_rules) -> None:  # DT-3, DT-4
    result = dragon_tiger.settle(bets("dragon tiger tie suited_tie"), dt("Ks", "9h"), dt_rules)
    assert nets(result) == {
        "dragon": 100, "tiger": -100, "tie": -100, "suited_tie": -100,
    }  # fmt: skip


def test_dt_example_2_ace_is_low(dt_rules) -> None:  # DT-3
    assert nets(dragon_tiger.settle(bets("tiger dragon"), dt("Ad", "2c"), dt_rules)) == {
        "tiger": 100, "dragon": -100,
    }  # fmt: skip


def test_dt_example_3_tie_main_bets_lose_half(dt_rules) -> None:  # DT-5, DT-6
    result = dragon_tiger.settle(bets("tie dragon tiger suited_tie"), dt("7d", "7c"), dt_rules)
    assert nets(result) == {"tie": 800, "dragon": -50, "tiger": -50, "suited_tie": -100}


def test_dt_example_4_suited_tie(dt_rules) -> None:  # DT-6
    result = dragon_tiger.settle(bets("tie suited_tie dragon tiger"), dt("Qh", "Qh"), dt_rules)
    assert nets(result) == {"tie": 800, "suited_tie": 5000, "dragon": -50, "tiger": -50}


def test_dt_example_5_odd_stake_returns_the_lower_half(dt_rules) -> None:  # DT-5, K-16
    line = dragon_tiger.settle(bets("dragon", 15), dt("7d", "7c"), dt_rules).lines[0]
    assert (line.returned, -line.net) == (7, 8)


def test_dt_variants_push_and_tie_eleven() -> None:  # DT-4, DT-5 variants
    rules = dragon_tiger.rules_from(
        table("dragon_tiger", tie_main="push", pays={"dragon": 1, "tiger": 1, "tie": 11})
    )
    assert nets(dragon_tiger.settle(bets("dragon tie"), dt("7d", "7c"), rules)) == {
        "dragon": 0, "tie": 1100,
    }  # fmt: skip
    assert "suited_tie" not in rules.spots


# -- roulette ------------------------------------------------------------------------------
def spin(pocket: int, spots: str, rules) -> dict[str, int]:
    return nets(roulette.settle(bets(spots), pocket, rules))


def test_roulette_example_1_seventeen(roulette_rules) -> None:
    assert spin(
        17,
        "straight:17 split:17-20 street:16-17-18 corner:17-18-20-21 six_line:13-14-15-16-17-18 "
        "column:2 dozen:2 black odd low red even straight:0",
        roulette_rules,
    ) == {
        "straight:17": 3500, "split:17-20": 1700, "street:16-17-18": 1100,
        "corner:17-18-20-21": 800, "six_line:13-14-15-16-17-18": 500, "column:2": 200,
        "dozen:2": 200, "black": 100, "odd": 100, "low": 100, "red": -100, "even": -100,
        "straight:0": -100,
    }  # fmt: skip


def test_roulette_example_2_zero(roulette_rules) -> None:
    assert spin(
        0, "straight:0 split:0-2 trio:0-1-2 first_four:0-1-2-3 red black even low dozen:1 column:3",
        roulette_rules,
    ) == {
        "straight:0": 3500, "split:0-2": 1700, "trio:0-1-2": 1100, "first_four:0-1-2-3": 800,
        "red": -100, "black": -100, "even": -100, "low": -100, "dozen:1": -100, "column:3": -100,
    }  # fmt: skip


def test_roulette_example_3_thirty_six(roulette_rules) -> None:
    assert spin(
        36, "red even high column:3 dozen:3 six_line:31-32-33-34-35-36 split:33-36 low",
        roulette_rules,
    ) == {
        "red": 100, "even": 100, "high": 100, "column:3": 200, "dozen:3": 200,
        "six_line:31-32-33-34-35-36": 500, "split:33-36": 1700, "low": -100,
    }  # fmt: skip


def test_roulette_example_4_total_gain(roulette_rules) -> None:
    result = roulette.settle(bets("red straight:19"), 19, roulette_rules)
    assert nets(result) == {"red": 100, "straight:19": 3500}
    assert result.player("ann").net == 3600


def test_roulette_la_partage_variant_returns_half_on_zero() -> None:  # R-4 variant
    rules = roulette.rules_from(table("roulette", la_partage=True))
    assert spin(0, "red column:1 straight:5", rules) == {
        "red": -50, "column:1": -100, "straight:5": -100,
    }  # fmt: skip


def test_roulette_layout_counts_and_names() -> None:
    kinds = [kind for kind, _ in roulette.SPOTS.values()]
    counts = {kind: kinds.count(kind) for kind in set(kinds)}
    assert counts == {
        "straight": 37, "split": 60, "street": 12, "trio": 2, "corner": 22, "first_four": 1,
        "six_line": 11, "column": 3, "dozen": 3, "red": 1, "black": 1, "odd": 1, "even": 1,
        "low": 1, "high": 1,
    }  # fmt: skip
    assert roulette.canonical("split:20-17") == "split:17-20"
    assert roulette.spot_numbers("column:1")[1] == frozenset(range(1, 35, 3))


@pytest.mark.parametrize(
    "spot", ["split:17-21", "split:3-4", "corner:2-3-5-6-7", "corner:3-4-6-7", "straight:37",
             "street:2-3-4", "six_line:1-2-3", "column:4", "zero", "split:x"],
)  # fmt: skip
def test_roulette_refuses_positions_off_the_layout(roulette_rules, spot: str) -> None:
    with pytest.raises(CasinoError) as caught:
        roulette.check_bet(Bet("ann", spot, 100), roulette_rules)
    assert caught.value.code == "unknown_spot"


def test_roulette_limits_by_kind(roulette_rules) -> None:  # K-5
    roulette.check_bet(Bet("ann", "split:1-2", 100_000), roulette_rules)
    with pytest.raises(CasinoError) as caught:
        roulette.check_bet(Bet("ann", "straight:1", 50_001), roulette_rules)
    assert caught.value.code == "above_maximum"


# -- sic bo --------------------------------------------------------------------------------
def roll(dice: tuple[int, int, int], spots: str, rules) -> dict[str, int]:
    return nets(sicbo.settle(bets(spots), dice, rules))


def test_sicbo_example_1(sicbo_rules) -> None:  # S-3
    assert roll(
        (2, 2, 5),
        "small odd big even total:9 double:2 combo:2-5 combo:2-4 single:2 single:5 single:6 "
        "any_triple",
        sicbo_rules,
    ) == {
        "small": 100, "odd": 100, "big": -100, "even": -100, "total:9": 600, "double:2": 800,
        "combo:2-5": 500, "combo:2-4": -100, "single:2": 200, "single:5": 100,
        "single:6": -100, "any_triple": -100,
    }  # fmt: skip


def test_sicbo_example_2_triple(sicbo_rules) -> None:  # S-2
    assert roll(
        (4, 4, 4), "big even triple:4 any_triple double:4 single:4 total:12 combo:4-5",
        sicbo_rules,
    ) == {
        "big": -100, "even": -100, "triple:4": 15000, "any_triple": 2400, "double:4": 800,
        "single:4": 300, "total:12": 600, "combo:4-5": -100,
    }  # fmt: skip


def test_sicbo_example_3(sicbo_rules) -> None:  # S-3
    assert roll(
        (1, 3, 6), "small even total:10 combo:1-6 combo:3-6 single:1 single:3 single:6 double:3",
        sicbo_rules,
    ) == {
        "small": 100, "even": 100, "total:10": 600, "combo:1-6": 500, "combo:3-6": 500,
        "single:1": 100, "single:3": 100, "single:6": 100, "double:3": -100,
    }  # fmt: skip


def test_sicbo_example_4_combination_paid_once(sicbo_rules) -> None:  # S-3
    assert roll((6, 6, 5), "big odd total:17 double:6 combo:5-6 single:6", sicbo_rules) == {
        "big": 100, "odd": 100, "total:17": 5000, "double:6": 800, "combo:5-6": 500,
        "single:6": 200,
    }  # fmt: skip


def test_sicbo_small_and_odd_lose_on_a_low_triple(sicbo_rules) -> None:  # S-2
    assert roll((1, 1, 1), "small odd triple:1 triple:2", sicbo_rules) == {
        "small": -100, "odd": -100, "triple:1": 15000, "triple:2": -100,
    }  # fmt: skip


def test_sicbo_high_table() -> None:  # S-3 variant
    rules = sicbo.rules_from(table("sicbo", paytable="high"))
    assert roll((1, 1, 2), "total:4 double:1 any_triple", rules) == {
        "total:4": 6000, "double:1": 1000, "any_triple": -100,
    }  # fmt: skip


def test_sicbo_has_52_positions_and_refuses_others(sicbo_rules) -> None:  # S-4, R-5
    assert len(sicbo.SPOTS) == len(set(sicbo.SPOTS)) == 52
    for spot in ("total:3", "total:18", "combo:2-2", "combo:5-2", "single:7"):
        with pytest.raises(CasinoError) as caught:
            sicbo.check_bet(Bet("ann", spot, 100), sicbo_rules)
        assert caught.value.code == "unknown_spot"
