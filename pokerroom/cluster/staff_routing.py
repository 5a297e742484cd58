"""Staff table commands across nodes (docs/design/cluster.md, "Staff commands"; docs/ADMIN.md).

A staff command on one table (`table_show`, `table_pause`, `table_resume`, `table_close`,
`table_kick`, `table_open`; `casino_table_close`, `casino_table_open`, `casino_round_void`)
asked on a node that does not run the table is carried to the node that does, on
`<p>.staff.<kind>.<table>` (kind `table` or `casino`): the owner runs the very command for the
same staff member and role (its audit row names them), and answers with its result or its
refusal's stable code, which the staff client gets unchanged. The asking node has already
checked the role; the owner checks the fields again, and runs a command only on a table it
runs at that moment (one carried just as the table moved on is `cluster_unavailable`). No node
answering (the table between owners, NATS away) is `cluster_unavailable`. In a cluster
`table_open` never builds a table outside the leases (an unfenced second actor would void the
owner's hand and write beside it): a configured table is opened by the node that takes its
lease (the owner answers `no_change`), one added to room.toml since the nodes started is
`cluster_restart_needed`. `table_list` and `casino_table_list` are answered with this node's
tables and each other table's line as its owner tells it (`unavailable` when no node answers
for it).

A staff command on a running tournament (those that need its actor: `tournament_show`,
`tournament_sitouts`, `tournament_delay`, `tournament_pause`, `tournament_resume`,
`tournament_add_time`, `tournament_cancel`, `tournament_move`, `tournament_chips`,
`tournament_disqualify`, `tournament_prizes`, `tournament_outage`) asked on a node that does
not run it is carried the same way, kind `tournament`, to the holder of the lease
`tournament:<id>`: when the tournament is stored live (registering, running, interrupted) and
not in this node's scheduler; one stored otherwise (finished, cancelled, unknown) runs here as
on one node, from the database. The owner runs it only while the tournament is in its
scheduler's `actors`. `tournament_show` no node answers for is this node's stored view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import structlog
from nats.aio.subscription import Subscription
from twisted.internet.defer import Deferred, gatherResults, maybeDeferred
from twisted.python.failure import Failure

from pokerroom.admin import errors as admin_codes
from pokerroom.admin.commands import COMMANDS
from pokerroom.admin.context import AdminRoom, Context
from pokerroom.admin.roles import Role, check_role
from pokerroom.admin.staff import StaffMember, find_staff
from pokerroom.admin.tournament_views import decision_of
from pokerroom.cluster.bus import Bus, decode, encode
from pokerroom.cluster.casino_routing import refusal
from pokerroom.cluster.payloads import Reply
from pokerroom.cluster.subjects import Subjects, table_token
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError

log = structlog.get_logger("pokerroom.cluster")
#: Per-table staff commands, by the kind of table they act on.
KINDS = {
    "table_show": "table",
    "table_pause": "table",
    "table_resume": "table",
    "table_close": "table",
    "table_kick": "table",
    "table_open": "table",  # open already on its owner: its `no_change`; never a second actor
    "casino_table_close": "casino",
    "casino_table_open": "casino",
    "casino_round_void": "casino",
    # the commands on a running tournament (its actor): run by the holder of `tournament:<id>`
    "tournament_show": "tournament",
    "tournament_sitouts": "tournament",
    "tournament_delay": "tournament",
    "tournament_pause": "tournament",
    "tournament_resume": "tournament",
    "tournament_add_time": "tournament",
    "tournament_cancel": "tournament",
    "tournament_move": "tournament",
    "tournament_chips": "tournament",
    "tournament_disqualify": "tournament",
    "tournament_prizes": "tournament",
    "tournament_outage": "tournament",
}
#: The field naming the table or tournament a command acts on, by kind.
ID_FIELDS = {"table": "table_id", "casino": "table_id", "tournament": "tournament_id"}
#: The stored statuses of a tournament some node runs (`recovery.live_ids`).
LIVE = frozenset({"registering", "running", "interrupted"})
#: The lists completed with the other nodes' tables: the kind, and the command carried to
#: each table's owner for its line.
LISTS = {
    "table_list": ("table", "table_show"),
    "casino_table_list": ("casino", "casino_table_list"),
}
CARRIED_LISTS = frozenset({"casino_table_list"})
#: The field of a line that says no node answered for the table.
UNAVAILABLE_FIELD = {"table": "state", "casino": "phase"}
#: How long the asking node waits: a close or kick is answered once the hand ended and the
#: seats are cashed out (as a player's `leave`).
TIMEOUTS = {
    "table_close": 600.0,
    "table_kick": 600.0,
    "casino_round_void": 60.0,
    # answered at the player's table's hand boundary (T-10), once stored
    "tournament_move": 600.0,
    "tournament_chips": 600.0,
    "tournament_disqualify": 600.0,
    "tournament_cancel": 60.0,
    "tournament_prizes": 60.0,
    "tournament_outage": 60.0,
}
DEFAULT_SECONDS = 30.0


class StaffCommand(msgspec.Struct, frozen=True, kw_only=True):
    """A staff command carried to the table's owner: who asks, with which role, and the
    command's fields as the staff client sent them."""

    staff: str
    role: int
    name: str
    fields: dict[str, Any]


