"""T-13 deals as a state machine: requests, the pause, the proposal, answers by the deadline.

The worked table: A 5,000, B 3,000, C 2,000 chips; prizes 5,000.00 / 3,000.00 / 2,000.00 (cents
below). ICM by hand: everyone is sure of the 2,000.00 floor; above it first pays 3,000.00 more
and second 1,000.00 more. P(first) = 1/2, 3/10, 1/5; P(A second) = 0.3·50/70 + 0.2·50/80 =
19/56, P(B second) = 0.5·30/50 + 0.2·30/80 = 3/8, P(C second) = 0.5·20/50 + 0.3·20/70 = 2/7.
A = 200,000 + 150,000 + 100,000·19/56 = 383,928.57 → 383,928
B = 200,000 + 90,000 + 37,500 = 327,500
C = 200,000 + 60,000 + 100,000·2/7 = 288,571.43 → 288,571; 1 cent to house rounding (T-7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tournaments.director import errors
from tournaments.director.deal_flow import (
    DealAction,
    DealFlow,
    DealKind,
    DealPhase,
    DealRecord,
    DealSettings,
    Rejection,
    Situation,
    accept,
    cancel_request,
    deal_payments,
    eligible,
    expire,
    propose,
    refresh,
    reject,
    request_deal,
)
from tournaments.director.deals import DealMethod
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    MoneyMove,
    house,
    prize_pool,
    total,
    wallet,
)
from tournaments.director.staking import StakingBook, buy, offer, tournament_started

PROPERTY = settings(derandomize=True, max_examples=150, deadline=None)
T = "fri-50"
POOL = prize_pool(T)
TABLE = Situation((("A", 5000), ("B", 3000), ("C", 2000)), (500_000, 300_000, 200_000), True)
ON = DealSettings(allowed=True)


def code(error: pytest.ExceptionInfo[DirectorError]) -> str:
    """The stable code of a refusal."""
    return error.value.code


def everyone_asked(flow: DealFlow, situation: Situation = TABLE) -> DealFlow:
    """Every remaining player asks; the last request pauses the tables."""
    actions = []
    for player in situation.players:
        step = request_deal(flow, situation, player)
        flow = step.flow
        actions.append(step.action)
    assert actions[-1] is DealAction.PAUSE
    assert set(actions[:-1]) <= {DealAction.WAIT}
    return flow


def proposed(settings_: DealSettings = ON, now: float = 1000.0) -> DealFlow:
    """The worked table asked for a deal and the system proposed one at `now`."""
    step = propose(everyone_asked(DealFlow(settings_)), TABLE, now)
    assert step.action is DealAction.ANSWER
    return step.flow


# Hand-worked examples ------------------------------------------------------------------------


def test_t13_icm_deal_all_accept_and_it_is_paid_at_once() -> None:
    """T-13: requests, pause, the ICM figures shown to all, three accepts, paid from the pool."""
    flow = DealFlow(ON)
    step = request_deal(flow, TABLE, "A")
    assert step.action is DealAction.WAIT and step.flow.phase is DealPhase.OPEN
    assert request_deal(step.flow, TABLE, "A").flow == step.flow  # asking twice is asking once
    flow = everyone_asked(step.flow)
    assert flow.phase is DealPhase.PAUSING
    flow = propose(flow, TABLE, 1000.0).flow
    assert flow.proposal is not None
    assert flow.proposal.figures == (("A", 383_928), ("B", 327_500), ("C", 288_571))
    assert flow.proposal.deal.rounding == 1 and flow.proposal.deal.reserved == 0
    assert flow.proposal.kind is DealKind.ICM
    assert flow.proposal.deadline == 1060.0
    flow = accept(flow, "A", 1010.0).flow
    step = accept(flow, "C", 1020.0)
    assert step.action is DealAction.WAIT and step.flow.phase is DealPhase.PROPOSED
    step = accept(step.flow, "B", 1059.5)
    assert step.action is DealAction.PAY and step.flow.phase is DealPhase.DONE
    assert step.flow.record == DealRecord(
        "1",
        DealKind.ICM,
        ("A", "B", "C"),
        (5000, 3000, 2000),
        (383_928, 327_500, 288_571),
        1,
        0,
        1059.5,
    )
    record = step.flow.record
    assert record.remaining_prizes == ()  # nothing left to play for: the tournament ends
    paid = deal_payments(T, record)
    assert paid == (
        MoneyMove("prize", POOL, wallet("A"), 383_928, f"{T}:deal:1:A"),
        MoneyMove("prize", POOL, wallet("B"), 327_500, f"{T}:deal:1:B"),
        MoneyMove("prize", POOL, wallet("C"), 288_571, f"{T}:deal:1:C"),
        MoneyMove("rounding", POOL, house(HOUSE_ROUNDING), 1, f"{T}:deal:1:rounding"),
    )
    assert total(paid, POOL) == -1_000_000
    with pytest.raises(DirectorError) as refused:
        request_deal(step.flow, TABLE, "A")  # one deal per tournament
    assert code(refused) == errors.DEAL_NOT_ALLOWED


def test_t13_amount_left_to_play_for_comes_off_the_first_prize() -> None:
    """T-13: 500.00 left to play for: the deal shares 4,500.00 / 3,000.00 / 2,000.00.

    Above the floor first pays 250,000 more: A = 200,000 + 125,000 + 33,928.57 → 358,928,
    B = 200,000 + 75,000 + 37,500 = 312,500, C = 200,000 + 50,000 + 28,571.43 → 278,571;
    1 cent of rounding; 50,000 stays in the pool for the winner.
    """
    flow = proposed(DealSettings(allowed=True, left_to_play_for=50_000))
    assert flow.proposal is not None
    assert flow.proposal.figures == (("A", 358_928), ("B", 312_500), ("C", 278_571))
    for player in ("A", "B", "C"):
        step = accept(flow, player, 1001.0)
        flow = step.flow
    assert step.action is DealAction.PAY and flow.record is not None
    assert flow.record.left_to_play_for == 50_000
    assert flow.record.remaining_prizes == (50_000,)  # first place, by the final result
    paid = deal_payments(T, flow.record)
    assert total(paid, POOL) == -950_000
    assert total(paid, house(HOUSE_ROUNDING)) == 1


def test_t13_chip_chop_gives_the_floor_then_chips() -> None:
    """T-13: chip-chop: 200,000 each, the other 400,000 by chips: 400,000 / 320,000 / 280,000."""
    flow = proposed(DealSettings(allowed=True, method=DealMethod.CHIP_CHOP))
    assert flow.proposal is not None and flow.proposal.kind is DealKind.CHIP_CHOP
    assert flow.proposal.figures == (("A", 400_000), ("B", 320_000), ("C", 280_000))
    assert flow.proposal.deal.rounding == 0


def test_t13_heads_up_icm() -> None:
    """Two players, 3,000 and 1,000 chips, prizes 1,000.00 / 600.00: A wins 3/4 of the time:
    A = 60,000 + 40,000·3/4 = 90,000, B = 60,000 + 10,000 = 70,000."""
    two = Situation((("A", 3000), ("B", 1000)), (100_000, 60_000), True)
    flow = propose(everyone_asked(DealFlow(ON), two), two, 5.0).flow
    assert flow.proposal is not None
    assert flow.proposal.figures == (("A", 90_000), ("B", 70_000))


def test_t13_figures_use_the_stacks_when_the_tables_have_paused() -> None:
    """The proposal is computed at the pause, not at the last request: a hand finished since
    moved 1,000 chips from A to C, so A, B, C hold 4,000, 3,000, 3,000."""
    flow = everyone_asked(DealFlow(ON))
    later = Situation((("A", 4000), ("B", 3000), ("C", 3000)), TABLE.prizes, True)
    step = propose(flow, later, 1000.0)
    assert step.flow.proposal is not None
    assert step.flow.proposal.stacks == (4000, 3000, 3000)
    # B and C are now equal: equal figures (ICM is symmetric), none of the old ones.
    figures = dict(step.flow.proposal.figures)
    assert figures["B"] == figures["C"]
    assert figures["A"] != 383_928


def test_t13_one_rejection_and_play_resumes_as_it_was() -> None:
    """T-13: B rejects: RESUME; nothing is paid, every request is cleared, the rejection kept."""
    flow = proposed()
    flow = accept(flow, "A", 1001.0).flow
    step = reject(flow, "B", 1030.0)
    assert step.action is DealAction.RESUME
    assert step.flow.phase is DealPhase.OPEN
    assert step.flow.requests == frozenset() and step.flow.proposal is None
    assert step.flow.record is None
    assert step.flow.rejections == (Rejection("1", "B", 1030.0),)
    # A new deal needs everyone to ask again: one request does not pause anything.
    again = request_deal(step.flow, TABLE, "A")
    assert again.action is DealAction.WAIT
    flow = propose(everyone_asked(step.flow), TABLE, 2000.0).flow
    assert flow.proposal is not None and flow.proposal.deal_id == "2"
    # A player who accepted may change their mind until everyone has accepted.
    flow = accept(accept(flow, "A", 2001.0).flow, "B", 2002.0).flow
    changed = reject(flow, "A", 2003.0)
    assert changed.action is DealAction.RESUME and changed.flow.record is None


def test_t13_silence_is_a_rejection_at_the_deadline() -> None:
    """T-13: A and B accept, C says nothing: at the deadline the deal fails, play resumes."""
    flow = proposed()
    flow = accept(flow, "A", 1001.0).flow
    flow = accept(flow, "B", 1002.0).flow
    early = expire(flow, 1059.999)
    assert early.action is DealAction.WAIT and early.flow == flow
    with pytest.raises(DirectorError) as refused:
        accept(flow, "C", 1060.0)  # exactly at the deadline is too late
    assert code(refused) == errors.DEAL_EXPIRED
    with pytest.raises(DirectorError) as refused:
        reject(flow, "C", 1060.0)
    assert code(refused) == errors.DEAL_EXPIRED
    step = expire(flow, 1060.0)
    assert step.action is DealAction.RESUME  # two accepts and a silence are no deal
    assert step.flow.phase is DealPhase.OPEN and step.flow.record is None
    assert step.flow.rejections == (Rejection("1", None, 1060.0),)
    assert expire(step.flow, 2000.0).action is DealAction.WAIT  # nothing left to expire


def test_t13_staff_custom_split() -> None:
    """A staff split must share exactly the money dealt and give nobody less than 2,000.00."""
    flow = everyone_asked(DealFlow(ON))
    step = propose(flow, TABLE, 10.0, custom=(400_000, 330_000, 270_000))
    assert step.flow.proposal is not None and step.flow.proposal.kind is DealKind.CUSTOM
    assert step.flow.proposal.deal.rounding == 0
    assert step.flow.proposal.figures == (("A", 400_000), ("B", 330_000), ("C", 270_000))
    for bad in (
        (400_000, 330_000, 269_999),  # a cent short
        (400_000, 330_000, 270_001),  # a cent over
        (410_000, 400_000, 190_000),  # sums, but C gets less than the next payout
        (500_000, 500_000),  # one amount missing
    ):
        with pytest.raises(DirectorError) as refused:
            propose(flow, TABLE, 10.0, custom=bad)
        assert code(refused) == errors.BAD_DEAL, bad
    reserve = everyone_asked(DealFlow(DealSettings(allowed=True, left_to_play_for=50_000)))
    with pytest.raises(DirectorError) as refused:
        propose(reserve, TABLE, 10.0, custom=(400_000, 330_000, 270_000))
    assert code(refused) == errors.BAD_DEAL  # 9,500.00 is dealt, not 10,000.00
    made = propose(reserve, TABLE, 10.0, custom=(400_000, 300_000, 250_000)).flow
    assert made.proposal is not None and made.proposal.deal.reserved == 50_000
    # Before the money (3 players, 2 prizes) the next player out wins nothing: no floor.
    bubble = Situation(TABLE.stacks, (700_000, 300_000), True)
    start = everyone_asked(DealFlow(ON), bubble)
    ok = propose(start, bubble, 10.0, custom=(600_000, 400_000, 0)).flow
    assert ok.proposal is not None and ok.proposal.figures[2] == ("C", 0)


def test_t13_deal_with_stakers_is_shared_in_the_same_payment() -> None:
    """T-13/T-17: A sold 20 % to S: A's 383,928 is 307,142 to A (307,142.4), 76,785 to S
    (76,785.6), 1 cent to house rounding; with the deal's own cent, 2 cents to the house."""
    book = offer(StakingBook(T, 10_000), "A", 2000, registered=True).book
    book = tournament_started(buy(book, "S", "o1", 2000, key="k").book).book
    flow = proposed()
    for player in ("A", "B", "C"):
        flow = accept(flow, player, 1001.0).flow
    assert flow.record is not None
    paid = deal_payments(T, flow.record, book)
    assert total(paid, wallet("A")) == 307_142
    assert total(paid, wallet("S")) == 76_785
    assert total(paid, wallet("B")) == 327_500
    assert total(paid, house(HOUSE_ROUNDING)) == 2
    assert total(paid, POOL) == -1_000_000
    keys = {m.destination.owner: m.key for m in paid if m.kind == "prize"}
    assert keys["A"] == f"{T}:deal:1:A" and keys["S"] == f"{T}:deal:1:A:stake:S"


