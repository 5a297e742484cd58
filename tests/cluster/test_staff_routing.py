"""Staff table commands between two nodes over a real nats-server, in one process
(docs/design/cluster.md, "Staff commands"): a command on a table node B runs, asked on node A,
is run by B for the same staff member and role (B writes the audit row: its actor is that
staff member) and answered with B's result; B's refusal reaches A with its code unchanged; a
table no node serves is `cluster_unavailable`; a table A runs itself is not carried.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, cast

import pytest
from twisted.internet.defer import Deferred, succeed

import pokerroom.admin.handlers  # noqa: F401  (every command registered, as in the room)
from pokerroom.admin.audit import Audited
from pokerroom.admin.casino_handlers import CasinoChangeArgs
from pokerroom.admin.commands import COMMANDS, NoArgs
from pokerroom.admin.context import Context
from pokerroom.admin.ops_handlers import TableOpenArgs
from pokerroom.admin.roles import Role
from pokerroom.admin.staff import StaffMember
from pokerroom.admin.table_handlers import TableChangeArgs
from pokerroom.admin.tournament_args import TournamentArgs, TournamentChangeArgs
from pokerroom.admin.tournament_views import decision_of
from pokerroom.casino.table_config import CasinoTableConfig
from pokerroom.cluster.staff_routing import StaffRouting
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from tests.cluster.loop import run
from tests.cluster.natsproc import NatsServer
from tests.cluster.test_routing import Node, make_node, settle
from tournaments.director.errors import DirectorError

TABLE = "roulette-1"


class CasinoStandIn:
    """A casino table as the staff handlers see it."""

    def __init__(self) -> None:
        self.config = CasinoTableConfig(TABLE, "roulette", "USD")
        self.table_id = TABLE
        self.phase = "betting"
        self.closing = False
        self.closed_reason = ""
        self.round = None
        self.players = {"alice"}

    def close(self, reason: str) -> None:
        self.closing, self.closed_reason = True, reason


#: The staff accounts as stored: sam is floor, sue support, dan disabled, dora director.
ACCOUNTS = {
    "sam": (Role.FLOOR, False),
    "sue": (Role.SUPPORT, False),
    "dan": (Role.ADMIN, True),
    "dora": (Role.DIRECTOR, False),
}
#: The tournaments as stored: (status, the start-up's decision).
STORED = {"mtt-1": ("running", ""), "mtt-2": ("running", ""), "old-1": ("finished", "")}


class Ledger:
    """The staff change's transaction: recorded (who, what, on what), audit row ids 1, 2, ...;
    the staff accounts read."""

    def __init__(self) -> None:
        self.audits: list[tuple[str, str, str]] = []

    def read(self, work: Any, name: str) -> Deferred[Any]:
        if work is decision_of:
            return succeed(STORED.get(name))
        if name not in ACCOUNTS:
            return succeed(None)
        role, disabled = ACCOUNTS[name]
        return succeed((StaffMember(name, role, disabled, 0, None), ""))

    def run(self, work: Any, actor: Any, action: str, target: str, *rest: Any) -> Deferred[Any]:
        self.audits.append((actor.name, action, target))
        return succeed(Audited(len(self.audits), cast(Any, None)))


class Room:
    """The admin room of a node, as the handlers and the routing use it."""

    def __init__(self, node: Node) -> None:
        self.clock = node.clock
        self.lobby = node.lobby
        self.ledger = Ledger()
        self.table_states: dict[str, str] = {}
        self.tournaments: Any = None


CONFIGURED = {"casino": [TABLE, "baccarat-1"], "table": ["t3"]}


def staff_node(node: Node, runs: set[str]) -> tuple[StaffRouting, Room]:
    room = Room(node)
    routing = StaffRouting(
        node.routing.bus,
        node.routing.subjects,
        cast(Any, room),
        lambda kind, table_id: table_id not in runs,
        lambda kind: CONFIGURED[kind],
    )
    return routing, room


@pytest.fixture
def nodes(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> Iterator[tuple[StaffRouting, StaffRouting, Room, CasinoStandIn]]:
    a, b = (make_node(loop, nats_server.url, name, owns=[]) for name in ("a", "b"))
    table = CasinoStandIn()
    b.lobby.casino_desk = cast(Any, type("Desk", (), {"tables": {TABLE: table}})())
    staff_a, _ = staff_node(a, runs=set())
    staff_b, room_b = staff_node(b, runs={TABLE})
    staff_b.took(f"casino:{TABLE}")
    settle(loop, a, b)
    yield staff_a, staff_b, room_b, table
    for staff, node in ((staff_a, a), (staff_b, b)):
        staff.stop()
        run(loop, node.routing.stop())


def ask(
    staff: StaffRouting, name: str, args: Any, role: Role = Role.FLOOR, who: str = "sam"
) -> Any:
    ctx = Context(cast(Any, staff.room), who, role, COMMANDS[name])
    return staff.route(ctx, args)


def test_a_casino_close_asked_on_a_is_run_by_b_for_the_same_staff_member(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """Module docstring: carried, run and audited at B as `sam`, answered with B's result;
    B's refusal (`no_change`) reaches A unchanged."""
    staff_a, _, room_b, table = nodes
    routed = ask(staff_a, "casino_table_close", CasinoChangeArgs(TABLE, "smoke"))
    assert isinstance(routed, Deferred)
    assert run(loop, routed) == {"audit_id": 1, "phase": "betting"}  # settles first (closing)
    assert table.closing and table.closed_reason == "smoke"
    assert room_b.ledger.audits == [("sam", "casino_table_close", TABLE)]
    with pytest.raises(ProtocolError) as refused:
        run(loop, ask(staff_a, "casino_table_close", CasinoChangeArgs(TABLE, "again")))
    assert refused.value.code == "no_change"
    assert len(room_b.ledger.audits) == 1  # nothing more written


