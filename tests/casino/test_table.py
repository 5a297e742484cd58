"""A casino table on the ledger (K-1 … K-13, L-1 … L-5, P-2), on SQLite and PostgreSQL.

Roulette with a seeded wheel: the first pocket of `random.Random(7)` is known, so a straight
bet on it wins 35:1 and one beside it loses.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import sqlalchemy as sa
from structlog.testing import capture_logs
from twisted.internet.defer import Deferred

from pokerroom.casino import events as ev
from pokerroom.casino import money, settings
from pokerroom.casino.core import progressive
from pokerroom.casino.core.baccarat import outcome_of
from pokerroom.casino.core.cards import cards
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.games import ProgressiveGame
from pokerroom.casino.rounds import RoundStore
from pokerroom.casino.schema import casino_rounds
from pokerroom.ledger import transfers
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.schema import journal
from tests.casino.table_harness import USD, Casino

POCKET = random.Random(7).randrange(37)
WIN = f"straight:{POCKET}"
LOSE = f"straight:{(POCKET + 1) % 37}"
WINDOW = 45  # config/casino/roulette.toml


def keyed(casino: Casino, key: str) -> list[Any]:
    """The ledger entries with this key."""
    with casino.engine.connect() as conn:
        return conn.execute(sa.select(journal).where(journal.c.idempotency_key == key)).all()


def round_row(casino: Casino, round_id: str) -> Any:
    with casino.engine.connect() as conn:
        return conn.execute(sa.select(casino_rounds).where(casino_rounds.c.id == round_id)).one()


def bet(casino: Casino, table: Any, player: str, spot: str, stake: int, key: str) -> Any:
    table.place(player, spot, stake)
    return casino.wait(table.confirm(player, key))


def test_several_players_one_round_one_settlement(casino: Casino) -> None:
    """K-1, L-2, L-3: three players, one round, stakes in in_play, ONE keyed settlement."""
    casino.fund_house()
    table, inbox = casino.table()
    for name in ("alice", "bob", "carol"):
        casino.fund_player(name)
        casino.join(table, name)
    casino.fund_player("dave")
    table.observe("dave")
    assert table.round is not None
    round_id = table.round.round_id
    bet(casino, table, "alice", WIN, 100, "a1")
    bet(casino, table, "alice", LOSE, 200, "a2")  # K-3: a second confirmation adds to the round
    bet(casino, table, "bob", LOSE, 500, "b1")
    table.place("carol", WIN, 300)  # never confirmed: never reaches the ledger (K-3)
    assert casino.balance(money.in_play(round_id, USD)) == 800
    assert casino.balance(wallet("alice", USD)) == 100_000 - 300
    casino.advance(WINDOW)
    # alice: 100 + 3,500 back; bob: nothing; carol: untouched.
    assert casino.balance(wallet("alice", USD)) == 100_000 - 300 + 3_600
    assert casino.balance(wallet("bob", USD)) == 100_000 - 500
    assert casino.balance(wallet("carol", USD)) == 100_000
    assert casino.balance(money.in_play(round_id, USD)) == 0
    assert casino.balance(money.bankroll(USD)) == 10_000_000 - 3_500 + 200 + 500
    entries = keyed(casino, money.round_key(round_id))
    assert len(entries) == 1 and entries[0].kind == "casino_settlement"
    row = round_row(casino, round_id)
    assert row.status == "settled" and str(POCKET) in row.outcome
    # Each player sees their own lines; everyone sees the totals only.
    own = inbox.of("alice", ev.OwnSettlement)
    assert [(x.spot, x.result, x.returned) for x in own[0].lines] == [
        (WIN, "win", 3_600),
        (LOSE, "lose", 0),
    ]
    assert inbox.of("carol", ev.OwnSettlement) == [] and inbox.of("dave", ev.OwnSettlement) == []
    result = inbox.of("dave", ev.RoundResult)[0]
    assert {(t.player, t.staked, t.paid) for t in result.totals} == {
        ("alice", 300, 3_600),
        ("bob", 500, 0),
    }
    casino.ok()
    # The next round opens after the pause, with a new id.
    casino.advance(table.config.between_s)
    assert table.phase == "betting" and table.round.round_id != round_id


def test_void_returns_exactly_the_stakes(casino: Casino) -> None:
    """K-7, L-5: staff void mid-window: every stake back, no bankroll leg, the table closes."""
    casino.fund_house(1_000)
    table, inbox = casino.table()
    for name in ("alice", "bob"):
        casino.fund_player(name, 1_000)
        casino.join(table, name)
    round_id = table.round.round_id
    bet(casino, table, "alice", WIN, 100, "a1")
    bet(casino, table, "alice", WIN, 50, "a2")
    bet(casino, table, "bob", LOSE, 333, "b1")
    voided = casino.wait(table.void_round("wheel sensor fault"))
    assert dict(voided.refunds) == {"alice": 150, "bob": 333}
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert casino.balance(wallet("bob", USD)) == 1_000
    assert casino.balance(money.bankroll(USD)) == 1_000
    assert casino.balance(money.in_play(round_id, USD)) == 0
    entries = keyed(casino, money.round_key(round_id))
    assert len(entries) == 1 and entries[0].kind == "casino_void"
    assert round_row(casino, round_id).status == "void"
    assert table.phase == "closed" and inbox.of("bob", ev.RoundVoided)
    casino.advance(WINDOW * 3)  # closed: no new round, nothing drawn
    assert table.round is None and len(keyed(casino, money.round_key(round_id))) == 1
    with pytest.raises(CasinoError) as refused:
        table.void_round("again")
    assert refused.value.code == "no_round"
    casino.ok()
    table.reopen()
    casino.drain()
    assert table.phase == "betting"


class NeverSettles(RoundStore):
    """A crash between the close of betting and the settlement: the settlement never lands."""

    def settle(self, *args: Any, **kwargs: Any) -> Deferred[Any]:
        return Deferred()


@pytest.mark.parametrize("when", ["betting", "after_close"])
def test_restart_voids_an_unsettled_round_once(casino: Casino, when: str) -> None:
    """K-7 on restart (C-12's path): a round with confirmed bets but no settlement is voided,
    its stakes refunded once; a second restart moves nothing."""
    casino.fund_house()
    store = NeverSettles(casino.ledger) if when == "after_close" else casino.store
    table, _ = casino.table(store=store)
    casino.fund_player("alice", 1_000)
    casino.join(table, "alice")
    round_id = table.round.round_id
    bet(casino, table, "alice", WIN, 400, "a1")
    if when == "after_close":
        casino.advance(WINDOW)
        assert table.phase == "settling"
    table.stop()  # the process dies here
    assert casino.balance(wallet("alice", USD)) == 600
    again, _ = casino.table()
    assert [(v.round_id, v.refunds) for v in casino.voided_at_start] == [
        (round_id, (("alice", 400),))
    ]
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert casino.balance(money.in_play(round_id, USD)) == 0
    again.stop()
    third, _ = casino.table()
    assert casino.voided_at_start == ()  # alice is not paid twice
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert len(keyed(casino, money.round_key(round_id))) == 1
    third.stop()
    casino.ok()


def test_replayed_key_applies_once(casino: Casino) -> None:
    """P-2: the same confirmation key again moves nothing and answers the same; the key
    reused for another round is refused."""
    casino.fund_house()
    table, _ = casino.table()
    casino.fund_player("alice", 1_000)
    casino.join(table, "alice")
    first = bet(casino, table, "alice", LOSE, 100, "k1")
    assert not first.replayed
    table.place("alice", LOSE, 100)
    # Two confirmations with one key while the first is in flight, then once more after.
    d1, d2 = table.confirm("alice", "k2"), table.confirm("alice", "k2")
    a1, a2 = casino.wait(d1), casino.wait(d2)
    a3 = casino.wait(table.confirm("alice", "k2"))
    assert (a1.replayed, a2.replayed, a3.replayed) == (False, True, True)
    assert a1.staked == a2.staked == a3.staked == 200
    assert casino.balance(wallet("alice", USD)) == 800
    casino.advance(WINDOW)
    assert casino.balance(wallet("alice", USD)) == 800
    casino.advance(table.config.between_s)
    table.place("alice", LOSE, 100)
    with pytest.raises(CasinoError) as refused:
        casino.wait(table.confirm("alice", "k1"))
    assert refused.value.code == "idempotency_conflict"
    assert casino.balance(wallet("alice", USD)) == 800
    assert table.round.draft("alice") == {LOSE: 100}  # K-3: the chips stay a draft
    casino.ok()


def test_max_win_per_round_and_review(casino: Casino) -> None:
    """K-12: winnings above the cap are not paid; K-13: a win at the threshold goes to held."""
    casino.fund_house()
    table, inbox = casino.table(max_win=5_000, review_at=4_900)
    for name in ("alice", "bob"):
        casino.fund_player(name, 10_000)
        casino.join(table, name)
    bet(casino, table, "alice", WIN, 200, "a1")  # 7,000 won, 5,000 paid
    bet(casino, table, "alice", LOSE, 100, "a2")  # lost as usual beside the cap: net 4,900, held
    bet(casino, table, "bob", WIN, 100, "b1")  # 3,500 won: under both (wallet)
    casino.advance(WINDOW)
    own = inbox.of("alice", ev.OwnSettlement)[0]
    assert (own.staked, own.paid, own.capped, own.held) == (300, 5_200, 2_000, True)
    assert casino.balance(wallet("alice", USD)) == 9_700
    assert casino.balance(money.held("alice", USD)) == 5_200
    assert casino.balance(wallet("bob", USD)) == 10_000 + 3_500
    assert casino.balance(money.held("bob", USD)) == 0
    assert casino.balance(money.bankroll(USD)) == 10_000_000 - 5_000 + 100 - 3_500
    casino.ok()


def test_limits_funds_and_window_refuse_without_moving(casino: Casino) -> None:
    """K-2, K-4, K-5: late, short, over the maximum, unfunded: refused, nothing moves."""
    casino.fund_house()
    table, _ = casino.table()
    casino.fund_player("alice", 150)
    casino.join(table, "alice")
    table.place("alice", WIN, 99)  # straight minimum is 100 (roulette.toml)
    with pytest.raises(CasinoError) as low:
        table.confirm("alice", "x1")
    assert low.value.code == "below_minimum"
    table.clear("alice")
    table.place("alice", WIN, 50_001)
    with pytest.raises(CasinoError) as high:
        table.confirm("alice", "x2")
    assert high.value.code == "above_maximum"
    table.clear("alice")
    table.place("alice", WIN, 200)
    with pytest.raises(CasinoError) as poor:
        casino.wait(table.confirm("alice", "x3"))
    assert poor.value.code == "insufficient_funds"
    with pytest.raises(CasinoError) as stranger:
        table.place("mallory", WIN, 100)
    assert stranger.value.code == "not_at_table"
    casino.clock.advance(WINDOW)  # the window's end: refused even before the timer's close
    with pytest.raises(CasinoError) as late:
        table.confirm("alice", "x4")
    assert late.value.code == "betting_closed"
    casino.drain()
    assert casino.balance(wallet("alice", USD)) == 150
    casino.ok()


def test_settlement_refused_voids_and_closes(casino: Casino) -> None:
    """K-7: the bankroll covered the round when it opened but was drained before the
    settlement (another table paid from it): the round is voided, stakes back, table closed."""
    casino.fund_house(5_000)
    table, inbox = casino.table(max_win=5_000)
    casino.fund_player("alice", 1_000)
    casino.join(table, "alice")
    round_id = table.round.round_id
    bet(casino, table, "alice", WIN, 100, "a1")
    drain_house(casino, 5_000)
    casino.advance(WINDOW)
    assert casino.balance(wallet("alice", USD)) == 1_000
    assert round_row(casino, round_id).status == "void"
    assert table.phase == "closed" and inbox.of("alice", ev.RoundVoided)
    assert inbox.of("alice", ev.RoundResult) == []  # persist, then tell: nothing was told
    casino.ok()


def drain_house(casino: Casino, amount: int) -> None:
    """bankroll → external: the bankroll paid elsewhere (through the ledger, keyed)."""
    transfers.move(
        casino.engine,
        key=f"drain:{amount}",
        kind="withdrawal",
        currency=USD,
        source=money.bankroll(USD),
        destination=external(USD),
        amount=amount,
    )


def rounds_written(casino: Casino) -> int:
    with casino.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(casino_rounds)).scalar()


def test_an_unfunded_table_waits_then_opens_when_funded(casino: Casino) -> None:
    """docs/CASINO.md: an unfunded bankroll opens no round and writes no row; the table says
    `waiting_for_bankroll` once (one warning), reads again each round's length, and opens the
    round once the bankroll covers K-12's maximum win, with no staff action; the win is paid."""
    table, inbox = casino.table(max_win=5_000)
    period = table.game.window_s + table.config.between_s
    casino.fund_player("alice", 1_000)
    with capture_logs() as logs:
        casino.join(table, "alice")
        assert table.phase == "waiting_for_bankroll" and table.round is None
        casino.advance(period * 3)
    assert table.phase == "waiting_for_bankroll" and rounds_written(casino) == 0
    warnings = [e for e in logs if e["event"] == "casino_waiting_for_bankroll"]
    assert len(warnings) == 1 and warnings[0]["log_level"] == "warning"
    assert [(s.open, s.reason) for s in inbox.of("alice", ev.TableState)] == [
        (False, "waiting_for_bankroll")
    ]
    assert inbox.of("alice", ev.BettingOpened) == []
    with pytest.raises(CasinoError) as refused:
        table.place("alice", WIN, 100)
    assert refused.value.code == "betting_closed"
    casino.fund_house(4_999)  # one cent short
    casino.advance(period)
    assert table.phase == "waiting_for_bankroll" and rounds_written(casino) == 0
    casino.fund_house(1)  # exactly the cap: enough
    casino.advance(period - 1)  # not yet the next check
    assert table.phase == "waiting_for_bankroll"
    casino.advance(1)
    assert table.phase == "betting" and rounds_written(casino) == 1
    assert [(s.open, s.reason) for s in inbox.of("alice", ev.TableState)][-1] == (True, "")
    assert len(inbox.of("alice", ev.BettingOpened)) == 1
    round_id = table.round.round_id
    bet(casino, table, "alice", WIN, 100, "a1")
    casino.advance(WINDOW)
    assert round_row(casino, round_id).status == "settled"
    assert casino.balance(wallet("alice", USD)) == 1_000 - 100 + 3_600
    assert casino.balance(money.bankroll(USD)) == 5_000 - 3_500
    casino.ok()


def test_one_players_cap_does_not_open_for_two(casino: Casino) -> None:
    """The bound is K-12's maximum win times the players seated: a bankroll that covers one
    player does not open a round with two; when one leaves, the next check opens it."""
    casino.fund_house(5_000)
    table, inbox = casino.table(max_win=5_000)
    period = table.game.window_s + table.config.between_s
    casino.join(table, "alice", "bob")  # the read happens after both are seated
    assert table.exposure() == 10_000
    assert table.phase == "waiting_for_bankroll" and rounds_written(casino) == 0
    casino.advance(period)
    assert table.phase == "waiting_for_bankroll" and rounds_written(casino) == 0
    table.leave("bob")
    casino.advance(period)
    assert table.phase == "betting" and rounds_written(casino) == 1
    assert inbox.of("alice", ev.BettingOpened)
    casino.ok()


def test_a_table_opened_with_one_waits_when_a_second_joins(casino: Casino) -> None:
    """The next round counts who sits there then: one player's cap opens, a second player
    joining makes the next round wait; nothing of the settled round changes."""
    casino.fund_house(5_000)
    table, inbox = casino.table(max_win=5_000)
    casino.fund_player("alice", 1_000)
    casino.join(table, "alice")
    assert table.phase == "betting"
    casino.join(table, "bob")
    bet(casino, table, "alice", LOSE, 100, "a1")
    casino.advance(WINDOW)
    casino.advance(table.config.between_s)
    assert table.phase == "waiting_for_bankroll" and rounds_written(casino) == 1
    assert [(s.open, s.reason) for s in inbox.of("bob", ev.TableState)] == [
        (False, "waiting_for_bankroll")
    ]
    casino.ok()


def test_staff_close_while_waiting_stays_closed(casino: Casino) -> None:
    """K-7: a table staff close while it waits for the bankroll stays closed, funded or not;
    reopened, it checks the bankroll again at once."""
    table, _ = casino.table(max_win=5_000)
    casino.join(table, "alice")
    assert table.phase == "waiting_for_bankroll"
    table.close("maintenance")
    casino.fund_house(5_000)
    casino.advance(table.game.window_s + table.config.between_s)
    assert table.phase == "closed" and rounds_written(casino) == 0
    table.reopen()
    casino.drain()
    assert table.phase == "betting" and rounds_written(casino) == 1


def test_progressive_pool_takes_contributions(casino: Casino) -> None:
    """PB-5, L-3: 7 % of every jackpot bet goes to the table's pool in the settlement."""
    casino.fund_house()
    table, _ = casino.table(game="progressive", table_id="pb1")
    casino.fund_player("alice", 100_000)
    casino.join(table, "alice")
    bet(casino, table, "alice", "jackpot", 1_000, "j1")
    bet(casino, table, "alice", "banker", 1_000, "m1")
    casino.advance(table.game.window_s)
    assert casino.balance(money.pool("pb1", USD)) == 70
    assert table.pool == 70
    casino.ok()


def test_an_idle_table_opens_no_round(casino: Casino) -> None:
    """No player, no round (and no row); the first join opens one; after the last leaves,
    the round under way ends and no next one opens."""
    table, _ = casino.table()
    casino.advance(WINDOW * 3)
    with casino.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(casino_rounds)).scalar() == 0
    table.observe("dave")
    casino.drain()
    assert table.round is None
    casino.join(table, "alice")
    assert table.phase == "betting"
    table.leave("alice")
    casino.advance(WINDOW)
    casino.advance(table.config.between_s)
    assert table.round is None and table.phase == "between"
    with casino.engine.connect() as conn:
        statuses = conn.execute(sa.select(casino_rounds.c.status)).scalars().all()
    assert statuses == ["settled"]


