"""The tournament and jobs commands end to end (docs/ADMIN.md, "Tournaments"): a real
`pokerroom serve` process, staff over the admin endpoint (raw frames and `pokerroom admin`),
every effect seen by real player clients over the player protocol; on SQLite and PostgreSQL.

A paused tournament deals no hand and its level clock stands still; a delayed one starts
later; a cancelled one's refunds arrive once the refund job has run (`[jobs]
refunds_interval_seconds = 0`: only the staff's `job_run` pays); a moved player gets the new
table; a corrected stack shows at the table; a disqualified player is out, last of the players
left. Each role is refused what it may not do, with nothing changed and no audit row; every
change leaves one audit row. One server per database for the module; each test has its own
tournaments and players. Players sit out (T-12: acted for at once) so that hands are quick.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.cli import main
from pokerroom.ledger import check_ledger, transfer
from pokerroom.ledger.kinds import AccountKind, external, house
from tests.admin.test_admin_end_to_end import PASSWORD, Room, Wire, _server, player, wallet
from tests.postgres import fresh_pg_schema
from tests.serving import ROOM_HEAD
from tournaments import store

pytestmark = pytest.mark.slow

SCHEDULE = """
[[structure]]
name = "quick"
starting_stack = 1000
level_minutes = 10
action_seconds = 2
timebank_start_seconds = 0
levels = [[5, 10], [10, 20], [20, 40]]

[[sit_and_go]]
name = "idle"
structure = "quick"
buy_in = 100
fee = 10
players = 9
"""

BUY_IN, FEE = 100, 10


def room_toml(folder: Path, endpoint: str) -> str:
    """Cheap hashes, deposits, the admin endpoint, no refund run by the server itself, the
    schedule above, one cash table."""
    (folder / "schedule.toml").write_text(SCHEDULE)
    return (
        ROOM_HEAD
        + f"""[admin]
endpoint = "{endpoint}"
[jobs]
refunds_interval_seconds = 0
[tournaments]
schedule = "{folder / "schedule.toml"}"
[tables.cash_t]
between_hands_seconds = 0.2
action_seconds = 0.5
timebank_seconds = 0
"""
    )


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def room(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Room]:
    """Staff accounts made offline, then one server for the module."""
    folder = tmp_path_factory.mktemp(f"admin-t-{request.param}")
    if request.param == "sqlite":
        endpoint = "tcp:0:interface=127.0.0.1"
        with _server(
            folder, f"sqlite:///{folder / 'room.sqlite'}", endpoint, room_toml(folder, endpoint)
        ) as r:
            r.folder = folder  # type: ignore[attr-defined]
            yield r
    else:
        endpoint = f"unix:{folder / 'admin.sock'}"
        with (
            fresh_pg_schema("admin_t") as url,
            _server(folder, url, endpoint, room_toml(folder, endpoint)) as r,
        ):
            r.folder = folder  # type: ignore[attr-defined]
            yield r


# --------------------------------------------------------------------------- helpers


def of(kind: str, tid: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A frame test: this type, of this tournament (or one of its tables), with these fields."""

    def test(frame: dict[str, Any]) -> bool:
        where = frame.get("tournament_id") or str(frame.get("table_id", "")).split(".")[0]
        return (
            frame["type"] == kind
            and where == tid
            and all(frame.get(k) == v for k, v in fields.items())
        )

    return test


def create(director: Wire, name: str, ahead_ms: int = 2500, **kw: Any) -> str:
    """A tournament of the `quick` template starting `ahead_ms` from now; its id."""
    kw.setdefault("between_hands_seconds", 0.3)
    start = int(time.time() * 1000) + ahead_ms
    made = director.ok(
        "tournament_create", template="quick", starts_at_ms=start, buy_in=BUY_IN, fee=FEE,
        name=name, **kw,
    )  # fmt: skip
    assert made["starts_at_ms"] == start
    return str(made["tournament_id"])


def entrants(room: Room, tid: str, names: list[str]) -> list[Wire]:
    """Players who register in `tid`."""
    wires = [player(room.port, name) for name in names]
    for wire in wires:
        assert wire.ok("tournament_register", tournament_id=tid) == {"entry": 1, "chips": 1000}
    return wires


