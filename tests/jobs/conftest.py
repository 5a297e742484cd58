"""A real ledger (SQLite file and PostgreSQL) with tournaments built through the store.

`Room.tournament(...)` returns a builder that pays every purchase through the ledger exactly as
the actor does (buy-in to the prize pool, fee to the house, bounty to the bounty pool, from the
wallet, T$ or a ticket's account, T-2, T-3, T-16) and records it with the store, so that the
stored state and the ledger agree, as they do after a crash.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import list_accounts
from pokerroom.ledger.db import in_transaction, make_engine
from pokerroom.ledger.kinds import AccountKind, AccountRef, external
from pokerroom.ledger.migrate import upgrade
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.schema import journal
from tests.postgres import fresh_pg_schema
from tournaments import store
from tournaments.director.payouts import PrizeTable
from tournaments.director.refunds import FeeRefund
from tournaments.director.registration import Funding

USD = "USD"
T0 = 1_800_000_000_000  # ms: the tests' epoch


def ref(kind: str, owner: str) -> str:
    """An account identifier in USD."""
    return f"{kind}:{owner}:{USD}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or a fresh PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'jobs.sqlite'}"
        return
    with fresh_pg_schema("jobs_test") as url:
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on a database upgraded to head."""
    eng = make_engine(db_url)
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


class Builder:
    """One tournament's stored state and ledger money, built purchase by purchase."""

    def __init__(self, room: Room, tid: str) -> None:
        self.room = room
        self.tid = tid
        self.seq: dict[str, int] = {}

    def _do(self, work: object) -> None:
        in_transaction(self.room.engine, work)  # type: ignore[arg-type]

    def buy(
        self,
        player: str,
        *,
        entry_no: int = 1,
        kind: str = "entry",
        funding: Funding = Funding.CASH,
        buy_in: int = 920,
        fee: int = 80,
        bounty: int = 0,
        ticket_id: str = "",
        chips: int = 10_000,
        new_entry: bool = True,
    ) -> Builder:
        """A purchase paid through the ledger (T-2) and recorded; a new entry unless a top-up."""
        source = {
            Funding.CASH: ref("wallet", player),
            Funding.TDOLLARS: ref("tdollars", player),
            Funding.TICKET: ref("ticket", ticket_id),
        }[funding]
        self.room.deposit(source, buy_in + fee + bounty)
        seq = self.seq[player] = self.seq.get(player, 0) + 1
        key = f"tourney:{self.tid}:{kind}:{player}:{seq}"
        lines = [(source, -(buy_in + fee + bounty)), (ref("prize_pool", self.tid), buy_in)]
        lines.append((ref("house_fees", "house"), fee))
        if bounty:
            lines.append((ref("bounty_pool", self.tid), bounty))
        transfers.transfer(self.room.engine, key=key, kind="buy_in", currency=USD, postings=lines)
        payment = store.Payment(
            player, seq, entry_no, kind, funding, buy_in, fee, bounty, chips, ticket_id, key
        )
        entries = [store.EntryRecord(player, entry_no)] if new_entry else []
        self._do(lambda conn: store.add_entries(conn, self.tid, entries, [payment]))
        return self

    def start(self) -> Builder:
        """T-1: the tournament started."""
        self._do(lambda conn: store.mark_started(conn, self.tid, T0 + 60_000))
        return self

    def bust(self, player: str, entry_no: int = 1, place: int | None = None) -> Builder:
        """An entry knocked out."""
        self._do(
            lambda conn: store.update_entry(
                conn, self.tid, player, entry_no, status=store.BUSTED, place=place
            )
        )
        return self

    def bounty(self, player: str, amount: int, entry_no: int = 1) -> Builder:
        """The entry's current bounty total (T-14)."""
        self._do(lambda conn: store.update_entry(conn, self.tid, player, entry_no, bounty=amount))
        return self

    def seats(self, table: str, stacks: dict[str, int], hand: int = 7) -> Builder:
        """A completed hand of `table`: these players with these stacks (their live entry)."""
        entries = {
            e.player: e.entry_no
            for e in in_transaction(self.room.engine, lambda c: store.load_entries(c, self.tid))
            if e.status == store.ALIVE
        }
        rows = [
            store.SeatRecord(table, n, player, entries[player], stack)
            for n, (player, stack) in enumerate(stacks.items())
        ]
        self._do(lambda conn: store.record_hand(conn, self.tid, table, hand, rows))
        return self

    def overlay(self, amount: int) -> Builder:
        """T-6: the house tops the pool up (the operator funded the overlay account)."""
        self.room.deposit(ref("house_overlay", "house"), amount)
        transfers.move(
            self.room.engine,
            key=f"tourney:{self.tid}:overlay:house:1",
            kind="overlay",
            currency=USD,
            source=ref("house_overlay", "house"),
            destination=ref("prize_pool", self.tid),
            amount=amount,
        )
        return self

    def prizes(self, table: PrizeTable, overlay_posted: int = 0) -> Builder:
        """T-6: the fixed prize table."""
        self._do(lambda conn: store.save_prizes(conn, self.tid, table, overlay_posted))
        return self

    def prize(self, player: str, place: int, amount: int, entry_no: int = 1) -> Builder:
        """A prize paid (it stands, T-18): pool -> wallet, and the entry busted at `place`."""
        transfers.move(
            self.room.engine,
            key=f"tourney:{self.tid}:prize:{player}:{place}",
            kind="prize",
            currency=USD,
            source=ref("prize_pool", self.tid),
            destination=ref("wallet", player),
            amount=amount,
        )
        self._do(
            lambda conn: store.update_entry(
                conn, self.tid, player, entry_no, status=store.BUSTED, place=place, prize=amount
            )
        )
        return self

    def cancel(self, reason: store.CancelReason = store.CancelReason.OUTAGE) -> str:
        """Cancelled (the refund job's input); the tournament id."""
        self._do(lambda conn: store.mark_cancelled(conn, self.tid, reason, T0 + 3_600_000))
        return self.tid


