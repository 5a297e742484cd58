"""T-18 end to end: a real `pokerroom serve` process is killed with SIGKILL while tournaments
stand in every phase at once, and started again on the same database (SQLite file and
PostgreSQL).

One server run drives, side by side, a tournament in each phase: registering; running during
late registration (with a re-entry and a late entry); after late registration, before the
bubble; hand-for-hand (two tables, one player from the money); in the money. Each phase has a
tournament whose `outage.resume_within_minutes` is 10 (`-a`: back within it) and one whose
window is 0.02 minutes (`-b`: the restart comes later). Bots are real clients over TCP (they
see only their own frames) and drive each tournament to its phase one knockout at a time.

After the restart:
- every `-a` tournament resumes from the stored state: its players log in again and get their
  table's snapshot at their stored seat with their stored stack; it plays to the end with the
  chips of the kill all in the winner's stack and the prize pool paid out to the cent;
- every `-b` tournament is cancelled for outage and the refund job pays exactly what an
  independent reference (tests/tournaments/t18_reference.py, from the rule's text and the raw
  rows) says, to the cent; a registering MTT whose start passed meanwhile refunds buy-in and fee;
- no client ever heard a hand's result that the killed server had not stored;
- `pokerroom ledger check` passes.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine, upgrade
from tests.postgres import fresh_pg_schema
from tests.server.crowd import ALL_IN, DUEL, PASSIVE, Crowd
from tests.serving import CLI, ROOM_HEAD, start_serve, stop
from tests.tournaments.t18_reference import Expected, paid, reference

pytestmark = pytest.mark.slow

CONFIG = (
    ROOM_HEAD
    + """[session]
max_connections_per_address = 0
[jobs]
refunds_interval_seconds = 5
"""
)

#: Hourly MTTs starting at a minute of the day the test chooses (open at once); tables of
#: three, hands 0.2 s apart; blinds that bust nobody who only folds for minutes.
MTT = """
[[mtt]]
name = "{name}"
structure = "slow"
buy_in = 100
fee = 10
every_minutes = 60
at_minute = {at_minute}
registration_open_minutes = 60
max_seats = 3
between_hands_seconds = 0.2
late_registration_levels = {late}
format = "{fmt}"
outage = {{ resume_within_minutes = {window}, reconnect_seconds = 5 }}
"""
SCHEDULE = """
[[structure]]
name = "slow"
starting_stack = 1000
level_minutes = 5
levels = [[5, 10], [10, 20], [15, 30], [20, 40], [30, 60], [50, 100], [100, 200], [200, 400],
          [400, 800], [800, 1600], [1600, 3200], [3200, 6400]]

[[sit_and_go]]
name = "registering-a"
structure = "slow"
buy_in = 100
fee = 10
players = 3
max_seats = 3
between_hands_seconds = 0.2
outage = { resume_within_minutes = 10, reconnect_seconds = 1 }
"""

WINDOWS = {"a": 10, "b": 0.02}
#: Phase -> (late registration levels, format, entries, knockouts before the kill).
PHASES: dict[str, tuple[int, str, int, int]] = {
    "late_registration": (2, "reentry", 6, 1),
    "before_bubble": (0, "freezeout", 10, 2),
    "hand_for_hand": (0, "freezeout", 10, 6),  # 4 left on two tables, 3 paid
    "in_the_money": (0, "freezeout", 10, 7),  # 3 left, 3 paid
}
ALL_PHASES = ("registering", *PHASES)


def at_minute(epoch: float) -> float:
    """The schedule's `at_minute` of a start at `epoch` (minutes into its UTC day)."""
    return (epoch % 86_400) / 60


def schedule(start: float, later: float) -> str:
    """Every phase's MTTs start at `start`; the registering one at `later`."""
    text = SCHEDULE
    for phase, (late, fmt, _, _) in PHASES.items():
        for side, window in WINDOWS.items():
            text += MTT.format(
                name=f"{phase}-{side}",
                late=late,
                fmt=fmt,
                window=window,
                at_minute=at_minute(start),
            )
    text += MTT.format(
        name="registering-b",
        late=0,
        fmt="freezeout",
        window=WINDOWS["b"],
        at_minute=at_minute(later),
    )
    return text


def serve(tmp: Path, url: str) -> tuple[int, subprocess.Popen[str]]:
    """`pokerroom serve` on `url` with the schedule; returns once it listens (recovery done)."""
    args = ["serve", "--db", url, "--port", "0", "--config", str(tmp / "room.toml")]
    args += ["--schedule", str(tmp / "schedule.toml")]
    return start_serve(args, tmp / "server.log")


