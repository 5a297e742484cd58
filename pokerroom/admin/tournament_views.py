"""What staff see of tournaments, and the blocking work of `tournament_outage --resume`.

`line` and `detail` describe a tournament actor in memory (status, level and clock, entries,
prize pool, payouts, tables with stacks); `stored_lines` and `stored_detail` read the ones
only the database knows (finished, cancelled or refunded in an earlier run of the server);
`listing` and `shown_status` show `refunded` for an actor still `cancelled` in memory once the
refund job has paid it.
`resume_work` undoes the start-up's cancellation for outage of one tournament (T-18), in the
transaction of its audit row. Blocking functions run in the ledger's lanes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.admin import errors as codes
from pokerroom.admin.audit import Change
from pokerroom.jobs.lock import lock_key
from pokerroom.ledger.db import read
from pokerroom.ledger.kinds import AccountKind
from pokerroom.ledger.schema import accounts
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from tournaments import store
from tournaments.director import errors as director_errors
from tournaments.director.entries import prize_pool_status
from tournaments.ops.recovery import Stored, config_of

if TYPE_CHECKING:
    from tournaments.actor.tournament import TournamentActor

#: The refund job's name: its lock is taken by `resume_work` (no run may plan meanwhile).
REFUNDS_JOB = "refunds"


def ms(seconds: float | None) -> int | None:
    """Seconds since the epoch as milliseconds (None stays None)."""
    return None if seconds is None else round(seconds * 1000)


def _level(actor: TournamentActor) -> dict[str, Any] | None:
    """The level in force and its clock, while the tournament runs."""
    if actor.status != "running":
        return None
    status = actor.floor.level()
    now = actor.clock.seconds()
    left = None if status.ends_at is None else max(0, round((status.ends_at - now) * 1000))
    return {
        "number": status.index + 1,
        "small_blind": status.level.small_blind,
        "big_blind": status.level.big_blind,
        "ante": status.level.ante,
        "on_break": status.on_break,
        "ms_left": left,
    }


def line(actor: TournamentActor) -> dict[str, Any]:
    """One line of `tournament_list` for a tournament in memory."""
    level = _level(actor)
    return {
        "tournament_id": actor.tid,
        "name": actor.config.name or actor.tid,
        "status": actor.status,
        "paused": actor.floor.paused,
        "starts_at_ms": None if actor.config.sit_and_go else ms(actor.settings.starts_at),
        "entries": actor.state.entries,
        "players_left": actor.players_left(),
        "prize_pool": prize_pool_status(actor.settings, actor.state).total,
        "currency": actor.config.currency,
        "level": None if level is None else level["number"],
    }


def detail(actor: TournamentActor) -> dict[str, Any]:
    """`tournament_show` of a tournament in memory: the line, the clock, the money, the
    tables with their stacks, the places paid so far, the staff's decisions."""
    floor = actor.floor
    tables = [
        {
            "table": table.table_id,
            "table_id": table.wire_id,
            "hand_running": table.hand_running,
            "seats": [
                {
                    "seat": number - 1,
                    "player": entry,
                    "stack": table.stacks[entry],
                    "sitting_out": table.presence.sitting_out(entry),
                    "disconnected": entry in table.presence.disconnected,
                }
                for number, entry in sorted(table.seats.items())
            ],
        }
        for _, table in sorted(floor.tables.items())
    ]
    prizes = actor.prizes
    staff = actor.staff
    paid = [
        {"place": r.place, "player": r.entry, "prize": r.prize, "tied": r.tied}
        for r in sorted(actor.results, key=lambda r: (r.place, r.entry))
        if r.prize
    ]
    return {
        **line(actor),
        "kind": "sit_and_go" if actor.config.sit_and_go else "mtt",
        "buy_in": actor.settings.buy_in,
        "fee": actor.settings.fee,
        "started_at_ms": ms(floor.started_at) if floor.started_at else None,
        "level": _level(actor),
        "paused_seconds": round(floor.paused_total, 3),
        "payouts": None if prizes is None else list(prizes.amounts),
        "chips_issued": actor.chips_issued,
        "chips_in_play": actor.chips_in_play() if actor.status == "running" else None,
        "tables": tables,
        "paid": paid,
        "disqualified": sorted(staff.disqualified),
        "chip_corrections": [
            {"player": c.entry, "before": c.before, "after": c.after, "at_ms": ms(c.at), "by": c.by}
            for c in staff.corrections
        ],
        "in_memory": True,
    }


