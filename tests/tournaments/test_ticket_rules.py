"""T-16, T-3 ticket rules and T-15 prize changes, pure: each test names the wrong implementation
it catches. Amounts in cents; the target is a 100.00 event: 90.00 buy-in + 10.00 fee."""

from __future__ import annotations

import pytest

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_FEES,
    HOUSE_OVERLAY,
    WALLET,
    Account,
    house,
    prize_pool,
    tdollars,
    total,
)
from tournaments.director.payouts import PrizeTable
from tournaments.director.prize_changes import change_prizes
from tournaments.director.tickets import (
    DAY_MS,
    HOUSE_EXPIRED,
    OnCancel,
    Ticket,
    TicketState,
    duplicate_seat,
    expire,
    give_back,
    issue,
    make_ticket_id,
    target_cancelled,
    ticket_account,
    use,
    verify_use,
)

NOW = 1_000 * DAY_MS
TICKET = Ticket("tk-1", "ann", 9000, 1000, "main", NOW, NOW + 30 * DAY_MS, source="sat")
ACCOUNT = ticket_account("tk-1")


def code(call: object, *args: object) -> str:
    with pytest.raises(DirectorError) as info:
        call(*args)  # type: ignore[operator]
    return info.value.code


def test_issue_moves_the_seat_value_from_the_pool_to_the_ticket_account() -> None:
    """T-16: the seat is worth buy-in + fee and sits in the ticket's own account (not T$)."""
    step = issue(TICKET, prize_pool("sat"), "k")
    assert total(step.moves, ACCOUNT) == 10_000
    assert total(step.moves, prize_pool("sat")) == -10_000
    assert not any(m.destination.kind in (WALLET, "tdollars") for m in step.moves)


def test_ticket_ids_are_the_same_for_the_same_award_and_fit_an_account_owner() -> None:
    """P-2: a retried award must be the same ticket; another player's is another ticket."""
    first = make_ticket_id("sat-1", "ann", "main")
    assert first == make_ticket_id("sat-1", "ann", "main")
    assert first != make_ticket_id("sat-1", "bob", "main")
    assert len(first) <= 40


def test_use_is_refused_for_another_player_another_target_used_or_expired() -> None:
    """T-16: a ticket is not transferable, pays only its target, once, until it expires."""
    ok = verify_use(TICKET, "ann", "main", 9000, 1000, NOW + 1)
    assert ok is TICKET
    assert code(verify_use, None, "ann", "main", 9000, 1000, NOW) == errors.UNKNOWN_TICKET
    assert code(verify_use, TICKET, "bob", "main", 9000, 1000, NOW) == errors.UNKNOWN_TICKET
    assert code(verify_use, TICKET, "ann", "other", 9000, 1000, NOW) == errors.WRONG_TICKET
    used = use(TICKET, "main")
    assert used.state is TicketState.USED and used.used_in == "main"
    assert code(verify_use, used, "ann", "main", 9000, 1000, NOW) == errors.TICKET_NOT_USABLE
    late = TICKET.expires_at_ms
    assert code(verify_use, TICKET, "ann", "main", 9000, 1000, late) == errors.TICKET_EXPIRED


def test_a_level_ticket_pays_any_tournament_of_the_same_buy_in_plus_fee_only() -> None:
    """The buy-in level setting: any tournament priced 100.00, never a cheaper or dearer one."""
    level = Ticket("tk-2", "ann", 9000, 1000, "", NOW, NOW + DAY_MS, any_of_level=True)
    assert verify_use(level, "ann", "anything", 9200, 800, NOW) is level
    assert code(verify_use, level, "ann", "cheap", 4500, 500, NOW) == errors.WRONG_TICKET
    assert code(verify_use, TICKET, "ann", "main", 9500, 1000, NOW) == errors.WRONG_TICKET


def test_give_back_returns_a_used_ticket_usable_again() -> None:
    """T-3: unregistering returns the ticket; a returned ticket pays an entry again."""
    back = give_back(use(TICKET, "main"))
    assert back.state is TicketState.RETURNED and back.used_in == ""
    assert verify_use(back, "ann", "main", 9000, 1000, NOW) is back
    with pytest.raises(ValueError):
        give_back(TICKET)  # an unused ticket has nothing to come back from


def test_duplicate_seat_is_tdollars_of_the_buy_in_less_the_fee() -> None:
    """T-16: a seat in a 100 event (90 + 10) becomes T$90, not T$100; the 10 to the house."""
    step = duplicate_seat(TICKET, "k")
    assert step.ticket.state is TicketState.CONVERTED
    assert total(step.moves, tdollars("ann")) == 9000
    assert total(step.moves, house(HOUSE_FEES)) == 1000
    assert total(step.moves, ACCOUNT) == -10_000


def test_a_cancelled_target_returns_the_ticket_at_its_level_or_converts_it_by_rule() -> None:
    """The target's rule: return (usable at its level) by default, T$ of buy-in + fee if set."""
    back = target_cancelled(TICKET, OnCancel.RETURN, "k")
    assert back.moves == () and back.ticket.any_of_level and back.ticket.usable
    assert verify_use(back.ticket, "ann", "sunday", 9000, 1000, NOW) == back.ticket
    converted = target_cancelled(TICKET, OnCancel.CONVERT, "k")
    assert converted.ticket.state is TicketState.CONVERTED
    assert total(converted.moves, tdollars("ann")) == 10_000


