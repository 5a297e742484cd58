"""tournament_outage end to end (T-18, docs/ADMIN.md): a real `pokerroom serve` is killed
(SIGKILL) with three tournaments running and started again; its start-up cancels for outage
the two whose `resume_within_minutes` is 0 and resumes the third. The staff then override it:
one cancelled tournament plays on (its players get hands again), the resumed one is refunded
after all (the refund job pays, players hear `tournament_cancelled`), and a cancelled one
whose refunds the job has already planned cannot be resumed (`refunds_started`). On SQLite
and PostgreSQL; two server processes per database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerroom.jobs.refunds import prepare
from tests.admin.test_admin_end_to_end import Room, Wire, _server, wallet
from tests.admin.test_admin_tournaments import BUY_IN, FEE, create, entrants, of, room_toml
from tests.postgres import fresh_pg_schema
from tournaments import store

pytestmark = pytest.mark.slow
ENDPOINT = "tcp:0:interface=127.0.0.1"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'room.sqlite'}"
        return
    with fresh_pg_schema("admin_outage") as url:
        yield url


def back(port: int, name: str) -> Wire:
    """A player logging in again after the restart."""
    wire = Wire(port)
    wire.ok("hello", version=1, client="desktop")
    wire.ok("login", name=name, password="password 1")
    return wire


def stored(room: Room, tid: str) -> store.TournamentRecord:
    with room.engine.connect() as conn:
        record = store.load_tournament(conn, tid)
    assert record is not None
    return record


def test_staff_override_the_start_ups_choice_after_a_crash(database: str, tmp_path: Path) -> None:
    """Killed mid-play; at the restart `short` and `gone` are cancelled for outage, `long`
    resumed. `tournament_outage short resume` (director; support is refused) puts `short`
    back to running from its stored seats, and it deals again; `gone`, whose refunds the job
    planned, is `refunds_started`; `tournament_outage long refund` cancels `long` for outage;
    `job_run refunds` then pays `long` and `gone`: every player of theirs is told and paid.
    One audit row per override."""
    tids: dict[str, str] = {}
    names = {"short": ["os1", "os2"], "gone": ["og1", "og2"], "long": ["ol1", "ol2"]}
    with _server(tmp_path, database, ENDPOINT, room_toml(tmp_path, ENDPOINT)) as first:
        director = first.staff_client("dir")
        for label, minutes in (("short", 0), ("gone", 0), ("long", 10)):
            tids[label] = create(
                director, label, resume_within_minutes=minutes, reconnect_seconds=1
            )
        wires = {label: entrants(first, tids[label], names[label]) for label in tids}
        for label, tid in tids.items():
            for wire in wires[label]:
                wire.until(of("tournament_status", tid, status="running"))
            wires[label][0].until(of("hand_started", tid))
        first.proc.kill()  # SIGKILL: no goodbye, no last write
        first.proc.wait(timeout=30)
    with _server(tmp_path, database, ENDPOINT, room_toml(tmp_path, ENDPOINT), staff=False) as room:
        short, gone, long = tids["short"], tids["gone"], tids["long"]
        assert (stored(room, short).status, stored(room, short).cancel_reason) == (
            "cancelled",
            "outage",
        )
        assert stored(room, gone).status == "cancelled"
        assert stored(room, long).status == "running"
        assert stored(room, long).decision.startswith("resumed")
        director, support, admin = (room.staff_client(n) for n in ("dir", "sup", "adm1"))
        count = len(room.audit_rows())
        assert support.code(
            "tournament_outage", tournament_id=short, choice="resume", reason="x"
        ) == ("forbidden")
        assert director.code(
            "tournament_outage", tournament_id=long, choice="resume", reason="x"
        ) == (
            "not_allowed"  # it runs: nothing to resume
        )
        assert director.code(
            "tournament_outage", tournament_id=short, choice="refund", reason="x"
        ) == (
            "unknown_tournament"  # cancelled at the start-up: not in play
        )
        prepare(room.engine, gone, int(time.time() * 1000))  # the refund job's own first step
        assert (
            director.code(
                "tournament_outage", tournament_id=gone, choice="resume", reason="too late"
            )
            == "refunds_started"
        )

        resumed = director.ok(
            "tournament_outage", tournament_id=short, choice="resume", reason="back in a minute"
        )
        assert resumed["status"] == "running"
        players = [back(room.port, name) for name in names["short"]]
        assert (
            players[0].ok("tournament_status_request", tournament_id=short)["status"]["status"]
            == "running"
        )
        shown = director.ok("tournament_show", tournament_id=short)
        assert shown["in_memory"] and shown["players_left"] == 2
        assert sum(s["stack"] for t in shown["tables"] for s in t["seats"]) == 2000
        players[0].until(of("hand_started", short))  # it plays on
        assert stored(room, short).status == "running"

        refunded = director.ok(
            "tournament_outage", tournament_id=long, choice="refund", reason="players gone home"
        )
        assert (refunded["status"], refunded["cancel_reason"]) == ("cancelled", "outage")
        owed = [back(room.port, name) for name in names["long"] + names["gone"]]
        had = [wallet(w) for w in owed]
        assert had == [10_000 - BUY_IN - FEE] * 4  # the room pays nothing by itself
        report = admin.ok("job_run", job="refunds")
        assert set(report["tournaments"]) == {long, gone}
        for wire, before, name in zip(owed, had, names["long"] + names["gone"], strict=True):
            tid = long if name in names["long"] else gone
            notice = wire.until(of("tournament_cancelled", tid))
            assert wallet(wire) == before + notice["total"] and notice["fee"] == FEE
        assert stored(room, long).status == "refunded"
        shown = director.ok("tournament_show", tournament_id=gone)  # only the database knows it
        assert (shown["in_memory"], shown["status"], shown["cancel_reason"]) == (
            False,
            "refunded",
            "outage",
        )
        listed = {t["tournament_id"]: t for t in support.ok("tournament_list")["tournaments"]}
        assert listed[gone]["status"] == "refunded" and listed[short]["status"] == "running"
        assert (
            director.code("tournament_outage", tournament_id=long, choice="resume", reason="x")
            == "not_allowed"
        )
        rows = room.audit_rows()[count:]
        assert [(r.action, r.target, r.staff) for r in rows] == [
            ("tournament_outage", short, "dir"),
            ("tournament_outage", long, "dir"),
            ("job_run", "refunds", "adm1"),
            ("job_run_end", "refunds", "adm1"),
        ]
        assert rows[0].before == {"status": "cancelled", "cancel_reason": "outage"}
        assert rows[1].after["cancel_reason"] == "outage"
        for wire in [director, support, admin, *players, *owed]:
            wire.close()
