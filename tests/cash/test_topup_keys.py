"""P-2 for a keyed top-up at a cash table: the seat's stack and its escrow never disagree.

The ledger answers a top-up whose key it already holds as `replayed` (nothing moved now). The
table adds the chips of such an answer only when its stack does not hold them yet: the ledger's
own retry found its first try committed (the answer was lost on the way back), or an earlier
try of the table failed after its commit. A retry whose chips the stack holds (credited by the
table, counted when a restart read the stacks from the escrows, or from an earlier seating)
adds nothing. On SQLite and on PostgreSQL, the ledger retrying on the fake clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.cash import TableActor
from pokerroom.cash import store as cash_store
from pokerroom.cash.store import ChipsAdded, escrow
from pokerroom.ledger.kinds import wallet
from pokerroom.ledger.schema import journal
from pokerroom.protocol.errors import ProtocolError
from pokerroom.protocol.results import ToppedUp
from pokerroom.server.replies import ledger_key
from tests.cash.conftest import USD, Harness
from tests.postgres import fresh_pg_schema


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def room(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    """A room whose ledger retries transient failures, on SQLite, then on PostgreSQL."""
    if request.param == "sqlite":
        harness = Harness(tmp_path, retries=True)
        try:
            yield harness
        finally:
            harness.close()
        return
    with fresh_pg_schema("topup_keys") as url:
        harness = Harness(tmp_path, url=url, retries=True)
        try:
            yield harness
        finally:
            harness.close()


Work = Callable[..., ChipsAdded]


class LostAnswers:
    """Fault injection around the real `store.add_chips`: the answers of top-ups (keys
    `request:...`) are lost after the transfer committed while `lose` says so; buy-ins pass."""

    def __init__(self, real: Work) -> None:
        self.real = real
        self.lose: Callable[[int], bool] = lambda call: False  # by the top-up try's number
        self.tries: list[ChipsAdded] = []

    def __call__(self, engine: sa.Engine, *args: Any) -> ChipsAdded:
        key = args[-1]
        moved = self.real(engine, *args)
        if not key.startswith("request:"):
            return moved
        self.tries.append(moved)
        if self.lose(len(self.tries)):
            lost = sa.exc.OperationalError("COMMIT", {}, Exception("server closed the connection"))
            lost.connection_invalidated = True  # a transient failure: the ledger tries again
            raise lost
        return moved


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> LostAnswers:
    """The table's store writes top-ups through `LostAnswers`."""
    fault = LostAnswers(cash_store.add_chips)
    monkeypatch.setattr(cash_store, "add_chips", fault)
    return fault


def settle(room: Harness, d: Deferred[Any]) -> Any:
    """The Deferred's result, running the ledger's answers and its retries on the fake clock."""
    box: list[Any] = []
    d.addBoth(box.append)
    for _ in range(400):
        room.drain()
        if box:
            break
        room.clock.advance(0.25)
    assert box, "no answer"
    if isinstance(box[0], Failure):
        box[0].raiseException()
    return box[0]


def seated_ann(room: Harness, buy_in: int = 100) -> TableActor:
    """Ann alone at table t1 (no hand is dealt), with a funded wallet."""
    actor = room.table("t1")
    room.fund("ann", 1_000)
    settle(room, actor.sit("ann", 0, buy_in))
    return actor


def in_step(room: Harness, actor: TableActor) -> tuple[int, int]:
    """Ann's stack and her escrow: the same whenever no hand runs (P-2)."""
    return actor.seats[0].stack, room.balance(escrow("t1", "ann", USD))


def transfers_with(room: Harness, key: str) -> int:
    with room.engine.connect() as conn:
        query = sa.select(sa.func.count()).where(journal.c.idempotency_key == key)
        return int(conn.execute(query).scalar_one())


