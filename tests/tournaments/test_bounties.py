"""T-14 bounties: deferred progressive, classic knockout and PKO, worked by hand from the rule text.

Amounts are cents. Unless a test says otherwise every entry buys in for 2000 with 5000 bps of it
(1000) going to its bounty. Each test names the wrong implementation it catches.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerroom.engine import VARIANTS, Hand, HandConfig
from pokerroom.engine.cards import FULL_DECK
from tournaments.director import errors
from tournaments.director.bounties import (
    BountyFormat,
    BountyKind,
    BountyPayment,
    BountySettlement,
    BountyState,
    Reason,
    bounty_moves,
    bounty_winners,
    burst_bubble,
    eliminating_pot,
    end_tournament,
    enter,
    settle_knockouts,
    starting_bounty,
)
from tournaments.director.eliminations import Knockout, PotResult
from tournaments.director.errors import DirectorError
from tournaments.director.money import BOUNTY_POOL, HOUSE_ROUNDING, Account, total, wallet
from tournaments.tables.knockouts import hand_knockouts

DEFERRED = BountyFormat(5000)
CLASSIC = BountyFormat(5000, BountyKind.CLASSIC)
PKO = BountyFormat(5000, BountyKind.PROGRESSIVE)
KO, BUBBLE, END = Reason.KNOCKOUT, Reason.BUBBLE, Reason.END


def field(fmt: BountyFormat, *entries: str, buy_in: int = 2000) -> BountyState:
    """Every entry in, each with the starting bounty of `buy_in`."""
    state = BountyState()
    for entry in entries:
        state = enter(state, entry, buy_in, fmt)
    return state


def ko(entry: str, *winners: str, stack: int = 500, seat: int = 1, table: int = 1) -> Knockout:
    """`entry` busted by the winners of the pot that eliminated them."""
    return Knockout(entry, table, stack, seat, winners, "h1")


def pay(reason: Reason, entry: str, source: str, paid: int, added: int = 0) -> BountyPayment:
    """A payment, positionally shorter."""
    return BountyPayment(reason, entry, source, paid, added)


def settle(
    state: BountyState, fmt: BountyFormat, *knockouts: Knockout, paid: int = 2
) -> BountySettlement:
    """Settle one hand's knockouts with `paid` places paid; the state must stay balanced."""
    result = settle_knockouts(state, knockouts, fmt, paid_places=paid)
    assert result.state.balanced
    return result


# ------------------------------------------------------------------ format and starting bounty


def test_starting_bounty_is_the_buy_in_share_rounded_down() -> None:
    """T-14/T-7: 1.09 buy-in, half is bounty: 54 cents (half-up would give 55)."""
    assert starting_bounty(109, DEFERRED) == 54
    assert starting_bounty(2000, BountyFormat(2500)) == 500
    assert starting_bounty(999, BountyFormat(3333)) == 332  # 332.96...: down, not nearest
    assert starting_bounty(0, PKO) == 0  # a freeroll entry brings no bounty
    assert starting_bounty(2000, BountyFormat(10_000)) == 2000


@pytest.mark.parametrize("bps", [0, -1, 10_001])
def test_a_bounty_share_outside_1_to_10000_bps_is_refused(bps: int) -> None:
    """A bounty tournament puts some, at most all, of the buy-in into bounties."""
    with pytest.raises(DirectorError) as refused:
        BountyFormat(bps)
    assert refused.value.code == errors.BAD_PAYOUT_SETTINGS


def test_the_house_default_is_deferred_progressive() -> None:
    """T-14's own text describes the deferred format: it is the default setting."""
    assert BountyFormat(5000).kind is BountyKind.DEFERRED


# ------------------------------------------------------------------ deferred progressive


def test_deferred_knockout_before_the_bubble_moves_the_whole_total_and_pays_nothing() -> None:
    """T-14: before the bubble the busted total joins the winner's; no cash moves.

    Catches paying at the knockout in deferred mode (the classic behaviour).
    """
    state = field(DEFERRED, "a", "b", "c", "d")
    result = settle(state, DEFERRED, ko("a", "b"))
    assert result.payments == (pay(KO, "b", "a", 0, 1000),)
    assert dict(result.state.totals) == {"b": 2000, "c": 1000, "d": 1000}
    assert result.paid == 0 and result.rounding == 0
    assert bounty_moves("t1", result) == ()
    assert not result.state.bubble_burst


