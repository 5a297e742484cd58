"""Concurrency: a bank of threads moving money, and many retries of one key at once (P-2)."""

from __future__ import annotations

import random
import threading

import sqlalchemy as sa

from pokerroom.ledger import errors
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.reports import check_ledger, total_balance
from pokerroom.ledger.schema import accounts
from pokerroom.ledger.transfers import get_transfer, move

USD = "USD"
PLAYERS = [f"p{i}" for i in range(6)]
START = 1_000
WRITERS = 4
TRANSFERS_PER_WRITER = 40


def _fund(engine: sa.Engine) -> None:
    for p in PLAYERS:
        move(
            engine,
            key=f"fund:{p}",
            kind="deposit",
            currency=USD,
            source=external(USD),
            destination=wallet(p, USD),
            amount=START,
        )


def _wallet_snapshot(engine: sa.Engine) -> tuple[int, int]:
    """(sum, min) of the wallets, read in one statement."""
    query = sa.select(sa.func.sum(accounts.c.balance), sa.func.min(accounts.c.balance)).where(
        accounts.c.kind == "wallet"
    )
    total, low = read(engine, lambda conn: conn.execute(query).one())
    return int(total), int(low)


def test_bank_threads_never_create_destroy_or_overdraw_money(engine: sa.Engine) -> None:
    """Writers move money at random (some overdraw); a reader sees a constant total, no debt."""
    _fund(engine)
    done = threading.Event()
    outcomes: dict[str, int] = {"ok": 0, "refused": 0}
    lock = threading.Lock()
    reader_seen: list[tuple[int, int]] = []
    failures: list[BaseException] = []

    def writer(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for n in range(TRANSFERS_PER_WRITER):
                src, dst = rng.sample(PLAYERS, 2)
                amount = rng.randint(1, 400) if n % 5 else START * 10  # every 5th overdraws
                try:
                    move(
                        engine,
                        key=f"w{seed}:{n}",
                        kind="transfer",
                        currency=USD,
                        source=wallet(src, USD),
                        destination=wallet(dst, USD),
                        amount=amount,
                    )
                    result = "ok"
                except errors.InsufficientFunds as exc:
                    assert exc.code == "insufficient_funds"
                    result = "refused"
                with lock:
                    outcomes[result] += 1
        except BaseException as exc:  # surfaced by the main thread
            failures.append(exc)

    def reader() -> None:
        try:
            while not done.is_set():
                reader_seen.append(_wallet_snapshot(engine))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(seed,)) for seed in range(WRITERS)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    watcher.join()
    assert not failures, failures
    reader_seen.append(_wallet_snapshot(engine))
    assert {total for total, _ in reader_seen} == {START * len(PLAYERS)}
    assert min(low for _, low in reader_seen) >= 0
    assert outcomes["ok"] + outcomes["refused"] == WRITERS * TRANSFERS_PER_WRITER
    assert outcomes["refused"] >= WRITERS * TRANSFERS_PER_WRITER // 5
    report = check_ledger(engine)
    assert report.ok
    assert report.entries == len(PLAYERS) + outcomes["ok"]
    assert total_balance(engine) == 0


def test_concurrent_retries_of_one_key_move_money_once(engine: sa.Engine) -> None:
    """P-2: eight threads send the same keyed request at once; exactly one moves money."""
    move(
        engine,
        key="fund",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("a", USD),
        amount=1_000,
    )
    barrier = threading.Barrier(8)
    results: list[object] = []

    def send() -> None:
        barrier.wait()
        try:
            results.append(
                move(
                    engine,
                    key="buyin:t1:a",
                    kind="buy_in",
                    currency=USD,
                    source=wallet("a", USD),
                    destination=wallet("b", USD),
                    amount=300,
                    reference="table:1",
                )
            )
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(not isinstance(r, BaseException) for r in results), results
    ids = {r.id for r in results}  # type: ignore[attr-defined]
    assert len(ids) == 1
    assert sum(not r.replayed for r in results) == 1  # type: ignore[attr-defined]
    stored = get_transfer(engine, key="buyin:t1:a")
    assert stored is not None and stored.transfer.id in ids
    snapshot = _wallet_snapshot(engine)
    assert snapshot == (1_000, 300)
    assert check_ledger(engine).ok


def test_concurrent_conflicting_uses_of_one_key_move_money_once(engine: sa.Engine) -> None:
    """Two different requests race on one key: one wins, the other gets idempotency_conflict."""
    move(
        engine,
        key="fund",
        kind="deposit",
        currency=USD,
        source=external(USD),
        destination=wallet("a", USD),
        amount=1_000,
    )
    barrier = threading.Barrier(6)
    results: list[object] = []

    def send(amount: int) -> None:
        barrier.wait()
        try:
            results.append(
                move(
                    engine,
                    key="same",
                    kind="transfer",
                    currency=USD,
                    source=wallet("a", USD),
                    destination=wallet("b", USD),
                    amount=amount,
                )
            )
        except errors.IdempotencyConflict as exc:
            results.append(exc)

    threads = [threading.Thread(target=send, args=(100 + i % 2,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conflicts = [r for r in results if isinstance(r, errors.IdempotencyConflict)]
    assert len(conflicts) == 3
    stored = get_transfer(engine, key="same")
    assert stored is not None
    moved = stored.transfer.postings[1].amount
    assert _wallet_snapshot(engine) == (1_000, moved)