def test_t13_eligibility() -> None:
    """Deals: allowed by the tournament, at the final table, 2 to max_players remaining."""
    nine = Situation(tuple((f"p{i}", 1000 + i) for i in range(9)), (900, 500, 300), True)
    ten = Situation(tuple((f"p{i}", 1000 + i) for i in range(10)), (900, 500, 300), True)
    alone = Situation((("A", 10_000),), (1000,), True)
    assert eligible(ON, nine) and eligible(ON, TABLE)
    assert not eligible(ON, ten) and not eligible(ON, alone)
    assert not eligible(DealSettings(), TABLE)  # deals are off by default
    assert not eligible(ON, Situation(TABLE.stacks, TABLE.prizes, False))
    assert eligible(DealSettings(allowed=True, max_players=10), ten)
    assert not eligible(DealSettings(allowed=True, max_players=3), nine)


def test_t13_error_codes() -> None:
    """Every refusal of the flow has its stable code."""
    off = DealFlow(DealSettings())
    not_final = Situation(TABLE.stacks, TABLE.prizes, False)
    open_flow = DealFlow(ON)
    flow = proposed()
    cases: list[tuple[str, Callable[[], object]]] = [
        (errors.DEAL_NOT_ALLOWED, lambda: request_deal(off, TABLE, "A")),
        (errors.DEAL_NOT_ALLOWED, lambda: request_deal(open_flow, not_final, "A")),
        (errors.NOT_IN_DEAL, lambda: request_deal(open_flow, TABLE, "Z")),
        (errors.NO_DEAL, lambda: accept(open_flow, "A", 0.0)),
        (errors.NO_DEAL, lambda: reject(open_flow, "A", 0.0)),
        (errors.NO_DEAL, lambda: propose(open_flow, TABLE, 0.0)),
        (errors.NOT_IN_DEAL, lambda: accept(flow, "Z", 1001.0)),
        (errors.DEAL_EXPIRED, lambda: accept(flow, "A", 1060.0)),
        (errors.NO_DEAL, lambda: propose(flow, TABLE, 1001.0)),  # one proposal at a time
        (errors.BAD_PAYOUT_SETTINGS, lambda: DealSettings(allowed=True, max_players=14)),
        (errors.BAD_PAYOUT_SETTINGS, lambda: DealSettings(answer_seconds=0)),
        (errors.BAD_PAYOUT_SETTINGS, lambda: DealSettings(max_players=1)),
        (
            errors.BAD_PAYOUT_SETTINGS,  # more left to play for than first less second prize
            lambda: propose(
                everyone_asked(DealFlow(DealSettings(allowed=True, left_to_play_for=200_001))),
                TABLE,
                0.0,
            ),
        ),
    ]
    for expected, attempt in cases:
        with pytest.raises(DirectorError) as refused:
            attempt()
        assert code(refused) == expected, expected
    assert DealSettings(allowed=True, max_players=13).max_players == 13
    assert DealSettings(method=DealMethod.CHIP_CHOP, max_players=40).max_players == 40