def test_deferred_whole_tournament_pays_everything_at_the_bubble_and_nothing_after() -> None:
    """T-14, 4 entries, 2 paid: a busted by b, then b by c on the bubble, then c by d.

    b's total (2000, a's bounty in it) goes to c when b finishes 3rd; the bubble then pays
    c 3000 and d 1000, their own totals; the knockout of c in the money and the end pay nothing.
    """
    state = field(DEFERRED, "a", "b", "c", "d")
    state = settle(state, DEFERRED, ko("a", "b")).state
    bubble = settle(state, DEFERRED, ko("b", "c"))
    assert bubble.payments == (
        pay(KO, "c", "b", 0, 2000),
        pay(BUBBLE, "c", "c", 3000),
        pay(BUBBLE, "d", "d", 1000),
    )
    assert bubble.state.bubble_burst and bubble.state.in_play == 0
    assert bubble.state.paid_out == 4000 == bubble.state.paid_in
    moved = bounty_moves("t1", bubble)
    assert total(moved, wallet("c")) == 3000 and total(moved, wallet("d")) == 1000
    assert total(moved, Account(BOUNTY_POOL, "t1")) == -4000
    after = settle(bubble.state, DEFERRED, ko("c", "d"))
    assert after.payments == () and after.paid == 0
    assert end_tournament(after.state).payments == ()
    assert after.state.paid_out == 4000


def test_deferred_bubble_hand_settles_in_t9_order_not_in_the_order_given() -> None:
    """T-9 + T-14: 3 left, 2 paid; one hand busts b (800 chips) and c (300 chips), both by w.

    c started with fewer chips: c finishes 3rd, the bubble, and c's 1000 goes to w; then the
    bubble pays w 2000 and b, who finishes 2nd in the money, b's own 2000. Taking the input
    order (b first) would pay w 3000 and c 1000.
    """
    state = field(DEFERRED, "a", "b", "c", "w")
    state = settle(state, DEFERRED, ko("a", "b")).state  # b: 2000
    result = settle(state, DEFERRED, ko("b", "w", stack=800), ko("c", "w", stack=300))
    assert result.payments == (
        pay(KO, "w", "c", 0, 1000),
        pay(BUBBLE, "b", "b", 2000),
        pay(BUBBLE, "w", "w", 2000),
    )
    assert result.state.paid_out == 4000


def test_deferred_bubble_hand_equal_stacks_first_left_of_the_button_finishes_lowest() -> None:
    """T-9: equal stacks; c sits first left of the button, so c is the bubble, not b."""
    state = field(DEFERRED, "a", "b", "c", "w")
    state = settle(state, DEFERRED, ko("a", "b")).state  # b: 2000
    result = settle(state, DEFERRED, ko("b", "w", seat=2), ko("c", "w", seat=1))
    assert {(p.entry, p.paid) for p in result.payments if p.paid} == {("b", 2000), ("w", 2000)}


def test_deferred_tie_across_the_bubble_counts_as_in_the_money() -> None:
    """Hand-for-hand, 4 left, 3 paid: b and c tie exactly (places 3-4, sharing the 3rd prize).

    A tie that covers a paid place is in the money: the bubble bursts first, so b and c are
    paid their own totals and their winners get nothing from them.
    """
    state = field(DEFERRED, "b", "c", "w1", "w2")
    b = ko("b", "w1", stack=700, seat=2, table=1)
    c = ko("c", "w2", stack=700, seat=2, table=2)
    result = settle(state, DEFERRED, b, c, paid=3)
    assert {p.entry: p.paid for p in result.payments} == {
        "b": 1000,
        "c": 1000,
        "w1": 1000,
        "w2": 1000,
    }
    assert all(p.reason is BUBBLE for p in result.payments)


def test_deferred_money_reached_without_a_knockout() -> None:
    """The field can be in the money at a hand with no knockout (more places once final, T-6)."""
    state = field(DEFERRED, "a", "b", "c")
    state = settle(state, DEFERRED, ko("a", "b"), paid=1).state  # b: 2000
    burst = burst_bubble(state, DEFERRED)
    assert burst.payments == (pay(BUBBLE, "b", "b", 2000), pay(BUBBLE, "c", "c", 1000))
    again = burst_bubble(burst.state, DEFERRED)
    assert again.payments == () and again.state == burst.state  # bursts once
    # settle_knockouts also bursts an already-reached money before its first knockout
    late = settle(state, DEFERRED, ko("b", "c"), paid=3)
    assert late.payments == (pay(BUBBLE, "b", "b", 2000), pay(BUBBLE, "c", "c", 1000))


