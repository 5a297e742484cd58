"""T-17 staking: offers, purchases, the escrow, sharing what the seller wins (T-7, T-18).

The hand-worked examples use a 9.20 buy-in (920 cents, T-2's 0.92 + 0.08 scaled up). The
reference prices and splits in the properties are computed here with exact fractions, not with
the module's integer formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_ROUNDING,
    Account,
    MoneyMove,
    bounty_pool,
    house,
    prize_pool,
    total,
    wallet,
)
from tournaments.director.staking import (
    Split,
    StakingBook,
    StakingStep,
    buy,
    cancel_before_start,
    offer,
    release_escrow,
    seat_instead_of_money,
    seller_unregistered,
    split_amount,
    split_payment,
    stake_price,
    staking_escrow,
    tournament_started,
    withdraw,
)

PROPERTY = settings(derandomize=True, max_examples=200, deadline=None)
T = "sun-9"
ESCROW = staking_escrow(T)


def code(error: pytest.ExceptionInfo[DirectorError]) -> str:
    """The stable code of a refusal."""
    return error.value.code


def book_with_stakes(hold: bool = False) -> StakingBook:
    """A sells 50 % at 1.15 in one offer and 20 % at 1.15 in another; B and C buy.

    B: 1,500 bps of o1 → 920 × 0.15 × 1.15 = 158.70 → 158 (half-up would say 159).
    C: 2,000 bps of o1 → 920 × 0.20 × 1.15 = 211.60 → 211; 500 bps of o2 → 52.90 → 52.
    """
    book = StakingBook(T, 920, hold_until_result=hold)
    book = offer(book, "A", 5000, 11_500, registered=True).book
    book = offer(book, "A", 2000, 11_500, registered=True).book
    book = buy(book, "B", "o1", 1500, key="k-b").book
    book = buy(book, "C", "o1", 2000, key="k-c1").book
    return buy(book, "C", "o2", 500, key="k-c2").book


# Hand-worked examples ------------------------------------------------------------------------


def test_t17_price_is_buy_in_share_markup_rounded_down_once() -> None:
    """T-17/T-7: 920 × 15 % × 1.15 = 158.70 → 158, paid into the tournament's staking escrow."""
    book = offer(StakingBook(T, 920), "A", 5000, 11_500, registered=True).book
    step = buy(book, "B", "o1", 1500, key="k-b", balance=158)
    assert step.moves == (MoneyMove("stake", wallet("B"), ESCROW, 158, f"{T}:stake:buy:B:k-b"),)
    assert Account("staking_escrow", T) == ESCROW
    assert step.stake is not None and step.stake.price == 158
    # The markup raises the price, not the share bought: 5,000 − 1,500 = 3,500 bps are left
    # (an implementation selling share × markup would leave 5,000 − 1,725 = 3,275).
    assert step.book.find_offer("o1").left_bps == 3500
    assert step.book.shares("A") == {"B": 1500}
    # One floor of the exact product: 7 × 0.5 × 1.2 = 4.2 → 4, where flooring after the share
    # (3.5 → 3) and again after the markup (3.6 → 3) would say 3.
    assert stake_price(7, 5000, 12_000) == 4
    assert stake_price(920, 1500, 11_500) == 158
    assert stake_price(920, 2000, 11_500) == 211
    assert stake_price(920, 500, 11_500) == 52
    assert stake_price(920, 10_000, 12_000) == 1104
    assert stake_price(333, 5000, 11_000) == 183  # 183.15
    assert stake_price(7, 5000, 10_000) == 3  # 3.5 → 3: half-up would say 4


def test_t17_withdraw_takes_back_only_the_unsold_part() -> None:
    """T-17: before the start the seller withdraws unsold shares; what was sold stays sold."""
    book = book_with_stakes()
    step = withdraw(book, "A", "o1")
    assert step.offer is not None and step.offer.share_bps == 3500 == step.offer.sold_bps
    assert step.moves == ()
    assert step.book.offered_bps("A") == 3500 + 2000
    assert step.book.open_offers() == (step.book.find_offer("o2"),)
    with pytest.raises(DirectorError) as refused:
        buy(step.book, "D", "o1", 1, key="k-d")
    assert code(refused) == errors.OVERSOLD
    # An offer with nothing sold disappears, and its action can be offered again.
    fresh = offer(step.book, "A", 4500, registered=True).book
    assert fresh.offered_bps("A") == 10_000
    gone = withdraw(fresh, "A", "o6").book
    with pytest.raises(DirectorError) as refused:
        gone.find_offer("o6")
    assert code(refused) == errors.UNKNOWN_OFFER
    assert gone.offered_bps("A") == 5500
    with pytest.raises(DirectorError) as refused:
        withdraw(fresh, "B", "o6")  # not B's offer
    assert code(refused) == errors.UNKNOWN_OFFER


