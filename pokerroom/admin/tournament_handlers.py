"""The admin commands for tournaments (docs/ADMIN.md, "Tournaments").

Each is one typed args class and one function, like the others in `handlers.py`. Reads come
from the tournament actors in memory (and the database for tournaments only it knows). A
change checks what it can at once (refused: nothing changed, no audit row, P-1), then asks
the tournament's actor (`tournaments.staff_actions`), which writes the change and its audit
row in one unit of the tournament's recorder (`Context.audit_row`): one transaction, in order
with the tournament's own decisions. A change at a table waits for that table's hand
boundary (T-10) and is answered once stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred

from pokerroom.admin import errors as codes
from pokerroom.admin import tournament_views as views
from pokerroom.admin.audit import Audited, RecorderAudit
from pokerroom.admin.commands import NoArgs, arg, command
from pokerroom.admin.context import Context
from pokerroom.admin.handlers import NOTE, PLAYER, REASON
from pokerroom.admin.roles import Role
from pokerroom.protocol import errors
from pokerroom.protocol import fields as f
from pokerroom.protocol.errors import ProtocolError
from tournaments import recovery
from tournaments.config import FORMATS, OutageSettings, make_config
from tournaments.director import errors as director_errors
from tournaments.director.prize_changes import PrizeChange
from tournaments.store import CancelReason

if TYPE_CHECKING:
    from tournaments.actor import TournamentActor
    from tournaments.schedule import TournamentScheduler

KEY_RE = f.TABLE_ID_RE
MAX_CHIPS = 10**12


def number(low: float, high: float, *, low_included: bool = False) -> Any:
    """A JSON number (int or decimal) above `low` (or from it) and at most `high`; else
    `bad_field`."""

    def check(name: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ProtocolError(errors.BAD_FIELD, f"{name}: must be a number")
        above = low <= value if low_included else low < value
        if not math.isfinite(value) or not above or value > high:
            word = "from" if low_included else "above"
            raise ProtocolError(errors.BAD_FIELD, f"{name}: {word} {low:g}, at most {high:g}")
        return float(value)

    return check


def prize_amounts(name: str, value: object) -> tuple[int, ...]:
    """Every place's prize, first place first: 1 to 10,000 positive whole cents."""
    if not isinstance(value, list) or not 1 <= len(value) <= 10_000:
        raise ProtocolError(errors.BAD_FIELD, f"{name}: a list of 1 to 10000 amounts")
    for amount in value:
        f.check_amount(name, amount)
    return tuple(value)


TOURNAMENT = arg(f.pattern(f.TABLE_ID_RE), "the tournament, as `tournament_list` shows it")


@dataclass(frozen=True, slots=True)
class TournamentArgs:
    """A tournament."""

    tournament_id: str = TOURNAMENT