class Qualifying(ProgressiveGame):
    """PB-6: the next coup is A♥ 8♥ against A♥ 8♥ (the jackpot hand)."""

    def draw(self) -> tuple[Any, dict[str, Any]]:
        outcome = outcome_of(cards("Ah 8h"), cards("Ah 8h"))
        return outcome, {"player": "Ah 8h", "banker": "Ah 8h"}


def test_jackpot_paid_from_the_pool_and_reset_from_the_seed(casino: Casino) -> None:
    """PB-5 … PB-8, PB-11, L-3, L-4: the contribution joins the pool first, the prize empties
    it to the player's held balance, the seed account tops it up, in the one settlement."""
    shipped = settings.game_table("progressive")
    rules = progressive.rules_from({**shipped, "jackpot_max_bet": 1_000, "seed_multiplier": 10})
    casino.fund_house()
    casino.fund(money.pool("pb1", USD), 5_000)
    casino.fund(money.seed(USD), 20_000)
    game = Qualifying(random.Random(1), 20, rules)
    table, inbox = casino.table(game="progressive", table_id="pb1", game_obj=game)
    assert table.pool == 5_000
    casino.fund_player("alice", 10_000)
    casino.join(table, "alice")
    bet(casino, table, "alice", "jackpot", 1_000, "j1")
    bet(casino, table, "alice", "banker", 1_000, "m1")  # a 9-9 tie: pushes
    casino.advance(20)
    own = inbox.of("alice", ev.OwnSettlement)[0]
    assert (own.jackpot, own.paid, own.held) == (5_070, 6_070, True)
    assert casino.balance(wallet("alice", USD)) == 8_000
    assert casino.balance(money.held("alice", USD)) == 6_070
    assert casino.balance(money.pool("pb1", USD)) == 10_000 == table.pool  # the seed value
    assert casino.balance(money.seed(USD)) == 10_000
    assert casino.balance(money.bankroll(USD)) == 10_000_000 + 930  # 2,000 − 1,000 − 70
    casino.ok()


