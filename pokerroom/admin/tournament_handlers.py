"""The admin commands for tournaments (docs/ADMIN.md, "Tournaments").

Each is one typed args class (in `tournament_args.py`) and one function, like the others
(`pokerroom.admin.handlers`). Reads come from the tournament actors in memory (and the database for
tournaments only it knows). A change checks what it can at once (refused: nothing changed, no audit
row, P-1), then asks the tournament's actor (`tournaments.actor.staff_actions`), which writes the
change and its audit row in one unit of the tournament's recorder (`Context.audit_row`): one
transaction, in order with the tournament's own decisions. A change at a table waits for that
table's hand boundary (T-10) and is answered once stored."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.admin import errors as codes
from pokerroom.admin import tournament_views as views
from pokerroom.admin.audit import Audited, RecorderAudit
from pokerroom.admin.commands import NoArgs, command
from pokerroom.admin.context import Context
from pokerroom.admin.roles import Role
from pokerroom.admin.tournament_args import (
    AddTimeArgs,
    ChipsArgs,
    CreateArgs,
    DelayArgs,
    MoveArgs,
    OutageArgs,
    PlayerReasonArgs,
    PrizesArgs,
    SitoutArgs,
    TournamentArgs,
    TournamentChangeArgs,
    TournamentReasonArgs,
)
from pokerroom.protocol import errors
from pokerroom.protocol.errors import ProtocolError
from tournaments.config import OutageSettings, make_config
from tournaments.director import errors as director_errors
from tournaments.director.prize_changes import PrizeChange
from tournaments.ops import recovery
from tournaments.satellite_target import SatelliteTarget
from tournaments.store import CancelReason

if TYPE_CHECKING:
    from tournaments.actor.tournament import TournamentActor
    from tournaments.ops.schedule import TournamentScheduler


# --------------------------------------------------------------------------- finding one


def _scheduler(ctx: Context) -> TournamentScheduler:
    scheduler = ctx.room.tournaments
    if scheduler is None:
        raise ProtocolError(errors.UNAVAILABLE, "this room runs no tournaments")
    return scheduler


def _find(ctx: Context, tournament_id: str) -> TournamentActor | None:
    scheduler = _scheduler(ctx)
    return scheduler.actors.get(tournament_id) or scheduler.finished.get(tournament_id)


def _actor(ctx: Context, tournament_id: str) -> TournamentActor:
    found = _find(ctx, tournament_id)
    if found is None:
        raise ProtocolError(
            errors.UNKNOWN_TOURNAMENT, f"no tournament {errors.excerpt(tournament_id)} is open"
        )
    return found


def _audited(ctx: Context, action: str, target: str, reason: str) -> RecorderAudit:
    return ctx.audit_row(action, target, reason)


def _with_audit(audit: RecorderAudit) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda result: {"audit_id": audit.audit_id, **result}


# --------------------------------------------------------------------------- reads


@command("tournament_list", NoArgs, Role.SUPPORT, changes=False)
def tournament_list(ctx: Context, args: NoArgs) -> Deferred[dict[str, Any]]:
    """Every tournament: those in play (status, paused, start, entries, players left, prize
    pool, level), then the stored ones no longer in memory, newest first."""
    scheduler = _scheduler(ctx)
    actors = {**scheduler.finished, **scheduler.actors}
    lines = [views.line(actor) for _, actor in sorted(actors.items())]
    d = ctx.read(views.listing, lines)  # `refunded` is known only to the store
    return d.addCallback(lambda found: {"tournaments": found})


@command("tournament_show", TournamentArgs, Role.SUPPORT, changes=False)
def tournament_show(ctx: Context, args: TournamentArgs) -> Any:
    """One tournament: status, level and clock, entries, prize pool, payouts, tables with
    stacks, the places paid, disqualifications and chip corrections."""
    actor = _find(ctx, args.tournament_id)
    if actor is not None:
        shown = views.detail(actor)
        d = ctx.read(views.decision_of, args.tournament_id)
        return d.addCallback(
            lambda found: {
                **shown,
                "status": views.shown_status(shown["status"], None if found is None else found[0]),
                "decision": None if found is None else found[1],
            }
        )

    def found(shown: dict[str, Any] | None) -> dict[str, Any]:
        if shown is None:
            raise ProtocolError(
                errors.UNKNOWN_TOURNAMENT, f"no tournament {errors.excerpt(args.tournament_id)}"
            )
        return shown

    return ctx.read(views.stored_detail, args.tournament_id).addCallback(found)


@command("tournament_sitouts", SitoutArgs, Role.SUPPORT, changes=False)
def tournament_sitouts(ctx: Context, args: SitoutArgs) -> dict[str, Any]:
    """T-12: pairs of players who sat out at the same time repeatedly, most often first, and
    who sits out now (for the staff to look at; nothing is decided automatically)."""
    actor = _actor(ctx, args.tournament_id)
    pairs = actor.sitout_report(args.min_times, args.min_overlap_seconds)
    return {
        "pairs": [{"players": list(p.players), "times": p.times} for p in pairs],
        "sitting_out": actor.floor.sitouts.sitting_out(),
    }


# --------------------------------------------------------------------------- start (T-1)


@command("tournament_create", CreateArgs, Role.DIRECTOR, changes=True)
def tournament_create(ctx: Context, args: CreateArgs) -> Deferred[dict[str, Any]]:
    """A new tournament from a template, opened for registration now and starting at
    `starts_at_ms` (T-1). Its id is `<name>-<start in seconds>`."""
    scheduler = _scheduler(ctx)
    structure = scheduler.structures.get(args.template)
    if structure is None:
        known = ", ".join(sorted(scheduler.structures))
        raise ProtocolError(codes.UNKNOWN_TEMPLATE, f"no template {args.template!r}: {known}")
    now = ctx.room.clock.seconds()
    starts_at = args.starts_at_ms / 1000
    if starts_at <= now:
        raise ProtocolError(errors.BAD_FIELD, "starts_at_ms: must be in the future")
    name = args.name or args.template
    tid = f"{name}-{int(starts_at)}"
    if _find(ctx, tid) is not None:
        raise ProtocolError(codes.TOURNAMENT_EXISTS, f"tournament {tid} is open already")
    defaults = OutageSettings()
    try:
        outage = OutageSettings(
            defaults.resume_within_minutes
            if args.resume_within_minutes is None
            else args.resume_within_minutes,
            defaults.reconnect_seconds
            if args.reconnect_seconds is None
            else args.reconnect_seconds,
        )
        config = make_config(
            tid, structure, buy_in=args.buy_in, fee=args.fee, starts_at=starts_at, opens_at=now,
            fmt=args.format, late_registration_levels=args.late_registration_levels,
            max_entries=args.max_entries, guarantee=args.guarantee, name=name,
            max_seats=args.max_seats, between_hands_seconds=args.between_hands_seconds,
            outage=outage,
        )  # fmt: skip
    except ValueError as exc:
        raise ProtocolError(errors.BAD_FIELD, str(exc)) from None
    if args.satellite_target is not None:  # T-8, T-16: seats in an open tournament
        target = _find(ctx, args.satellite_target)
        if target is None or target.status != "registering" or target.config.sit_and_go:
            raise ProtocolError(
                errors.BAD_FIELD,
                f"satellite_target: {args.satellite_target} is not an MTT open for registration",
            )
        seats = SatelliteTarget(
            target.tid,
            target.settings.buy_in,
            target.settings.fee,
            ticket_valid_days=args.ticket_valid_days,
        )
        config = replace(config, satellite=seats)
    actor = scheduler._actor(config)
    audit = _audited(ctx, "tournament_create", tid, args.reason)
    if scheduler.cluster:  # only its row: the node that takes `tournament:<id>` opens it
        stored = actor.staff.open_by_staff(audit, here=False)
        shown = {"tournament_id": tid, "starts_at_ms": args.starts_at_ms}

        def taken(failure: Failure) -> dict[str, Any]:  # another node's row is there already
            failure.trap(IntegrityError)
            raise ProtocolError(codes.TOURNAMENT_EXISTS, f"tournament {tid} is open already")

        return stored.addCallbacks(lambda _: {"audit_id": audit.audit_id, **shown}, taken)
    scheduler.actors[tid] = actor
    written = actor.staff.open_by_staff(audit)

    def opened(_: object) -> dict[str, Any]:
        if scheduler.on_change is not None:
            scheduler.on_change(actor, "opened")
        return {"audit_id": audit.audit_id, "tournament_id": tid, "starts_at_ms": args.starts_at_ms}

    def failed(failure: Any) -> Any:
        if scheduler.actors.get(tid) is actor:
            del scheduler.actors[tid]
        actor.cancel_start()
        actor.status = "cancelled"
        return failure

    return written.addCallbacks(opened, failed)


@command("tournament_delay", DelayArgs, Role.DIRECTOR, changes=True)
def tournament_delay(ctx: Context, args: DelayArgs) -> Deferred[dict[str, Any]]:
    """T-1: a tournament not started yet starts `minutes` later (registered players are told
    by `tournament_status`); T-3's unregistration deadline moves with the start."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_delay", actor.tid, args.reason)
    return actor.staff.delay(args.minutes * 60, audit).addCallback(_with_audit(audit))