class Room:
    """The database under test, with money helpers."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.deposits = 0

    def deposit(self, account: str, amount: int) -> None:
        """Money from outside into an account (a deposit, T$ given, a ticket's value)."""
        self.deposits += 1
        transfers.move(
            self.engine,
            key=f"deposit:{self.deposits}",
            kind="deposit",
            currency=USD,
            source=external(USD),
            destination=AccountRef.parse(account),
            amount=amount,
        )

    def tournament(
        self,
        tid: str,
        *,
        guarantee: int = 0,
        guarantee_dropped: bool = False,
        fee_refund: FeeRefund = FeeRefund.LIVE_ENTRY,
    ) -> Builder:
        """A new tournament row (registering)."""
        record = store.TournamentRecord(
            tid,
            "test-template",
            USD,
            T0,
            config={"buy_in": 920, "fee": 80},
            guarantee=guarantee,
            guarantee_dropped=guarantee_dropped,
            fee_refund=fee_refund,
        )
        in_transaction(self.engine, lambda conn: store.save_tournament(conn, record))
        return Builder(self, tid)

    def balances(self) -> dict[str, int]:
        """Every account's balance, external included."""
        return {a.identifier: a.balance for a in list_accounts(self.engine)}

    def journal_size(self) -> int:
        """How many transfers the ledger holds."""
        return in_transaction(
            self.engine,
            lambda c: int(c.execute(sa.select(sa.func.count()).select_from(journal)).scalar_one()),
        )

    def check(self) -> None:
        """`ledger check` passes (P-2)."""
        report = check_ledger(self.engine)
        assert report.ok, report

    def status(self, tid: str) -> str:
        """The tournament's status."""
        record = in_transaction(self.engine, lambda c: store.load_tournament(c, tid))
        assert record is not None
        return record.status


def deltas(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """What changed, account by account (zero changes left out)."""
    names = set(before) | set(after)
    moved = {n: after.get(n, 0) - before.get(n, 0) for n in names}
    return {n: d for n, d in moved.items() if d}


@pytest.fixture
def room(engine: Engine) -> Room:
    """The database with money helpers."""
    return Room(engine)


__all__ = ["T0", "USD", "AccountKind", "Builder", "Room", "deltas", "ref"]
