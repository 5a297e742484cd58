"""Registration and money decisions: T-1..T-6 scenarios, and the pool always matches the moves."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.director import errors
from tournaments.director.entries import (
    addon,
    bust,
    can_addon,
    can_rebuy,
    can_reenter,
    overlay_moves,
    pool_is_final,
    prize_pool_status,
    rebuy,
    reenter,
)
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_FEES,
    HOUSE_OVERLAY,
    HOUSE_ROUNDING,
    TICKET,
    Account,
    house,
    prize_moves,
    prize_pool,
    total,
    wallet,
)
from tournaments.director.payouts import Leftover, PayoutSettings, prize_table
from tournaments.director.registration import (
    Clock,
    Funding,
    LateClose,
    Period,
    RegistrationSettings,
    RegistrationState,
    TicketRefund,
    can_register,
    cancel_before_start,
    close_late_registration,
    register,
    unregister,
)

START = 100_000
POOL = prize_pool("t1")
BEFORE = Clock(START - 3600)
LIVE = Clock(START + 60, started=True, level_index=0)


def rules(**extra: object) -> RegistrationSettings:
    """A 1.00 tournament (0.92 + 0.08), late registration through level 4."""
    base = RegistrationSettings(
        "t1",
        92,
        8,
        opens_at=START - 86_400,
        starts_at=START,
        starting_stack=5000,
        late_registration_levels=4,
        guarantee=100_000,
    )
    return replace(base, **extra)


def registered(
    config: RegistrationSettings, players: int, clock: Clock = BEFORE
) -> RegistrationState:
    """A state with `players` registered by cash."""
    state = RegistrationState()
    for i in range(players):
        state = register(config, state, clock, f"p{i}", Funding.CASH, 100).state
    return state


def code_of(call: object, *args: object) -> str:
    """The DirectorError code `call(*args)` raises."""
    with pytest.raises(DirectorError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value.code


def test_t2_buy_in_to_the_pool_and_fee_to_the_house() -> None:
    """T-2: 1.00 = 0.92 to the prize pool + 0.08 to the house fees; starting chips given."""
    decision = register(rules(), RegistrationState(), BEFORE, "ann", Funding.CASH, balance=100)
    assert total(decision.moves, POOL) == 92 and total(decision.moves, house(HOUSE_FEES)) == 8
    assert total(decision.moves, wallet("ann")) == -100
    assert decision.chips == 5000 and decision.state.collected == 92
    assert len({m.key for m in decision.moves}) == 2


def test_t3_registration_window_and_duplicates() -> None:
    """T-3: not before the opening time; once per player; funds needed."""
    config = rules()
    assert (
        code_of(
            register, config, RegistrationState(), Clock(START - 90_000), "a", Funding.CASH, 100
        )
        == errors.REGISTRATION_NOT_OPEN
    )
    state = registered(config, 1)
    assert code_of(register, config, state, BEFORE, "p0", Funding.CASH, 100) == (
        errors.ALREADY_REGISTERED
    )
    assert code_of(register, config, state, BEFORE, "b", Funding.CASH, 99) == (
        errors.INSUFFICIENT_FUNDS
    )


def test_t3_unregister_until_five_minutes_before_the_start() -> None:
    """T-3: buy-in and fee back until 5 minutes before the start, not after."""
    config = rules()
    state = registered(config, 1)
    back = unregister(config, state, Clock(START - 301), "p0")
    assert total(back.moves, wallet("p0")) == 100 and back.state.collected == 0
    again = register(config, back.state, BEFORE, "p0", Funding.CASH, 100)
    first_keys = {
        m.key for m in register(config, RegistrationState(), BEFORE, "p0", Funding.CASH, 100).moves
    }
    assert first_keys.isdisjoint(m.key for m in again.moves)  # P-2: a new entry, a new key
    assert code_of(unregister, config, state, Clock(START - 300), "p0") == errors.UNREGISTER_CLOSED
    assert code_of(unregister, config, state, BEFORE, "nobody") == errors.NOT_REGISTERED


def test_t3_a_tournament_that_starts_when_full_may_be_left_until_it_starts() -> None:
    """T-3, a sit-and-go (docs/TOURNAMENTS.md): its start time is when it opened, so the
    deadline never applies; leaving is open until it starts (the last seat taken)."""
    config = rules()
    state = registered(config, 1)
    late = Clock(START + 3600)  # long after the nominal start, not started
    back = unregister(config, state, late, "p0", starts_when_full=True)
    assert total(back.moves, wallet("p0")) == 100 and back.state.entries == 0
    assert code_of(unregister, config, state, late, "p0") == errors.UNREGISTER_CLOSED
    started = Clock(START + 3600, started=True)
    leave = partial(unregister, starts_when_full=True)
    assert code_of(leave, config, state, started, "p0") == errors.UNREGISTER_CLOSED


def test_t3_ticket_entries_cannot_unregister_or_get_the_ticket_back() -> None:
    """T-3: a satellite seat cannot unregister; where allowed, the ticket itself comes back."""
    config = rules()
    state = register(config, RegistrationState(), BEFORE, "sat", Funding.TICKET, 0, "tk9").state
    assert code_of(unregister, config, state, BEFORE, "sat") == errors.TICKET_NOT_REFUNDABLE
    lenient = rules(ticket_refund=TicketRefund.RETURN_TICKET)
    back = unregister(lenient, state, BEFORE, "sat")
    assert back.ticket_returned == "tk9" and total(back.moves, Account(TICKET, "tk9")) == 100


def test_t1_cancelled_before_the_start_refunds_everyone() -> None:
    """T-1/T-18.1: a cancelled tournament that never started refunds buy-in and fee."""
    config = rules()
    refunds = cancel_before_start(config, registered(config, 3))
    assert all(total(refunds, wallet(f"p{i}")) == 100 for i in range(3))
    assert total(refunds, POOL) == -276


def test_t5_late_registration_closes_at_its_level() -> None:
    """T-5: open during levels 1-4 after the start; closed from level 5."""
    config = rules()
    state = registered(config, 2)
    assert can_register(config, state, Clock(START + 60, True, 3), "late", Funding.CASH, 100)
    closed = close_late_registration(config, state, Clock(START, True, 4), 2, 1)
    assert closed is not None and closed.state.late_closed is LateClose.TIME
    assert not closed.state.guarantee_dropped
    assert not can_register(config, closed.state, Clock(START, True, 4), "x", Funding.CASH, 100)


def test_t5_late_registration_closes_at_the_money_and_the_guarantee_goes() -> None:
    """T-5: reaching the money during late registration closes it and drops the guarantee."""
    config = rules()
    state = registered(config, 20)
    assert prize_pool_status(config, state).overlay == 100_000 - 20 * 92
    closed = close_late_registration(config, state, LIVE, players_left=3, paid_places=3)
    assert closed is not None and closed.state.late_closed is LateClose.MONEY
    assert closed.state.guarantee_dropped
    pool = prize_pool_status(config, closed.state)
    assert (pool.overlay, pool.total) == (0, 20 * 92)
    assert overlay_moves(config, closed.state, Clock(START + 7200, True, 9)) == ()


def test_t5_max_entries_closes_late_registration_but_keeps_the_guarantee() -> None:
    """T-5: a full tournament closes registration; the guarantee still applies (T-6)."""
    config = rules(max_entries=3)
    state = registered(config, 3)
    assert code_of(register, config, state, BEFORE, "x", Funding.CASH, 100) == (
        errors.TOURNAMENT_FULL
    )
    closed = close_late_registration(config, state, LIVE, 3, 1)
    assert closed is not None and closed.state.late_closed is LateClose.MAX_ENTRIES
    assert prize_pool_status(config, closed.state).overlay == 100_000 - 3 * 92


def test_t4_reentry_within_its_period_and_limit() -> None:
    """T-4: a busted player re-enters twice at most, during late registration, with funds."""
    config = rules(reentry=Period(max_times=2, until_level=4, buy_in=92, fee=8))
    state = bust(registered(config, 1), "p0")
    first = reenter(config, state, LIVE, "p0", balance=100)
    assert first.chips == 5000 and first.state.entries == 2 and total(first.moves, POOL) == 92
    assert not can_reenter(config, first.state, LIVE, "p0", 100)  # still in play
    second = reenter(config, bust(first.state, "p0"), LIVE, "p0", 100).state
    assert code_of(reenter, config, bust(second, "p0"), LIVE, "p0", 100) == errors.LIMIT_REACHED
    assert code_of(reenter, config, state, LIVE, "p0", 50) == errors.INSUFFICIENT_FUNDS
    late = Clock(START + 9999, True, 4)
    assert code_of(reenter, config, state, late, "p0", 100) == errors.PERIOD_CLOSED
    assert code_of(reenter, rules(), state, LIVE, "p0", 100) == errors.NOT_ALLOWED


def test_t4_rebuy_at_or_below_the_starting_stack_during_its_levels() -> None:
    """T-4: rebuys during levels 1-6 at 5,000 chips or fewer, three at most."""
    config = rules(
        rebuy=Period(max_times=3, until_level=6, buy_in=92, fee=8, chips=5000, max_stack=5000)
    )
    state = registered(config, 1)
    assert rebuy(config, state, LIVE, "p0", stack=0, balance=100).chips == 5000
    assert code_of(rebuy, config, state, LIVE, "p0", 5001, 100) == errors.STACK_TOO_BIG
    assert not can_rebuy(config, state, Clock(START, True, 6), "p0", 0, 100)
    for _ in range(3):
        state = rebuy(config, state, LIVE, "p0", 0, 100).state
    assert code_of(rebuy, config, state, LIVE, "p0", 0, 100) == errors.LIMIT_REACHED


def test_t4_addon_once_in_its_window() -> None:
    """T-4: one add-on during level 7 (the break after the rebuy levels), for players still in."""
    config = rules(
        addon=Period(max_times=1, from_level=6, until_level=7, buy_in=92, fee=8, chips=8000)
    )
    state = registered(config, 2)
    at_break = Clock(START + 3600, True, 6)
    assert not can_addon(config, state, LIVE, "p0", 100)
    taken = addon(config, state, at_break, "p0", 100)
    assert taken.chips == 8000
    assert code_of(addon, config, taken.state, at_break, "p0", 100) == errors.LIMIT_REACHED
    assert code_of(addon, config, bust(state, "p1"), at_break, "p1", 100) == errors.NOT_ALLOWED


def test_t6_pool_fixed_only_when_every_period_closed_then_overlay() -> None:
    """T-6: the pool is final after late registration, rebuys and add-on; then the overlay."""
    config = rules(rebuy=Period(max_times=1, until_level=6, buy_in=92, chips=1))
    state = registered(config, 10)
    assert not pool_is_final(config, state, Clock(START, True, 5))
    assert overlay_moves(config, state, Clock(START, True, 5)) == ()
    final = Clock(START + 9000, True, 6)
    assert pool_is_final(config, state, final)
    (overlay,) = overlay_moves(config, state, final)
    assert overlay.source == house(HOUSE_OVERLAY) and overlay.amount == 100_000 - 920


def test_t7_prize_moves_pay_the_table_and_the_rounding_rest() -> None:
    """T-7: prizes from the pool to the winners, the rounding rest to the house account."""
    table = prize_table(9, 1001, PayoutSettings(leftover=Leftover.HOUSE))
    paid = prize_moves(
        "t1", {"a": table.prize(1), "b": table.prize(2), "c": table.prize(3)}, table.rounding
    )
    assert total(paid, POOL) == -1001 and total(paid, house(HOUSE_ROUNDING)) == 1


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("rubxa"), st.integers(0, 3)), max_size=40))
def test_p2_property_pool_balance_always_equals_the_moves(ops: list[tuple[str, int]]) -> None:
    """P-2/T-2: whatever is accepted, the pool's moves sum to `collected`, keys never repeat."""
    config = rules(
        reentry=Period(max_times=2, until_level=4, buy_in=92, fee=8),
        rebuy=Period(max_times=2, until_level=4, buy_in=50, fee=5, chips=100),
        addon=Period(max_times=1, until_level=4, buy_in=30, fee=3, chips=100),
    )
    state, moved = RegistrationState(), []
    for op, who in ops:
        player, clock = f"p{who}", LIVE if who % 2 else BEFORE
        try:
            if op == "r":
                decision = register(config, state, clock, player, Funding.CASH, 100)
            elif op == "u":
                decision = unregister(config, state, clock, player)
            elif op == "b":
                state = bust(state, player)
                continue
            elif op == "x":
                decision = reenter(config, state, LIVE, player, 100)
            else:
                decision = addon(config, state, LIVE, player, 100)
        except DirectorError:
            continue
        state = decision.state
        moved.extend(decision.moves)
    assert total(moved, POOL) == state.collected
    keys = [m.key for m in moved]
    assert len(keys) == len(set(keys))
