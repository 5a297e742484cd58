"""Money at the table: multi-tabling (C-1), table stakes (C-9), ratholing (C-10), rake (C-11),
conservation (P-2) and the deal's secrecy (C-15)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.cash import CashTableConfig, TableActor
from pokerroom.cash.schema import cash_hand_rake
from pokerroom.cash.store import escrow, settlement_key
from pokerroom.ledger.kinds import AccountKind, house, wallet
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.schema import accounts
from pokerroom.ledger.transfers import get_transfer
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.results import ToppedUp
from tests.cash.conftest import USD, Harness, Listener, next_hand, play_hand, play_out, sit_all


def money_inside(room: Harness) -> int:
    """Wallets + seat escrows + house rake: everything but the outside world."""
    with room.engine.connect() as conn:
        return conn.execute(
            sa.select(sa.func.sum(accounts.c.balance)).where(accounts.c.kind != "external")
        ).scalar_one()


def test_a_player_sits_at_two_tables_at_once(room: Harness) -> None:  # C-1
    """C-1 (table side): seats at several tables are independent, each with its own escrow."""
    one, two = room.table("t1"), room.table("t2")
    room.fund("ann")
    room.wait(one.sit("ann", 0, 100))
    room.wait(two.sit("ann", 0, 150))
    assert room.balance(escrow("t1", "ann", USD)) == 100
    assert room.balance(escrow("t2", "ann", USD)) == 150
    room.wait(one.leave("ann"))
    assert "ann" in two.by_player and room.balance(escrow("t1", "ann", USD)) == 0


def test_buy_in_limits_and_top_up_only_up_to_the_table_max(room: Harness) -> None:  # C-9
    """C-9: buy in within [min, max]; top up between hands up to the maximum."""
    actor = room.table(min_buy_in=40, max_buy_in=200)
    room.fund("ann")
    for bad in (39, 201):
        with pytest.raises(ProtocolError) as info:
            actor.sit("ann", 0, bad)
        assert info.value.code == "buy_in_out_of_range"
    room.wait(actor.sit("ann", 0, 150))
    with pytest.raises(ProtocolError) as info:
        actor.top_up("ann", 51)
    assert info.value.code == "above_table_max" and info.value.details["max_add"] == 50
    assert room.wait(actor.top_up("ann", 50)) == ToppedUp(stack=200, pending=0)
    assert room.balance(escrow("t1", "ann", USD)) == 200


def test_top_up_during_a_hand_joins_the_stack_when_it_ends(room: Harness) -> None:  # C-9
    """C-9: only the chips on the table when the hand began can be bet."""
    actor = room.table()
    sit_all(room, actor, ["ann", "bob", "cat"], buy_in=100)
    next_hand(room, actor)
    room.wait(actor.top_up("ann", 50))
    hand = actor.hand
    assert hand is not None
    i = actor.order.index(0)
    assert hand.stacks[i] + hand.contrib[i] == 100 and actor.seats[0].pending_chips == 50
    play_out(room, actor)
    assert actor.seats[0].pending_chips == 0
    assert actor.seats[0].stack == room.balance(escrow("t1", "ann", USD))


def test_resitting_within_the_rathole_window_needs_what_was_taken(room: Harness) -> None:  # C-10
    """C-10: within rathole_minutes at the same stakes, bring at least the amount left with."""
    actor = room.table(hit_and_run=False, min_buy_in=40, max_buy_in=200)
    other = room.table("t2", hit_and_run=False, min_buy_in=40, max_buy_in=200)
    higher = room.table("t3", small_blind=2, big_blind=4, min_buy_in=80, max_buy_in=400)
    sit_all(room, actor, ["ann", "bob", "cat"], buy_in=150)
    play_hand(room, actor)
    took = actor.seats[0].stack
    assert room.wait(actor.leave("ann")).amount == took
    for table in (actor, other):
        with pytest.raises(ProtocolError) as info:
            room.wait(table.sit("ann", 5, took - 1))
        assert info.value.code == "rathole_minimum" and info.value.details["minimum"] == took
    room.wait(higher.sit("ann", 0, 100))  # other stakes: no minimum
    room.wait(higher.leave("ann"))
    room.clock.advance(61 * 60)
    room.drain()
    room.wait(other.sit("ann", 5, 40))


def _raise_and_check_down(room: Harness, actor: TableActor, raise_to: int, fold: bool) -> None:
    next_hand(room, actor)
    hand = actor.hand
    assert hand is not None
    actor.act(actor.players[hand.actor], "raise", raise_to)
    play_out(room, actor, policy="fold" if fold else "call")


def test_rake_is_a_capped_percentage_recorded_per_player(room: Harness) -> None:  # C-11
    """C-11: 5 % of the pot, capped at 3 BB, to the house rake account, shared by contribution."""
    actor = room.table(rake_bps=500)
    sit_all(room, actor, ["ann", "bob", "cat"])
    before = room.balance(house(AccountKind.HOUSE_RAKE, USD))
    _raise_and_check_down(room, actor, 50, fold=False)  # pot 150: 7.5 -> capped at 6
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) == before + 6
    with room.engine.connect() as conn:
        rows = conn.execute(sa.select(cash_hand_rake)).all()
    assert {r.player_id: r.amount for r in rows} == {"ann": 2, "bob": 2, "cat": 2}
    assert actor.listener.of_type("hand_ended")[-1]["rake"] == 6


def _settlement(room: Harness, hand_id: str) -> dict[str, int]:
    """The hand's one `hand_settlement` transfer as account -> amount (C-11, P-2)."""
    stored = get_transfer(room.engine, key=settlement_key(hand_id))
    assert stored is not None and stored.transfer.kind == "hand_settlement"
    return {p.account: p.amount for p in stored.transfer.postings}


