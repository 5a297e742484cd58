"""The blackjack table (BJ-5 … BJ-16, K-4, K-7, K-10, L-2 … L-5) on the ledger, SQLite and
PostgreSQL: the shoe is a fixed order of cards, so every hand is known."""

from __future__ import annotations

from typing import Any

import pytest
from twisted.internet.defer import Deferred

from pokerroom.casino import events as ev
from pokerroom.casino import money
from pokerroom.casino.core.errors import CasinoError
from pokerroom.casino.rounds import RoundStore
from pokerroom.ledger.kinds import wallet
from tests.casino.table_harness import DECIDE, USD, WINDOW, Casino, box_bet, table, two_boxes


def test_two_boxes_stand_and_double_then_the_dealer_busts(casino: Casino) -> None:
    """alice T 9 stands; bob 5 6 doubles (the stake posted first, K-4) and gets 9; the dealer
    9 7 draws T and busts: alice +100, bob +200; one settlement; the ledger balances."""
    casino.fund_house()
    actor, inbox = table(casino, "Th 5s 9d 9h 6s 7d 9c Tc")
    for name in ("alice", "bob"):
        casino.fund_player(name, 1_000)
        casino.join(actor, name)
    box_bet(casino, actor, "alice", 1, 100)
    box_bet(casino, actor, "bob", 2, 100)
    actor.place("bob", "box:1", 100)
    with pytest.raises(CasinoError) as taken:
        actor.confirm("bob", "steal")
    assert taken.value.code == "box_taken"
    actor.clear("bob")
    casino.advance(WINDOW)
    due = inbox.of("alice", ev.DecisionDue)
    assert [(d.box, d.player) for d in due] == [(1, "alice")]
    with pytest.raises(CasinoError) as wrong:
        actor.decide("bob", 1, "stand")
    assert wrong.value.code == "not_your_turn"
    assert actor.decide("alice", 1, "stand") is None
    assert "double" in inbox.of("bob", ev.DecisionDue)[-1].actions
    with pytest.raises(CasinoError) as keyless:
        actor.decide("bob", 2, "double")
    assert keyless.value.code == "missing_key"
    casino.wait(actor.decide("bob", 2, "double", key="bob-double"))
    casino.drain()
    assert casino.balance(wallet("alice", USD)) == 1_100
    assert casino.balance(wallet("bob", USD)) == 1_200
    assert casino.balance(money.bankroll(USD)) == 10_000_000 - 300
    moves = [(m.kind, m.box) for m in inbox.of("alice", ev.BlackjackMove)]
    assert ("double", 2) in moves and moves[-1] == ("round_over", 0)
    own = inbox.of("bob", ev.OwnSettlement)[0]
    assert (own.staked, own.paid) == (200, 400)
    casino.ok()


def test_a_silent_box_stands_when_its_clock_runs_out(casino: Casino) -> None:
    """BJ-16, K-10: nobody decides: the hand stands after `decision_s`; 17 against 17 pushes."""
    casino.fund_house()
    actor, inbox = table(casino, "Th 9d 7h 8d")
    casino.fund_player("alice", 1_000)
    casino.join(actor, "alice")
    box_bet(casino, actor, "alice", 1, 100)
    casino.advance(WINDOW)
    casino.advance(DECIDE - 1)
    assert actor.hand is not None  # still deciding
    casino.advance(1)
    assert inbox.of("alice", ev.OwnSettlement)[0].paid == 100  # push
    assert casino.balance(wallet("alice", USD)) == 1_000
    casino.ok()


class NeverSettles(RoundStore):
    """The process dies after the double, before the settlement lands."""

    def settle(self, *args: Any, **kwargs: Any) -> Deferred[Any]:
        return Deferred()


def test_restart_after_a_double_returns_both_stakes_once(casino: Casino) -> None:
    """K-7, L-5 on restart: the original bet and the double both come back, once."""
    casino.fund_house()
    actor, _ = table(casino, "5h 9d 6s 7d 9c Tc", store=NeverSettles(casino.ledger))
    casino.fund_player("alice", 1_000)
    casino.join(actor, "alice")
    box_bet(casino, actor, "alice", 1, 100)
    casino.advance(WINDOW)
    casino.wait(actor.decide("alice", 1, "double", key="d1"))
    assert casino.balance(wallet("alice", USD)) == 800
    actor.stop()
    again, _ = table(casino, "5h 9d 6s 7d 9c Tc")
    assert [dict(v.refunds) for v in casino.voided_at_start] == [{"alice": 200}]
    assert casino.balance(wallet("alice", USD)) == 1_000
    again.stop()
    third, _ = table(casino, "5h 9d 6s 7d 9c Tc")
    assert casino.voided_at_start == ()
    assert casino.balance(wallet("alice", USD)) == 1_000
    third.stop()
    casino.ok()