def test_deferred_no_bounty_entry_after_the_bubble() -> None:
    """T-5 closes late registration at the money; a deferred bounty would never be paid."""
    state = burst_bubble(field(DEFERRED, "a", "b"), DEFERRED).state
    with pytest.raises(DirectorError) as refused:
        enter(state, "z", 2000, DEFERRED)
    assert refused.value.code == errors.REGISTRATION_CLOSED
    pko = burst_bubble(field(PKO, "a", "b"), PKO).state
    assert enter(pko, "z", 2000, PKO).totals["z"] == 1000


# ------------------------------------------------------------------ split knockout pots


def test_deferred_split_between_two_winners_rounds_down_odd_cent_to_the_house() -> None:
    """T-14/T-7: a 1001 bounty split by b and c: 500 each and 1 to the house (not 501/500)."""
    state = field(DEFERRED, "a", "b", "c", "d", buy_in=2002)  # 1001 each
    result = settle(state, DEFERRED, ko("a", "c", "b"), paid=1)
    assert result.payments == (pay(KO, "b", "a", 0, 500), pay(KO, "c", "a", 0, 500))
    assert result.rounding == 1
    assert dict(result.state.totals) == {"b": 1501, "c": 1501, "d": 1001}
    (rounding,) = bounty_moves("t1", result)  # no cash before the bubble: the rounding alone
    assert (rounding.kind, rounding.destination, rounding.amount) == (
        "rounding",
        Account(HOUSE_ROUNDING, "house"),
        1,
    )


def test_three_winners_split_rounding_down_two_cents_to_the_house() -> None:
    """1001 among 3: 333 each (333.67 would round up to 334), 2 to the house rounding."""
    state = field(CLASSIC, "a", "b", "c", "d", "e", buy_in=2002)
    result = settle(state, CLASSIC, ko("a", "b", "c", "d"), paid=1)
    assert [(p.entry, p.paid, p.added) for p in result.payments] == [
        ("b", 333, 0),
        ("c", 333, 0),
        ("d", 333, 0),
    ]
    assert result.rounding == 2 and result.state.rounding == 2
    moved = bounty_moves("t1", result)
    assert total(moved, Account(HOUSE_ROUNDING, "house")) == 2
    assert total(moved, Account(BOUNTY_POOL, "t1")) == -1001


def test_pko_split_then_halve_odd_cent_onto_the_winners_bounty() -> None:
    """PKO, 1003 split by 2: 501 each (1 to the house); each 250 in cash, 251 onto own bounty."""
    state = field(PKO, "a", "b", "c", "d", buy_in=2006)  # 1003 each
    result = settle(state, PKO, ko("a", "b", "c"), paid=1)
    assert result.payments == (pay(KO, "b", "a", 250, 251), pay(KO, "c", "a", 250, 251))
    assert result.rounding == 1
    assert dict(result.state.totals) == {"b": 1254, "c": 1254, "d": 1003}


def test_pko_three_winners() -> None:
    """PKO, 2003 among 3: 667 each, 2 to the house; each 333 paid, 334 added."""
    state = field(PKO, "a", "b", "c", "d", buy_in=4006)  # 2003 each
    result = settle(state, PKO, ko("a", "d", "b", "c"), paid=1)
    assert {(p.entry, p.paid, p.added) for p in result.payments} == {
        ("b", 333, 334),
        ("c", 333, 334),
        ("d", 333, 334),
    }
    assert result.rounding == 2


def test_a_bounty_smaller_than_the_winners_goes_to_the_house() -> None:
    """1 cent among 2 winners: nobody gets a fraction of a cent (T-7); no zero payments."""
    state = field(DEFERRED, "a", "b", "c", buy_in=2)  # 1 each
    result = settle(state, DEFERRED, ko("a", "b", "c"), paid=1)
    assert result.payments == () and result.rounding == 1


# ------------------------------------------------------------------ progressive knockout