def running(wires: list[Wire], tid: str) -> None:
    """Wait until the players are told it runs; then they sit out (acted for at once)."""
    for wire in wires:
        wire.until(of("tournament_status", tid, status="running"))
    for wire in wires:
        wire.ok("tournament_sit_out", tournament_id=tid, sitting_out=True)


def status(wire: Wire, tid: str) -> dict[str, Any]:
    """`tournament_status` on request."""
    return dict(wire.ok("tournament_status_request", tournament_id=tid)["status"])


def polled(wire: Wire, tid: str, seconds: float) -> list[dict[str, Any]]:
    """Ask for the status again and again for `seconds` (every frame meanwhile is kept)."""
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.append(status(wire, tid))
    return seen


def audit_count(room: Room) -> int:
    return len(room.audit_rows())


def close(*wires: Wire) -> None:
    for wire in wires:
        wire.close()


# --------------------------------------------------------------------------- the tests


def test_create_and_delay_as_players_see_them(room: Room) -> None:
    """tournament_create (T-1) opens it in the lobby; tournament_delay moves its start: the
    registered players get `tournament_status` with the new start, it is still registering
    at the old one and starts at the new one. Support and floor are refused both, with
    nothing changed; a delay after the start is `not_allowed`. One audit row each."""
    director, support, floor = (room.staff_client(n) for n in ("dir", "sup", "flo"))
    count = audit_count(room)
    start = int(time.time() * 1000) + 60_000
    refused = dict(template="quick", starts_at_ms=start, buy_in=BUY_IN, fee=FEE, name="nope")
    assert support.code("tournament_create", **refused) == "forbidden"
    assert director.code("tournament_create", **{**refused, "template": "x"}) == (
        "unknown_template"
    )
    assert director.code("tournament_create", **{**refused, "starts_at_ms": 5}) == "bad_field"
    tid = create(director, "delayed", ahead_ms=3000)
    lobby = player(room.port, "dl0")
    listed = {t["tournament_id"]: t for t in lobby.ok("tournament_list")["tournaments"]}
    assert listed[tid]["status"] == "registering" and listed[tid]["buy_in"] == BUY_IN
    wires = entrants(room, tid, ["dl1", "dl2"])
    old = status(wires[0], tid)["starts_at_ms"]
    assert support.code("tournament_delay", tournament_id=tid, minutes=1) == "forbidden"
    assert floor.code("tournament_delay", tournament_id=tid, minutes=1) == "forbidden"
    delayed = director.ok("tournament_delay", tournament_id=tid, minutes=0.1, reason="late dealer")
    assert (delayed["was_ms"], delayed["starts_at_ms"]) == (old, old + 6000)
    for wire in wires:
        told = wire.until(of("tournament_status", tid, starts_at_ms=old + 6000))
        assert told["status"] == "registering"
    while time.time() * 1000 < old + 1500:
        status(wires[0], tid)
    assert status(wires[0], tid)["status"] == "registering"  # the old start passed
    wires[0].until(of("tournament_status", tid, status="running"))
    assert time.time() * 1000 >= old + 6000 - 50
    assert director.code("tournament_delay", tournament_id=tid, minutes=1) == "not_allowed"
    rows = room.audit_rows()[count:]
    assert [(r.action, r.staff, r.target) for r in rows] == [
        ("tournament_create", "dir", tid),
        ("tournament_delay", "dir", tid),
    ]
    assert rows[1].before == {"starts_at_ms": old} and rows[1].reason == "late dealer"
    with room.engine.connect() as conn:
        record = store.load_tournament(conn, tid)
    assert record is not None and record.config["registration"]["starts_at"] * 1000 == old + 6000
    close(director, support, floor, lobby, *wires)


