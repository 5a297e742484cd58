"""The admin commands for the room's operation: scheduled jobs and opening a cash table.

`job_list` and `job_run` (admin) drive the running server's `JobService`: a run started here is
the same run as the scheduled one (its lock, its `job_runs` row, docs/OPERATIONS.md). Its audit
row `job_run` commits, after the role check, BEFORE the run starts (a run can pay refunds, so
nothing is paid without a row of who asked); when the run ends a second row `job_run_end`
carries its report (written whatever the account's role is by then: it records the end of an
effect that started under a valid role). The job's money moves are its own transactions, each
with its key. `table_open` (floor) reads the room's configuration file
again and opens a cash table it names that is not open yet (its stored hands recovered first,
C-12; a staff pause or close stored for it applies, as after a restart); the audit row commits
before players can see the table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from twisted.internet.defer import Deferred

from pokerroom.admin import audit as audit_log
from pokerroom.admin import errors as codes
from pokerroom.admin import store
from pokerroom.admin.args import NOTE
from pokerroom.admin.audit import Actor, Audited
from pokerroom.admin.commands import arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.jobs.runner import RunReport
from pokerroom.jobs.runs import recent_runs
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError
from pokerroom.table.deck_random import DeckRandom


@dataclass(frozen=True, slots=True)
class JobListArgs:
    """How many recent runs, of which job."""

    job: str | None = arg(f.pattern(f.TABLE_ID_RE, 40), "only this job's runs", default=None)
    limit: int = arg(f.integer(1, 500), "at most this many runs (20)", "int", default=20)


@dataclass(frozen=True, slots=True)
class JobRunArgs:
    """A job to run now, and why."""

    job: str = arg(f.pattern(f.TABLE_ID_RE, 40), "the job (`refunds`)")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class TableOpenArgs:
    """A cash table of the room's configuration file, and why."""

    table_id: str = arg(f.pattern(f.TABLE_ID_RE), "the table's key in [tables] of the config")
    reason: str = NOTE


@command("job_list", JobListArgs, Role.ADMIN, changes=False)
def job_list(ctx: Context, args: JobListArgs) -> Deferred[dict[str, Any]]:
    """The scheduled jobs (how often `serve` runs each) and their latest runs, newest first, from
    every runner (`serve`, cron, by hand)."""
    jobs = ctx.room.jobs
    if jobs is None:
        raise ProtocolError(errors.UNAVAILABLE, "this room runs no jobs")
    listed = [
        {"job": name, "interval_seconds": jobs.settings.interval(name)}
        for name in sorted(jobs.jobs)
    ]
    d = ctx.read(recent_runs, args.limit, args.job)
    return d.addCallback(lambda rows: {"jobs": listed, "runs": [asdict(r) for r in rows]})


@command("job_run", JobRunArgs, Role.ADMIN, changes=True)
def job_run(ctx: Context, args: JobRunArgs) -> Deferred[dict[str, Any]]:
    """Run a job now in the running server (or join the run going on); answered when the
    run ends, with its report: outcome, tournaments finished, amounts paid, transfers."""
    jobs = ctx.room.jobs
    if jobs is None:
        raise ProtocolError(errors.UNAVAILABLE, "this room runs no jobs")
    if args.job not in jobs.jobs:
        raise ProtocolError(
            codes.UNKNOWN_JOB, f"no job {args.job!r}: {', '.join(sorted(jobs.jobs))}"
        )

    started = {"job": args.job, "started_ms": ctx.now_ms()}
    d = ctx.change("job_run", args.job, args.reason, store.note_work, None, started, {})

    def run(done: Audited) -> Deferred[dict[str, Any]]:
        def ran(report: RunReport) -> Deferred[dict[str, Any]]:
            shown = report.as_dict()
            ended = ctx.room.ledger.run(
                audit_log.record_end,
                Actor(ctx.staff, ctx.role.label),
                "job_run_end",
                args.job,
                {"audit_id": done.audit_id},
                shown,
                args.reason,
                ctx.now_ms(),
            )
            return ended.addCallback(lambda _: {"audit_id": done.audit_id, **shown})

        return jobs.run_now(args.job).addCallback(ran)

    return d.addCallback(run)


@command("table_open", TableOpenArgs, Role.FLOOR, changes=True)
def table_open(ctx: Context, args: TableOpenArgs) -> Deferred[dict[str, Any]]:
    """Open a cash table of the room's configuration file (read again now) that is not open:
    its stored hands are recovered (C-12), then players see it in the lobby."""
    from pokerroom.cash import TableActor
    from pokerroom.server.settings import SettingsError, load_settings

    room = ctx.room
    if args.table_id in room.lobby.tables:
        raise ProtocolError(codes.NO_CHANGE, f"table {args.table_id} is open already")
    try:
        settings = load_settings(room.settings.config_file or None)
    except SettingsError as exc:
        raise ProtocolError(codes.CONFIG_ERROR, str(exc)) from None
    config = next((t for t in settings.tables if t.table_id == args.table_id), None)
    if config is None:
        raise ProtocolError(
            errors.UNKNOWN_TABLE, f"the room's configuration has no [tables.{args.table_id}]"
        )
    actor = TableActor(
        config,
        clock=room.reactor,
        ledger=room.ledger,
        listener=room.hub,
        rng=DeckRandom(),  # C-15
        store=room.store,
        policies=room.policies,
    )
    after = {
        "variant": config.variant,
        "stakes": config.stakes,
        "max_seats": config.max_seats,
        "buy_in": [config.min_buy_in, config.max_buy_in],
    }

    def started(_: object) -> Deferred[Audited]:
        if args.table_id in room.lobby.tables:
            actor.close()
            raise ProtocolError(codes.NO_CHANGE, f"table {args.table_id} is open already")
        return ctx.change(
            "table_open", args.table_id, args.reason, store.note_work, None, after, {}
        )

    def opened(done: Audited) -> Deferred[dict[str, Any]]:
        room.lobby.add_table(args.table_id, actor, None)

        def held(states: dict[str, str]) -> dict[str, Any]:
            state = states.get(args.table_id)
            if state is not None:  # paused or closed by staff before: as a restart would
                room.apply_table_state(args.table_id, state)
            return {"audit_id": done.audit_id, "table_id": args.table_id, **after, "state": state}

        return ctx.read(store.table_states).addCallback(held)

    def failed(failure: Any) -> Any:
        if room.lobby.tables.get(args.table_id) is not actor:
            actor.close()
        return failure

    return actor.start().addCallback(started).addCallbacks(opened, failed)