@command("tournament_pause", TournamentChangeArgs, Role.DIRECTOR, changes=True)
def tournament_pause(ctx: Context, args: TournamentChangeArgs) -> Deferred[dict[str, Any]]:
    """No table deals a new hand (the hands in play finish) and the level clock stands
    still, until `tournament_resume`. Not on a break (T-11)."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_pause", actor.tid, args.reason)
    return actor.staff.pause_play(audit).addCallback(_with_audit(audit))


@command("tournament_resume", TournamentChangeArgs, Role.DIRECTOR, changes=True)
def tournament_resume(ctx: Context, args: TournamentChangeArgs) -> Deferred[dict[str, Any]]:
    """Every table deals again; the level clock runs on from where it stood."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_resume", actor.tid, args.reason)
    return actor.staff.resume_play(audit).addCallback(_with_audit(audit))


@command("tournament_add_time", AddTimeArgs, Role.DIRECTOR, changes=True)
def tournament_add_time(ctx: Context, args: AddTimeArgs) -> Deferred[dict[str, Any]]:
    """The current level lasts `seconds` longer (its clock stands still that long while play
    goes on). Not on a break (T-11)."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_add_time", actor.tid, args.reason)
    return actor.staff.add_level_time(args.seconds, audit).addCallback(_with_audit(audit))


@command("tournament_cancel", TournamentReasonArgs, Role.DIRECTOR, changes=True)
def tournament_cancel(ctx: Context, args: TournamentReasonArgs) -> Deferred[dict[str, Any]]:
    """T-1, T-18: stop a registering or running tournament (a hand in play is void) and mark
    it cancelled by the staff; the refund job pays T-18 from each table's last completed
    hand, and each refunded player hears `tournament_cancelled`."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_cancel", actor.tid, args.reason)
    why = f"cancelled by staff {ctx.staff}: {args.reason}"
    d = actor.staff.staff_cancel(CancelReason.STAFF, why, audit)
    return d.addCallback(_with_audit(audit))


