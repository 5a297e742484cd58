"""L-3, L-5, K-12, K-13 as properties of the ledger transaction a table posts: for any round of
any round game (any bets, players, cap, review threshold, jackpot pool), the settlement's legs
sum to zero, empty the round's in_play, pay each player exactly their total to the wallet or,
for review, to held, and move the pool and the seed by the round's amounts; a void's legs
return exactly each player's stakes and touch nothing else."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.casino import money
from pokerroom.casino import settings as casino_settings
from pokerroom.casino.core import roulette
from pokerroom.casino.core.results import Bet
from pokerroom.casino.games import ROUND_GAMES, make_game
from pokerroom.ledger.kinds import wallet

USD = "USD"
PLAYERS = ("ann", "bob", "cy")
picks = st.lists(
    st.tuples(st.sampled_from(PLAYERS), st.integers(0, 10**6), st.integers(1, 10**9)),
    min_size=1,
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(
    game_name=st.sampled_from(ROUND_GAMES),
    seed=st.integers(0, 2**32),
    chosen=picks,
    cap=st.one_of(st.none(), st.integers(0, 10**12)),
    review_at=st.one_of(st.none(), st.integers(1, 10**12)),
    pool=st.integers(0, 10**9),
)
def test_a_settlements_legs_balance_and_pay_each_player_once(
    game_name: str,
    seed: int,
    chosen: list[tuple[str, int, int]],
    cap: int | None,
    review_at: int | None,
    pool: int,
) -> None:
    game = make_game(game_name, casino_settings.game_table(game_name), random.Random(seed))
    spots = sorted(game.spots) if game.spots is not None else sorted(roulette.SPOTS)
    bets = [Bet(player, spots[index % len(spots)], stake) for player, index, stake in chosen]
    game.open_round()
    outcome, _ = game.draw()
    settled = game.settle(bets, outcome, cap, pool)
    legs = money.settlement("r-1", "t1", USD, settled, review_at)
    assert sum(legs.values()) == 0
    assert legs[money.in_play("r-1", USD)] == -sum(b.stake for b in bets)
    for total in settled.settlement.players:
        to_wallet = legs.get(wallet(total.player, USD), 0)
        to_held = legs.get(money.held(total.player, USD), 0)
        assert to_wallet + to_held == total.paid and 0 in (to_wallet, to_held)
        review = total.jackpot > 0 or (review_at is not None and total.winnings >= review_at)
        assert (to_held == total.paid) if review else (to_wallet == total.paid)
        if cap is not None:
            assert total.paid - total.jackpot - total.staked <= cap  # K-12, jackpots outside
    assert legs.get(money.pool("t1", USD), 0) == settled.pool_delta
    assert legs.get(money.seed(USD), 0) == -settled.seed_topup
    others = set(legs) - {money.in_play("r-1", USD), money.pool("t1", USD), money.seed(USD),
                          money.bankroll(USD)}  # fmt: skip
    assert all(ref.owner in PLAYERS for ref in others)


@settings(max_examples=200, deadline=None)
@given(chosen=picks)
def test_a_voids_legs_return_exactly_the_stakes(chosen: list[tuple[str, int, int]]) -> None:
    stakes = [(player, stake) for player, _, stake in chosen]
    legs = money.void("r-1", USD, stakes)
    assert sum(legs.values()) == 0
    assert legs[money.in_play("r-1", USD)] == -sum(stake for _, stake in stakes)
    for player in {p for p, _ in stakes}:
        assert legs[wallet(player, USD)] == sum(s for p, s in stakes if p == player)
    assert len(legs) == 1 + len({p for p, _ in stakes})  # no bankroll, pool or held leg