def test_t13_busts_and_withdrawn_requests_while_pausing() -> None:
    """A hand still running at the pause may bust a player: the others still asked, so the
    proposal goes on among them; a request taken back lifts the pause."""
    flow = everyone_asked(DealFlow(ON))
    two = Situation((("A", 7000), ("B", 3000)), (500_000, 300_000), True)
    step = refresh(flow, two)
    assert step.action is DealAction.WAIT and step.flow.phase is DealPhase.PAUSING
    assert step.flow.requests == {"A", "B"}
    made = propose(step.flow, two, 1.0).flow
    assert made.proposal is not None and made.proposal.players == ("A", "B")
    # OPEN: A and B asked, C busts: everyone left has asked, so the tables pause.
    partial = request_deal(request_deal(DealFlow(ON), TABLE, "A").flow, TABLE, "B").flow
    assert refresh(partial, two).action is DealAction.PAUSE
    # PAUSING, then only one player is left: no deal, play (the end) goes on.
    alone = Situation((("A", 10_000),), (500_000,), True)
    assert refresh(flow, alone).action is DealAction.RESUME
    # A request taken back while pausing: resume; while collecting: nothing changes for play.
    back = cancel_request(flow, "B")
    assert back.action is DealAction.RESUME and back.flow.phase is DealPhase.OPEN
    assert back.flow.requests == {"A", "C"}
    assert cancel_request(partial, "A").action is DealAction.WAIT
    assert cancel_request(proposed(), "A").action is DealAction.WAIT  # answer instead