# --------------------------------------------------------------------------- the database


def _record_line(conn: Connection, record: store.TournamentRecord) -> dict[str, Any]:
    entries = store.tournament_entries
    payments = store.tournament_payments
    tid = record.id
    counted = conn.execute(
        sa.select(
            sa.func.count(), sa.func.sum(sa.case((entries.c.status == store.ALIVE, 1), else_=0))
        ).where(entries.c.tournament_id == tid, entries.c.status != store.UNREGISTERED)
    ).one()
    gone = sa.select(entries.c.player).where(
        entries.c.tournament_id == tid, entries.c.status == store.UNREGISTERED
    )
    pool = conn.execute(
        sa.select(sa.func.coalesce(sa.func.sum(payments.c.buy_in), 0)).where(
            payments.c.tournament_id == tid, payments.c.player.not_in(gone)
        )
    ).scalar_one()
    config = record.config
    registration = config.get("registration", {}) if isinstance(config, dict) else {}
    starts_at = registration.get("starts_at")
    return {
        "tournament_id": tid,
        "name": (config.get("name") if isinstance(config, dict) else None) or tid,
        "status": record.status,
        "paused": False,
        "starts_at_ms": None if starts_at is None else round(float(starts_at) * 1000),
        "entries": int(counted[0] or 0),
        "players_left": int(counted[1] or 0),
        "prize_pool": int(pool) + record.overlay_posted + record.prize_added,
        "currency": record.currency,
        "level": None,
    }


def stored_lines(engine: Engine | Connection, skip: frozenset[str]) -> list[dict[str, Any]]:
    """Lines of the stored tournaments not in `skip` (the ones in memory), newest first."""

    def work(conn: Connection) -> list[dict[str, Any]]:
        query = sa.select(store.tournaments.c.id).order_by(
            store.tournaments.c.created_at_ms.desc(), store.tournaments.c.id
        )
        found = []
        for tid in conn.execute(query).scalars():
            if tid in skip:
                continue
            record = store.load_tournament(conn, tid)
            if record is not None:
                found.append(_record_line(conn, record))
            if len(found) >= 200:
                break
        return found

    return read(engine, work)


def shown_status(in_memory: str, stored: str | None) -> str:
    """The status staff read: the actor's, but `refunded` once the refund job has paid a
    cancelled tournament (T-18). Only the store knows: the job may run in another process
    (`pokerroom jobs run refunds`) and the actor in memory stays `cancelled`."""
    if in_memory == store.CANCELLED and stored == store.REFUNDED:
        return store.REFUNDED
    return in_memory