def test_t17_start_pays_the_escrow_of_sold_shares_to_the_seller() -> None:
    """T-17: at the start A is paid 158 + 211 + 52 = 421 from the escrow; unsold shares close."""
    book = book_with_stakes()
    assert book.escrow_held == 421
    step = tournament_started(book)
    assert step.moves == (MoneyMove("stake", ESCROW, wallet("A"), 421, f"{T}:stake:release:A"),)
    assert step.book.escrow_held == 0
    assert tournament_started(step.book).moves == ()  # a repeated start pays nothing more


def test_t17_prize_split_worked_by_hand() -> None:
    """T-17/T-7: A wins 1,234.57 having sold 15 % to B and 20 % + 5 % to C.

    B: 123,457 × 0.15 = 18,518.55 → 18,518. C holds 25 % as one buyer:
    123,457 × 0.25 = 30,864.25 → 30,864 (a floor per purchase would give 24,691 + 6,172 =
    30,863). A keeps 60 %: 74,074.2 → 74,074 (not the rest, 74,075). House rounding: 1.
    """
    book = tournament_started(book_with_stakes()).book
    key = f"{T}:prize:A"
    paid = split_payment(book, "A", 123_457, kind="prize", source=prize_pool(T), key=key)
    pool = prize_pool(T)
    assert paid == (
        MoneyMove("prize", pool, wallet("A"), 74_074, key),
        MoneyMove("prize", pool, wallet("B"), 18_518, f"{key}:stake:B"),
        MoneyMove("prize", pool, wallet("C"), 30_864, f"{key}:stake:C"),
        MoneyMove("rounding", pool, house(HOUSE_ROUNDING), 1, f"{key}:stake:rounding"),
    )
    assert total(paid, pool) == -123_457


def test_t17_bounty_and_refund_are_shared_the_same_way() -> None:
    """T-17/T-18: a bounty of 5.01 and a T-18 fee refund of 0.80, each from its own account."""
    book = tournament_started(book_with_stakes()).book
    bounty = split_payment(book, "A", 501, kind="bounty", source=bounty_pool(T), key="b:1")
    # B 75.15 → 75, C 125.25 → 125, A 300.6 → 300, house 1.
    assert [(m.destination.owner, m.amount) for m in bounty] == [
        ("A", 300),
        ("B", 75),
        ("C", 125),
        ("house", 1),
    ]
    assert all(m.source == bounty_pool(T) and m.kind in ("bounty", "rounding") for m in bounty)
    fees = Account("house_fees", "house")
    refund = split_payment(book, "A", 80, kind="refund", source=fees, key="r:A:fee")
    # B 12, C 20, A 48: exactly 80, nothing to round.
    assert [(m.destination.owner, m.amount) for m in refund] == [("A", 48), ("B", 12), ("C", 20)]


def test_t17_a_seller_without_buyers_is_paid_as_before() -> None:
    """The seller's part keeps the payment's key: with no stakes it is the plain payment."""
    book = tournament_started(StakingBook(T, 920)).book
    paid = split_payment(book, "Z", 999, kind="prize", source=prize_pool(T), key="p:Z")
    assert paid == (MoneyMove("prize", prize_pool(T), wallet("Z"), 999, "p:Z"),)


def test_t17_whole_action_sold_leaves_the_seller_nothing_of_a_payment() -> None:
    """100 % sold: the buyers share everything (3 × 3,333 + 1 bps), the seller's part is 0."""
    book = offer(StakingBook(T, 92_000), "A", 10_000, registered=True).book
    for buyer, share in (("B", 3333), ("C", 3333), ("D", 3333), ("E", 1)):
        book = buy(book, buyer, "o1", share, key="k").book
    with pytest.raises(DirectorError) as refused:
        buy(book, "F", "o1", 1, key="k")
    assert code(refused) == errors.OVERSOLD
    book = tournament_started(book).book
    split = split_amount(1000, book.shares("A"))
    # 1000 × 0.3333 = 333.3 → 333 each; E 0.1 → 0; seller 0; house 1.
    assert split == Split(0, (("B", 333), ("C", 333), ("D", 333), ("E", 0)), 1)
    paid = split_payment(book, "A", 1000, kind="prize", source=prize_pool(T), key="p")
    assert wallet("A") not in [m.destination for m in paid]
    assert wallet("E") not in [m.destination for m in paid]  # a zero part is not posted