def test_pko_half_paid_half_onto_own_bounty_and_the_winner_collects_their_own() -> None:
    """PKO, 4 entries of 1000: w busts a, c busts w, c busts b, c wins.

    w: 500 cash, total 1500. c busts w: half of 1500 = 750 cash, total 1750. c busts b: 500
    cash, total 2250. End: c collects their own 2250. Paid 500+750+500+2250 = 4000.
    Catches forgetting the winner's own bounty, and adding the whole bounty to the total.
    """
    state = field(PKO, "a", "b", "c", "w")
    first = settle(state, PKO, ko("a", "w"))
    assert first.payments == (pay(KO, "w", "a", 500, 500),)
    assert first.state.totals["w"] == 1500
    second = settle(first.state, PKO, ko("w", "c"))
    assert second.payments == (pay(KO, "c", "w", 750, 750),)
    third = settle(second.state, PKO, ko("b", "c"))
    assert third.payments == (pay(KO, "c", "b", 500, 500),)
    assert dict(third.state.totals) == {"c": 2250}
    end = end_tournament(third.state)
    assert end.payments == (pay(END, "c", "c", 2250),)
    assert end.state.in_play == 0 and end.state.paid_out == 4000 == end.state.paid_in
    assert total(bounty_moves("t1", end), wallet("c")) == 2250


def test_pko_odd_total_pays_the_lower_half() -> None:
    """PKO, a single winner of a 1001 bounty: 500 cash, 501 onto own bounty (not 501 cash)."""
    state = field(PKO, "a", "b", "c", buy_in=2002)
    result = settle(state, PKO, ko("a", "b"), paid=1)
    assert result.payments == (pay(KO, "b", "a", 500, 501),)
    assert result.rounding == 0 and result.state.totals["b"] == 1502


def test_pko_two_knockouts_in_one_hand_by_one_winner() -> None:
    """PKO, one hand: w busts a (300 chips, 10th) and b (900 chips, 9th) holding 1500.

    Payments read in T-9 order, lowest finisher first; the amounts do not depend on the order:
    b's bounty is b's own total, and w's growth from a does not change it.
    """
    state = field(PKO, "a", "b", "c", "w", "x")
    state = settle(state, PKO, ko("c", "b"), paid=1).state  # b: 1500
    result = settle(state, PKO, ko("b", "w", stack=900), ko("a", "w", stack=300), paid=1)
    assert result.payments == (pay(KO, "w", "a", 500, 500), pay(KO, "w", "b", 750, 750))
    assert result.state.totals["w"] == 2250
    swapped = settle(state, PKO, ko("a", "w", stack=300), ko("b", "w", stack=900), paid=1)
    assert swapped == result


def test_pko_and_classic_pay_nothing_at_the_bubble() -> None:
    """Only the deferred format pays at the bubble; PKO and classic just note it."""
    for fmt in (PKO, CLASSIC):
        state = field(fmt, "a", "b", "c")
        result = settle(state, fmt, ko("a", "b"), paid=2)
        assert result.state.bubble_burst
        assert [p.reason for p in result.payments] == [KO]


# ------------------------------------------------------------------ classic knockout


def test_classic_pays_the_fixed_bounty_at_once_and_totals_never_grow() -> None:
    """Classic, 4 entries of 1000: w busts a (1000), b busts w (1000, not 2000), b busts c.

    The winner b also collects the bounty on their own head at the end.
    """
    state = field(CLASSIC, "a", "b", "c", "w")
    first = settle(state, CLASSIC, ko("a", "w"))
    assert first.payments == (pay(KO, "w", "a", 1000),)
    assert first.state.totals["w"] == 1000
    second = settle(first.state, CLASSIC, ko("w", "b"))
    assert second.payments == (pay(KO, "b", "w", 1000),)
    third = settle(second.state, CLASSIC, ko("c", "b"))
    end = end_tournament(third.state)
    assert end.payments == (pay(END, "b", "b", 1000),)
    assert end.state.paid_out == 4000 and end.state.in_play == 0


# ------------------------------------------------------------------ re-entry


def test_reentry_brings_a_new_starting_bounty_from_its_own_buy_in() -> None:
    """T-14: a busted by w (w: 2000), a re-enters for 3000: a new 1500, not the old 1000."""
    state = field(DEFERRED, "a", "w")
    state = settle(state, DEFERRED, ko("a", "w"), paid=0).state
    assert "a" not in state.totals
    state = enter(state, "a", 3000, DEFERRED)
    assert dict(state.totals) == {"a": 1500, "w": 2000}
    assert state.paid_in == 3500 and state.balanced
    with pytest.raises(DirectorError) as refused:
        enter(state, "a", 3000, DEFERRED)
    assert refused.value.code == errors.STILL_IN_PLAY