def test_a_paused_tournament_deals_no_hand_and_its_clock_stands_still(room: Room) -> None:
    """tournament_pause: after the hands in play, no `hand_started` at its tables and the
    level clock (next_level_in) stands still; tournament_resume deals again and the clock runs
    on. Support is refused and the tournament keeps dealing; one audit row per change."""
    director, support = room.staff_client("dir"), room.staff_client("sup")
    tid = create(director, "pausing")
    wires = entrants(room, tid, ["pa1", "pa2", "pa3"])
    running(wires, tid)
    watcher = wires[0]
    watcher.until(of("hand_started", tid))
    count = audit_count(room)
    assert support.code("tournament_pause", tournament_id=tid) == "forbidden"
    watcher.until(of("hand_started", tid))  # still dealing
    paused = director.ok("tournament_pause", tournament_id=tid, reason="dealer change")
    assert paused["paused"] is True and paused["level"] == 1
    assert director.code("tournament_pause", tournament_id=tid) == "no_change"
    polled(watcher, tid, 1.0)  # the hands in play finish; their frames come in
    seen = len(watcher.frames)
    clocks = polled(watcher, tid, 2.0)
    assert not [f for f in watcher.frames[seen:] if of("hand_started", tid)(f)]
    assert len({c["next_level_in"] for c in clocks}) == 1  # the level clock stands still
    shown = director.ok("tournament_show", tournament_id=tid)
    assert shown["paused"] is True and not any(t["hand_running"] for t in shown["tables"])
    director.ok("tournament_resume", tournament_id=tid)
    watcher.until(of("hand_started", tid))
    frozen = clocks[-1]["next_level_in"]
    later = polled(watcher, tid, 2.5)
    assert later[-1]["next_level_in"] < frozen  # running again, from where it stood
    assert frozen - later[-1]["next_level_in"] <= 4
    rows = room.audit_rows()[count:]
    assert [(r.action, r.reason) for r in rows] == [
        ("tournament_pause", "dealer change"),
        ("tournament_resume", ""),
    ]
    assert rows[0].before["paused"] is False and rows[0].after["paused"] is True
    close(director, support, *wires)


def test_moves_chip_corrections_and_a_disqualification(room: Room) -> None:
    """tournament_move (floor): the player gets `tournament_seat` (reason staff) and the new
    table's snapshot. tournament_chips (floor): the table's snapshot shows the new stack and
    the chips issued move with it. tournament_disqualify (director; floor is refused): the
    player is out last of the players left (`tournament_finish`), their chips out of play,
    and may not re-register. One audit row each; refusals change nothing."""
    director, floor, support = (room.staff_client(n) for n in ("dir", "flo", "sup"))
    tid = create(director, "floorwork", max_seats=4)
    names = ["mv1", "mv2", "mv3", "mv4", "mv5"]
    wires = dict(zip(names, entrants(room, tid, names), strict=True))
    running(list(wires.values()), tid)
    shown = director.ok("tournament_show", tournament_id=tid)
    assert shown["chips_issued"] == 5000
    long, short = sorted(shown["tables"], key=lambda t: -len(t["seats"]))
    mover = long["seats"][0]["player"]
    count = audit_count(room)
    assert support.code("tournament_move", tournament_id=tid, player=mover, table=2) == (
        "forbidden"
    )
    assert floor.code("tournament_move", tournament_id=tid, player=mover, table=99) == (
        "unknown_table"
    )
    assert floor.code("tournament_move", tournament_id=tid, player="nobody", table=1) == (
        "not_seated"
    )
    for _ in range(60):  # T-10: never into a small-blind seat; the blinds move every hand
        answer = floor.call(
            "tournament_move", tournament_id=tid, player=mover, table=short["table"], reason="seat"
        )
        if answer["type"] == "ok":
            break
        assert answer["code"] == "table_full", answer
        polled(wires[mover], tid, 0.3)
    moved = answer["result"]
    assert moved["table"] == short["table_id"]
    told = wires[mover].until(of("tournament_seat", tid, reason="staff"))
    assert (told["table"], told["from_table"]) == (short["table"], long["table"])
    snapshot = wires[mover].until(
        lambda f: f["type"] == "table_snapshot" and f["table_id"] == short["table_id"]
    )
    assert mover in [s["player"] for s in snapshot["snapshot"]["seats"]]

    target = short["seats"][0]["player"]
    assert support.code(
        "tournament_chips", tournament_id=tid, player=target, chips=9, reason="x"
    ) == ("forbidden")
    fixed = floor.ok(
        "tournament_chips", tournament_id=tid, player=target, chips=1234, reason="miscount"
    )
    assert fixed["after"] == 1234
    corrected = wires[target].until(
        lambda f: (
            f["type"] == "table_snapshot"
            and any(s["player"] == target and s["stack"] == 1234 for s in f["snapshot"]["seats"])
        )
    )
    assert corrected["table_id"].startswith(tid)
    after = director.ok("tournament_show", tournament_id=tid)
    assert after["chips_issued"] == 5000 + 1234 - fixed["before"]
    assert after["chip_corrections"][0]["after"] == 1234

    out = names[-1] if names[-1] != target else names[-2]
    assert floor.code("tournament_disqualify", tournament_id=tid, player=out, reason="x") == (
        "forbidden"
    )
    gone = director.ok("tournament_disqualify", tournament_id=tid, player=out, reason="collusion")
    assert gone["place"] == 5 and gone["chips_removed"] > 0
    finish = wires[out].until(of("tournament_finish", tid))
    assert finish["place"] == 5 and finish["prize"] == 0
    assert wires[out].code("tournament_register", tournament_id=tid) == "not_allowed"
    final = director.ok("tournament_show", tournament_id=tid)
    assert final["disqualified"] == [out] and final["players_left"] == 4
    assert final["chips_issued"] == after["chips_issued"] - gone["chips_removed"]
    assert out not in [s["player"] for t in final["tables"] for s in t["seats"]]
    rows = room.audit_rows()[count:]
    assert [(r.action, r.staff, r.target) for r in rows] == [
        ("tournament_move", "flo", mover),
        ("tournament_chips", "flo", target),
        ("tournament_disqualify", "dir", out),
    ]
    assert rows[1].before == {"stack": fixed["before"]} and rows[1].after == {"stack": 1234}
    close(director, floor, support, *wires.values())


