"""K-7, L-5 end to end: a real `pokerroom serve` is killed (SIGKILL) with a casino round whose
bets are confirmed but not settled; the restarted server voids it and returns every stake,
once (a second restart and the pending-bets job move nothing more); the ledger check passes.
SQLite file and PostgreSQL."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from pokerroom.casino import money, store
from pokerroom.casino.schema import casino_rounds
from pokerroom.ledger import make_engine, transfers, upgrade
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.kinds import external, wallet
from pokerroom.ledger.reports import check_ledger
from tests.postgres import fresh_pg_schema
from tests.server.test_end_to_end import Wire, start_server
from tests.serving import CLI, stop

pytestmark = pytest.mark.slow
USD = "USD"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated room database whose casino bankroll covers a round (docs/CASINO.md)."""
    if request.param == "sqlite":
        found = f"sqlite:///{tmp_path / 'room.sqlite'}"
        funded(found)
        yield found
        return
    with fresh_pg_schema("casino_crash") as found:
        funded(found)
        yield found


def funded(found: str) -> None:
    """Migrate the database and fund the bankroll for two players' maximum win (K-12)."""
    engine = make_engine(found)
    upgrade(engine)
    transfers.move(engine, key="bankroll", kind="deposit", currency=USD, source=external(USD),
                   destination=money.bankroll(USD), amount=100_000_000)  # fmt: skip
    engine.dispose()


def better(port: int, name: str, spot: str, stake: int) -> Wire:
    """Register, fund, join roulette-1 and confirm one bet."""
    wire = Wire(port)
    wire.ok("hello", version=1, client="desktop")
    wire.ok("register", name=name, password="password 1")
    wire.ok("deposit", amount=10_000)
    table = wire.ok("casino_join", table_id="roulette-1")["table"]
    if table["phase"] != "betting":  # the first player: the round opens now
        wire.until(lambda f: f["type"] == "casino_betting_open")
    wire.ok("casino_place", table_id="roulette-1", spot=spot, amount=stake)
    wire.ok("casino_confirm", table_id="roulette-1", key=f"{name}-1")
    return wire


def test_sigkill_with_confirmed_bets_then_restart_voids_once(tmp_path: Path, url: str) -> None:
    port, proc = start_server(tmp_path, url)
    wires: list[Wire] = []
    try:
        wires = [better(port, "cara", "red", 700), better(port, "dino", "straight:7", 300)]
        proc.kill()  # SIGKILL inside the 45 s window: nothing settles, nothing shuts down
        proc.wait(timeout=20)
    finally:
        for wire in wires:
            wire.close()
        stop(proc)
    engine = make_engine(url)
    try:

        def balance(ref: object) -> int:
            return get_account(engine, ref).balance  # type: ignore[arg-type]

        with engine.connect() as conn:
            [(round_id, status)] = conn.execute(
                sa.select(casino_rounds.c.id, casino_rounds.c.status)
            ).all()
        assert status == "open"
        assert (balance(wallet("cara", USD)), balance(wallet("dino", USD))) == (9_300, 9_700)
        assert balance(money.in_play(round_id, USD)) == 1_000
        for _ in range(2):  # the restart voids; a second one finds nothing to do
            port, proc = start_server(tmp_path, url)
            stop(proc)
            assert (balance(wallet("cara", USD)), balance(wallet("dino", USD))) == (
                10_000,
                10_000,
            )
        with engine.connect() as conn:
            row = conn.execute(sa.select(casino_rounds).where(casino_rounds.c.id == round_id)).one()
        assert row.status == "void" and "restart" in row.reason
        assert balance(money.in_play(round_id, USD)) == 0
        job = subprocess.run(
            [*CLI, "jobs", "run", "pending_bets", "--db", url, "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert job.returncode == 0, job.stderr
        assert '"transfers": 0' in job.stdout
        assert balance(wallet("cara", USD)) == 10_000
        report = check_ledger(engine)
        assert report.ok and report.currency_totals[USD] == 0
        assert store.in_play_mismatches(engine) == ()
    finally:
        engine.dispose()
