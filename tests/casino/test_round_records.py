"""RNG-9, L-7: a settled round's record alone replays it. The round's row (its outcome and
audit records) and its bet rows (with their confirmation times) recompute every player's
payout by `pokerroom.casino.replay`, dealing the recorded cards again after the shoe's burned
cards, applying a blackjack round's timed decisions; equal to the stored summary and to what
the settlement moved; on SQLite and PostgreSQL. A record without a burned card, a bet's time or
a decision's time is refused. An open blackjack round's hole card is in nothing a player sees.
And a bet's record names its position once (K-5, R-5): the limits hold whatever the spelling."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.casino import settings
from pokerroom.casino.core.baccarat import outcome_of
from pokerroom.casino.core.cards import cards, names
from pokerroom.casino.core.dragon_tiger import DragonTigerOutcome
from pokerroom.casino.core.results import Bet
from pokerroom.casino.games import make_game
from pokerroom.casino.replay import RecordIncomplete, StoredBet, replay
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


def stored_bets(casino: Casino, round_id: str) -> list[StoredBet]:
    """The round's bet rows, in order of confirmation."""
    with casino.engine.connect() as conn:
        query = sa.select(casino_bets).where(casino_bets.c.round_id == round_id)
        rows = conn.execute(query.order_by(casino_bets.c.id)).all()
    return [StoredBet(r.player, r.spot, int(r.stake), int(r.confirmed_ms)) for r in rows]