def statuses(staff: Any, tid: str) -> tuple[str, str]:
    """The status `tournament_show` and `tournament_list` give for `tid`."""
    shown = staff.ok("tournament_show", tournament_id=tid)["status"]
    listed = {t["tournament_id"]: t["status"] for t in staff.ok("tournament_list")["tournaments"]}
    return shown, listed[tid]


def test_a_cancelled_tournaments_refunds_arrive_after_the_job_runs(room: Room) -> None:
    """tournament_cancel (T-1, T-18) of a running tournament: the players hear it is
    cancelled, nothing is paid while the refund job has not run; `job_run refunds` (admin
    only) pays, and each player gets `tournament_cancelled` with their refund: fee and pool
    shares back, every cent but T-7's rounding."""
    director, admin, floor = (room.staff_client(n) for n in ("dir", "adm1", "flo"))
    tid = create(director, "cancelling")
    names = ["cx1", "cx2", "cx3"]
    wires = entrants(room, tid, names)
    running(wires, tid)
    wires[0].until(of("hand_started", tid))
    count = audit_count(room)
    assert floor.code("tournament_cancel", tournament_id=tid, reason="x") == "forbidden"
    assert director.code("tournament_cancel", tournament_id=tid) == "missing_field"
    done = director.ok("tournament_cancel", tournament_id=tid, reason="storm")
    assert (done["status"], done["was"], done["cancel_reason"]) == ("cancelled", "running", "staff")
    for wire in wires:
        wire.until(of("tournament_status", tid, status="cancelled"))
    before = [wallet(w) for w in wires]
    assert before == [10_000 - BUY_IN - FEE] * 3  # nothing paid yet: the job has not run
    assert director.code("job_run", job="refunds") == "forbidden"
    assert admin.code("job_run", job="nope") == "unknown_job"
    assert statuses(director, tid) == ("cancelled", "cancelled")  # not paid yet
    report = admin.ok("job_run", job="refunds", reason="pay the storm refunds")
    assert report["outcome"] == "ok" and tid in report["tournaments"]
    totals = []
    for wire, had in zip(wires, before, strict=True):
        notice = wire.until(of("tournament_cancelled", tid))
        assert notice["fee"] == FEE and notice["buy_in"] == 0
        assert notice["total"] == notice["fee"] + notice["pool_share"]
        assert wallet(wire) == had + notice["total"]
        totals.append(notice["total"])
    assert 3 * (BUY_IN + FEE) - 2 <= sum(totals) <= 3 * (BUY_IN + FEE)
    with room.engine.connect() as conn:
        record = store.load_tournament(conn, tid)
    assert record is not None and (record.status, record.cancel_reason) == ("refunded", "staff")
    assert statuses(director, tid) == ("refunded", "refunded")  # the actor in memory says cancelled
    rows = room.audit_rows()[count:]
    assert [(r.action, r.staff) for r in rows] == [
        ("tournament_cancel", "dir"),
        ("job_run", "adm1"),  # written before the run started
        ("job_run_end", "adm1"),  # its report
    ]
    assert rows[1].reason == "pay the storm refunds" and rows[1].after["job"] == "refunds"
    assert rows[2].after["tournaments"] == [tid] and rows[2].before == {"audit_id": rows[1].id}
    runs = admin.ok("job_list", job="refunds")
    assert runs["jobs"] == [  # K-11's pending bets on their default interval, sorted by name
        {"job": "pending_bets", "interval_seconds": 3600.0},
        {"job": "refunds", "interval_seconds": 0.0},
    ]
    assert runs["runs"][0]["id"] == report["run_id"] and runs["runs"][0]["outcome"] == "ok"
    assert director.code("tournament_cancel", tournament_id=tid, reason="x") == "not_allowed"
    close(director, admin, floor, *wires)