def test_t17_seller_unregisters_every_buyer_refunded_in_full_seller_keeps_none() -> None:
    """T-17: A unregisters before the start: B gets 158, C 211 and 52 back; A gets nothing."""
    book = book_with_stakes()
    book = offer(book, "Q", 1000, registered=True).book
    book = buy(book, "B", "o6", 1000, key="k-q").book  # Q's stake is untouched
    step = seller_unregistered(book, "A")
    assert step.moves == (
        MoneyMove("refund", ESCROW, wallet("B"), 158, f"{T}:stake:refund:s3"),
        MoneyMove("refund", ESCROW, wallet("C"), 211, f"{T}:stake:refund:s4"),
        MoneyMove("refund", ESCROW, wallet("C"), 52, f"{T}:stake:refund:s5"),
    )
    assert total(step.moves, wallet("A")) == 0
    assert step.book.offered_bps("A") == 0 and step.book.shares("A") == {}
    assert step.book.escrow_held == 92  # Q's 1,000 bps: 920 × 0.1 = 92
    assert seller_unregistered(step.book, "A").moves == ()  # said twice, refunded once
    # T-18.1: a cancellation refunds the rest the same way.
    cancelled = cancel_before_start(step.book)
    assert cancelled.moves == (
        MoneyMove("refund", ESCROW, wallet("B"), 92, f"{T}:stake:refund:s7"),
    )
    assert cancelled.book.escrow_held == 0


def test_t17_satellite_seat_held_escrow_goes_back_to_the_buyers() -> None:
    """T-17: with the escrow held (satellite), A's seat gives B 158 and C 211 + 52 from it."""
    book = tournament_started(book_with_stakes(hold=True))
    assert book.moves == () and book.book.escrow_held == 421
    step = seat_instead_of_money(book.book, "A", seller_balance=0)
    assert [(m.source, m.destination.owner, m.amount) for m in step.moves] == [
        (ESCROW, "B", 158),
        (ESCROW, "C", 211),
        (ESCROW, "C", 52),
    ]
    assert step.book.escrow_held == 0
    assert step.book.shares("A") == {}  # unwound: later payments are A's alone
    assert seat_instead_of_money(step.book, "A", seller_balance=0).moves == ()
    assert release_escrow(step.book, "A").moves == ()  # nothing left to release
    later = split_payment(step.book, "A", 500, kind="bounty", source=bounty_pool(T), key="b")
    assert later == (MoneyMove("bounty", bounty_pool(T), wallet("A"), 500, "b"),)


def test_t17_held_escrow_released_when_the_result_is_money_or_a_bust() -> None:
    """Held escrow: A busts or cashes: the 421 goes to A, once."""
    book = tournament_started(book_with_stakes(hold=True)).book
    step = release_escrow(book, "A")
    assert step.moves == (MoneyMove("stake", ESCROW, wallet("A"), 421, f"{T}:stake:release:A"),)
    assert release_escrow(step.book, "A").moves == ()
    with pytest.raises(ValueError):
        release_escrow(book_with_stakes(hold=True), "A")  # not started


def test_t17_seat_after_the_escrow_was_paid_comes_from_the_sellers_wallet() -> None:
    """T-18 replacement ticket after the start: A gives back the 421 received, if A has it."""
    book = tournament_started(book_with_stakes()).book
    with pytest.raises(DirectorError) as refused:
        seat_instead_of_money(book, "A", seller_balance=420)
    assert code(refused) == errors.INSUFFICIENT_FUNDS
    step = seat_instead_of_money(book, "A", seller_balance=421)
    assert total(step.moves, wallet("A")) == -421
    assert total(step.moves, wallet("B")) == 158
    assert total(step.moves, wallet("C")) == 263
    assert total(step.moves, ESCROW) == 0  # nothing created, nothing taken from the escrow
    assert {m.kind for m in step.moves} == {"refund"}
    with pytest.raises(ValueError):
        seat_instead_of_money(book_with_stakes(), "A", seller_balance=1000)  # before the start


def test_t17_a_retried_purchase_buys_once() -> None:
    """P-2: the same buyer and key gets the first purchase back, even after the start."""
    book = offer(StakingBook(T, 920), "A", 5000, registered=True).book
    first = buy(book, "B", "o1", 1000, key="k-1")
    again = buy(first.book, "B", "o1", 1000, key="k-1")
    assert again.book == first.book and again.moves == first.moves and again.stake == first.stake
    other = buy(first.book, "C", "o1", 1000, key="k-1")  # keys are per buyer
    assert other.book.sold_bps("A") == 2000
    started = tournament_started(first.book).book
    assert buy(started, "B", "o1", 1000, key="k-1").moves == first.moves


