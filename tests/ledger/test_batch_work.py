"""Work with no transfer in the group commit (`LedgerService.commit_in_batch`, `batch.Pending(None,
work)`), SQLite and PostgreSQL: it shares the batch's one transaction with the settlements, is
answered with its value only once committed, stays in when a transfer of its batch is refused,
fails alone when it breaks, and runs again when a commit's answer was lost (so it must be
idempotent), answered once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.ledger import errors
from pokerroom.ledger.reports import check_ledger
from pokerroom.ledger.transfers import Transfer
from tests.ledger.group_commit import Room
from tests.ledger.test_batch import (
    escrow,
    fund,
    hand,
    lose_the_first_commit_answer,
    room_factory,
    settle,
)

__all__ = ["room_factory"]  # the fixture, shared


def notes(engine: sa.Engine) -> list[int]:
    """The rows the works wrote."""
    with engine.connect() as conn:
        return sorted(conn.execute(sa.text("select n from notes")).scalars())


def note(n: int, runs: list[int] | None = None) -> Callable[[Connection], int]:
    """A work that writes row `n` (again: nothing) and returns it."""

    def work(conn: Connection) -> int:
        if runs is not None:
            runs.append(n)
        conn.execute(
            sa.text("insert into notes (n) values (:n) on conflict (n) do nothing"), {"n": n}
        )
        return n

    return work


@pytest.fixture
def scratch(engine: sa.Engine) -> sa.Engine:
    """The ledger's database with a table the works write."""
    with engine.begin() as conn:
        conn.execute(sa.text("create table notes (n integer primary key)"))
    fund(engine, 1)
    return engine


def test_work_shares_the_batch_and_is_answered_after_its_commit(
    scratch: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """Two works and three settlements queued together: one transaction; each work's Deferred
    fires with its value when its row is already readable from another connection."""
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    seen: list[list[int]] = []
    works = [room.service.commit_in_batch(note(n)) for n in (1, 2)]
    for d in works:
        d.addCallback(lambda value: (seen.append(notes(scratch)), value)[1])
    hands = [settle(room.service, f"w:{n}", hand(0, n)) for n in range(3)]
    before = room.commits
    answers = room.answers([*works, *hands])
    assert answers[:2] == [1, 2] and all(isinstance(a, Transfer) for a in answers[2:])
    assert room.commits - before == 1 and room.service.batches == 1
    assert seen == [[1, 2], [1, 2]]  # persist, then tell
    assert check_ledger(scratch).ok


def test_work_stays_in_when_a_transfer_of_its_batch_is_refused(
    scratch: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """A settlement short of funds is taken out and the batch written again: the work is
    written once, in the one commit, and answered; the refused transfer fails alone."""
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    runs: list[int] = []
    work = room.service.commit_in_batch(note(5, runs))
    short = settle(room.service, "r:1", [(escrow(0, 0), -(10**9)), (escrow(0, 1), 10**9)])
    fine = settle(room.service, "r:2", hand(0, 1))
    before = room.commits
    value, refused, done = room.answers([work, short, fine])
    assert value == 5 and isinstance(refused, errors.InsufficientFunds)
    assert isinstance(done, Transfer) and room.commits - before == 1
    assert notes(scratch) == [5] and runs == [5]  # works run last: the refusal came first


def broken(conn: Connection) -> None:
    raise RuntimeError("a bug in the work")


def test_a_work_that_breaks_fails_alone(
    scratch: sa.Engine, room_factory: Callable[..., Room]
) -> None:
    """The batch is split until the broken work fails alone with its own error; the other work
    and the settlements are committed."""
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    ds: list[Any] = [settle(room.service, f"b:{n}", hand(0, n)) for n in range(3)]
    ds.insert(1, room.service.commit_in_batch(broken))
    ds.append(room.service.commit_in_batch(note(9)))
    answers = room.answers(ds)
    assert isinstance(answers[1], RuntimeError) and str(answers[1]) == "a bug in the work"
    assert answers[4] == 9 and all(isinstance(answers[i], Transfer) for i in (0, 2, 3))
    assert notes(scratch) == [9] and check_ledger(scratch).ok


def test_a_work_whose_commit_answer_was_lost_runs_again_and_is_answered_once(
    scratch: sa.Engine, room_factory: Callable[..., Room], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection drops right after the batch's COMMIT: the batch is tried again; the
    settlements are replays, the work runs a second time (it is idempotent: the same row) and
    each Deferred fires once."""
    calls = lose_the_first_commit_answer(monkeypatch)
    room = room_factory(batch_max_hands=10, batch_max_ms=5.0)
    runs: list[int] = []
    work = room.service.commit_in_batch(note(3, runs))
    hands = [settle(room.service, f"l:{n}", hand(0, n)) for n in range(2)]
    answers = room.answers([work, *hands])
    assert answers[0] == 3 and all(isinstance(a, Transfer) and a.replayed for a in answers[1:])
    assert len(calls) == 2 and runs == [3, 3] and notes(scratch) == [3]
    assert check_ledger(scratch).ok