def test_undo_double_and_rebet_act_on_unconfirmed_chips_only(casino: Casino) -> None:
    """K-3: Undo takes back the last chip, Double doubles only unconfirmed chips, Rebet places
    the last settled round's confirmed bets as a new draft; nothing moves until confirmed."""
    casino.fund_house()
    table, _ = casino.table()
    casino.fund_player("alice", 10_000)
    casino.join(table, "alice")
    with pytest.raises(CasinoError) as nothing:
        table.rebet("alice")  # no round settled yet
    assert nothing.value.code == "no_draft"
    bet(casino, table, "alice", LOSE, 100, "k1")  # confirmed: Double leaves it alone
    table.place("alice", WIN, 100)
    table.place("alice", LOSE, 300)
    assert table.undo("alice") == {WIN: 100}
    assert table.double("alice") == {WIN: 200}
    assert casino.balance(wallet("alice", USD)) == 9_900  # drafts move nothing
    assert casino.wait(table.confirm("alice", "k2")).staked == 300
    table.place("alice", LOSE, 500)  # never confirmed: not part of the round, nor of a rebet
    casino.advance(WINDOW)
    casino.advance(table.config.between_s)
    assert table.rebet("alice") == {LOSE: 100, WIN: 200}
    with pytest.raises(CasinoError) as empty:
        table.undo("bob")
    assert empty.value.code == "not_at_table"
    casino.ok()