def test_classic_reentry_busted_twice_pays_twice_under_distinct_keys() -> None:
    """Classic: a busted by w, re-enters, busted by w again: two 1000 payments, two keys."""
    state = field(CLASSIC, "a", "w")
    first = settle(state, CLASSIC, ko("a", "w"), paid=0)
    state = enter(first.state, "a", 2000, CLASSIC)
    second = settle(state, CLASSIC, ko("a", "w"), paid=0)
    keys = [m.key for m in bounty_moves("t1", first) + bounty_moves("t1", second)]
    assert len(keys) == 2 and len(set(keys)) == 2
    assert second.state.paid_out == 2000 and second.state.paid_in == 3000


# ------------------------------------------------------------------ which pot eliminated them


def test_the_bounty_goes_to_the_highest_pot_the_busted_player_contested() -> None:
    """a all-in 300, b all-in 100, c covers: b wins the main pot, c the side pot a was in.

    a's last chips are in the side pot: c knocked a out (main-pot attribution would say b).
    """
    pots = [
        PotResult(frozenset({"a", "b", "c"}), ("b",)),
        PotResult(frozenset({"a", "c"}), ("c",)),
    ]
    assert eliminating_pot("a", pots) == 1
    assert bounty_winners("a", pots) == ("c",)


def test_a_split_eliminating_pot_names_every_winner_once() -> None:
    """A split highest pot names all its winners; the busted player and repeats are dropped."""
    pots = [PotResult(frozenset({"a", "b", "c"}), ("b", "c", "b", "a"))]
    assert bounty_winners("a", pots) == ("b", "c")


def test_a_player_all_in_for_the_ante_alone_is_eliminated_by_the_main_pot() -> None:
    """Chips that went in as an ante lie in the main pot: its winners bust that player."""
    pots = [PotResult(frozenset({"b", "c"}), ("b",)), PotResult(frozenset({"c"}), ("c",))]
    assert eliminating_pot("a", pots) == 0
    assert bounty_winners("a", pots) == ("b",)
    with pytest.raises(ValueError):
        eliminating_pot("a", [])


def test_engine_hand_with_a_side_pot_pays_the_side_pot_winner() -> None:
    """A real engine hand: a (300, QQ), b (100, AA), c (1000, KK) all in; PKO bounties.

    b triples up on the main pot; c wins the side pot and busts a: c gets 500 and 500.
    """
    cards = ["Qs", "Qh", "As", "Ah", "Ks", "Kh", "2c", "7d", "9h", "4s", "3d"]
    rest = [c for c in FULL_DECK if c not in cards]
    random.Random(0).shuffle(rest)
    hand = Hand(
        HandConfig(VARIANTS["NT"], (300, 100, 1000), (1, 2, 0), min_bet=2), rest + cards[::-1]
    )
    while not hand.is_over:
        bounds = hand.raise_bounds(hand.actor)
        if bounds:
            hand.bet_or_raise(hand.actor, bounds[1])
        else:
            hand.check_or_call(hand.actor)
    busted = [i for i, stack in enumerate(hand.stacks) if stack == 0]
    start = {"a": 300, "b": 100, "c": 1000}
    knockouts = hand_knockouts(hand, busted, ["a", "b", "c"], [1, 2, 3], start, (1, 9, 3, "h1"))
    assert [(k.entry, k.busted_by) for k in knockouts] == [("a", ("c",))]
    result = settle(field(PKO, "a", "b", "c"), PKO, *knockouts, paid=1)
    assert result.payments == (pay(KO, "c", "a", 500, 500),)


# ------------------------------------------------------------------ refused inputs


def test_knockouts_that_do_not_fit_the_state_are_refused() -> None:
    """Unknown busted entry, a knockout with no winner, a winner busted in the same hand."""
    state = field(PKO, "a", "b", "c")
    for bad in (
        [ko("z", "b")],
        [ko("a")],
        [ko("a", "b"), ko("b", "c")],
        [ko("a", "z")],
        [ko("a", "b"), ko("a", "c")],
    ):
        with pytest.raises(ValueError):
            settle_knockouts(state, bad, PKO, paid_places=1)


# ------------------------------------------------------------------ conservation, every format