# Each error code -----------------------------------------------------------------------------


def test_t17_error_codes() -> None:
    """Every refusal has its stable code."""
    empty = StakingBook(T, 920)
    book = offer(empty, "A", 5000, 12_000, registered=True).book  # 1.20 is allowed
    cases: list[tuple[str, Callable[[], object]]] = [
        (errors.NOT_REGISTERED, lambda: offer(empty, "A", 1000, registered=False)),
        (errors.MARKUP_TOO_HIGH, lambda: offer(empty, "A", 1000, 12_001, registered=True)),
        (errors.BAD_STAKE, lambda: offer(empty, "A", 1000, 9_999, registered=True)),
        (errors.BAD_STAKE, lambda: offer(empty, "A", 0, registered=True)),
        (errors.OVERSOLD, lambda: offer(book, "A", 5001, registered=True)),
        (errors.OWN_ACTION, lambda: buy(book, "A", "o1", 100, key="k")),
        (errors.OVERSOLD, lambda: buy(book, "B", "o1", 5001, key="k")),
        (errors.BAD_STAKE, lambda: buy(book, "B", "o1", 0, key="k")),
        (errors.BAD_STAKE, lambda: buy(book, "B", "o1", 1, key="k")),  # 920 × 0.0001 × 1.2 → 0
        (errors.UNKNOWN_OFFER, lambda: buy(book, "B", "o9", 100, key="k")),
        (errors.INSUFFICIENT_FUNDS, lambda: buy(book, "B", "o1", 1000, key="k", balance=109)),
    ]
    started = tournament_started(book).book
    cases += [
        (errors.STAKE_CLOSED, lambda: offer(started, "A", 100, registered=True)),
        (errors.STAKE_CLOSED, lambda: withdraw(started, "A", "o1")),
        (errors.STAKE_CLOSED, lambda: buy(started, "B", "o1", 100, key="new")),
        (errors.STAKE_CLOSED, lambda: seller_unregistered(started, "A")),
        (errors.STAKE_CLOSED, lambda: cancel_before_start(started)),
    ]
    for expected, attempt in cases:
        with pytest.raises(DirectorError) as refused:
            attempt()
        assert code(refused) == expected, expected
    assert offer(empty, "A", 10_000, registered=True).offer is not None  # exactly 100 %
    assert buy(book, "B", "o1", 1000, key="k", balance=110).stake is not None  # 920×.1×1.2
    assert buy(book, "B", "o1", 5000, key="k").book.find_offer("o1").left_bps == 0
    with pytest.raises(DirectorError) as refused:
        StakingBook(T, 0)
    assert code(refused) == errors.BAD_STAKE


def test_t17_split_refuses_impossible_shares_and_early_payments() -> None:
    """More than 100 % sold, a negative amount, or sharing before the start is a bug."""
    with pytest.raises(ValueError):
        split_amount(100, {"B": 6000, "C": 4001})
    with pytest.raises(ValueError):
        split_amount(-1, {"B": 1})
    with pytest.raises(ValueError):
        split_payment(book_with_stakes(), "A", 10, kind="prize", source=prize_pool(T), key="p")


# Properties ----------------------------------------------------------------------------------


@PROPERTY
@given(
    st.integers(0, 10**10),
    st.lists(st.integers(1, 4000), min_size=0, max_size=6).filter(lambda s: sum(s) <= 10_000),
)
def test_t17_split_parts_and_rounding_sum_to_the_amount(amount: int, bps: list[int]) -> None:
    """T-17/T-7: every part is the floor of its exact share; parts + rounding == amount."""
    shares = {f"b{i}": share for i, share in enumerate(bps)}
    split = split_amount(amount, shares)
    assert split.total == amount
    for buyer, part in split.buyers:
        assert part == math.floor(Fraction(amount * shares[buyer], 10_000)) >= 0
    assert split.seller == math.floor(Fraction(amount * (10_000 - sum(bps)), 10_000)) >= 0
    assert 0 <= split.rounding <= len(bps)  # each floor loses less than a cent