def test_sitout_report_and_prize_changes(room: Room) -> None:
    """tournament_sitouts (T-12, support may read): players sitting out together twice are
    listed; tournament_prizes (T-15, director): the house adds to first place by one keyed
    transfer, the players' status shows the new payouts, the same key again changes nothing,
    a lower prize is refused."""
    director, support = room.staff_client("dir"), room.staff_client("sup")
    tid = create(director, "prizes")
    names = ["sp1", "sp2", "sp3"]
    wires = entrants(room, tid, names)
    running(wires, tid)
    polled(wires[0], tid, 0.8)
    for wire in wires[:2]:  # in and out again together
        wire.ok("tournament_sit_out", tournament_id=tid, sitting_out=False)
    for wire in wires[:2]:
        wire.ok("tournament_sit_out", tournament_id=tid, sitting_out=True)
    polled(wires[0], tid, 0.8)
    report = support.ok(
        "tournament_sitouts", tournament_id=tid, min_times=2, min_overlap_seconds=0.5
    )
    pairs = {tuple(p["players"]): p["times"] for p in report["pairs"]}
    assert pairs.get(("sp1", "sp2"), 0) >= 2
    assert set(report["sitting_out"]) >= {"sp1", "sp2"}
    none = support.ok("tournament_sitouts", tournament_id=tid, min_times=50)
    assert none["pairs"] == []

    funding = [(house(AccountKind.HOUSE_OVERLAY, "USD"), 1_000), (external("USD"), -1_000)]
    transfer(  # the operator funds the house overlay account
        room.engine, key=f"fund-overlay-{tid}", kind="deposit", currency="USD", postings=funding
    )
    count = audit_count(room)
    assert support.code(
        "tournament_prizes", tournament_id=tid, amounts=[400], reason="x", key="p1"
    ) == ("forbidden")
    changed = director.ok(
        "tournament_prizes", tournament_id=tid, amounts=[400], reason="sponsor", key="p1"
    )
    assert changed["payouts"] == [400] and changed["added"] == 100 and not changed["replayed"]
    again = director.ok(
        "tournament_prizes", tournament_id=tid, amounts=[400], reason="sponsor", key="p1"
    )
    assert again["replayed"] and again["audit_id"] is None
    lower = director.code(
        "tournament_prizes", tournament_id=tid, amounts=[300], reason="oops", key="p2"
    )
    assert lower == "prize_lowered"
    assert status(wires[0], tid)["payouts"] == [400]
    rows = room.audit_rows()[count:]
    assert [(r.action, r.before, r.after["amounts"]) for r in rows] == [
        ("tournament_prizes", [300], [400])
    ]
    with room.engine.connect() as conn:
        kinds = conn.execute(
            sa.text("SELECT kind FROM journal WHERE reference = :r AND kind = 'overlay'"),
            {"r": f"tournament:{tid}"},
        ).all()
    assert [k[0] for k in kinds] == ["overlay"]
    close(director, support, *wires)