def test_a_table_nobody_serves_is_cluster_unavailable_and_a_local_one_runs_here(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """`table_pause` on a cash table no node serves now: `cluster_unavailable`. B's own table
    is not carried (None: the command runs at B)."""
    staff_a, staff_b, _, _ = nodes
    with pytest.raises(ProtocolError) as refused:
        run(loop, ask(staff_a, "table_pause", TableChangeArgs("t3", "")))
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE
    assert ask(staff_b, "casino_table_close", CasinoChangeArgs(TABLE, "")) is None


def test_the_lists_on_a_show_the_tables_other_nodes_run(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """`casino_table_list` on A (which runs none): B's line of the table B runs, and the one no
    node serves `unavailable`; `table_list`: t3, served by none, `unavailable`."""
    staff_a, _, _, _ = nodes
    listed = run(loop, ask(staff_a, "casino_table_list", NoArgs(), Role.SUPPORT))
    lines = {line["table_id"]: line for line in listed["tables"]}
    assert set(lines) == {TABLE, "baccarat-1"}
    assert lines[TABLE]["players"] == ["alice"] and lines[TABLE]["phase"] == "betting"
    assert lines["baccarat-1"] == {"table_id": "baccarat-1", "phase": "unavailable"}
    tables = run(loop, ask(staff_a, "table_list", NoArgs(), Role.SUPPORT))
    assert tables == {"tables": [{"table_id": "t3", "state": "unavailable"}]}


def test_table_open_never_builds_a_second_table_outside_the_leases(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """`table_open` of a configured table another node runs (or will: none serves it now) is
    carried to its owner (`no_change` there; here nobody: `cluster_unavailable`); of a table
    not among those the nodes read at start: `cluster_restart_needed`, nothing built."""
    staff_a, _, _, _ = nodes
    with pytest.raises(ProtocolError) as refused:
        run(loop, ask(staff_a, "table_open", TableOpenArgs("t3", "")))
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE
    with pytest.raises(ProtocolError) as refused:
        ask(staff_a, "table_open", TableOpenArgs("t9", ""))
    assert refused.value.code == "cluster_restart_needed"


def test_the_owner_checks_the_account_as_stored_not_the_role_the_message_claims(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """A command carried with a role its staff account does not have (forged on NATS, or the
    role lowered meanwhile) is `forbidden` at the owner; a disabled or unknown account is
    `staff_disabled`; nothing is written."""
    staff_a, _, room_b, table = nodes
    for who, code in (("sue", "forbidden"), ("dan", "staff_disabled"), ("eve", "staff_disabled")):
        with pytest.raises(ProtocolError) as refused:
            run(
                loop,
                ask(staff_a, "casino_table_close", CasinoChangeArgs(TABLE, "x"), Role.ADMIN, who),
            )
        assert refused.value.code == code, who
    assert room_b.ledger.audits == [] and not table.closing


def test_a_command_carried_as_the_table_moves_on_is_not_run_by_the_old_owner(
    loop: asyncio.AbstractEventLoop,
    nodes: tuple[StaffRouting, StaffRouting, Room, CasinoStandIn],
) -> None:
    """B still answers for t3 (its lease just lost: the account read was under way, or the
    subscription not stopped yet) but runs it no more: a carried `table_open` is
    `cluster_unavailable` there, never an unfenced second actor of a table the next owner runs
    (its start would void that owner's hand, C-12); `table_pause` too (not `unknown_table`);
    nothing is audited."""
    staff_a, staff_b, room_b, _ = nodes
    staff_b.took("table:t3")  # serving, while B's tables no longer hold t3
    settle_bus(loop, staff_b)
    for name, args in (
        ("table_open", TableOpenArgs("t3", "")),
        ("table_pause", TableChangeArgs("t3", "")),
    ):
        with pytest.raises(ProtocolError) as refused:
            run(loop, ask(staff_a, name, args))
        assert refused.value.code == errors.CLUSTER_UNAVAILABLE, name
    assert room_b.ledger.audits == []


def settle_bus(loop: asyncio.AbstractEventLoop, staff: StaffRouting) -> None:
    """The subscriptions `staff` made are on the server."""
    for d in staff.served.values():
        run(loop, d)
    run(loop, staff.bus.flush())


# --------------------------------------------------------------------------- tournaments


class TourneyStaff:
    """A tournament actor's staff actions as the handlers use them: the audit row written
    with the change (who, with which role); a second pause is the director's `no_change`."""

    def __init__(self) -> None:
        self.paused = False
        self.audits: list[tuple[str, str, str, str]] = []

    def _write(self, audit: Any, paused: bool) -> Deferred[dict[str, Any]]:
        if self.paused == paused:
            raise DirectorError("no_change", f"the tournament is {'' if paused else 'not '}paused")
        self.paused = paused
        audit.audit_id = len(self.audits) + 1
        self.audits.append((audit.actor.name, audit.actor.role, audit.action, audit.target))
        return succeed({"level": 3, "level_ms_left": 60_000, "paused": paused})

    def pause_play(self, audit: Any) -> Deferred[dict[str, Any]]:
        return self._write(audit, True)

    def resume_play(self, audit: Any) -> Deferred[dict[str, Any]]:
        return self._write(audit, False)


class TourneyStandIn:
    """A running tournament's actor, as far as the staff commands carried here use it."""

    def __init__(self, tid: str) -> None:
        self.tid, self.status, self.staff = tid, "running", TourneyStaff()


class Scheduler:
    """A room's tournament scheduler: the actors this node runs now."""

    def __init__(self, *actors: TourneyStandIn) -> None:
        self.actors = {actor.tid: actor for actor in actors}
        self.finished: dict[str, TourneyStandIn] = {}


@pytest.fixture
def tourney_nodes(
    loop: asyncio.AbstractEventLoop, nats_server: NatsServer
) -> Iterator[tuple[StaffRouting, StaffRouting, TourneyStandIn]]:
    """Node a runs (holds the lease of) tournament mtt-1; node b runs none; mtt-2 is stored
    running and served by no node (between owners)."""
    a, b = (make_node(loop, nats_server.url, name, owns=[]) for name in ("a", "b"))
    actor = TourneyStandIn("mtt-1")
    staff_a, room_a = staff_node(a, runs=set())
    staff_b, room_b = staff_node(b, runs=set())
    room_a.tournaments, room_b.tournaments = Scheduler(actor), Scheduler()
    staff_a.took("tournament:mtt-1")
    settle_bus(loop, staff_a)
    settle(loop, a, b)
    yield staff_a, staff_b, actor
    for staff, node in ((staff_a, a), (staff_b, b)):
        staff.stop()
        run(loop, node.routing.stop())


def test_a_director_on_b_pauses_and_resumes_a_tournament_a_runs(
    loop: asyncio.AbstractEventLoop,
    tourney_nodes: tuple[StaffRouting, StaffRouting, TourneyStandIn],
) -> None:
    """Module docstring, for tournaments: carried on `<p>.staff.tournament.<id>` to the holder
    of `tournament:<id>`, run by its actor for the same staff member (the audit row names dora,
    director), answered with a's result; a's refusal (`no_change`) reaches b unchanged; a
    runs its own tournament itself (not carried)."""
    staff_a, staff_b, actor = tourney_nodes
    args = TournamentChangeArgs("mtt-1", "")
    paused = run(loop, ask(staff_b, "tournament_pause", args, Role.DIRECTOR, "dora"))
    assert paused == {"audit_id": 1, "level": 3, "level_ms_left": 60_000, "paused": True}
    assert actor.staff.paused
    with pytest.raises(ProtocolError) as refused:
        run(loop, ask(staff_b, "tournament_pause", args, Role.DIRECTOR, "dora"))
    assert refused.value.code == "no_change"
    resumed = run(loop, ask(staff_b, "tournament_resume", args, Role.DIRECTOR, "dora"))
    assert resumed["audit_id"] == 2 and resumed["paused"] is False
    assert actor.staff.audits == [
        ("dora", "director", "tournament_pause", "mtt-1"),
        ("dora", "director", "tournament_resume", "mtt-1"),
    ]
    assert ask(staff_a, "tournament_pause", args, Role.DIRECTOR, "dora") is None


def test_a_forged_role_gets_no_more_than_the_account_has(
    loop: asyncio.AbstractEventLoop,
    tourney_nodes: tuple[StaffRouting, StaffRouting, TourneyStandIn],
) -> None:
    """A tournament command carried with a role above the account's: `forbidden` for sam
    (floor, and a pause needs director), `staff_disabled` for dan; dora's claimed admin acts as
    the director she is (her audit row's role)."""
    _, staff_b, actor = tourney_nodes
    args = TournamentChangeArgs("mtt-1", "")
    for who, code in (("sam", "forbidden"), ("dan", "staff_disabled")):
        with pytest.raises(ProtocolError) as refused:
            run(loop, ask(staff_b, "tournament_pause", args, Role.ADMIN, who))
        assert refused.value.code == code, who
    assert actor.staff.audits == [] and not actor.staff.paused
    run(loop, ask(staff_b, "tournament_pause", args, Role.ADMIN, "dora"))
    assert actor.staff.audits == [("dora", "director", "tournament_pause", "mtt-1")]


def test_a_tournament_nobody_runs_is_cluster_unavailable_and_a_stored_one_runs_here(
    loop: asyncio.AbstractEventLoop,
    tourney_nodes: tuple[StaffRouting, StaffRouting, TourneyStandIn],
) -> None:
    """mtt-2, stored running but served by no node: `cluster_unavailable`; a finished one
    (no actor anywhere) and an unknown one run on b as on one node (`unknown_tournament`);
    a carried command reaching a node that no longer runs the tournament (its lease lost
    meanwhile) is `cluster_unavailable` there, not run; `tournament_show` nobody answers for is
    b's view of the store."""
    staff_a, staff_b, actor = tourney_nodes
    with pytest.raises(ProtocolError) as refused:
        run(
            loop,
            ask(
                staff_b,
                "tournament_pause",
                TournamentChangeArgs("mtt-2", ""),
                Role.DIRECTOR,
                "dora",
            ),
        )
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE
    for tid in ("old-1", "nope"):
        with pytest.raises(ProtocolError) as refused:
            run(
                loop,
                ask(
                    staff_b,
                    "tournament_pause",
                    TournamentChangeArgs(tid, ""),
                    Role.DIRECTOR,
                    "dora",
                ),
            )
        assert refused.value.code == errors.UNKNOWN_TOURNAMENT, tid
    # `tournament_show` no node answers for is b's stored view (none stored here: unknown)
    with pytest.raises(ProtocolError) as refused:
        run(loop, ask(staff_b, "tournament_show", TournamentArgs("mtt-2"), Role.SUPPORT, "sue"))
    assert refused.value.code == errors.UNKNOWN_TOURNAMENT
    cast(Any, staff_a.room).tournaments.actors.clear()  # a lost the lease; still subscribed
    with pytest.raises(ProtocolError) as refused:
        run(
            loop,
            ask(
                staff_b,
                "tournament_pause",
                TournamentChangeArgs("mtt-1", ""),
                Role.DIRECTOR,
                "dora",
            ),
        )
    assert refused.value.code == errors.CLUSTER_UNAVAILABLE
    assert actor.staff.audits == []
