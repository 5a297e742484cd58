"""LedgerService: Deferreds of plain values from a real thread pool; nothing blocks the reactor."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sqlalchemy as sa

from pokerroom.ledger import errors
from pokerroom.ledger.accounts import Account
from pokerroom.ledger.kinds import AccountKind, AccountRef, external, house, wallet
from pokerroom.ledger.service import LedgerService
from pokerroom.ledger.transfers import Transfer
from tests.ledger.conftest import QueueReactor

USD = "USD"


def test_service_moves_money_through_its_thread_pool(
    engine: sa.Engine, reactor: QueueReactor
) -> None:
    """A buy-in, a keyed retry, a reversal and the reports, all as Deferreds."""
    service = LedgerService(reactor, engine)
    assert service.threads == (1 if engine.dialect.name == "sqlite" else 4)
    service.startService()
    try:
        deposit = reactor.wait(
            service.move(
                key="dep",
                kind="deposit",
                currency=USD,
                source=external(USD),
                destination=wallet("alice", USD),
                amount=1_000,
            )
        )
        assert isinstance(deposit, Transfer) and not deposit.replayed
        again = reactor.wait(
            service.move(
                key="dep",
                kind="deposit",
                currency=USD,
                source=external(USD),
                destination=wallet("alice", USD),
                amount=1_000,
            )
        )
        assert again.replayed and again.id == deposit.id
        escrow = AccountRef(AccountKind.SEAT_ESCROW, "t9/s2/alice", USD)
        buy_in = reactor.wait(
            service.transfer(
                key="buyin",
                kind="buy_in",
                currency=USD,
                postings={
                    wallet("alice", USD): -800,
                    escrow: 750,
                    house(AccountKind.HOUSE_FEES, USD): 50,
                },
            )
        )
        assert [p.balance_after for p in buy_in.postings] == [200, 750, 50]
        with pytest.raises(errors.InsufficientFunds):
            reactor.wait(
                service.move(
                    key="too-much",
                    kind="buy_in",
                    currency=USD,
                    source=wallet("alice", USD),
                    destination=escrow,
                    amount=201,
                )
            )
        reactor.wait(service.reverse(buy_in.id, key="undo"))
        alice = reactor.wait(service.balance("wallet:alice:USD"))
        assert isinstance(alice, Account) and alice.balance == 1_000
        opened = reactor.wait(service.open_account("tdollars", "alice", USD))
        assert opened.balance == 0 and opened.kind is AccountKind.TDOLLARS
        statement = reactor.wait(service.statement("wallet:alice:USD"))
        assert [line.amount for line in statement.lines] == [1_000, -800, 800]
        assert reactor.wait(service.check()).ok
    finally:
        service.stopService()


def test_service_refuses_to_start_on_a_schema_not_at_head(
    db_url: str, reactor: QueueReactor
) -> None:
    """ARCH 9: the ledger service will not start on an old schema and names the fix."""
    service = LedgerService(reactor, db_url)
    try:
        with pytest.raises(errors.SchemaNotAtHead, match="pokerroom db upgrade --db"):
            service.startService()
        assert not service.running
    finally:
        service.engine.dispose()


NO_GLOBAL_REACTOR = """
import sys
from pokerroom.ledger import LedgerService, upgrade
from pokerroom.ledger.db import make_engine

class Reactor:
    def callFromThread(self, f, *args, **kwargs):
        f(*args, **kwargs)

engine = make_engine(sys.argv[1])
upgrade(engine)
service = LedgerService(Reactor(), engine)
service.startService()
service.check()
service.stopService()
print('twisted.internet.reactor' in sys.modules)
"""


def test_the_ledger_never_imports_the_global_reactor(db_url: str) -> None:
    """ARCH 3: importing, starting and using the service leaves the global reactor alone."""
    out = subprocess.run(
        [sys.executable, "-c", NO_GLOBAL_REACTOR, db_url],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "False"