@st.composite
def hand_of_knockouts(draw: st.DrawFn, alive: list[str]) -> list[Knockout]:
    """One hand (or round): 1..3 busted, each by 1..3 winners still in; small stacks to tie."""
    most = min(3, len(alive) - 1)
    busted = draw(st.lists(st.sampled_from(alive), min_size=1, max_size=most, unique=True))
    standing = [e for e in alive if e not in busted]
    return [
        Knockout(
            entry,
            draw(st.integers(1, 2)),
            draw(st.integers(1, 4)),
            draw(st.integers(1, 3)),
            tuple(draw(st.lists(st.sampled_from(standing), min_size=1, max_size=3, unique=True))),
            f"h{i}",
        )
        for i, entry in enumerate(busted)
    ]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(list(BountyKind)),
    share_bps=st.integers(1, 10_000),
    buy_ins=st.lists(st.integers(0, 5003), min_size=2, max_size=9),
    paid_places=st.integers(1, 4),
    data=st.data(),
)
def test_bounty_money_is_conserved_in_every_format(
    kind: BountyKind, share_bps: int, buy_ins: list[int], paid_places: int, data: st.DataObject
) -> None:
    """Paid out + house rounding + totals in play == starting bounties paid in, at every step.

    Random knockouts (split pots, simultaneous knockouts, ties) and re-entries down to one
    player, then the end. Checked from the payments themselves, not only the state's counters;
    plus each format's own shape: deferred pays no knockout in cash and empties every total at
    the bubble, classic totals never grow, PKO halves with the odd cent on the bounty.
    """
    fmt = BountyFormat(share_bps, kind)
    state = BountyState()
    paid_in = 0
    fixed: dict[str, int] = {}
    for i, buy_in in enumerate(buy_ins):
        state = enter(state, f"p{i}", buy_in, fmt)
        paid_in += starting_bounty(buy_in, fmt)
        fixed[f"p{i}"] = starting_bounty(buy_in, fmt)
    paid_out = rounding = 0
    keys: set[str] = set()

    def account(result: BountySettlement) -> None:
        nonlocal paid_out, rounding
        assert result.rounding >= 0
        assert all(p.paid >= 0 and p.added >= 0 and p.paid + p.added > 0 for p in result.payments)
        paid_out += sum(p.paid for p in result.payments)
        rounding += result.rounding
        moved = bounty_moves("t", result)
        assert -total(moved, Account(BOUNTY_POOL, "t")) == result.paid + result.rounding
        for move in moved:
            assert move.key not in keys
            keys.add(move.key)
        assert paid_out + rounding + sum(result.state.totals.values()) == paid_in
        assert result.state.balanced and result.state.paid_out == paid_out

    busted_once: list[str] = []
    reentries = 0
    while len(state.totals) > 1:
        alive = sorted(state.totals)
        reenter = [e for e in busted_once if e not in state.totals]
        open_ = not (kind is BountyKind.DEFERRED and state.bubble_burst)
        if reenter and open_ and reentries < 4 and data.draw(st.integers(0, 3)) == 0:
            reentries += 1
            entry = data.draw(st.sampled_from(reenter))
            buy_in = data.draw(st.integers(0, 5003))
            state = enter(state, entry, buy_in, fmt)
            paid_in += starting_bounty(buy_in, fmt)
            fixed[entry] = starting_bounty(buy_in, fmt)
            continue
        knockouts = data.draw(hand_of_knockouts(alive))
        before = state
        result = settle_knockouts(state, knockouts, fmt, paid_places=paid_places)
        account(result)
        state = result.state
        busted_once += [k.entry for k in knockouts]
        knockout_pays = [p for p in result.payments if p.reason is KO]
        for k in knockouts:  # the busted total, split equally and rounded down (T-7)
            winners = len(set(k.busted_by))
            shared = sum(p.paid + p.added for p in knockout_pays if p.source == k.entry)
            if kind is not BountyKind.DEFERRED:
                assert shared == before.totals[k.entry] // winners * winners
        if kind is BountyKind.DEFERRED:
            assert all(p.paid == 0 for p in knockout_pays)
            assert all(p.reason is BUBBLE for p in result.payments if p.paid)
            if state.bubble_burst:
                assert state.in_play == 0
        elif kind is BountyKind.CLASSIC:
            assert all(p.added == 0 for p in result.payments)
            assert all(state.totals[e] == fixed[e] for e in state.totals)
        else:
            assert all(p.added - p.paid in (0, 1) for p in knockout_pays)
        assert state.bubble_burst == (before.bubble_burst or len(state.totals) <= paid_places)
    end = end_tournament(state)
    account(end)
    assert end.state.in_play == 0
    assert paid_out + rounding == paid_in
