"""T-18 outage refunds: hand-worked examples per case (numbers from the rule text) and properties.

Every expected amount below was worked out by hand from T-18, T-7 and T-5, not by calling the
code. Each example names the wrong implementation it catches.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tournaments.director.payouts import Leftover, PayoutSettings, PrizeTable, prize_table
from tournaments.director.refunds import (
    FeeRefund,
    PlayerAtStop,
    PlayerRefund,
    RefundPhase,
    RefundPlan,
    TournamentAtStop,
    outage_refunds,
    split_by_weights,
)

NOT_STARTED = RefundPhase.NOT_STARTED
BEFORE_MONEY = RefundPhase.BEFORE_MONEY
IN_THE_MONEY = RefundPhase.IN_THE_MONEY


def alive(
    name: str,
    chips: int,
    buy_in: int = 920,
    fee: int = 80,
    live_fee: int | None = None,
    bounty: int = 0,
) -> PlayerAtStop:
    """A remaining player with one entry of 9.20 + 0.80 (T-2) unless told otherwise."""
    live = fee if live_fee is None else live_fee
    return PlayerAtStop(name, buy_in, fee, live_fee=live, chips=chips, bounty=bounty)


def out(name: str, buy_in: int = 920, fee: int = 80, prizes_paid: int = 0) -> PlayerAtStop:
    """A busted player."""
    return PlayerAtStop(name, buy_in, fee, busted=True, prizes_paid=prizes_paid)


# --- Case 1: not started --------------------------------------------------------------------


def test_t18_1_not_started_everyone_gets_every_buy_in_and_fee_back_never_the_guarantee() -> None:
    """T-18.1: A paid one entry (920 + 80), B a bounty entry (500 pool + 400 bounty + 100 fee).

    A gets 920 + 80 = 1000, B 500 + 100 + 400 = 1000. The guarantee of 1,000.00 is no one's
    money: sharing it (a wrong implementation) would hand out far more than 2000."""
    state = TournamentAtStop(
        NOT_STARTED,
        (
            PlayerAtStop("A", 920, 80, live_fee=80),
            PlayerAtStop("B", 500, 100, live_fee=100, bounty=400),
        ),
        guarantee=100_000,
    )
    plan = outage_refunds(state)
    assert plan.refund_for("A") == PlayerRefund("A", fee=80, buy_in=920)
    assert plan.refund_for("B") == PlayerRefund("B", fee=100, buy_in=500, bounty=400)
    assert plan.paid_out == 2000
    assert plan.overlay_returned == 100_000 - 1420  # the overlay: guarantee less the buy-ins
    assert (plan.pool_shared, plan.house_rounding, plan.fees_kept) == (0, 0, 0)


# --- Case 2: started, not in the money ------------------------------------------------------


def case_2_state(guarantee: int = 0) -> TournamentAtStop:
    """Four players at 920 + 80; C re-entered once (two entries), D is out. Chips in play 10,000.

    Prize pool = 5 entries x 920 = 4600. Half equally: 2300 / 3 = 766 each, 2 left over.
    Half by chips, 2300 x chips / 10,000, rounded down:
      A 4999 -> 1149.77 -> 1149; B 3001 -> 690.23 -> 690; C 2000 -> 460; 1 left over.
    Fee back: A 80, B 80, C 80 (the fee of the entry still in play), D nothing (busted).
    """
    return TournamentAtStop(
        BEFORE_MONEY,
        (
            alive("A", 4999),
            alive("B", 3001),
            alive("C", 2000, buy_in=1840, fee=160, live_fee=80),
            out("D"),
        ),
        guarantee=guarantee,
    )


def test_t18_2_half_equally_half_by_chips_rounded_down_fee_to_remaining_only() -> None:
    """T-18.2 with T-7. Catches: rounding half-up (A's 1149.77 would be 1150), fees to busted
    players (D would get 80), all of a re-entrant's fees (C would get 160), splitting the pool
    all by chips or all equally."""
    plan = outage_refunds(case_2_state())
    assert plan.refund_for("A") == PlayerRefund(
        "A", fee=80, pool_equal_share=766, pool_chip_share=1149
    )
    assert plan.refund_for("B") == PlayerRefund(
        "B", fee=80, pool_equal_share=766, pool_chip_share=690
    )
    assert plan.refund_for("C") == PlayerRefund(
        "C", fee=80, pool_equal_share=766, pool_chip_share=460
    )
    assert plan.refund_for("D") == PlayerRefund("D")
    assert [r.total for r in plan.refunds] == [1995, 1536, 1306, 0]
    assert plan.house_rounding == 3  # 2 from the equal half, 1 from the chip half
    assert plan.fees_kept == 160  # D's fee and the fee of C's busted first entry
    assert plan.pool_shared == 4597
    assert plan.overlay_returned == 0
    # what the players paid in (4 x 1000 + C's re-entry 1000) = refunds + rounding + fees kept
    assert plan.paid_out + plan.house_rounding + plan.fees_kept == 5000


def test_t18_2_fee_setting_all_entries_gives_a_re_entrant_every_fee() -> None:
    """T-18.2 with `FeeRefund.ALL_ENTRIES`: C gets both fees, 160; D (busted) still nothing."""
    plan = outage_refunds(case_2_state(), FeeRefund.ALL_ENTRIES)
    assert plan.refund_for("C").fee == 160
    assert plan.refund_for("D") == PlayerRefund("D")
    assert plan.fees_kept == 80


def test_t18_2_guarantee_not_reached_shares_only_what_entries_paid_in() -> None:
    """T-18 guarantee clause: a 100.00 guarantee with 46.00 collected. The shares are the same
    as without a guarantee (766 equal, 1149 by chips for A); sharing the guaranteed 10,000
    (a wrong implementation) would give A 1666 + 2499. The 54.00 overlay goes back."""
    plan = outage_refunds(case_2_state(guarantee=10_000))
    assert plan.refund_for("A") == PlayerRefund(
        "A", fee=80, pool_equal_share=766, pool_chip_share=1149
    )
    assert plan.pool_shared == 4597
    assert plan.overlay_returned == 5400


def test_t18_2_bounties_go_back_to_their_holders() -> None:
    """T-18.2 with T-14: entries of 500 pool + 400 bounty + 100 fee. D was knocked out by A,
    so A holds 800 of bounty, B and C 400 each. Pool 4 x 500 = 2000: equal 1000 / 3 = 333
    (1 left), chips 1000 x 6000 / 12,000 = 500 for A, 250 for B and C.
    A: 100 + 800 + 333 + 500 = 1733; B and C: 100 + 400 + 333 + 250 = 1083."""
    players = (
        alive("A", 6000, buy_in=500, fee=100, bounty=800),
        alive("B", 3000, buy_in=500, fee=100, bounty=400),
        alive("C", 3000, buy_in=500, fee=100, bounty=400),
        out("D", buy_in=500, fee=100),
    )
    plan = outage_refunds(TournamentAtStop(BEFORE_MONEY, players))
    assert [r.total for r in plan.refunds] == [1733, 1083, 1083, 0]
    assert plan.refund_for("A").bounty == 800
    assert plan.house_rounding == 1
    assert plan.paid_out + plan.house_rounding + plan.fees_kept == 4 * 1000


def test_t18_2_an_odd_pool_s_odd_cent_goes_to_the_chip_half() -> None:
    """T-18.2, T-7: pool 101 among two players with 1 and 3 chips. Equal half 50 -> 25 each;
    chip half 51 -> 12.75 -> 12 and 38.25 -> 38, 1 left over."""
    players = (alive("A", 1, buy_in=50, fee=0), alive("B", 3, buy_in=51, fee=0))
    plan = outage_refunds(TournamentAtStop(BEFORE_MONEY, players))
    assert [(r.pool_equal_share, r.pool_chip_share) for r in plan.refunds] == [(25, 12), (25, 38)]
    assert plan.house_rounding == 1


# --- Case 3: in the money ---------------------------------------------------------------------


def case_3_players(fourth_prize: int) -> tuple[PlayerAtStop, ...]:
    """Ten entries of 920 + 80; E finished 4th (paid), six others out; 30,000 chips in play."""
    return (
        alive("A", 15_001),
        alive("B", 9_999),
        alive("C", 5_000),
        out("E", prizes_paid=fourth_prize),
        *(out(f"X{i}") for i in range(6)),
    )


def test_t18_3_each_gets_the_next_prize_then_the_rest_by_chips() -> None:
    """T-18.3: prizes 4000 / 2600 / 1600 / 1000 (9200), 4th already paid to E, 3 left.
    Unpaid 4000 + 2600 + 1600 = 8200. Next player out would take 3rd: 1600 to each (4800).
    The other 3400 by chips / 30,000: A 1700.11 -> 1700, B 1133.29 -> 1133, C 566.67 -> 566,
    1 left over. Catches: the prize of place 4 (1000) or 2 (2600) as the next prize, rounding
    half-up (C 567), sharing the prize already paid, and fees to busted players."""
    table = PrizeTable(9200, (4000, 2600, 1600, 1000))
    plan = outage_refunds(TournamentAtStop(IN_THE_MONEY, case_3_players(1000), prizes=table))
    assert plan.refund_for("A") == PlayerRefund("A", fee=80, next_prize=1600, pool_chip_share=1700)
    assert plan.refund_for("B") == PlayerRefund("B", fee=80, next_prize=1600, pool_chip_share=1133)
    assert plan.refund_for("C") == PlayerRefund("C", fee=80, next_prize=1600, pool_chip_share=566)
    assert [r.total for r in plan.refunds[:4]] == [3380, 2813, 2246, 0]
    assert plan.house_rounding == 1
    assert plan.fees_kept == 7 * 80
    assert plan.pool_shared == 8199
    # paid in 10 x 1000, less E's 1000 prize, = refunds + rounding + fees kept
    assert plan.paid_out + plan.house_rounding + plan.fees_kept == 10_000 - 1000


def test_t18_3_guarantee_not_reached_caps_the_shared_money_at_what_entries_paid() -> None:
    """T-18 guarantee clause in the money: 9200 collected, 10,000 guaranteed (800 overlay),
    prizes 4000 / 2800 / 2000 / 1200, E paid 1200. Unpaid 8800, but only 9200 - 1200 = 8000
    of paid-in money is left: 2000 (3rd place) to each, 2000 by chips: A 1000.07 -> 1000,
    B 666.6 -> 666, C 333.3 -> 333, 1 left over; 800 goes back to the house overlay.
    Sharing the unpaid guaranteed money (wrong) would give 2800 by chips."""
    table = PrizeTable(10_000, (4000, 2800, 2000, 1200))
    state = TournamentAtStop(IN_THE_MONEY, case_3_players(1200), guarantee=10_000, prizes=table)
    plan = outage_refunds(state)
    assert [r.total for r in plan.refunds[:3]] == [3080, 2746, 2413]
    assert plan.refund_for("A").next_prize == 2000
    assert plan.pool_shared == 7999
    assert plan.house_rounding == 1
    assert plan.overlay_returned == 800


def test_t18_3_when_the_cap_cannot_cover_the_next_prizes_the_paid_in_rest_is_shared_equally() -> (
    None
):
    """T-18 guarantee clause: 9200 collected, 20,000 guaranteed; prizes 8000 / 5000 / 4000 /
    3000, E paid 3000. Only 9200 - 3000 = 6200 is left to share, less than 3 x 4000: each gets
    6200 / 3 = 2066 (2 left over), nothing by chips; 17,000 - 6200 = 10,800 goes back."""
    table = PrizeTable(20_000, (8000, 5000, 4000, 3000))
    state = TournamentAtStop(IN_THE_MONEY, case_3_players(3000), guarantee=20_000, prizes=table)
    plan = outage_refunds(state)
    assert [r.total for r in plan.refunds[:3]] == [2146, 2146, 2146]
    assert plan.refund_for("A") == PlayerRefund("A", fee=80, next_prize=2066)
    assert plan.house_rounding == 2
    assert plan.overlay_returned == 10_800


def test_t18_3_with_t5_guarantee_dropped_at_the_money_the_table_on_paid_in_money_is_shared() -> (
    None
):
    """T-5: late registration closed at the money, so the 10,000 guarantee no longer applies:
    the table shares the 9200 collected, all of its unpaid prizes are shared (as without a
    guarantee: A 3380, B 2813, C 2246). A table over the guarantee is refused."""
    table = PrizeTable(9200, (4000, 2600, 1600, 1000))
    state = TournamentAtStop(
        IN_THE_MONEY,
        case_3_players(1000),
        guarantee=10_000,
        guarantee_dropped=True,
        prizes=table,
    )
    plan = outage_refunds(state)
    assert [r.total for r in plan.refunds[:3]] == [3380, 2813, 2246]
    assert plan.overlay_returned == 0
    with pytest.raises(ValueError, match="T-6"):
        outage_refunds(replace(state, prizes=PrizeTable(10_000, (4000, 2800, 2000, 1200))))


def test_t18_3_bounties_still_held_in_the_money_go_back() -> None:
    """T-18.3 in a progressive knockout (a T-14 setting), where bounties stay in play: 3 entries
    of 500 + 400 bounty + 100 fee, C out in 3rd (unpaid), 2 places pay 1000 / 500. The next
    player out takes 2nd: 500 each; the other 500 by chips 1000 : 4000 -> 100 and 400.
    A: 100 + 300 bounty + 500 + 100 = 1000; B: 100 + 500 bounty + 500 + 400 = 1500."""
    table = PrizeTable(1500, (1000, 500))
    players = (
        alive("A", 1000, buy_in=500, fee=100, bounty=300),
        alive("B", 4000, buy_in=500, fee=100, bounty=500),
        out("C", buy_in=500, fee=100),
    )
    plan = outage_refunds(TournamentAtStop(IN_THE_MONEY, players, prizes=table))
    assert [r.total for r in plan.refunds] == [1000, 1500, 0]
    assert plan.refund_for("B") == PlayerRefund(
        "B", fee=100, next_prize=500, pool_chip_share=400, bounty=500
    )


# --- States no tournament can be in ---------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (TournamentAtStop(BEFORE_MONEY, (alive("A", 0),)), "must have chips"),
        (TournamentAtStop(BEFORE_MONEY, (out("A"),)), "remaining player"),
        (TournamentAtStop(BEFORE_MONEY, (alive("A", 5), alive("A", 5))), "twice"),
        (TournamentAtStop(BEFORE_MONEY, (alive("A", 5, live_fee=81),)), "live_fee"),
        (
            TournamentAtStop(BEFORE_MONEY, (alive("A", 5), replace(out("B"), chips=3))),
            "busted",
        ),
        (TournamentAtStop(NOT_STARTED, (out("A"),)), "before the start"),
        (TournamentAtStop(IN_THE_MONEY, (alive("A", 5),)), "T-5"),
        (
            TournamentAtStop(
                IN_THE_MONEY, (alive("A", 5), alive("B", 5)), prizes=PrizeTable(1840, (1840,))
            ),
            "T-5",
        ),
        (
            TournamentAtStop(
                BEFORE_MONEY, (alive("A", 5), alive("B", 5)), prizes=PrizeTable(1840, (1000, 840))
            ),
            "money",
        ),
        (
            TournamentAtStop(
                IN_THE_MONEY,
                (alive("A", 5), out("B", prizes_paid=900)),
                prizes=PrizeTable(1840, (1000, 840)),
            ),
            "more prizes paid",
        ),
    ],
)
def test_t18_a_state_no_tournament_can_be_in_is_refused(
    state: TournamentAtStop, reason: str
) -> None:
    """A refund never guesses: inconsistent states raise ValueError."""
    with pytest.raises(ValueError, match=reason):
        outage_refunds(state)


def test_t7_split_by_weights_rounds_each_share_down() -> None:
    """T-7: 10 by 1 : 1 : 1 is 3 each and 1 left; 7 by 1 : 2 is 2 and 4 (not 2 and 5), 1 left."""
    assert split_by_weights(10, [1, 1, 1]) == ((3, 3, 3), 1)
    assert split_by_weights(7, [1, 2]) == ((2, 4), 1)
    with pytest.raises(ValueError):
        split_by_weights(7, [0, 0])


# --- Properties -------------------------------------------------------------------------------

PROPERTY = settings(derandomize=True, max_examples=300, deadline=None)


@st.composite
def started_states(draw: st.DrawFn, phase: RefundPhase) -> TournamentAtStop:
    """A started tournament: 1..30 players, some re-entered, some out, bounties on some."""
    count = draw(st.integers(1 if phase is BEFORE_MONEY else 2, 30))
    buy_in = draw(st.integers(0, 20_000))
    fee = draw(st.integers(0, 2_000))
    bounty = draw(st.sampled_from([0, 0, draw(st.integers(1, 5_000))]))
    left = draw(st.integers(1, count))
    players = []
    for index in range(count):
        entries = draw(st.integers(1, 3))
        busted = index >= left
        players.append(
            PlayerAtStop(
                f"p{index:02}",
                buy_in * entries,
                fee * entries,
                live_fee=0 if busted else fee,
                chips=0 if busted else draw(st.integers(1, 10**7)),
                bounty=0 if busted else draw(st.integers(0, 3)) * bounty,
                busted=busted,
            )
        )
    collected = sum(p.buy_in for p in players)
    short = collected + draw(st.integers(1, 2 * collected + 10))  # an overlay (T-6)
    guarantee = draw(st.sampled_from([0, collected, short, short, draw(st.integers(0, short))]))
    state = TournamentAtStop(phase, tuple(players), guarantee=guarantee)
    if phase is BEFORE_MONEY:
        return state
    dropped = draw(st.sampled_from([False, False, True]))  # T-5
    entries_total = count + draw(st.integers(0, 2 * count))
    config = PayoutSettings(leftover=draw(st.sampled_from(list(Leftover))))
    table = prize_table(entries_total, collected + (0 if dropped else state.overlay), config)
    assume(left <= table.paid_places <= count)
    paid = {f"p{index:02}": table.prize(index + 1) for index in range(left, table.paid_places)}
    players = [replace(p, prizes_paid=paid.get(p.player, 0)) for p in players]
    return replace(state, players=tuple(players), guarantee_dropped=dropped, prizes=table)


def check_common(state: TournamentAtStop, plan: RefundPlan, fee_refund: FeeRefund) -> None:
    """What every started case keeps: the money adds up, nothing negative, T-7 rest bounds."""
    remaining = state.remaining
    paid_prizes = sum(p.prizes_paid for p in state.players)
    table_rounding = state.prizes.rounding if state.prizes is not None else 0
    paid_in = sum(p.buy_in + p.fee + p.bounty for p in state.players)  # bounties as now held
    assert (
        plan.paid_out + plan.house_rounding + plan.fees_kept + table_rounding
        == paid_in + state.overlay - plan.overlay_returned - paid_prizes
    )
    assert all(amount >= 0 for r in plan.refunds for _, amount in r.components())
    assert min(plan.house_rounding, plan.overlay_returned, plan.fees_kept) >= 0
    for player, refund in zip(state.players, plan.refunds, strict=True):
        assert refund.player == player.player
        assert refund.buy_in == 0  # buy-ins come back only before the start
        if player.busted:
            assert refund.total == 0  # T-18.2/3: remaining players only
        else:
            assert refund.bounty == player.bounty
            expected_fee = player.live_fee if fee_refund is FeeRefund.LIVE_ENTRY else player.fee
            assert refund.fee == expected_fee
    # the guarantee clause: prizes paid plus money shared never beyond what entries paid in,
    # unless there is no overlay to keep back
    if state.overlay:
        assert plan.pool_shared + paid_prizes <= max(state.collected, paid_prizes)
    else:
        assert plan.overlay_returned == 0
    chips = [p.chips for p in remaining]
    shares = [plan.refund_for(p.player).pool_chip_share for p in remaining]
    for (c1, s1), (c2, s2) in itertools.combinations(zip(chips, shares, strict=True), 2):
        assert (c1 - c2) * (s1 - s2) >= 0  # more chips never gets less


@PROPERTY
@given(state=started_states(BEFORE_MONEY), fee_refund=st.sampled_from(list(FeeRefund)))
def test_t18_2_properties(state: TournamentAtStop, fee_refund: FeeRefund) -> None:
    """T-18.2: the pool is the paid-in money, half equal, half by chips rounded down (T-7)."""
    plan = outage_refunds(state, fee_refund)
    check_common(state, plan, fee_refund)
    remaining = state.remaining
    pool = state.collected
    assert plan.pool_shared + plan.house_rounding == pool
    assert plan.overlay_returned == state.overlay
    equal_half, chip_half = pool // 2, pool - pool // 2
    total_chips = sum(p.chips for p in remaining)
    equal_rest = equal_half - len(remaining) * plan.refund_for(remaining[0].player).pool_equal_share
    assert 0 <= equal_rest < len(remaining)
    chip_rest = chip_half - sum(r.pool_chip_share for r in plan.refunds)
    assert 0 <= chip_rest < len(remaining)
    for p in remaining:
        refund = plan.refund_for(p.player)
        assert refund.pool_equal_share * len(remaining) <= equal_half
        assert equal_half < (refund.pool_equal_share + 1) * len(remaining)
        # rounded down, never up: share <= exact < share + 1
        assert refund.pool_chip_share * total_chips <= chip_half * p.chips
        assert chip_half * p.chips < (refund.pool_chip_share + 1) * total_chips
        assert refund.next_prize == 0


@PROPERTY
@given(state=started_states(IN_THE_MONEY), fee_refund=st.sampled_from(list(FeeRefund)))
def test_t18_3_properties(state: TournamentAtStop, fee_refund: FeeRefund) -> None:
    """T-18.3: the next prize (place N) to each first, the rest by chips, T-7 rest < N."""
    assert state.prizes is not None
    plan = outage_refunds(state, fee_refund)
    check_common(state, plan, fee_refund)
    remaining = state.remaining
    left = len(remaining)
    unpaid = sum(state.prizes.amounts[:left])
    assert plan.pool_shared + plan.house_rounding + plan.overlay_returned == unpaid
    assert 0 <= plan.house_rounding < left
    firsts = {plan.refund_for(p.player).next_prize for p in remaining}
    assert len(firsts) == 1
    first = firsts.pop()
    if plan.overlay_returned == 0:
        assert first == state.prizes.prize(left)  # the place the next player out would take
    else:
        assert first <= state.prizes.prize(left)
    rest = plan.pool_shared + plan.house_rounding - left * first
    total_chips = sum(p.chips for p in remaining)
    for p in remaining:
        refund = plan.refund_for(p.player)
        assert refund.pool_equal_share == 0
        if first == state.prizes.prize(left):
            assert refund.pool_chip_share * total_chips <= rest * p.chips
            assert rest * p.chips < (refund.pool_chip_share + 1) * total_chips


@PROPERTY
@given(
    players=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 10**5), st.integers(0, 10**5)),
        max_size=20,
    ),
    guarantee=st.integers(0, 10**7),
)
def test_t18_1_properties(players: list[tuple[int, int, int]], guarantee: int) -> None:
    """T-18.1: each registered player gets back exactly what they paid; nothing else moves."""
    state = TournamentAtStop(
        NOT_STARTED,
        tuple(
            PlayerAtStop(f"p{i}", b, f, live_fee=f, bounty=k) for i, (b, f, k) in enumerate(players)
        ),
        guarantee=guarantee,
    )
    plan = outage_refunds(state)
    for player, refund in zip(state.players, plan.refunds, strict=True):
        assert refund == PlayerRefund(
            player.player, fee=player.fee, buy_in=player.buy_in, bounty=player.bounty
        )
    assert plan.paid_out == sum(b + f + k for b, f, k in players)
    assert plan.house_rounding == plan.fees_kept == plan.pool_shared == 0
    assert plan.overlay_returned == state.overlay


def test_t17_hook_components_add_up_to_the_total() -> None:
    """T-17: the staking split can share each named part; the parts add up to the total."""
    refund = PlayerRefund("A", fee=80, pool_equal_share=766, pool_chip_share=1149, bounty=5)
    assert dict(refund.components()) == {
        "fee": 80,
        "buy_in": 0,
        "pool_equal_share": 766,
        "pool_chip_share": 1149,
        "next_prize": 0,
        "bounty": 5,
    }
    assert refund.total == 2000
    assert refund.from_pool == 1915