def listing(engine: Engine, in_memory: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`tournament_list`: the lines of the tournaments in memory (`line`) with their stored
    status where it says more (`shown_status`), then the stored ones not in memory."""
    known = frozenset(x["tournament_id"] for x in in_memory)

    def work(conn: Connection) -> list[dict[str, Any]]:
        t = store.tournaments
        rows = conn.execute(sa.select(t.c.id, t.c.status).where(t.c.id.in_(sorted(known))))
        stored = {tid: status for tid, status in rows}
        lines = [
            {**x, "status": shown_status(x["status"], stored.get(x["tournament_id"]))}
            for x in in_memory
        ]
        return lines + stored_lines(conn, known)

    return read(engine, work)


def stored_detail(engine: Engine, tournament_id: str) -> dict[str, Any] | None:
    """`tournament_show` of a stored tournament (no actor in memory), or None."""

    def work(conn: Connection) -> dict[str, Any] | None:
        record = store.load_tournament(conn, tournament_id)
        if record is None:
            return None
        seats: dict[str, list[dict[str, Any]]] = {}
        for seat in store.load_seats(conn, tournament_id):
            seats.setdefault(seat.table_id, []).append(
                {"seat": seat.seat - 1, "player": seat.player, "stack": seat.stack}
            )
        paid = [
            {"place": e.place, "player": e.player, "prize": e.prize, "tied": 1}
            for e in sorted(store.load_entries(conn, tournament_id), key=lambda e: e.place or 0)
            if e.prize
        ]
        return {
            **_record_line(conn, record),
            "cancel_reason": record.cancel_reason,
            "decision": record.decision,
            "started_at_ms": record.started_at_ms,
            "stopped_at_ms": record.stopped_at_ms,
            "level": None
            if record.started_at_ms is None
            else {
                "number": record.level_index + 1,
                "ms_left": record.level_ms_left,
            },
            "payouts": None if record.prizes is None else list(record.prizes.amounts),
            "tables": [
                {"table": table_id, "table_id": f"{tournament_id}.{table_id}", "seats": rows}
                for table_id, rows in sorted(seats.items())
            ],
            "paid": paid,
            "in_memory": False,
        }

    return read(engine, work)


def decision_of(engine: Engine, tournament_id: str) -> tuple[str, str] | None:
    """(stored status, the start-up's decision) of a tournament, or None."""

    def work(conn: Connection) -> tuple[str, str] | None:
        record = store.load_tournament(conn, tournament_id)
        return None if record is None else (record.status, record.decision)

    return read(engine, work)


# --------------------------------------------------------------------------- outage --resume


def _pool_balance(conn: Connection, tournament_id: str, currency: str) -> int:
    query = sa.select(accounts.c.balance).where(
        accounts.c.kind == AccountKind.PRIZE_POOL.value,
        accounts.c.owner == tournament_id,
        accounts.c.currency == currency,
    )
    return int(conn.execute(query).scalar() or 0)


def resume_work(conn: Connection, tournament_id: str, staff: str, now_ms: int) -> Change:
    """T-18: a tournament the start-up cancelled for outage plays on after all: back to
    `running` (or, not started, `registering`, starting after `outage.reconnect_seconds`),
    unless the refund job holds its lock or has planned its refunds. The result carries
    the stored state to rebuild the actor from (`stored`, popped by the caller)."""
    record = store.load_tournament(conn, tournament_id)
    if record is None:
        raise ProtocolError(errors.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}")
    reason = store.CancelReason.OUTAGE.value
    if record.status != store.CANCELLED or record.cancel_reason != reason:
        raise ProtocolError(
            director_errors.NOT_ALLOWED,
            f"{tournament_id} is {record.status} ({record.cancel_reason or 'no cancel reason'}):"
            " only a tournament the start-up cancelled for outage can be resumed",
        )
    if conn.dialect.name == "postgresql":  # a refund run elsewhere holds the job's lock
        key = lock_key(conn, REFUNDS_JOB)
        if not conn.execute(sa.select(sa.func.pg_try_advisory_xact_lock(key))).scalar_one():
            raise ProtocolError(codes.JOB_RUNNING, "the refund job is running: try again")
    planned = conn.execute(
        sa.select(sa.func.count()).where(store.tournament_refunds.c.tournament_id == tournament_id)
    ).scalar_one()
    if planned:
        raise ProtocolError(
            codes.REFUNDS_STARTED, f"the refund job planned {tournament_id}'s refunds already"
        )
    config = config_of(record)
    status = store.RUNNING
    if record.started_at_ms is None:  # not started: it starts once players could reconnect
        starts_at = now_ms / 1000 + config.outage.reconnect_seconds
        config = replace(config, registration=replace(config.registration, starts_at=starts_at))
        status = store.REGISTERING
    why = f"resumed by staff {staff} after a cancellation for outage; it plays on"
    done = conn.execute(
        sa.update(store.tournaments)
        .where(
            store.tournaments.c.id == tournament_id, store.tournaments.c.status == store.CANCELLED
        )
        .values(
            status=status,
            cancel_reason=None,
            decision=why,
            stopped_at_ms=None,
            config=store.config_json(config),
            resumes=store.tournaments.c.resumes + 1,  # T-18: the hands from now take new ids
        )
    )
    if done.rowcount != 1:
        raise ProtocolError(director_errors.NOT_ALLOWED, f"{tournament_id} changed meanwhile")
    stored = Stored(
        replace(
            record,
            status=status,
            cancel_reason=None,
            decision=why,
            config={},
            resumes=record.resumes + 1,
        ),
        config,
        store.load_entries(conn, tournament_id),
        store.load_payments(conn, tournament_id),
        store.load_seats(conn, tournament_id),
        _pool_balance(conn, tournament_id, record.currency),
    )
    before = {"status": record.status, "cancel_reason": record.cancel_reason}
    after = {"status": status, "decision": why}
    return Change(before, after, {"status": status, "stored": stored})