def test_rake_below_the_cap_is_booked_per_contribution_in_the_settlement(room: Harness) -> None:
    """C-11 in the ledger: ann (button) raises to 40, bob (small blind) folds, cat calls and the
    hand is checked down. Pot 81 (40/1/40): 5 % is 4.05, rounded down to 4 (the cap is 6).
    The house rake account gets 4 in the hand's one settlement transfer, the memo and
    `cash_hand_rake` share it by contribution (ann 2, cat 2, bob nothing), and the shares sum
    to the rake that left the escrows."""
    actor = room.table(rake_bps=500)
    sit_all(room, actor, ["ann", "bob", "cat"])
    next_hand(room, actor)
    assert actor.players == ("bob", "cat", "ann")  # small blind, big blind, button
    actor.act("ann", "raise", 40)
    actor.act("bob", "fold")
    actor.act("cat", "call")
    play_out(room, actor)
    rake_account = str(house(AccountKind.HOUSE_RAKE, USD))
    postings = _settlement(room, "t1-1")
    assert postings[rake_account] == 4
    assert sum(a for account, a in postings.items() if account != rake_account) == -4
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) == 4
    stored = get_transfer(room.engine, key=settlement_key("t1-1"))
    assert stored is not None and json.loads(stored.transfer.memo) == {"ann": 2, "cat": 2}
    with room.engine.connect() as conn:
        rows = conn.execute(sa.select(cash_hand_rake)).all()
    assert {(r.hand_id, r.player_id, r.amount) for r in rows} == {
        ("t1-1", "ann", 2),
        ("t1-1", "cat", 2),
    }
    assert actor.listener.of_type("hand_ended")[-1]["rake"] == 4
    total = sum(actor.seats[n].stack for n in actor.seats)
    assert total == 600 - 4 and room.balance(escrow("t1", "bob", USD)) == 199


def _preflop_reraise_and_folds(room: Harness, actor: TableActor) -> None:
    """A hand ending before the flop with 90 in the pot: ann raises to 30, bob calls, cat
    re-raises to 90, both fold (cat's uncalled 60 comes back)."""
    next_hand(room, actor)
    assert actor.players == ("bob", "cat", "ann")
    actor.act("ann", "raise", 30)
    actor.act("bob", "call")
    actor.act("cat", "raise", 90)
    actor.act("ann", "fold")
    actor.act("bob", "fold")
    room.drain()
    assert actor.hand is None and not actor.listener.of_type("board_dealt")


def test_no_flop_no_drop(room: Harness) -> None:  # C-11
    """C-11: a hand that ends before the flop pays no rake, though its pot of 90 would pay 4."""
    actor = room.table(rake_bps=500)
    sit_all(room, actor, ["ann", "bob", "cat"])
    _preflop_reraise_and_folds(room, actor)
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) == 0
    assert actor.listener.of_type("hand_ended")[-1]["rake"] == 0
    assert str(house(AccountKind.HOUSE_RAKE, USD)) not in _settlement(room, "t1-1")
    assert room.balance(escrow("t1", "cat", USD)) == 260


def test_rake_without_flop_at_the_table_rakes_a_preflop_hand(room: Harness) -> None:  # C-11
    """C-11 (table setting): with `rake_without_flop` the same preflop hand pays 5 % of 90 = 4,
    shared 2/1/1 over the three equal contributions (bob first left of the button)."""
    actor = room.table(rake_bps=500, rake_without_flop=True)
    sit_all(room, actor, ["ann", "bob", "cat"])
    _preflop_reraise_and_folds(room, actor)
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) == 4
    assert _settlement(room, "t1-1")[str(house(AccountKind.HOUSE_RAKE, USD))] == 4
    with room.engine.connect() as conn:
        rows = conn.execute(sa.select(cash_hand_rake)).all()
    assert {r.player_id: r.amount for r in rows} == {"bob": 2, "cat": 1, "ann": 1}
    assert room.balance(escrow("t1", "cat", USD)) == 256