def test_p2_a_top_up_whose_committed_first_try_lost_its_answer_adds_its_chips(
    room: Harness, faults: LostAnswers
) -> None:
    """P-2, C-9: the first try commits and its answer is lost; the ledger's retry finds the key
    and answers `replayed`. The table never had these chips: it adds them, once."""
    actor = seated_ann(room)
    key = ledger_key("ann", "k1")
    faults.lose = lambda call: call == 1
    answer = settle(room, actor.top_up("ann", 50, key))
    assert [t.replayed for t in faults.tries] == [False, True]  # the fault did fire
    assert answer == ToppedUp(stack=150, pending=0)
    assert in_step(room, actor) == (150, 150)
    assert room.balance(wallet("ann", USD)) == 1_000 - 150
    # The client's own retry (the lobby forgot it): the stack holds these chips already.
    assert settle(room, actor.top_up("ann", 50, key)) == ToppedUp(stack=150, pending=0)
    assert in_step(room, actor) == (150, 150) and transfers_with(room, key) == 1


def test_p2_a_top_up_that_failed_after_its_commit_adds_its_chips_when_retried(
    room: Harness, faults: LostAnswers
) -> None:
    """P-2: the transfer committed, then the database stayed out past the ledger's deadline:
    the client hears `service_unavailable` and the chips are in the escrow only. Its retry
    with the same key moves no money and puts the chips on the stack, once."""
    actor = seated_ann(room)
    key = ledger_key("ann", "k2")
    faults.lose = lambda call: True  # every try in the outage loses its answer
    with pytest.raises(ProtocolError) as refused:
        settle(room, actor.top_up("ann", 50, key))
    assert refused.value.code == "service_unavailable"
    assert in_step(room, actor) == (100, 150)  # the escrow holds what the stack does not
    faults.lose = lambda call: False  # the database is back
    assert settle(room, actor.top_up("ann", 50, key)) == ToppedUp(stack=150, pending=0)
    assert in_step(room, actor) == (150, 150)
    assert settle(room, actor.top_up("ann", 50, key)) == ToppedUp(stack=150, pending=0)
    assert in_step(room, actor) == (150, 150)
    assert room.balance(wallet("ann", USD)) == 1_000 - 150 and transfers_with(room, key) == 1


def test_p2_a_retry_after_a_restart_adds_nothing_the_escrow_already_held(
    room: Harness, faults: LostAnswers
) -> None:
    """C-12, P-2: the server died after the top-up committed, before it answered. The restart
    reads the stack from the escrow, top-up included; the client's retry adds no chips."""
    actor = seated_ann(room)
    key = ledger_key("ann", "k3")
    cash_store.add_chips(room.engine, "t1", "ann", USD, 50, key)  # committed; then the crash
    actor.close()
    again = room.table("t1")  # the restart: recovery reads the escrows
    assert in_step(room, again) == (150, 150)
    assert settle(room, again.top_up("ann", 50, key)) == ToppedUp(stack=150, pending=0)
    assert in_step(room, again) == (150, 150)
    # A new key after the restart is new money, as usual.
    assert settle(room, again.top_up("ann", 10, ledger_key("ann", "k4"))).stack == 160
    assert in_step(room, again) == (160, 160)


def test_p2_a_key_of_an_earlier_seating_adds_nothing(room: Harness, faults: LostAnswers) -> None:
    """P-2, C-10: a top-up credited at an earlier seating was cashed out with it; retried at
    the next seating it moves nothing and adds nothing."""
    actor = seated_ann(room)
    key = ledger_key("ann", "k5")
    assert settle(room, actor.top_up("ann", 50, key)).stack == 150
    assert settle(room, actor.leave("ann")).amount == 150
    settle(room, actor.sit("ann", 0, 150))  # C-10: she brings at least what she took
    assert settle(room, actor.top_up("ann", 50, key)) == ToppedUp(stack=150, pending=0)
    assert in_step(room, actor) == (150, 150)
    assert room.balance(wallet("ann", USD)) == 1_000 - 150 and transfers_with(room, key) == 1