def test_pb_example_5_a_crash_voids_the_round_and_leaves_the_pool(casino: Casino) -> None:
    """PB-9, K-7, L-5 (progressive example 5): the server fails after a jackpot bet and a
    Player bet are confirmed and before the round settles: at restart both stakes come back in
    the round's one void transfer, the pool and the seed are unchanged (no contribution)."""
    casino.fund_house()
    casino.fund(money.pool("pb1", USD), 5_000)
    casino.fund(money.seed(USD), 20_000)
    dying = NeverSettles(casino.ledger)
    table, _ = casino.table(game="progressive", table_id="pb1", store=dying)
    casino.fund_player("alice", 10_000)
    casino.join(table, "alice")
    round_id = table.round.round_id
    bet(casino, table, "alice", "jackpot", 1_000, "j1")
    bet(casino, table, "alice", "player", 1_000, "p1")
    casino.advance(table.game.window_s)
    assert table.phase == "settling"  # drawn, its settlement never lands
    table.stop()  # the process dies here
    again, _ = casino.table(game="progressive", table_id="pb1")
    assert [(v.round_id, v.refunds) for v in casino.voided_at_start] == [
        (round_id, (("alice", 2_000),))
    ]
    assert casino.balance(wallet("alice", USD)) == 10_000
    assert casino.balance(money.pool("pb1", USD)) == 5_000 == again.pool
    assert casino.balance(money.seed(USD)) == 20_000
    assert casino.balance(money.bankroll(USD)) == 10_000_000
    entries = keyed(casino, money.round_key(round_id))
    assert [e.kind for e in entries] == ["casino_void"]
    again.stop()
    casino.ok()
