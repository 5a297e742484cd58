"""What the tournament lobby shows of one tournament: its summary and its status (T-1, T-5, T-11);
and a ticket as the `tickets` answer shows it (T-16).

Read-only views of a `TournamentActor`, as the typed messages of docs/PROTOCOL.md section 9:
`summary` is a `TournamentSummary` (the lobby line: name, start, buy-in, entries, the
late-registration period and when it ends, the time to the next break), `status` a
`tournament_status` message (level, blinds, next level and break, players left, prize pool;
in a bounty tournament the bounties in play and paid, and the ten largest, T-14).
Times before the start are computed from the scheduled start; a sit-and-go that is not full
has no start time yet (null). The time arithmetic is the director's (`level_at`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pokerroom.protocol.events import UNSET
from pokerroom.protocol.tournament_messages import (
    PlayerBounty,
    TicketView,
    TournamentStatusEvent,
    TournamentSummary,
)
from tournaments.director.entries import prize_pool_status
from tournaments.director.registration import is_full, registration_open
from tournaments.director.structure import Structure, level_at
from tournaments.director.tickets import Ticket

if TYPE_CHECKING:
    from tournaments.actor.tournament import TournamentActor


def ms(seconds: float | None) -> int | None:
    """Seconds since the epoch as the protocol's milliseconds (None stays None)."""
    return None if seconds is None else round(seconds * 1000)


def level_starts_at(
    structure: Structure, started_at: float, paused_total: float, index: int
) -> float | None:
    """When level `index` (0-based) begins, breaks and pauses counted; None if never (T-5).

    A break before the level counts as the level's own time (the director's clock already
    reports the following level during a break), so late registration "through level L"
    ends when level L's successor is reported, i.e. at the end of level L.
    """
    t = started_at + paused_total
    status = level_at(structure, started_at, t, paused_total)
    for _ in range(len(structure.levels) + 1):
        if status.index >= index:
            return t
        if status.ends_at is None or status.ends_at <= t:
            return None
        t = status.ends_at
        status = level_at(structure, started_at, t, paused_total)
    return None


def _origin(actor: TournamentActor) -> tuple[float, float] | None:
    """(started_at, paused_total) of the tournament clock: actual once started, else the
    scheduled start; None for a sit-and-go not started (it starts when full)."""
    if actor.status in ("running", "finished") and actor.floor.started_at:
        return actor.floor.started_at, actor.floor.paused_total
    if actor.config.sit_and_go:
        return None
    return actor.settings.starts_at, 0.0


def next_break_in(actor: TournamentActor, now: float) -> int | None:
    """T-11: seconds to the next break (0 during one); None when no break is ahead or the
    start is not known."""
    if actor.status == "running":
        level = actor.floor.level()
        if level.on_break:
            return 0
        return None if level.next_break_at is None else max(0, round(level.next_break_at - now))
    origin = _origin(actor)
    if actor.status != "registering" or origin is None:
        return None
    start, _ = origin
    first = level_at(actor.config.structure, start, start)
    return None if first.next_break_at is None else max(0, round(first.next_break_at - now))


def late_registration_closed(actor: TournamentActor) -> str | None:
    """T-5: why late registration is over (time, money, max_entries), or None while it is not."""
    state, settings = actor.state, actor.settings
    if state.late_closed is not None:
        return state.late_closed.value
    if settings.late_registration_levels <= 0 or actor.status == "registering":
        return None
    if actor.status != "running":
        return "time"
    return "time" if actor.floor.level().index >= settings.late_registration_levels else None


def summary(actor: TournamentActor) -> TournamentSummary:
    """The tournament's lobby line (`tournament_list`, `tournament_lobby_update`)."""
    settings = actor.settings
    now = actor.clock.seconds()
    origin = _origin(actor)
    levels = settings.late_registration_levels
    late_end = None
    if origin is not None and levels > 0:
        late_end = level_starts_at(actor.config.structure, origin[0], origin[1], levels)
    clock = actor.director_clock()
    open_now = (
        actor.status in ("registering", "running")
        and registration_open(settings, actor.state, clock)
        and not is_full(settings, actor.state)
    )
    return TournamentSummary(
        tournament_id=actor.tid,
        name=actor.config.name or actor.tid,
        kind="sit_and_go" if actor.config.sit_and_go else "mtt",
        status=actor.status,
        starts_at_ms=None if origin is None else ms(origin[0]),
        buy_in=settings.buy_in,
        fee=settings.fee,
        entries=actor.state.entries,
        max_entries=settings.max_entries,
        guarantee=settings.guarantee,
        registration_open=open_now,
        late_registration_levels=levels,
        late_registration_ends_ms=ms(late_end),
        late_registration_closed=late_registration_closed(actor),
        next_break_in=next_break_in(actor, now),
        players_left=actor.players_left(),
        bounty_format=UNSET if actor.bounties is None else actor.bounties.format_name,
    )


def status(actor: TournamentActor) -> TournamentStatusEvent:
    """The `tournament_status` message (T-6, T-11); before the start, the first level."""
    now = actor.clock.seconds()
    structure = actor.config.structure
    running = actor.status == "running"
    origin = _origin(actor)
    if running:
        current = actor.floor.level()
        index, level, on_break = current.index, current.level, current.on_break
        next_level_in = None if current.ends_at is None else max(0, round(current.ends_at - now))
    else:
        index, level, on_break, next_level_in = 0, structure.levels[0], False, None
    left = actor.players_left()
    if actor.status == "registering":
        average = actor.settings.starting_stack
    else:
        average = actor.chips_issued // max(1, left)
    book = actor.bounties  # T-14: the bounties in play, paid, and the largest ones
    return TournamentStatusEvent(
        tournament_id=actor.tid,
        status=actor.status,
        starts_at_ms=None if origin is None else ms(origin[0]),
        level=index + 1,
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        level_seconds=level.seconds,
        next_level_in=next_level_in,
        on_break=on_break,
        next_break_in=next_break_in(actor, now),
        players_left=left,
        entries=actor.state.entries,
        average_stack=average,
        prize_pool=prize_pool_status(actor.settings, actor.state).total,
        payouts=None if actor.prizes is None else list(actor.prizes.amounts),
        in_the_money=running and left <= actor.paid_places(),
        hand_for_hand=running and actor.floor._h4h(),
        bounty_format=UNSET if book is None else book.format_name,
        bounties_in_play=UNSET if book is None else book.state.in_play,
        bounties_paid=UNSET if book is None else book.state.paid_out,
        top_bounties=UNSET
        if book is None
        else [PlayerBounty(player=p, amount=n) for p, n in book.top()],
    )


def ticket_view(ticket: Ticket) -> TicketView:
    """A ticket as the `tickets` answer shows it (T-16)."""
    return TicketView(
        ticket_id=ticket.ticket_id,
        target=ticket.target or None,
        any_of_level=ticket.any_of_level,
        buy_in=ticket.buy_in,
        fee=ticket.fee,
        value=ticket.value,
        state=ticket.state.value,
        issued_at_ms=ticket.issued_at_ms,
        expires_at_ms=ticket.expires_at_ms,
        source=ticket.source or None,
        used_in=ticket.used_in or None,
    )