@pytest.mark.parametrize(
    ("game", "spots"),
    [
        ("baccarat", ["player", "banker", "tie", "player_pair", "big"]),
        ("progressive", ["player", "banker", "jackpot", "tie"]),
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
    rounds = []
    for n_round in range(2):  # the second round of a shoe keeps the shoe's burned cards
        round_id = table.round.round_id
        times = []
        for n, spot in enumerate(spots):
            casino.clock.advance(1)
            times.append(int(casino.clock.seconds() * 1000))
            bet(casino, table, "alice" if n % 2 else "bob", spot, 100 * (n + 1), f"k{n_round}{n}")
        casino.advance(table.game.window_s)
        rounds.append((round_id, times))
        casino.advance(6)  # the pause between rounds: the next one opens
    for round_id, times in rounds:
        row = round_row(casino, round_id)
        assert row.status == "settled"
        bets = stored_bets(casino, round_id)
        assert [b.confirmed_ms for b in bets] == times  # RNG-9: each bet's confirmation time
        assert len(bets) == len(spots)
        outcome, audit = json.loads(row.outcome), json.loads(row.audit)
        assert "audit" not in outcome and "burned" not in outcome
        paid = replay(game, settings.game_table(game), outcome, audit, bets)
        assert paid == json.loads(row.summary)["paid"]
        if game in ("baccarat", "dragon_tiger"):
            assert len(cards(audit["burned"])) >= 2  # B-2: the exposed card and its value
            assert audit["start"] >= len(cards(audit["burned"]))
    first, second = (json.loads(round_row(casino, r).audit) for r, _ in rounds)
    if game in ("baccarat", "dragon_tiger"):
        assert first["burned"] == second["burned"] and second["start"] == first["end"]
    table.stop()
    casino.ok()


def test_the_old_replay_still_agrees_with_the_ledger(casino: Casino) -> None:
    """The outcome record alone (as before RNG-9's audit) gives the same payouts the wallets
    received."""
    casino.fund_house()
    table, _ = casino.table(game="baccarat", table_id="g1")
    for name in ("alice", "bob"):
        casino.fund_player(name)
        casino.join(table, name)
    round_id = table.round.round_id
    for n, spot in enumerate(["player", "banker", "tie"]):
        bet(casino, table, "alice" if n % 2 else "bob", spot, 100 * (n + 1), f"k{n}")
    casino.advance(table.game.window_s)
    row = round_row(casino, round_id)
    bets = [Bet(b.player, b.spot, b.stake) for b in stored_bets(casino, round_id)]
    fresh = make_game("baccarat", settings.game_table("baccarat"), random.Random(0))
    again = fresh.settle(bets, replayed("baccarat", json.loads(row.outcome)), None, 0)
    paid = {t.player: t.paid for t in again.settlement.players}
    for name in ("alice", "bob"):
        staked = sum(b.stake for b in bets if b.player == name)
        assert casino.balance(wallet(name, USD)) == 100_000 - staked + paid[name]
    casino.ok()


def test_a_record_missing_a_burned_card_or_a_time_is_refused(casino: Casino) -> None:
    """RNG-9: the replay refuses a record whose shoe lost a burned card, a bet without its
    confirmation time, or cards that do not give the stored outcome."""
    casino.fund_house()
    table, _ = casino.table(game="baccarat", table_id="g1")
    casino.fund_player("alice")
    casino.join(table, "alice")
    round_id = table.round.round_id
    bet(casino, table, "alice", "banker", 500, "k1")
    casino.advance(table.game.window_s)
    row = round_row(casino, round_id)
    outcome, audit = json.loads(row.outcome), json.loads(row.audit)
    bets = stored_bets(casino, round_id)
    rules = settings.game_table("baccarat")
    assert replay("baccarat", rules, outcome, audit, bets) == json.loads(row.summary)["paid"]
    burned = audit["burned"].split()
    for broken in (
        {**audit, "burned": " ".join(burned[:-1])},
        {**audit, "burned": " ".join(burned[1:])},
        {k: v for k, v in audit.items() if k != "burned"},
        {**audit, "dealt": " ".join(reversed(audit["dealt"].split()))},
    ):
        with pytest.raises(RecordIncomplete):
            replay("baccarat", rules, outcome, broken, bets)
    untimed = [StoredBet(b.player, b.spot, b.stake, 0) for b in bets]
    with pytest.raises(RecordIncomplete):
        replay("baccarat", rules, outcome, audit, untimed)
    table.stop()


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


def blackjack_round(casino: Casino) -> tuple[Any, Any, str]:
    """A blackjack table of the shipped rules (burn 1) and a seeded shoe: alice on box 1
    doubles when she may, else hits once, then stands; bob on box 2 never decides (his clock
    runs out, BJ-16). Returns the table, its inbox and the round id, the betting closed."""
    from pokerroom.casino.blackjack_table import BlackjackTable
    from pokerroom.casino.table_config import CasinoTableConfig
    from tests.casino.table_harness import Inbox

    casino.fund_house()
    inbox = Inbox()
    game = make_game("blackjack", settings.game_table("blackjack"), random.Random(11))
    actor = BlackjackTable(
        CasinoTableConfig("bj1", "blackjack", USD),
        game=game,  # type: ignore[arg-type]
        clock=casino.clock,
        store=casino.store,
        listener=inbox,
        new_id=lambda t: f"{t}-{next(casino.ids)}",
    )
    casino.wait(actor.start())
    for name in ("alice", "bob"):
        casino.fund_player(name, 10_000)
        casino.join(actor, name)
    round_id = actor.round.round_id
    casino.clock.advance(2)
    actor.place("alice", "box:1", 100)
    casino.wait(actor.confirm("alice", "a1"))
    casino.clock.advance(3)
    actor.place("bob", "box:2", 200)
    casino.wait(actor.confirm("bob", "b1"))
    casino.advance(30 - 5)
    return actor, inbox, round_id


def play_out(casino: Casino, actor: Any) -> None:
    """alice's policy (see `blackjack_round`); bob's clock runs out."""
    from pokerroom.casino.core.blackjack import INSURANCE

    hits = 0
    for _ in range(60):
        hand = actor.hand
        if hand is None:
            return
        alice = next(b for b in hand.boxes if b.player == "alice")
        if hand.phase == INSURANCE and not alice.insurance_decided:
            actor.decide("alice", 1, "decline")
        elif hand.phase != INSURANCE and hand.turn is not None and hand.turn[0] == 1:
            if hand.can_double(1):
                casino.wait(actor.decide("alice", 1, "double", key="a-double"))
            elif hits == 0 and hand.can_hit(1):
                hits += 1
                actor.decide("alice", 1, "hit")
            else:
                actor.decide("alice", 1, "stand")
        else:
            casino.advance(10)  # bob's turn (or the insurance window): his clock runs out
        casino.drain()
    raise AssertionError("the round did not end")


def test_a_blackjack_round_replays_from_its_record_with_timed_decisions(casino: Casino) -> None:
    from pokerroom.casino import store

    actor, _, round_id = blackjack_round(casino)
    row = round_row(casino, round_id)
    assert row.status == "open" and row.audit == ""  # the hole card is on no row yet
    assert [h.outcome for h in store.history(casino.engine, "alice")] == [{}]
    play_out(casino, actor)
    casino.drain()
    row = round_row(casino, round_id)
    assert row.status == "settled"
    bets = stored_bets(casino, round_id)
    assert all(b.confirmed_ms > 0 for b in bets)
    assert bets[1].confirmed_ms - bets[0].confirmed_ms == 3_000
    audit = json.loads(row.audit)
    assert len(cards(audit["burned"])) == 1 and audit["start"] >= 1  # BJ-2: one burned card
    decisions = audit["decisions"]
    assert decisions and all("at_ms" in d for d in decisions)
    doubled = [b.confirmed_ms for b in bets if b.spot == "box:1:double"]
    assert doubled == [d["at_ms"] for d in decisions if d["action"] == "double"]  # its stake too
    assert any(d["action"] == "timeout" for d in decisions)
    assert any(d.get("player") == "alice" for d in decisions)
    assert [d["at_ms"] for d in decisions] == sorted(d["at_ms"] for d in decisions)
    rules = settings.game_table("blackjack")
    outcome = json.loads(row.outcome)
    assert replay("blackjack", rules, outcome, audit, bets) == json.loads(row.summary)["paid"]
    with pytest.raises(RecordIncomplete):
        replay("blackjack", rules, outcome, {**audit, "burned": ""}, bets)
    untimed = [{k: v for k, v in d.items() if k != "at_ms"} for d in decisions]
    with pytest.raises(RecordIncomplete):
        replay("blackjack", rules, outcome, {**audit, "decisions": untimed}, bets)
    with pytest.raises(RecordIncomplete):
        replay(
            "blackjack",
            rules,
            outcome,
            audit,
            [StoredBet(b.player, b.spot, b.stake, 0) for b in bets],
        )
    actor.stop()
    casino.ok()


def test_an_open_blackjack_rounds_hole_card_reaches_no_player(casino: Casino) -> None:
    """BJ-5 (the hole card face down until the dealer plays): while the round waits for a
    decision the hole card (7d) is in no event told, not on the row (no audit; the `partial`
    progress holds no dealer card) and not in the history; once settled, `audit.dealt` has it
    in its place and the events told never carried the audit."""
    from pokerroom.casino import store
    from tests.casino.table_harness import two_boxes

    casino.fund_house()
    actor, inbox = two_boxes(casino, "Th 5s 9d 9h 6s 7d 9c Tc", cancel_mode="partial")
    round_id = actor.round.round_id
    assert actor.hand is not None and names([actor.hand.dealer[1]]) == "7d"
    told = [repr(e) for player in ("alice", "bob") for e in inbox.got.get(player, [])]
    assert told and not [e for e in told if "7d" in e]
    casino.drain()
    row = round_row(casino, round_id)
    assert row.status == "open" and row.audit == "" and "7d" not in row.outcome
    assert [h.outcome for h in store.history(casino.engine, "alice")] == [{}]
    actor.decide("alice", 1, "stand")
    casino.advance(10)  # bob's clock runs out: the dealer plays
    casino.drain()
    row = round_row(casino, round_id)
    assert row.status == "settled"
    assert cards(json.loads(row.audit)["dealt"])[:6] == cards("Th 5s 9d 9h 6s 7d")
    told = [repr(e) for player in ("alice", "bob") for e in inbox.got.get(player, [])]
    assert [e for e in told if "7d" in e]  # revealed once the dealer plays (the check can fail)
    assert not [e for e in told if "dealt" in e or "burned" in e]
    actor.stop()
    casino.ok()