@dataclass(frozen=True, slots=True)
class TournamentChangeArgs:
    """A tournament and, optionally, why."""

    tournament_id: str = TOURNAMENT
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class TournamentReasonArgs:
    """A tournament, and why (required)."""

    tournament_id: str = TOURNAMENT
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class CreateArgs:
    """A new tournament from a blind-structure template."""

    template: str = arg(f.pattern(f.TABLE_ID_RE), "the template (config/tournaments: turbo ...)")
    starts_at_ms: int = arg(f.integer(1, 2**53), "when it starts (epoch ms, in the future)", "int")
    buy_in: int = arg(f.integer(0, f.MAX_AMOUNT), "cents to the prize pool (T-2)", "int")
    fee: int = arg(f.integer(0, f.MAX_AMOUNT), "cents to the house (T-2)", "int")
    name: str | None = arg(f.player_name, "the lobby name (default: the template's)", default=None)
    format: str = arg(f.choice(FORMATS), "freezeout | reentry | rebuy (T-4)", default="freezeout")
    max_seats: int = arg(f.integer(2, 10), "seats per table (default 9)", "int", default=9)
    late_registration_levels: int = arg(
        f.integer(0, 100), "late registration through this level (T-5)", "int", default=0
    )
    max_entries: int | None = arg(f.integer(2, 100_000), "at most this many", "int", default=None)
    guarantee: int = arg(
        f.integer(0, f.MAX_AMOUNT), "guaranteed pool, cents (T-6)", "int", default=0
    )
    between_hands_seconds: float = arg(
        number(0, 60, low_included=True),
        "pause between two hands of a table (default 3)",
        "number",
        default=3.0,
    )
    resume_within_minutes: float | None = arg(
        number(0, 1440, low_included=True),
        "T-18 after a crash (default 10)",
        "number",
        default=None,
    )
    reconnect_seconds: float | None = arg(
        number(0, 3600, low_included=True),
        "deal again this long after a resume (default 30)",
        "number",
        default=None,
    )
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class DelayArgs:
    """A tournament not started, how much later it starts, and why."""

    tournament_id: str = TOURNAMENT
    minutes: float = arg(number(0, 1440), "minutes later (a decimal number above 0)", "number")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class AddTimeArgs:
    """A running tournament, the seconds added to its current level, and why."""

    tournament_id: str = TOURNAMENT
    seconds: int = arg(f.integer(1, 86_400), "seconds added to the current level", "int")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class MoveArgs:
    """A player of a running tournament, the table they move to, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    table: int = arg(f.integer(1, 100_000), "the table number (`tournament_show`)", "int")
    reason: str = NOTE


@dataclass(frozen=True, slots=True)
class PlayerReasonArgs:
    """A player of a running tournament, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class ChipsArgs:
    """A player of a running tournament, the stack they should have, and why."""

    tournament_id: str = TOURNAMENT
    player: str = PLAYER
    chips: int = arg(f.integer(1, MAX_CHIPS), "the stack, in chips (at least 1)", "int")
    reason: str = REASON


@dataclass(frozen=True, slots=True)
class SitoutArgs:
    """A tournament and the report's thresholds (T-12)."""

    tournament_id: str = TOURNAMENT
    min_times: int = arg(f.integer(1, 1000), "together at least this often (3)", "int", default=3)
    min_overlap_seconds: float = arg(
        number(0, 86_400, low_included=True),
        "each time at least this long (30)",
        "number",
        default=30.0,
    )


@dataclass(frozen=True, slots=True)
class PrizesArgs:
    """A T-15 prize change: the new amounts (or seats in cash), why, an idempotency key."""

    tournament_id: str = TOURNAMENT
    amounts: tuple[int, ...] = arg(prize_amounts, "every place's prize from the first", "cents[]")
    reason: str = REASON
    key: str = arg(f.pattern(KEY_RE, 40), "idempotency key: the same key changes once (P-2)")
    rounding: int | None = arg(
        f.integer(0, f.MAX_AMOUNT), "the new house rounding (T-7)", "int", default=None
    )
    seats_in_cash: bool = arg(
        f.boolean, "a satellite's seats paid in cash (T-15)", "bool", default=False
    )


@dataclass(frozen=True, slots=True)
class OutageArgs:
    """A tournament after a crash, the staff's choice (resume | refund), and why."""

    tournament_id: str = TOURNAMENT
    choice: str = arg(f.choice(("resume", "refund")), "resume | refund (T-18)")
    reason: str = REASON


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
    actor = scheduler._actor(config)
    scheduler.actors[tid] = actor
    audit = _audited(ctx, "tournament_create", tid, args.reason)
    written = actor.open_by_staff(audit)

    def opened(_: object) -> dict[str, Any]:
        if scheduler.on_change is not None:
            scheduler.on_change(actor, "opened")
        return {"audit_id": audit.audit_id, "tournament_id": tid, "starts_at_ms": args.starts_at_ms}

    def failed(failure: Any) -> Any:
        if scheduler.actors.get(tid) is actor:
            del scheduler.actors[tid]
        if actor._start_call is not None and actor._start_call.active():
            actor._start_call.cancel()
        actor.status = "cancelled"
        return failure

    return written.addCallbacks(opened, failed)