def test_insurance_is_a_staked_decision_in_its_window(casino: Casino) -> None:
    """BJ-6, K-4: an Ace up opens the insurance window; insuring posts half the bet first; no
    dealer blackjack: insurance lost, alice's 19 beats the dealer's soft 18."""
    casino.fund_house()
    actor, inbox = table(casino, "Th Ad 9h 7d")
    casino.fund_player("alice", 1_000)
    casino.join(actor, "alice")
    box_bet(casino, actor, "alice", 1, 100)
    casino.advance(WINDOW)
    offered = inbox.of("alice", ev.DecisionDue)[-1]
    assert offered.actions == ("insure", "decline")
    casino.wait(actor.decide("alice", 1, "insure", key="ins"))
    assert casino.balance(wallet("alice", USD)) == 850
    assert "stand" in inbox.of("alice", ev.DecisionDue)[-1].actions
    actor.decide("alice", 1, "stand")
    casino.drain()
    assert casino.balance(wallet("alice", USD)) == 1_050
    casino.ok()


def test_staff_void_during_the_turns_returns_every_stake(casino: Casino) -> None:
    """K-7, L-5: alice has doubled, bob's turn runs: the void returns 200 and 100, no
    settlement follows, the table closes."""
    casino.fund_house()
    actor, inbox = two_boxes(casino, "5h Th 9d 6s 9h 7d 9c Tc")
    casino.wait(actor.decide("alice", 1, "double", key="d1"))
    assert inbox.of("bob", ev.DecisionDue)[-1].box == 2
    voided = casino.wait(actor.void_round("card reader fault"))
    assert dict(voided.refunds) == {"alice": 200, "bob": 100}
    assert casino.balance(wallet("alice", USD)) == casino.balance(wallet("bob", USD)) == 1_000
    with pytest.raises(CasinoError) as late:
        actor.decide("bob", 2, "stand")
    assert late.value.code == "wrong_phase"
    casino.advance(DECIDE * 3)
    assert inbox.of("bob", ev.OwnSettlement) == [] and actor.phase == "closed"
    casino.ok()


def test_a_key_reused_for_another_decision_is_refused_and_applies_nothing(casino: Casino) -> None:
    """P-2: split with key s1, then a double with s1 again (same amount, same round: the ledger
    sees the first transfer) is idempotency_conflict and the hand is not doubled; the same for
    the confirmation's key. A new key doubles; the round settles normally (no void)."""
    casino.fund_house()
    actor, inbox = table(casino, "8s 6d 8d Tc 3c Td 2h 9h")
    casino.fund_player("alice", 1_000)
    casino.join(actor, "alice")
    box_bet(casino, actor, "alice", 1, 100)  # key alice-1
    casino.advance(WINDOW)
    casino.wait(actor.decide("alice", 1, "split", key="s1"))
    assert casino.balance(wallet("alice", USD)) == 800
    for reused in ("s1", "alice-1"):
        with pytest.raises(CasinoError) as refused:
            casino.wait(actor.decide("alice", 1, "double", key=reused))
        assert refused.value.code == "idempotency_conflict"
        assert len(actor.hand.boxes[0].hands[0].cards) == 2  # 8 3: not doubled
    assert casino.balance(wallet("alice", USD)) == 800
    casino.wait(actor.decide("alice", 1, "double", key="d1"))  # 8 3 T = 21
    assert casino.balance(wallet("alice", USD)) == 700
    assert actor.decide("alice", 1, "stand") is None  # hand 2: 8 2
    casino.drain()
    # dealer 6 T = 16 draws 9: bust. Hand 1 (200) +200, hand 2 (100) +100.
    own = inbox.of("alice", ev.OwnSettlement)[0]
    assert (own.staked, own.paid) == (300, 600)
    assert inbox.of("alice", ev.RoundVoided) == []
    assert casino.balance(wallet("alice", USD)) == 1_300
    casino.ok()