def sent_fields(args: Any) -> dict[str, Any]:
    """A command's checked fields as the client could have sent them: those left at their
    default are left out (the owner checks the fields again, and a default such as an empty
    reason is no value a client may send)."""
    found = {}
    for spec in dataclasses.fields(args):
        value = getattr(args, spec.name)
        if spec.default is dataclasses.MISSING or value != spec.default:
            found[spec.name] = value
    return found


def staff_subject(subjects: Subjects, kind: str, table_id: str) -> str:
    """Staff commands to the node running a table (request/reply)."""
    return f"{subjects.prefix}.staff.{kind}.{table_token(table_id)}"


class StaffRouting:
    """Carries per-table staff commands to the table's owner, and runs those carried here."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        room: AdminRoom,
        elsewhere: Callable[[str, str], bool],
        configured: Callable[[str], Iterable[str]] = lambda kind: (),
    ) -> None:
        self.bus, self.subjects, self.room = bus, subjects, room
        #: (kind, table id) -> whether a configured table is run by another node (not here).
        self.elsewhere = elsewhere
        #: kind -> the ids of every configured table of that kind (for the lists).
        self.configured = configured
        self.served: dict[str, Deferred[Subscription]] = {}

    # -- the owner's side ---------------------------------------------------------------------
    def took(self, resource: str) -> None:
        """The node runs `table:<id>`, `casino:<id>` or `tournament:<id>` now (its `on_take`)."""
        kind, _, table_id = resource.partition(":")
        if kind in ID_FIELDS and resource not in self.served:
            subject = staff_subject(self.subjects, kind, table_id)
            d = self.bus.serve(subject, self._respond)
            d.addErrback(lambda f: log.error("staff_serve_failed", resource=resource, error=str(f)))
            self.served[resource] = d

    def lost(self, resource: str) -> None:
        """The node stopped running it (its `on_lose`)."""
        d = self.served.pop(resource, None)
        if d is not None:
            d.addCallback(self.bus.unsubscribe).addErrback(lambda f: None)

    def stop(self) -> None:
        """Stop answering for every table."""
        for resource in list(self.served):
            self.lost(resource)

    def _respond(self, data: bytes) -> Deferred[bytes]:
        asked = decode(data, StaffCommand)
        log.info("admin_request_from_node", staff=asked.staff, request=asked.name)

        cmd = COMMANDS.get(asked.name)

        def run(found: tuple[StaffMember, str] | None) -> Any:
            if cmd is None or (asked.name not in KINDS and asked.name not in CARRIED_LISTS):
                raise ProtocolError(errors.UNKNOWN_MESSAGE, f"no table command {asked.name!r}")
            # the account as stored now, as the asking node read it: a role or name forged on
            # NATS gets no more than that account may do
            member = found[0] if found is not None and not found[0].disabled else None
            role = check_role(member.role if member else None, cmd.role, f"{cmd.name} ")
            args = cmd.parse_args(asked.fields)
            self._check_runs_here(asked)
            return cmd.run(Context(self.room, asked.staff, min(role, Role(asked.role)), cmd), args)

        def done(result: Any) -> bytes:
            return encode(Reply(ok=True, result=result))

        def refused(failure: Failure) -> bytes:
            kind = KINDS.get(asked.name, "table")
            target = asked.fields.get(ID_FIELDS[kind], "")
            return encode(refusal(failure.value, str(target), asked.name))

        account: Deferred[Any] = self.room.ledger.read(find_staff, asked.staff)
        return account.addCallback(run).addCallbacks(done, refused)

    def _check_runs_here(self, asked: StaffCommand) -> None:
        """A per-table command is run only by the node running the table now: one that came
        in just as the table moved on (its lease lost while the account was read, or before
        the subscription stopped) is `cluster_unavailable`; run here, `table_open` would build
        an unfenced second actor of a table another node runs (its start voids that node's
        hand, C-12) and the others would answer `unknown_table`."""
        kind = KINDS.get(asked.name)
        if kind is None:
            return
        if kind == "tournament":  # a tournament's: while its actor runs here (its lease held)
            tid = asked.fields.get("tournament_id")
            scheduler = self.room.tournaments
            if not isinstance(tid, str) or scheduler is None or tid not in scheduler.actors:
                raise ProtocolError(
                    errors.CLUSTER_UNAVAILABLE,
                    f"tournament {errors.excerpt(str(tid))} is not run on this node now",
                )
            return
        table_id = asked.fields.get("table_id")
        here = (
            isinstance(table_id, str)
            and table_id in set(self.configured(kind))
            and not self.elsewhere(kind, table_id)
        )
        if not here:
            raise ProtocolError(
                errors.CLUSTER_UNAVAILABLE,
                f"table {errors.excerpt(str(table_id))} is not run on this node now",
            )

    # -- the asking side ----------------------------------------------------------------------
    def route(self, ctx: Context, args: Any) -> Deferred[Any] | None:
        """The command carried to the table's owner (its answer), a list completed with the
        other nodes' tables, or None: it runs here."""
        listing = LISTS.get(ctx.command.name)
        if listing is not None:
            return self._listed(ctx, args, *listing)
        kind = KINDS.get(ctx.command.name)
        if kind == "tournament":
            return self._tournament(ctx, args)
        table_id = getattr(args, "table_id", None)
        if ctx.command.name == "table_open" and table_id not in set(self.configured("table")):
            raise ProtocolError(
                admin_codes.CLUSTER_RESTART_NEEDED,
                f"table {table_id} is not among the tables this cluster's nodes read at start:"
                " add it to every node's room.toml and restart the nodes one by one",
            )
        if kind is None or not isinstance(table_id, str) or not self.elsewhere(kind, table_id):
            return None
        return self._carry(ctx, kind, table_id, ctx.command.name, sent_fields(args))

    def _tournament(self, ctx: Context, args: Any) -> Deferred[Any] | None:
        """A command on a tournament: None (it runs here) when this node runs the tournament;
        else, stored live, carried to the holder of `tournament:<id>`
        (`cluster_unavailable` when none answers; `tournament_show` then shows the stored
        tournament, as it does for one not in memory); stored otherwise or not at all, run here
        (it needs no actor, or is refused as on one node)."""
        tid = args.tournament_id
        scheduler = self.room.tournaments
        if scheduler is None or tid in scheduler.actors:
            return None

        def stored(found: tuple[str, str] | None) -> Any:
            if found is None or found[0] not in LIVE:
                return ctx.command.run(ctx, args)
            carried = self._carry(ctx, "tournament", tid, ctx.command.name, sent_fields(args))
            if ctx.command.name == "tournament_show":
                carried.addErrback(self._unanswered_show, ctx, args)
            return carried

        found: Deferred[tuple[str, str] | None] = ctx.read(decision_of, tid)
        return found.addCallback(stored)

    def _unanswered_show(self, failure: Failure, ctx: Context, args: Any) -> Any:
        """`tournament_show` no node answered for: the stored tournament, as this node has it."""
        failure.trap(ProtocolError)
        if getattr(failure.value, "code", None) != errors.CLUSTER_UNAVAILABLE:
            return failure
        return ctx.command.run(ctx, args)

    def _listed(self, ctx: Context, args: Any, kind: str, asked: str) -> Deferred[Any] | None:
        """`table_list` or `casino_table_list`: this node's lines, and each table another node
        runs as its owner tells it (`table_show` less its seats; that owner's casino line);
        one no node answers for has `state` (cash) or `phase` (casino) `unavailable`."""
        others = [t for t in sorted(self.configured(kind)) if self.elsewhere(kind, t)]
        if not others:
            return None

        def one(table_id: str) -> Deferred[Any]:
            fields = {"table_id": table_id} if asked == "table_show" else {}

            def picked(result: Any) -> Any:
                if asked == "table_show":
                    return {k: v for k, v in result.items() if k != "seats"}
                return next(line for line in result["tables"] if line["table_id"] == table_id)

            def unanswered(failure: Failure) -> dict[str, Any]:
                return {"table_id": table_id, UNAVAILABLE_FIELD[kind]: "unavailable"}

            d = self._carry(ctx, kind, table_id, asked, fields)
            return d.addCallback(picked).addErrback(unanswered)

        here: Deferred[Any] = maybeDeferred(ctx.command.run, ctx, args)
        lines = [here, *(one(t) for t in others)]

        def merged(found: list[Any]) -> dict[str, Any]:
            tables = [*found[0]["tables"], *found[1:]]
            return {"tables": sorted(tables, key=lambda line: str(line["table_id"]))}

        return gatherResults(lines, consumeErrors=True).addCallback(merged)

    def _carry(
        self, ctx: Context, kind: str, table_id: str, name: str, fields: dict[str, Any]
    ) -> Deferred[Any]:
        """Carry command `name` with `fields` to the owner of the table; its result."""
        asked = StaffCommand(staff=ctx.staff, role=int(ctx.role), name=name, fields=fields)
        subject = staff_subject(self.subjects, kind, table_id)
        timeout = TIMEOUTS.get(asked.name, DEFAULT_SECONDS)

        def answered(data: bytes) -> Any:
            reply = decode(data, Reply)
            if not reply.ok:
                raise ProtocolError(reply.code, reply.message, reply.details)
            return reply.result

        found: Deferred[Any] = self.bus.request(subject, encode(asked), timeout)
        return found.addCallback(answered)