def test_opening_a_cash_table_from_the_config(room: Room) -> None:
    """table_open (floor): a table added to the room's config file after the start opens,
    players see it and sit; support is refused; a table open already is `no_change`, one the
    file does not name `unknown_table`. One audit row."""
    folder: Path = room.folder  # type: ignore[attr-defined]
    with (folder / "room.toml").open("a") as config:
        config.write("\n[tables.late_t]\nbetween_hands_seconds = 0.2\n")
    floor, support = room.staff_client("flo"), room.staff_client("sup")
    newcomer = player(room.port, "lt1")
    count = audit_count(room)
    assert support.code("table_open", table_id="late_t") == "forbidden"
    assert floor.code("table_open", table_id="nowhere") == "unknown_table"
    assert floor.code("table_open", table_id="cash_t") == "no_change"
    assert newcomer.code("sit", table_id="late_t", buy_in=200) == "unknown_table"
    opened = floor.ok("table_open", table_id="late_t", reason="busy night")
    assert opened["stakes"].endswith("1/2") and opened["state"] is None
    assert newcomer.ok("sit", table_id="late_t", buy_in=200)["stack"] == 200
    assert "late_t" in {t["table_id"] for t in floor.ok("table_list")["tables"]}
    assert floor.code("table_open", table_id="late_t") == "no_change"
    assert [(r.action, r.target) for r in room.audit_rows()[count:]] == [("table_open", "late_t")]
    close(floor, support, newcomer)


