"""`job_run` in process: its audit row commits before the run starts, so a run that pays
refunds always has a row of who asked, even when the admin is demoted or disabled while it
runs (docs/ADMIN.md, "Jobs")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from pokerroom.admin.roles import Role
from pokerroom.admin.schema import audit
from pokerroom.admin.staff import disable_staff
from pokerroom.jobs.runner import RunReport
from pokerroom.ledger.db import read
from pokerroom.protocol.framing import encode_frame
from tests.admin.rooms import Staff, add_members, admin_service, logged_in, staffed_room
from tests.ledger.conftest import QueueReactor
from tests.server.conftest import CountingLedger
from tests.server.harness import Room


class HeldJobs:
    """The JobService's face to `job_run`: a run that ends when the test says so."""

    def __init__(self) -> None:
        self.jobs = {"refunds": object()}
        self.started: list[Deferred[RunReport]] = []

    def run_now(self, name: str) -> Deferred[RunReport]:
        """Start a run of `name` (it pays once the test fires it)."""
        d: Deferred[RunReport] = Deferred()
        self.started.append(d)
        return d


@pytest.fixture
def room(reactor: QueueReactor, clock: Clock, ledger: CountingLedger) -> Iterator[Room]:
    """A room with the admin `adm1`."""
    with staffed_room(reactor, clock, ledger, {"adm1": Role.ADMIN}) as built:
        yield built


def rows(room: Room) -> list[Any]:
    """The audit rows but the staff accounts', oldest first."""
    query = sa.select(audit).where(audit.c.action != "staff_add").order_by(audit.c.id)
    return read(room.ledger.engine, lambda conn: list(conn.execute(query)))


def pending(staff: Staff, kind: str, **fields: Any) -> int:
    """Send a request without waiting for its answer; its id."""
    request_id = 900 + len(staff.frames())
    staff.session.dataReceived(encode_frame({"type": kind, "id": request_id, **fields}))
    return request_id


def answer_of(room: Room, staff: Staff, request_id: int) -> dict[str, Any] | None:
    """The answer to `request_id` once the ledger work in flight is done, or None."""
    room.drain()
    return next((f for f in staff.frames() if f.get("id") == request_id), None)


@pytest.mark.parametrize("change", ["demoted", "disabled"])
def test_the_audit_row_of_job_run_is_written_before_the_run_starts(room: Room, change: str) -> None:
    """The `job_run` row (who, role, reason) commits before the job is started; the admin is
    demoted (or disabled) while it runs; at its end the answer carries the report and that
    row's id, and a `job_run_end` row carries the report. Nothing is paid without a row."""
    jobs = HeldJobs()
    admin = admin_service(room, jobs=jobs)  # only jobs and run_now are used
    staff = logged_in(room, admin, "adm1")
    request_id = pending(staff, "job_run", job="refunds", reason="storm")
    assert answer_of(room, staff, request_id) is None
    assert len(jobs.started) == 1  # the run started ...
    [started] = rows(room)  # ... after its row was committed
    assert (started.action, started.staff, started.role, started.target, started.reason) == (
        "job_run",
        "adm1",
        "admin",
        "refunds",
        "storm",
    )
    if change == "demoted":
        with room.ledger.engine.begin() as conn:
            conn.execute(sa.text("UPDATE staff SET role = 'director' WHERE name = 'adm1'"))
    else:
        disable_staff(room.ledger.engine, "adm1", 0)
    report = RunReport("refunds", 7, "ok", "paid", ("t1",), {"USD": 900}, 3)
    jobs.started[0].callback(report)
    answer = answer_of(room, staff, request_id)
    assert answer is not None and answer["type"] == "ok", answer
    result = answer["result"]
    assert result["audit_id"] == started.id and result["run_id"] == 7
    assert result["amounts"] == {"USD": 900} and result["tournaments"] == ["t1"]
    end = rows(room)[-1]
    assert (end.action, end.staff, end.before) == ("job_run_end", "adm1", {"audit_id": started.id})
    assert end.after["tournaments"] == ["t1"] and end.after["transfers"] == 3


def test_a_refused_job_run_starts_no_run(room: Room) -> None:
    """A role too low (the check comes with the audit row) starts nothing."""
    jobs = HeldJobs()
    add_members(room.ledger.engine, {"dir": Role.DIRECTOR})
    staff = logged_in(room, admin_service(room, jobs=jobs), "dir")
    assert staff.call("job_run", job="refunds")["code"] == "forbidden"
    assert jobs.started == [] and rows(room) == []
