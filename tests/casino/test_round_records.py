"""RNG-9, L-7: a settled round's record alone replays it. The round's row (its outcome record)
and its bet rows recompute every player's payout, equal to the stored summary and to what the
settlement moved; on SQLite and PostgreSQL. And a bet's record names its position once (K-5,
R-5): the limits hold whatever the spelling."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.casino import settings
from pokerroom.casino.core.baccarat import outcome_of
from pokerroom.casino.core.cards import cards
from pokerroom.casino.core.dragon_tiger import DragonTigerOutcome
from pokerroom.casino.core.results import Bet
from pokerroom.casino.games import make_game
from pokerroom.casino.schema import casino_bets
from pokerroom.ledger.kinds import wallet
from tests.casino.table_harness import USD, Casino
from tests.casino.test_table import bet, round_row


def replayed(game: str, record: dict[str, Any]) -> Any:
    """The outcome rebuilt from the round's record alone."""
    if game == "roulette":
        return record["pocket"]
    if game == "sicbo":
        return tuple(record["dice"])
    if game == "dragon_tiger":
        return DragonTigerOutcome(cards(record["dragon"])[0], cards(record["tiger"])[0])
    return outcome_of(cards(record["player"]), cards(record["banker"]))


@pytest.mark.parametrize(
    ("game", "spots"),
    [
        ("baccarat", ["player", "banker", "tie", "player_pair", "big"]),
        ("dragon_tiger", ["dragon", "tiger", "tie", "suited_tie"]),
        ("roulette", ["red", "straight:17", "split:17-20", "column:2"]),
        ("sicbo", ["big", "small", "total:10", "single:3", "any_triple"]),
    ],
)
def test_the_record_alone_replays_the_round(casino: Casino, game: str, spots: list[str]) -> None:
    casino.fund_house()
    table, _ = casino.table(game=game, table_id="g1")
    for name in ("alice", "bob"):
        casino.fund_player(name)
        casino.join(table, name)
    round_id = table.round.round_id
    for n, spot in enumerate(spots):
        bet(casino, table, "alice" if n % 2 else "bob", spot, 100 * (n + 1), f"k{n}")
    casino.advance(table.game.window_s)
    row = round_row(casino, round_id)
    assert row.status == "settled"
    with casino.engine.connect() as conn:
        query = sa.select(casino_bets).where(casino_bets.c.round_id == round_id)
        rows = conn.execute(query).all()
    bets = [Bet(r.player, r.spot, r.stake) for r in rows]
    assert len(bets) == len(spots)
    fresh = make_game(game, settings.game_table(game), random.Random(0))
    again = fresh.settle(bets, replayed(game, json.loads(row.outcome)), None, 0).settlement
    paid = {t.player: t.paid for t in again.players}
    assert paid == json.loads(row.summary)["paid"]
    for name in ("alice", "bob"):
        staked = sum(b.stake for b in bets if b.player == name)
        assert casino.balance(wallet(name, USD)) == 100_000 - staked + paid[name]
    casino.ok()


def test_one_roulette_position_is_one_bet_whatever_the_order_of_its_numbers(
    casino: Casino,
) -> None:
    """K-5, R-5: `split:20-17` is `split:17-20`: the draft holds it under the layout's name and
    the split's maximum (100,000) holds across both spellings, in one draft or two
    confirmations; a position off the layout is refused at once."""
    from pokerroom.casino.core.errors import CasinoError

    casino.fund_house()
    table, _ = casino.table(table_id="r9")
    casino.fund_player("alice", 1_000_000)
    casino.join(table, "alice")
    assert table.place("alice", "split:20-17", 60_000) == {"split:17-20": 60_000}
    assert table.place("alice", "split:17-20", 50_000) == {"split:17-20": 110_000}
    with pytest.raises(CasinoError) as over:
        table.confirm("alice", "k1")
    assert over.value.code == "above_maximum"
    table.clear("alice")
    table.place("alice", "split:17-20", 60_000)
    casino.wait(table.confirm("alice", "k2"))
    table.place("alice", "split:20-17", 50_000)
    with pytest.raises(CasinoError) as again:
        table.confirm("alice", "k3")
    assert again.value.code == "above_maximum"
    with pytest.raises(CasinoError) as off:
        table.place("alice", "split:17-21", 100)
    assert off.value.code == "unknown_spot"
    assert casino.balance(wallet("alice", USD)) == 1_000_000 - 60_000
    table.stop()