# --------------------------------------------------------------------------- players


@command("tournament_move", MoveArgs, Role.FLOOR, changes=True)
def tournament_move(ctx: Context, args: MoveArgs) -> Deferred[dict[str, Any]]:
    """T-10: move a player to another table of the tournament between hands, at the seat
    nearest their position to the blinds; they get `tournament_seat` and the new table."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_move", args.player, args.reason)
    return actor.staff.move_player(args.player, args.table, audit).addCallback(_with_audit(audit))


@command("tournament_chips", ChipsArgs, Role.FLOOR, changes=True)
def tournament_chips(ctx: Context, args: ChipsArgs) -> Deferred[dict[str, Any]]:
    """Correct a player's stack between hands: the chips issued move by the difference, so
    the chip total stays consistent; the correction is kept with its audit row."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_chips", args.player, args.reason)
    d = actor.staff.correct_chips(args.player, args.chips, ctx.staff, audit)
    return d.addCallback(_with_audit(audit))


@command("tournament_disqualify", PlayerReasonArgs, Role.DIRECTOR, changes=True)
def tournament_disqualify(ctx: Context, args: PlayerReasonArgs) -> Deferred[dict[str, Any]]:
    """Remove a player and their chips from play at the end of their table's hand: placed as
    knocked out in that hand, below every player knocked out in it; no new entry."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_disqualify", args.player, args.reason)
    return actor.staff.disqualify(args.player, audit).addCallback(_with_audit(audit))


# --------------------------------------------------------------------------- money (T-15, T-18)


@command("tournament_prizes", PrizesArgs, Role.DIRECTOR, changes=True)
def tournament_prizes(ctx: Context, args: PrizesArgs) -> Deferred[dict[str, Any]]:
    """T-15: a new prize table (every place, first place first), the money added from the
    house overlay account by one keyed transfer; or a satellite's seats paid in cash. The
    same `key` again answers the first change."""
    actor = _actor(ctx, args.tournament_id)
    if actor.status != "running":
        raise ProtocolError(director_errors.NOT_ALLOWED, f"the tournament is {actor.status}")
    actor.fix_pool_now()
    audit = _audited(ctx, "tournament_prizes", actor.tid, args.reason)
    d = actor.prize_changes.change_prizes(
        args.amounts, by=ctx.staff, reason=args.reason, key=args.key, rounding=args.rounding,
        seats_in_cash=args.seats_in_cash, audit=audit(
            None if actor.prizes is None else list(actor.prizes.amounts),
            {"amounts": list(args.amounts), "seats_in_cash": args.seats_in_cash},
        ),
    )  # fmt: skip

    def changed(change: PrizeChange) -> dict[str, Any]:
        return {
            "audit_id": audit.audit_id,
            "payouts": list(change.new.amounts),
            "added": change.added,
            "currency": actor.config.currency,
            "replayed": audit.audit_id is None,
        }

    return d.addCallback(changed)


@command("tournament_outage", OutageArgs, Role.DIRECTOR, changes=True)
def tournament_outage(ctx: Context, args: OutageArgs) -> Deferred[dict[str, Any]]:
    """T-18: override the start-up's choice after a crash. `refund`: a tournament it resumed
    (or kept registering) is cancelled for outage and refunded by the job; `resume`: one it
    cancelled for outage plays on, while the refund job has not planned its refunds."""
    scheduler = _scheduler(ctx)
    tid = args.tournament_id
    if args.choice == "refund":
        actor = _actor(ctx, tid)

        def refund(found: tuple[str, str] | None) -> Deferred[dict[str, Any]]:
            decision = "" if found is None else found[1]
            if not decision.startswith(("resumed", "kept registering")):
                raise ProtocolError(
                    director_errors.NOT_ALLOWED,
                    f"{tid} was not resumed or kept after a crash: use tournament_cancel",
                )
            audit = _audited(ctx, "tournament_outage", tid, args.reason)
            why = f"cancelled for outage by staff {ctx.staff} (the start-up had {decision})"
            d = actor.staff.staff_cancel(CancelReason.OUTAGE, why[:500], audit)
            return d.addCallback(_with_audit(audit))

        return ctx.read(views.decision_of, tid).addCallback(refund)
    if tid in scheduler.actors:
        raise ProtocolError(director_errors.NOT_ALLOWED, f"{tid} is open: nothing to resume")
    if scheduler.cluster:  # the actor would run outside the `tournament:<id>` lease
        raise ProtocolError(
            director_errors.NOT_ALLOWED,
            f"{tid}: a tournament cancelled for outage cannot be resumed on a cluster",
        )
    d = ctx.change(
        "tournament_outage", tid, args.reason, views.resume_work, tid, ctx.staff, ctx.now_ms()
    )

    def rebuilt(done: Audited) -> dict[str, Any]:
        result = dict(done.change.result)
        stored = result.pop("stored")
        actor = scheduler._actor(stored.config)
        recovery.rebuild(actor, stored, ctx.room.clock.seconds())
        scheduler.finished.pop(tid, None)
        scheduler.actors[tid] = actor
        if scheduler.on_change is not None:
            scheduler.on_change(actor, "opened")
        return {"audit_id": done.audit_id, **result}

    return d.addCallback(rebuilt)