@command("tournament_delay", DelayArgs, Role.DIRECTOR, changes=True)
def tournament_delay(ctx: Context, args: DelayArgs) -> Deferred[dict[str, Any]]:
    """T-1: a tournament not started yet starts `minutes` later (registered players are told
    by `tournament_status`); T-3's unregistration deadline moves with the start."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_delay", actor.tid, args.reason)
    return actor.delay(args.minutes * 60, audit).addCallback(_with_audit(audit))


@command("tournament_pause", TournamentChangeArgs, Role.DIRECTOR, changes=True)
def tournament_pause(ctx: Context, args: TournamentChangeArgs) -> Deferred[dict[str, Any]]:
    """No table deals a new hand (the hands in play finish) and the level clock stands
    still, until `tournament_resume`. Not on a break (T-11)."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_pause", actor.tid, args.reason)
    return actor.pause_play(audit).addCallback(_with_audit(audit))


@command("tournament_resume", TournamentChangeArgs, Role.DIRECTOR, changes=True)
def tournament_resume(ctx: Context, args: TournamentChangeArgs) -> Deferred[dict[str, Any]]:
    """Every table deals again; the level clock runs on from where it stood."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_resume", actor.tid, args.reason)
    return actor.resume_play(audit).addCallback(_with_audit(audit))


@command("tournament_add_time", AddTimeArgs, Role.DIRECTOR, changes=True)
def tournament_add_time(ctx: Context, args: AddTimeArgs) -> Deferred[dict[str, Any]]:
    """The current level lasts `seconds` longer (its clock stands still that long while play
    goes on). Not on a break (T-11)."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_add_time", actor.tid, args.reason)
    return actor.add_level_time(args.seconds, audit).addCallback(_with_audit(audit))


@command("tournament_cancel", TournamentReasonArgs, Role.DIRECTOR, changes=True)
def tournament_cancel(ctx: Context, args: TournamentReasonArgs) -> Deferred[dict[str, Any]]:
    """T-1, T-18: stop a registering or running tournament (a hand in play is void) and mark
    it cancelled by the staff; the refund job pays T-18 from each table's last completed
    hand, and each refunded player hears `tournament_cancelled`."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_cancel", actor.tid, args.reason)
    why = f"cancelled by staff {ctx.staff}: {args.reason}"
    d = actor.staff_cancel(CancelReason.STAFF, why, audit)
    return d.addCallback(_with_audit(audit))


# --------------------------------------------------------------------------- players


@command("tournament_move", MoveArgs, Role.FLOOR, changes=True)
def tournament_move(ctx: Context, args: MoveArgs) -> Deferred[dict[str, Any]]:
    """T-10: move a player to another table of the tournament between hands, at the seat
    nearest their position to the blinds; they get `tournament_seat` and the new table."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_move", args.player, args.reason)
    return actor.move_player(args.player, args.table, audit).addCallback(_with_audit(audit))


@command("tournament_chips", ChipsArgs, Role.FLOOR, changes=True)
def tournament_chips(ctx: Context, args: ChipsArgs) -> Deferred[dict[str, Any]]:
    """Correct a player's stack between hands: the chips issued move by the difference, so
    the chip total stays consistent; the correction is kept with its audit row."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_chips", args.player, args.reason)
    d = actor.correct_chips(args.player, args.chips, ctx.staff, audit)
    return d.addCallback(_with_audit(audit))


@command("tournament_disqualify", PlayerReasonArgs, Role.DIRECTOR, changes=True)
def tournament_disqualify(ctx: Context, args: PlayerReasonArgs) -> Deferred[dict[str, Any]]:
    """Remove a player and their chips from play at the end of their table's hand: placed as
    knocked out in that hand, below every player knocked out in it; no new entry."""
    actor = _actor(ctx, args.tournament_id)
    audit = _audited(ctx, "tournament_disqualify", args.player, args.reason)
    return actor.disqualify(args.player, audit).addCallback(_with_audit(audit))


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
    d = actor.change_prizes(
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
            d = actor.staff_cancel(CancelReason.OUTAGE, why[:500], audit)
            return d.addCallback(_with_audit(audit))

        return ctx.read(views.decision_of, tid).addCallback(refund)
    if tid in scheduler.actors:
        raise ProtocolError(director_errors.NOT_ALLOWED, f"{tid} is open: nothing to resume")
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