def test_expiry_forfeits_a_usable_ticket_to_the_house_and_only_when_due() -> None:
    """A ticket not used by its expiry goes to the house; before it, nothing moves."""
    with pytest.raises(ValueError):
        expire(TICKET, TICKET.expires_at_ms - 1, "k")
    step = expire(TICKET, TICKET.expires_at_ms, "k")
    assert step.ticket.state is TicketState.EXPIRED
    assert total(step.moves, Account(HOUSE_EXPIRED, "house")) == 10_000
    with pytest.raises(ValueError):
        expire(use(TICKET, "main"), TICKET.expires_at_ms, "k")  # a used ticket holds nothing


def test_no_ticket_step_ever_pays_a_wallet() -> None:
    """T-16: a ticket cannot be cashed: no decision moves its money to a wallet."""
    steps = [
        issue(TICKET, prize_pool("sat"), "k"),
        duplicate_seat(TICKET, "k"),
        target_cancelled(TICKET, OnCancel.CONVERT, "k"),
        expire(TICKET, TICKET.expires_at_ms, "k"),
    ]
    for step in steps:
        assert all(m.destination.kind != WALLET for m in step.moves)


# -- T-15 ------------------------------------------------------------------------------------

TABLE = PrizeTable(10_001, (5_000, 3_000, 2_000), 1)  # 1 cent to the house (T-7)


def change(amounts: tuple[int, ...], left: int = 3, **kw: object) -> object:
    return change_prizes("t1", TABLE, left, amounts, key="k", **kw)  # type: ignore[arg-type]


def test_a_raise_is_accepted_and_the_house_adds_exactly_the_difference() -> None:
    """T-15: raising prizes adds house money to the pool; the pool still pays out exactly."""
    done = change_prizes("t1", TABLE, 3, (6_000, 3_500, 2_000), key="k")
    assert done.added == 1_500 and done.new.pool == 11_501
    assert sum(done.new.amounts) + done.new.rounding == done.new.pool
    assert total(done.moves, prize_pool("t1")) == 1_500
    assert total(done.moves, house(HOUSE_OVERLAY)) == -1_500


def test_a_lowered_prize_is_refused_even_when_another_rises() -> None:
    """T-15: no prize may go down, even if the total stays the same (a reshuffle)."""
    assert code(change, (6_000, 2_000, 2_000)) == errors.PRIZE_LOWERED
    assert code(change, (10_000,)) == errors.PRIZE_LOWERED  # places 2 and 3 dropped: 0


def test_a_change_that_unbalances_the_pool_is_refused() -> None:
    """The house rounding cannot grow (players' money to the house), nor money stay unpaid."""
    with pytest.raises(DirectorError) as more_rounding:
        change_prizes("t1", TABLE, 3, (5_000, 3_000, 2_000), key="k", rounding=2)
    assert more_rounding.value.code == errors.UNBALANCED_PRIZES
    with pytest.raises(DirectorError) as left_in_pool:  # the rounding cent paid to no one
        change_prizes("t1", TABLE, 3, (5_000, 3_000, 2_000), key="k", rounding=0)
    assert left_in_pool.value.code == errors.UNBALANCED_PRIZES
    shifted = change_prizes("t1", TABLE, 3, (5_001, 3_000, 2_000), key="k", rounding=0)
    assert shifted.added == 0  # the rounding cent given to first place: nothing added


def test_decided_places_stand_and_order_is_kept() -> None:
    """A place whose player finished keeps its prize; a better place never pays less."""
    assert code(change, (6_000, 3_000, 2_500), 2) == errors.BAD_PRIZES  # 3rd already finished
    assert change_prizes("t1", TABLE, 2, (6_000, 3_000, 2_000), key="k").added == 1_000
    assert code(change, (3_000, 3_500, 2_000)) == errors.BAD_PRIZES
    assert code(change, (5_000, 3_000, 2_000)) == errors.BAD_PRIZES  # changes nothing


def test_cash_in_place_of_seats_is_at_least_the_seat_and_keeps_seats_equal() -> None:
    """T-15: cash of equal or greater value in place of the seats (tickets); never less, all
    seats alike (T-8: their winners finish together), and a seat is not raised as a seat."""
    seats = PrizeTable(21_000, (10_000, 10_000, 1_000), 0)

    def satellite(amounts: tuple[int, ...], cash: bool, left: int = 5) -> str | int:
        try:
            done = change_prizes("s", seats, left, amounts, key="k", seat_places=2,
                                 seats_in_cash=cash)  # fmt: skip
        except DirectorError as exc:
            return exc.code
        assert done.seats_in_cash is cash
        return done.added

    assert satellite((10_000, 10_000, 1_000), True) == 0
    assert satellite((10_500, 10_500, 1_000), True) == 1_000
    assert satellite((10_500, 10_000, 1_000), True) == errors.BAD_PRIZES  # seats not equal
    assert satellite((10_500, 10_500, 1_000), False) == errors.BAD_PRIZES  # a raised seat
    assert satellite((9_000, 9_000, 3_000), True) == errors.PRIZE_LOWERED
    assert satellite((10_000, 10_000, 1_000), True, left=2) == errors.BAD_PRIZES  # all awarded
    assert satellite((10_000, 10_000, 1_500), False) == 500  # the remainder place may rise