# (op, player, a, b): offer a bps at markup b; buy a bps of offer number b; withdraw offer
# number a; unregister. `pick` maps a number to an existing offer, or to an unknown one.
OP = st.tuples(
    st.sampled_from(["offer", "offer", "buy", "buy", "buy", "withdraw", "unregister"]),
    st.sampled_from("ABCD"),
    st.integers(0, 6000),
    st.integers(9_900, 12_100),
)


def pick(book: StakingBook, index: int) -> str:
    """An existing offer's id by index, or an unknown id when the index is past them."""
    ids = [o.offer_id for o in book.offers]
    index %= len(ids) + 1
    return ids[index] if index < len(ids) else "o-none"


@PROPERTY
@given(
    st.integers(100, 100_000),
    st.lists(OP, min_size=3, max_size=25),
    st.booleans(),
    st.lists(st.tuples(st.sampled_from("ABCD"), st.integers(0, 10**7)), max_size=6),
    st.sets(st.sampled_from("ABCD")),
)
def test_t17_escrow_in_equals_escrow_out_and_nobody_is_oversold(
    buy_in: int,
    ops: list[tuple[str, str, int, int]],
    hold: bool,
    payments: list[tuple[str, int]],
    seats: set[str],
) -> None:
    """Random sessions: prices are the exact floor, shares never pass 100 %, the escrow
    pays out exactly what it took in, and every split conserves the payment."""
    book = StakingBook(T, buy_in, hold_until_result=hold)
    posted: list[MoneyMove] = []
    paid_by: dict[str, int] = {}
    for n, (op, who, a, b) in enumerate(ops):
        step: StakingStep | None = None
        try:
            if op == "offer":
                step = offer(book, who, a, b, registered=True)
                assert 10_000 <= b <= 12_000 and a > 0
            elif op == "buy":
                picked = pick(book, b)
                target = book.find_offer(picked)
                step = buy(book, who, picked, a, key=f"k{n}")
                exact = Fraction(buy_in * a * target.markup_bps, 10**8)
                assert step.stake is not None and step.stake.price == math.floor(exact) > 0
                assert who != target.seller and 0 < a <= target.left_bps
                paid_by[who] = paid_by.get(who, 0) + step.stake.price
            elif op == "withdraw":
                step = withdraw(book, who, pick(book, a))
            else:
                step = seller_unregistered(book, who)
        except DirectorError as refused:
            assert refused.code in errors.ALL_CODES
            event(f"refused {refused.code}")
            continue
        event(f"done {op}")
        book = step.book
        posted += step.moves
        for seller in "ABCD":
            assert book.sold_bps(seller) <= book.offered_bps(seller) <= 10_000
        for o in book.offers:
            assert 0 <= o.sold_bps <= o.share_bps
        assert total(posted, ESCROW) == book.escrow_held >= 0
    assert sum(paid_by.values()) == sum(m.amount for m in posted if m.destination == ESCROW)
    start = tournament_started(book)
    book, posted = start.book, posted + list(start.moves)
    for seller in sorted(seats):
        step = seat_instead_of_money(book, seller, seller_balance=10**12)
        book, posted = step.book, posted + list(step.moves)
    for seller in "ABCD":
        released = release_escrow(book, seller)
        book, posted = released.book, posted + list(released.moves)
    assert book.escrow_held == 0 == total(posted, ESCROW)
    assert all(m.amount > 0 for m in posted)
    for seller, amount in payments:
        source = prize_pool(T)
        shared = split_payment(book, seller, amount, kind="prize", source=source, key="p")
        assert total(shared, source) == -amount
        assert all(m.amount > 0 for m in shared)
        assert [m.key for m in shared if m.destination == wallet(seller)] in ([], ["p"])
        for buyer, bps in book.shares(seller).items():
            exact = Fraction(amount * bps, 10_000)
            assert total(shared, wallet(buyer)) == math.floor(exact)
    # Nobody is paid twice for one stake: every key is distinct.
    keys = [m.key for m in posted]
    assert len(keys) == len(set(keys))
    # Sellers who won a seat end even: what the buyers paid came back to them.
    for seller in seats:
        sold, _ = book.stakes_of(seller)
        for stake in sold:
            assert any(
                m.destination == wallet(stake.buyer) and m.amount == stake.price for m in posted
            )


def test_t17_escrow_account_is_the_ledgers_kind() -> None:
    """The escrow uses the ledger's account kind staking_escrow (pokerroom.ledger.kinds)."""
    from pokerroom.ledger.kinds import AccountKind, TransferKind

    assert ESCROW.kind == AccountKind.STAKING_ESCROW.value
    assert {"stake", "refund", "rounding"} <= {k.value for k in TransferKind}