def test_the_cli_for_tournaments_and_jobs(room: Room) -> None:
    """`pokerroom admin tournament ...` and `jobs ...`: --json on reads, a declined
    confirmation changes nothing, --reason required on cancel and disqualify, codes in
    errors."""
    director = room.staff_client("dir")
    tid = create(director, "clitest", ahead_ms=600_000)
    env = {
        "POKERROOM_ADMIN_SERVER": room.admin,
        "POKERROOM_ADMIN_USER": "dir",
        "POKERROOM_ADMIN_PASSWORD": PASSWORD,
    }
    runner = CliRunner()

    def run(*args: str, user: str = "dir", input: str | None = None) -> Any:
        return runner.invoke(
            main, ["admin", *args], env={**env, "POKERROOM_ADMIN_USER": user}, input=input
        )

    listed = run("tournament", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert tid in {t["tournament_id"] for t in json.loads(listed.output)["tournaments"]}
    shown = run("tournament", "show", tid, "--json")
    assert json.loads(shown.output)["status"] == "registering"
    assert tid in run("tournament", "show", tid).output
    count = audit_count(room)
    declined = run("tournament", "delay", tid, "--minutes", "5", input="n\n")
    assert declined.exit_code == 1 and "Aborted" in declined.output
    assert audit_count(room) == count
    delayed = run("tournament", "delay", tid, "--minutes", "5", "--yes")
    assert delayed.exit_code == 0, delayed.output
    no_reason = run("tournament", "cancel", tid, "--yes")
    assert no_reason.exit_code == 2 and "--reason" in no_reason.output
    refused = run("tournament", "pause", tid, "--yes")
    assert refused.exit_code == 1 and "not_allowed" in refused.output  # not running yet
    assert run("tournament", "cancel", tid, "--reason", "test", "--yes").exit_code == 0
    jobs = run("jobs", "list", "--json", user="adm1")
    assert jobs.exit_code == 0
    assert [j["job"] for j in json.loads(jobs.output)["jobs"]] == ["pending_bets", "refunds"]
    forbidden = run("jobs", "run", "refunds", "--yes")
    assert forbidden.exit_code == 1 and "forbidden" in forbidden.output
    assert f"{tid} clitest: cancelled" in run("tournament", "show", tid).output
    paid = run("jobs", "run", "refunds", "--yes", user="adm1")
    assert paid.exit_code == 0 and "ok" in paid.output
    assert f"{tid} clitest: refunded" in run("tournament", "show", tid).output
    listed_now = json.loads(run("tournament", "list", "--json").output)["tournaments"]
    assert {t["tournament_id"]: t["status"] for t in listed_now}[tid] == "refunded"
    assert [r.action for r in room.audit_rows()[count:]] == [
        "tournament_delay",
        "tournament_cancel",
        "job_run",  # written as the run starts ...
        "job_run_end",  # ... and its report when it ends
    ]
    director.close()


def test_each_role_is_refused_the_commands_above_it(room: Room) -> None:
    """Every tournament and jobs command a role may not run is `forbidden` (details: the role
    needed), whatever its target, and writes no audit row; the reads are open to support."""
    director = room.staff_client("dir")
    tid = create(director, "roles", ahead_ms=600_000)
    clients = {name: room.staff_client(name) for name in ("sup", "flo", "dir")}
    base = {"tournament_id": tid}
    commands: dict[str, tuple[str, dict[str, Any]]] = {
        "tournament_create": (
            "director",
            dict(template="quick", starts_at_ms=2**40, buy_in=1, fee=1, name="forbidden"),
        ),
        "tournament_delay": ("director", {**base, "minutes": 1}),
        "tournament_pause": ("director", base),
        "tournament_resume": ("director", base),
        "tournament_add_time": ("director", {**base, "seconds": 5}),
        "tournament_cancel": ("director", {**base, "reason": "x"}),
        "tournament_disqualify": ("director", {**base, "player": "nobody", "reason": "x"}),
        "tournament_prizes": ("director", {**base, "amounts": [1], "reason": "x", "key": "k"}),
        "tournament_outage": ("director", {**base, "choice": "refund", "reason": "x"}),
        "tournament_move": ("floor", {**base, "player": "nobody", "table": 1}),
        "tournament_chips": ("floor", {**base, "player": "nobody", "chips": 5, "reason": "x"}),
        "table_open": ("floor", {"table_id": "late_t"}),
        "job_list": ("admin", {}),
        "job_run": ("admin", {"job": "refunds"}),
    }
    rank = ["sup", "flo", "dir"]
    roles = {"sup": "support", "flo": "floor", "dir": "director"}
    count = audit_count(room)
    for kind, (needed, fields) in commands.items():
        below = rank[: ["floor", "director", "admin"].index(needed) + 1]
        for staff in below:
            answer = clients[staff].call(kind, **fields)
            assert answer.get("code") == "forbidden", (staff, kind, answer)
            assert answer["details"] == {"required": needed, "role": roles[staff]}
    for kind in ("tournament_list", "tournament_show", "tournament_sitouts"):
        fields = {} if kind == "tournament_list" else base
        answer = clients["sup"].call(kind, **fields)
        assert answer["type"] == "ok" or answer["code"] == "not_allowed", (kind, answer)
    assert audit_count(room) == count
    assert status(player(room.port, "rl1"), tid)["status"] == "registering"
    close(director, *clients.values())


def test_the_ledger_balances_after_every_staff_action(room: Room) -> None:
    """P-2: whatever staff did to tournaments above, the ledger balances."""
    assert check_ledger(room.engine).ok


def test_a_satellite_created_by_staff_pays_tickets_its_winners_use(room: Room) -> None:
    """T-16, T-8 (docs/ADMIN.md `tournament_create satellite_target`): a director creates an
    MTT and a satellite into it; a target that is not open for registration is `bad_field`.
    Three play the satellite (pool 300, seats of 110: two); one is disqualified, the two left
    win the seats: each is registered in the target with a ticket (T-2), as the lobby shows."""
    director = room.staff_client("dir")
    target = create(director, "main", ahead_ms=600_000)
    assert director.code(
        "tournament_create", template="quick", starts_at_ms=int(time.time() * 1000) + 5000,
        buy_in=BUY_IN, fee=FEE, name="satx", satellite_target="nope-1",
    ) == "bad_field"  # fmt: skip
    sat = create(director, "sat", satellite_target=target, ticket_valid_days=7)
    wires = entrants(room, sat, ["st0", "st1", "st2"])
    running(wires, sat)
    director.ok("tournament_disqualify", tournament_id=sat, player="st2", reason="collusion")
    for wire in wires[:2]:
        wire.until(of("tournament_finish", sat))
    end = time.monotonic() + 20
    while time.monotonic() < end:
        mine = wires[0].ok("tournament_status_request", tournament_id=target)["status"]
        if mine.get("entries", 0) >= 2:
            break
    tickets = wires[0].ok("tickets")
    assert any(t["target"] == target for t in tickets["tickets"]), tickets
    assert mine["entries"] == 2
    close(*wires, director)