# Properties ----------------------------------------------------------------------------------


@st.composite
def deal_cases(draw: st.DrawFn) -> tuple[Situation, DealSettings, list[tuple[str, float]]]:
    """A final table of 2 to 6, its prizes, a method and reserve, and each player's answer."""
    players = draw(st.integers(2, 6))
    names = [f"p{i}" for i in range(players)]
    stacks = draw(st.lists(st.integers(1, 10**6), min_size=players, max_size=players))
    places = draw(st.integers(1, players))
    prizes = sorted(
        draw(st.lists(st.integers(0, 10**8), min_size=places, max_size=places)), reverse=True
    )
    second = prizes[1] if len(prizes) > 1 else 0
    reserve = draw(st.integers(0, prizes[0] - second))
    method = draw(st.sampled_from(list(DealMethod)))
    kinds = ["accept"] if draw(st.booleans()) else ["accept", "reject", "silent"]
    answers = [(draw(st.sampled_from(kinds)), draw(st.floats(0, 70))) for _ in names]
    settings_ = DealSettings(allowed=True, method=method, left_to_play_for=reserve)
    return (
        Situation(tuple(zip(names, stacks, strict=True)), tuple(prizes), True),
        settings_,
        answers,
    )


@PROPERTY
@given(deal_cases(), st.lists(st.integers(1, 3000), max_size=3))
def test_t13_a_deal_is_made_only_if_everyone_accepts_in_time_and_pays_exactly(
    case: tuple[Situation, DealSettings, list[tuple[str, float]]], sold: list[int]
) -> None:
    """Reference: made iff every player accepts before the deadline (60 s). Payments: the pool
    pays exactly the money dealt; every part >= 0; stakers get the floor of their share."""
    situation, settings_, answers = case
    flow = propose(everyone_asked(DealFlow(settings_), situation), situation, 0.0).flow
    made_by_reference = all(kind == "accept" and at < 60.0 for kind, at in answers)
    events = sorted(
        (at, player, kind)
        for player, (kind, at) in zip(situation.players, answers, strict=True)
        if kind != "silent"
    )
    outcome = DealAction.WAIT
    for at, player, kind in events:
        if flow.phase is not DealPhase.PROPOSED:
            break
        if at >= 60.0:
            step = expire(flow, at)
            flow, outcome = step.flow, step.action
            break
        step = (accept if kind == "accept" else reject)(flow, player, at)
        flow, outcome = step.flow, step.action
    if flow.phase is DealPhase.PROPOSED:
        step = expire(flow, 60.0)
        flow, outcome = step.flow, step.action
    event(f"made {made_by_reference}")
    assert (outcome is DealAction.PAY) == made_by_reference == (flow.phase is DealPhase.DONE)
    if not made_by_reference:
        assert outcome is DealAction.RESUME and flow.record is None
        return
    record = flow.record
    assert record is not None
    dealt = sum(situation.prizes) - settings_.left_to_play_for
    assert sum(record.amounts) + record.rounding == dealt
    assert record.remaining_prizes == (
        (record.left_to_play_for,) if record.left_to_play_for else ()
    )
    staked = offer(StakingBook(T, 10**6), "p0", 10_000, registered=True).book
    for n, share in enumerate(sold):
        staked = buy(staked, f"s{n}", "o1", share, key=f"k{n}").book
    staked = tournament_started(staked).book
    paid = deal_payments(T, record, staked)
    assert all(m.amount > 0 and m.source == POOL for m in paid)
    assert total(paid, POOL) == -dealt
    figure = record.amounts[0]
    for n, share in enumerate(sold):
        assert total(paid, wallet(f"s{n}")) == math.floor(Fraction(figure * share, 10_000))
    for player, amount in record.figures[1:]:
        assert total(paid, wallet(player)) == amount
