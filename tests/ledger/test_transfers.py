"""Transfers: balanced postings, funds checks, idempotency keys and reversals (P-1, P-2)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from pokerroom.ledger import errors, migrate
from pokerroom.ledger.accounts import get_account, open_account
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, house, wallet
from pokerroom.ledger.reports import check_ledger, total_balance
from pokerroom.ledger.transfers import get_transfer, move, reverse, transfer

USD = "USD"


def _deposit(engine: sa.Engine, player: str, amount: int, key: str | None = None) -> None:
    move(
        engine,
        key=key or f"dep:{player}:{amount}",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet(player, USD),
        amount=amount,
    )


def _counts(engine: sa.Engine) -> tuple[int, int, tuple[int, ...]]:
    with engine.connect() as conn:
        entries = conn.exec_driver_sql("select count(*) from journal").scalar_one()
        posts = conn.exec_driver_sql("select count(*) from postings").scalar_one()
        bals = tuple(conn.exec_driver_sql("select balance from accounts order by id").scalars())
    return entries, posts, bals


def test_deposit_buy_in_and_hand_settlement_balance(engine: sa.Engine) -> None:
    """A hand settles in one 8-posting entry keyed by the hand id, rake to the house (C-11)."""
    players = [f"p{i}" for i in range(6)]
    for p in players:
        _deposit(engine, p, 10_000)
        move(
            engine,
            key=f"buyin:{p}",
            kind="buy_in",
            currency=USD,
            source=wallet(p, USD),
            destination=AccountRef(AccountKind.SEAT_ESCROW, f"t1/{p}", USD),
            amount=5_000,
        )
    seat = {p: AccountRef(AccountKind.SEAT_ESCROW, f"t1/{p}", USD) for p in players}
    # p1..p5 lose 500 each; 100 rake (C-11); p0 wins the rest less a leftover cent (T-7).
    settlement: dict[Any, int] = {seat[p]: -500 for p in players[1:]}
    settlement[seat["p0"]] = 2_399
    settlement[house(AccountKind.HOUSE_RAKE, USD)] = 100
    settlement[house(AccountKind.HOUSE_ROUNDING, USD)] = 1
    t = transfer(
        engine,
        key="hand:1",
        kind="hand_settlement",
        currency=USD,
        postings=settlement,
        reference="hand:1",
    )
    assert len(t.postings) == 8 and sum(p.amount for p in t.postings) == 0
    assert get_account(engine, seat["p0"]).balance == 7_399
    assert get_account(engine, "house_rake:house:USD").balance == 100
    assert total_balance(engine, USD) == 0
    assert check_ledger(engine).ok


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"postings": [("wallet:a:USD", 10), ("wallet:b:USD", -9)]}, "unbalanced"),
        ({"postings": [("wallet:a:USD", 10.0), ("wallet:b:USD", -10)]}, "invalid_amount"),
        ({"postings": [("wallet:a:USD", True), ("wallet:b:USD", -1)]}, "invalid_amount"),
        ({"postings": [("wallet:a:USD", 0), ("wallet:b:USD", 0)]}, "invalid_amount"),
        ({"postings": [("wallet:a:USD", 10**16), ("wallet:b:USD", -(10**16))]}, "invalid_amount"),
        ({"postings": [("wallet:a:USD", 0)]}, "invalid_amount"),
        ({"postings": [("external:world:USD", 1), ("external:world:USD", -1)]}, "invalid_postings"),
        ({"postings": [("wallet:a:EUR", 10), ("external:world:EUR", -10)]}, "currency_mismatch"),
        ({"postings": [(999_999, 10), ("external:world:USD", -10)]}, "unknown_account"),
        ({"postings": [("purse:a:USD", 10), ("external:world:USD", -10)]}, "invalid_kind"),
        ({"postings": [("wallet:a:USD", -1, 1), ("wallet:b:USD", 1)]}, "invalid_postings"),
        ({"postings": 5}, "invalid_postings"),
        ({"kind": "gift"}, "invalid_kind"),
        ({"currency": "usd"}, "invalid_currency"),
        ({"key": ""}, "invalid_key"),
        ({"key": 7}, "invalid_key"),
        ({"reference": "x" * 201}, "invalid_reference"),
        ({"postings": [("wallet:a:USD", -10), ("external:world:USD", 10)]}, "insufficient_funds"),
    ],
)
def test_bad_transfers_are_refused_and_change_nothing(
    engine: sa.Engine, kwargs: dict[str, Any], code: str
) -> None:
    """P-1: a bad request gets a stable error code and changes no money."""
    _deposit(engine, "a", 5)
    before = _counts(engine)
    request: dict[str, Any] = {
        "key": "k",
        "kind": "transfer",
        "currency": USD,
        "postings": [("wallet:a:USD", -1), ("wallet:b:USD", 1)],
    }
    request.update(kwargs)
    with pytest.raises(errors.LedgerError) as info:
        transfer(engine, **request)
    assert info.value.code == code
    entries, posts, bals = _counts(engine)
    assert (entries, posts) == before[:2]
    assert [b for b in bals if b] == [b for b in before[2] if b]  # opened-empty accounts only
    assert check_ledger(engine).ok


def test_move_refuses_non_positive_amounts(engine: sa.Engine) -> None:
    """move() takes a positive amount of minor units."""
    for amount in (0, -5, 1.5, "5"):
        with pytest.raises(errors.InvalidAmount):
            move(
                engine,
                key="m",
                kind="transfer",
                currency=USD,
                source=external(USD),
                destination=wallet("a", USD),
                amount=amount,
            )  # type: ignore[arg-type]


def test_same_key_same_content_returns_first_result_and_moves_nothing(engine: sa.Engine) -> None:
    """P-2: repeating a request with its idempotency key does not repeat the movement."""
    _deposit(engine, "a", 100, key="dep")
    again = move(
        engine,
        key="dep",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("a", USD),
        amount=100,
    )
    first = get_transfer(engine, key="dep")
    assert first is not None
    assert again.replayed and again.id == first.transfer.id
    assert again.postings == first.transfer.postings
    assert get_account(engine, "wallet:a:USD").balance == 100


def test_same_key_with_ids_instead_of_refs_is_the_same_content(engine: sa.Engine) -> None:
    """Content is compared by account, however the caller named it."""
    _deposit(engine, "a", 100, key="dep")
    a = open_account(engine, "wallet", "a", USD)
    ext = open_account(engine, "external", "world", USD)
    again = transfer(
        engine, key="dep", kind="deposit", currency=USD, postings={a.id: 100, ext.id: -100}
    )
    assert again.replayed


@pytest.mark.parametrize(
    "change",
    [{"amount": 99}, {"kind": "refund"}, {"reference": "hand:2"}, {"destination": "wallet:b:USD"}],
)
def test_same_key_different_content_is_a_conflict(engine: sa.Engine, change: dict) -> None:
    """P-2: a key reused for a different movement is refused with idempotency_conflict."""
    base = {
        "key": "dep",
        "kind": "deposit",
        "currency": USD,
        "source": external(USD),
        "destination": wallet("a", USD),
        "amount": 100,
        "reference": "hand:1",
    }
    move(engine, **base)
    before = _counts(engine)
    with pytest.raises(errors.IdempotencyConflict) as info:
        move(engine, **{**base, **change})
    assert info.value.code == "idempotency_conflict"
    assert _counts(engine)[:2] == before[:2]


def test_reverse_undoes_once_and_is_idempotent(engine: sa.Engine) -> None:
    """Mistakes are corrected by a reversing entry, never by editing the journal."""
    _deposit(engine, "a", 100, key="dep")
    original = get_transfer(engine, key="dep")
    assert original is not None
    fix = reverse(engine, original.transfer.id, key="fix", memo="wrong player")
    assert fix.kind == "correction" and fix.reverses_id == original.transfer.id
    assert [p.amount for p in fix.postings] == [-p.amount for p in original.transfer.postings]
    assert get_account(engine, "wallet:a:USD").balance == 0
    assert reverse(engine, original.transfer.id, key="fix", memo="wrong player").replayed
    with pytest.raises(errors.AlreadyReversed):
        reverse(engine, original.transfer.id, key="fix-again")
    with pytest.raises(errors.UnknownTransfer):
        reverse(engine, 987_654, key="nothing")
    assert check_ledger(engine).ok


def test_reverse_cannot_overdraw(engine: sa.Engine) -> None:
    """A reversal is a transfer like any other: it cannot take a wallet below zero."""
    _deposit(engine, "a", 100, key="dep")
    move(
        engine,
        key="spend",
        kind="buy_in",
        currency=USD,
        source=wallet("a", USD),
        destination=AccountRef(AccountKind.SEAT_ESCROW, "t1/a", USD),
        amount=60,
    )
    original = get_transfer(engine, key="dep")
    assert original is not None
    with pytest.raises(errors.InsufficientFunds) as info:
        reverse(engine, original.transfer.id, key="fix")
    assert info.value.code == "insufficient_funds" and info.value.account == "wallet:a:USD"


def test_failed_transfer_does_not_consume_its_key(engine: sa.Engine) -> None:
    """A refused transfer records nothing, so the caller may retry the key once funded."""
    request = {
        "key": "buyin",
        "kind": "buy_in",
        "currency": USD,
        "source": wallet("a", USD),
        "destination": AccountRef(AccountKind.SEAT_ESCROW, "t1/a", USD),
        "amount": 50,
    }
    with pytest.raises(errors.InsufficientFunds):
        move(engine, **request)
    _deposit(engine, "a", 50)
    assert not move(engine, **request).replayed


def test_cached_account_ids_are_checked_against_the_database(engine: sa.Engine) -> None:
    """Refs are cached as ids; if the ids now name other accounts, the cache is refreshed."""
    _deposit(engine, "a", 100, key="dep1")  # caches external -> 1, wallet:a -> 2
    migrate.downgrade(engine)
    migrate.upgrade(engine)
    open_account(engine, "wallet", "z", USD)  # takes id 1 in the new tables
    _deposit(engine, "a", 70, key="dep2")
    assert get_account(engine, "wallet:a:USD").balance == 70
    assert get_account(engine, "wallet:z:USD").balance == 0
    assert check_ledger(engine).ok
