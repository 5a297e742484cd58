"""RNG-9, L-7: a settled round's record alone replays it. The round's row (its outcome record)
and its bet rows recompute every player's payout, equal to the stored summary and to what the
settlement moved; on SQLite and PostgreSQL."""

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