def rows(engine: Engine, sql: str, **params: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(sql), params))


@dataclass
class Killed:
    """One tournament as the killed server left it."""

    tid: str
    phase: str
    side: str
    alive: dict[str, int]  # player -> entry number
    seats: dict[str, tuple[str, int, int]]  # player -> (table, seat, stack)
    hands: dict[str, int]  # table -> its last stored hand
    paid_places: int
    expected: Expected | None = None


@dataclass
class Run:
    """What one crash-and-restart run saw, for the tests to check."""

    url: str
    engine: Engine
    killed: dict[tuple[str, str], Killed] = field(default_factory=dict)
    told_early: list[str] = field(default_factory=list)
    snapshots: dict[str, dict[str, Any]] = field(default_factory=dict)  # player -> seat seen
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    finals: dict[str, dict[str, Any]] = field(default_factory=dict)
    check: subprocess.CompletedProcess[str] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)


def stored(engine: Engine, tid: str, phase: str, side: str) -> Killed:
    """The tournament as stored at the kill."""
    alive = {
        r.player: r.entry_no
        for r in rows(
            engine,
            "select player, entry_no from tournament_entries "
            "where tournament_id = :tid and status = 'alive'",
            tid=tid,
        )
    }
    seats = {
        r.player: (r.table_id, r.seat, r.stack)
        for r in rows(
            engine,
            "select table_id, seat, player, stack from tournament_seats where tournament_id = :tid",
            tid=tid,
        )
    }
    hands: dict[str, int] = {}
    for r in rows(
        engine,
        "select table_id, hand_number from tournament_seats where tournament_id = :tid",
        tid=tid,
    ):
        hands[r.table_id] = max(hands.get(r.table_id, 0), r.hand_number)
    (prizes,) = rows(engine, "select prizes from tournaments where id = :tid", tid=tid)
    table = prizes.prizes
    if isinstance(table, str):
        import json

        table = json.loads(table)
    places = len([a for a in table["amounts"] if a > 0]) if table else 0
    return Killed(tid, phase, side, alive, seats, hands, places)