def test_money_never_appears_or_disappears(room: Harness) -> None:  # P-2
    """P-2: wallets + escrows + rake stay constant across buy-ins, hands, rake and leaving."""
    actor = room.table(rake_bps=500, hit_and_run=False)
    for player in ("ann", "bob", "cat", "dan"):
        room.fund(player, 1_000)
    total = money_inside(room)
    for number, player in enumerate(("ann", "bob", "cat", "dan")):
        room.wait(actor.sit(player, number, 200))
        assert money_inside(room) == total
    for k in range(8):
        if k % 2:
            _raise_and_check_down(room, actor, 20, fold=False)
        else:
            play_hand(room, actor)
        assert money_inside(room) == total
        stacks = {s.player_id: s.stack for s in actor.seats.values()}
        assert stacks == {p: room.balance(escrow("t1", p, USD)) for p in stacks}
    short = min(actor.seats.values(), key=lambda s: s.stack)
    room.wait(actor.top_up(short.player_id, 200 - short.stack))
    assert money_inside(room) == total
    for player in ("ann", "bob", "cat", "dan"):
        room.wait(actor.leave(player))
    assert money_inside(room) == total
    assert room.balance(house(AccountKind.HOUSE_RAKE, USD)) > 0
    assert sum(room.balance(wallet(p, USD)) for p in ("ann", "bob", "cat", "dan")) < 4_000
    report = check_ledger(room.engine)
    assert report.ok, report


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_hole_cards_reach_only_their_holder(room: Harness) -> None:  # C-15
    """C-15: no client receives another player's hidden cards unless they are shown."""
    actor = room.table()
    players = ["ann", "bob", "cat", "dan"]
    sit_all(room, actor, players)
    actor.observe("eve")
    listener: Listener = actor.listener
    for _ in range(6):
        play_hand(room, actor, policy="fold")
        play_hand(room, actor)
    holes: dict[tuple[str, str], set[str]] = {}
    for player in players:
        for m in listener.inbox[player]:
            if m["type"] == "hole_cards":
                holes[(m["hand_id"], player)] = set(m["cards"])
    assert len(holes) == 12 * 4
    shown = {
        (m["hand_id"], card)
        for m in listener.public
        if m["type"] in ("hand_shown", "board_dealt")
        for card in m["cards"]
    }
    for receiver in [*players, "eve"]:
        for m in listener.inbox[receiver]:
            if m["type"] in ("hand_shown", "board_dealt"):
                continue
            seen = _strings(m)
            for (hand_id, holder), cards in holes.items():
                if holder != receiver and m.get("hand_id") == hand_id:
                    leaked = {c for c in cards & seen if (hand_id, c) not in shown}
                    assert not leaked, (receiver, m)


def test_production_deck_uses_the_system_random_source(room: Harness) -> None:  # C-15
    """C-15: without an injected RNG the table shuffles with secrets.SystemRandom."""
    actor = TableActor(
        CashTableConfig(table_id="prod"), clock=room.clock, ledger=room.ledger, listener=Listener()
    )
    assert isinstance(actor.rng, secrets.SystemRandom)


def test_hand_histories_show_a_player_only_their_own_hidden_cards(room: Harness) -> None:  # C-15
    """C-15: a player's PHH histories mask the others' hole cards unless shown down."""
    from pokerroom.engine.phh import loads

    actor = room.table()
    sit_all(room, actor, ["ann", "bob", "cat"])
    play_hand(room, actor, policy="fold")  # nobody shows
    play_hand(room, actor)  # a showdown
    texts = room.wait(room.store.histories("ann", "t1", 10))
    assert len(texts) == 2
    newest, oldest = (loads(t)[0].fields for t in texts)
    assert (oldest["_hand_id"], newest["_hand_id"]) == ("t1-1", "t1-2")
    masked = 0
    for fields in (oldest, newest):
        me = f"p{fields['players'].index('ann') + 1}"
        shown = {a.split()[0] for a in fields["actions"] if len(a.split()) == 3 and " sm " in a}
        for action in fields["actions"]:
            if action.startswith("d dh"):
                who = action.split()[2]
                hidden = action.endswith("????")
                assert hidden == (who != me and who not in shown), action
                masked += hidden
    assert masked >= 2
    assert room.wait(room.store.histories("zed")) == []


def test_leaving_waits_for_a_top_up_in_flight(room: Harness) -> None:  # C-9 P-2
    """A leave asked while a top-up is moving cashes out both; no money stays in escrow."""
    actor = room.table()
    room.fund("ann")
    room.wait(actor.sit("ann", 0, 100))
    topped = actor.top_up("ann", 50)
    left = actor.leave("ann")
    room.wait(topped)
    assert room.wait(left).amount == 150
    assert room.balance(escrow("t1", "ann", USD)) == 0
    assert room.balance(wallet("ann", USD)) == 100_000