def scenario(tmp: Path, url: str) -> Run:
    engine = make_engine(url)
    upgrade(engine)
    run = Run(url, engine)
    (tmp / "room.toml").write_text(CONFIG)
    start = round(time.time()) + 20  # the phases' MTTs
    later = start + 80  # the registering MTT: its start passes while the server is down
    (tmp / "schedule.toml").write_text(schedule(start, later))
    port, proc = serve(tmp, url)
    crowd = Crowd(port)
    try:
        players: dict[str, list[str]] = {}

        def bots(group: str, count: int) -> list[str]:
            names = [f"{group[:3]}{group[-1]}{n:02d}" for n in range(count)]
            for name in names:
                bot = crowd.connect(name, new=True)
                crowd.ok(bot, "deposit", amount=10_000)
            players[group] = names
            return names

        tids: dict[tuple[str, str], str] = {}
        for phase, (_, _, entries, _) in PHASES.items():
            for side in WINDOWS:
                bots(f"{phase}-{side}", entries + 2)  # spares: a late entry
        for phase, (_, _, entries, _) in PHASES.items():
            for side in WINDOWS:
                tid = f"{phase}-{side}-{start}"
                tids[phase, side] = tid
                for name in players[f"{phase}-{side}"][:entries]:
                    crowd.ok(crowd.bots[name], "tournament_register", tournament_id=tid)
        sng = bots("registering-a", 3)
        sng_line = next(
            line
            for line in crowd.ok(crowd.bots[sng[0]], "tournament_list")["tournaments"]
            if line["name"] == "registering-a"
        )
        tids["registering", "a"] = sng_line["tournament_id"]
        for name in sng[:2]:
            crowd.ok(
                crowd.bots[name], "tournament_register", tournament_id=sng_line["tournament_id"]
            )
        # the MTTs start together; each is driven to its phase, one knockout at a time
        for (phase, _), tid in tids.items():
            if phase != "registering":
                crowd.mode[tid] = DUEL
                crowd.bust_limit[tid] = PHASES[phase][3]  # passive from the last knockout on
        late_done: set[str] = set()

        def reached() -> bool:
            for (phase, _), tid in tids.items():  # first: the requests below read frames, and
                if phase != "registering" and len(crowd.busts.get(tid, [])) >= PHASES[phase][3]:
                    crowd.mode[tid] = PASSIVE  # the bots act meanwhile: no duel past its phase
            done = True
            for (phase, side), tid in tids.items():
                if phase == "registering":
                    continue
                _, _, entries, knockouts = PHASES[phase]
                busts = crowd.busts.get(tid, [])
                if phase == "late_registration" and busts and tid not in late_done:
                    late_done.add(tid)
                    out = busts[0][0]  # the busted player re-enters; a newcomer registers
                    crowd.ok(crowd.bots[out], "tournament_reenter", tournament_id=tid)
                    late = players[f"{phase}-{side}"][entries]
                    crowd.ok(crowd.bots[late], "tournament_register", tournament_id=tid)
                if len(busts) >= knockouts:
                    crowd.mode[tid] = PASSIVE
                else:
                    done = False
            return done and len(late_done) == 2

        crowd.pump_until(reached, later - 10 - time.time())
        # a registering MTT whose start passes while the server is down
        reg = tids["registering", "b"] = f"registering-b-{later}"
        for name in bots("registering-b", 2):
            crowd.ok(crowd.bots[name], "tournament_register", tournament_id=reg)
        crowd.pump(later - 3 - time.time())  # the last knockouts stored and told, then passive
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
        killed_at = time.time()
        crowd.drop_all()
        crowd.bust_limit.clear()  # after the restart they play to the end
        # what the clients heard of hands, against what was stored (persist, then tell)
        for (phase, side), tid in tids.items():
            run.killed[phase, side] = state = stored(engine, tid, phase, side)
            if side == "b":
                state.expected = reference(engine, tid)
            for bot in crowd.bots.values():
                for frame in bot.frames:
                    if frame.get("type") != "hand_ended" or not frame["hand_id"].startswith(tid):
                        continue
                    _, table, number = frame["hand_id"].rsplit(":", 2)
                    last = state.hands.get(table)
                    if last is not None and int(number) > last:
                        run.told_early.append(frame["hand_id"])
        time.sleep(max(2.0, later + 2.0 - killed_at))
        port, proc = serve(tmp, url)  # every B is past its window now
        crowd.port = port
        for (phase, side), state in run.killed.items():
            if side != "a" or phase == "registering":
                continue
            tid = tids[phase, side]
            for name in state.alive:  # back before the tables deal again (reconnect_seconds)
                mark = len(crowd.bots[name].frames)
                bot = crowd.connect(name, new=False)
                crowd.pump_until(lambda bot=bot, tid=tid: tid in bot.table, 20)
                snap = next(
                    f
                    for f in bot.frames[mark:]
                    if f.get("type") == "table_snapshot" and f["table_id"].startswith(tid)
                )
                mine = next(s for s in snap["snapshot"]["seats"] if s["player"] == name)
                run.snapshots[name] = {
                    "table": snap["table_id"].rpartition(".")[2],
                    "seat": mine["seat"] + 1,
                    "stack": mine["stack"],
                }
            crowd.mode[tid] = ALL_IN
        for name in players["registering-a"][:2]:
            crowd.connect(name, new=False)
        last = crowd.connect(players["registering-a"][2], new=False)
        crowd.ok(last, "tournament_register", tournament_id=tids["registering", "a"])
        crowd.mode[tids["registering", "a"]] = ALL_IN
        a_tids = [tid for (_, side), tid in tids.items() if side == "a"]
        crowd.pump_until(lambda: all(t in crowd.results for t in a_tids), 240)
        b_tids = [tid for (_, side), tid in tids.items() if side == "b"]

        def refunded() -> bool:
            found = rows(
                engine,
                "select count(*) as n from tournaments where status = 'refunded' and id in ("
                + ", ".join(f"'{t}'" for t in b_tids)
                + ")",
            )
            return bool(found[0].n == len(b_tids))

        crowd.pump_until(refunded, 60)
        crowd.pump(1.0)
        for (phase, side), tid in tids.items():
            if side == "a":
                run.results[phase] = crowd.results[tid]
            run.finals[f"{phase}-{side}"] = {
                "row": rows(
                    engine,
                    "select status, cancel_reason, decision from tournaments where id = :tid",
                    tid=tid,
                )[0],
                "paid": paid(engine, tid),
                "tid": tid,
            }
        run.errors = list(crowd.errors)
    finally:
        crowd.drop_all()
        stop(proc)
    run.check = subprocess.run(
        [*CLI, "ledger", "check", "--db", url], capture_output=True, text=True, timeout=120
    )
    return run


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def crash(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """One run per database: every phase at once, one SIGKILL, one restart."""
    tmp = tmp_path_factory.mktemp(f"crash-{request.param}")
    if request.param == "sqlite":
        run = scenario(tmp, f"sqlite:///{tmp / 'room.sqlite'}")
        yield run
        run.engine.dispose()
        return
    with fresh_pg_schema("crash_test") as url:
        run = scenario(tmp, url)
        yield run
        run.engine.dispose()


def test_no_client_heard_a_result_the_killed_server_had_not_stored(crash: Run) -> None:
    """Rule 14 / T-18: every `hand_ended` a client received is in the stored state."""
    assert crash.told_early == []
    assert [e for e in crash.errors if e.get("code") != "not_in_hand"] == []


def test_the_phases_were_reached_before_the_kill(crash: Run) -> None:
    """The kill found each tournament where its phase says (a test that could not fail)."""
    for side in WINDOWS:
        late = crash.killed["late_registration", side]
        assert len(late.alive) == 7 and max(late.alive.values()) == 2  # re-entry + late entry
        assert len(crash.killed["before_bubble", side].alive) == 8
        h4h = crash.killed["hand_for_hand", side]
        assert len(h4h.alive) == h4h.paid_places + 1 == 4
        assert len({table for table, _, _ in h4h.seats.values()}) == 2  # two tables in play
        itm = crash.killed["in_the_money", side]
        assert len(itm.alive) <= itm.paid_places
    assert crash.killed["registering", "a"].seats == {}  # a sit-and-go not full
    expected = crash.killed["registering", "b"].expected
    assert expected is not None and expected.phase == "not_started"


@pytest.mark.parametrize("phase", ALL_PHASES)
def test_back_within_the_window_it_resumes_and_plays_to_the_end(crash: Run, phase: str) -> None:
    """T-18: resumed from the stored state (players at their stored seats with their stored
    stacks, told by the table snapshot when they log in again), played to the end: every chip
    of the kill is the winner's, the prizes are the pool to the cent (T-7 rest to the house)."""
    final = crash.finals[f"{phase}-a"]
    state = crash.killed[phase, "a"]
    assert final["row"].status == "finished"
    if phase != "registering":
        assert "resumed" in final["row"].decision and "within" in final["row"].decision
        for name, (table, seat, stack) in state.seats.items():
            assert crash.snapshots[name] == {"table": table, "seat": seat, "stack": stack}
    else:
        assert "kept registering" in final["row"].decision
    tid = final["tid"]
    (winner,) = rows(
        crash.engine,
        "select player, stack from tournament_seats where tournament_id = :tid",
        tid=tid,
    )
    chips = sum(stack for _, _, stack in state.seats.values()) if state.seats else 3000
    assert winner.stack == chips  # chips conserved through the kill and the resume
    entries = rows(
        crash.engine,
        "select player, entry_no, place, prize from tournament_entries where tournament_id = :tid",
        tid=tid,
    )
    collected = rows(
        crash.engine,
        "select sum(buy_in) as pool from tournament_payments where tournament_id = :tid",
        tid=tid,
    )[0].pool
    results = crash.results[phase]["results"]
    assert sum(e.prize for e in entries) == sum(r["prize"] for r in results)
    assert collected - len(results) < sum(e.prize for e in entries) <= collected  # T-7 rest
    places = sorted(e.place for e in entries if e.place)
    assert len(places) == len(entries)  # every entry has its place
    # T-9: a place is 1 + the entries above it; knockouts of one hand never tie (seat order
    # decides), but in hand-for-hand play players equal on stack and seat order at two tables
    # share the places they cover (TOURNAMENTS.md, Eliminations): 1, 2, 3, 3, 5 ...
    assert places == [1 + sum(q < p for q in places) for p in places], places
    if phase != "hand_for_hand":
        assert places == list(range(1, len(entries) + 1))
    (pool,) = rows(
        crash.engine,
        "select balance from accounts where kind = 'prize_pool' and owner = :tid",
        tid=tid,
    )
    assert pool.balance == 0


@pytest.mark.parametrize("phase", ALL_PHASES)
def test_past_the_window_it_is_refunded_as_the_rule_says(crash: Run, phase: str) -> None:
    """T-18: cancelled for outage, the refund job paid each player exactly the independent
    reference for the state at the kill (each table's last completed hand), to the cent."""
    final = crash.finals[f"{phase}-b"]
    expected = crash.killed[phase, "b"].expected
    assert expected is not None
    assert final["row"].status == "refunded" and final["row"].cancel_reason == "outage"
    assert "cancelled for outage" in final["row"].decision
    want = {p: expected.total(p) for p in expected.players()}
    assert final["paid"] == want
    assert want  # somebody was refunded


def test_the_ledger_checks_out(crash: Run) -> None:
    """`pokerroom ledger check`: every entry balances, no balance differs from its postings."""
    assert crash.check is not None
    assert crash.check.returncode == 0, crash.check.stdout + crash.check.stderr
