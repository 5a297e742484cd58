"""Start-up after a crash: every tournament that was running is interrupted, then resumed or
cancelled for outage (T-18); tournaments still registering are kept or cancelled (T-18.1).

`decide` (blocking, one transaction, the ledger's money lane) looks at each stored tournament:

- **running** (or left `interrupted`): hands in progress at the crash are void; its state is
  each table's last completed hand. It is marked `interrupted` as of its last stored state
  (`saved_at_ms`), then, by its config's `outage.resume_within_minutes` (default 10), measured
  from that moment to now:
  - back within the window: `running` again (`mark_resumed`), rebuilt from the stored state;
  - later: `cancelled` for outage, left for the refund job (pokerroom/jobs), which pays T-18.
- **registering**: a sit-and-go (it starts when full, no one waits for a time) and an MTT whose
  start is still ahead, or passed less than the window ago, stay `registering` with their
  entries; an MTT whose start passed longer ago is cancelled for outage (T-18.1: buy-in and
  fee back): its players were told a start time the room could not keep.

The choice and why are logged and kept on the tournament's row (`decision`).

`rebuild` then gives a new `TournamentActor` the stored state: the registrations (entries,
re-entries, rebuys, add-ons, how each was paid), the players still in and their stacks at their
stored seats, the players who paid and
were waiting for a seat, the places and prizes already given, the prize table and what the pool
paid out, the level clock with the time that was left in the level, and with each table's last
completed hand its hand count, button and blinds (the next hand moves them on: nobody skips or
pays a blind twice), each player's time bank and sit-out flag; a staff pause stands. Hands
dealt after a resume have new ids (`<tid>:<table>:<n>r<resumes>`, never an id of before). The
tables deal again after `outage.reconnect_seconds` (the clock stands still until then); clients
get the table's snapshot when they log in again (C-14). Decisions after a resume take new
ledger keys (the actor's keys carry the moment of the resume), so no key of before the crash is
ever reused.

A deal in the making at the crash (T-13, `tournaments.deal_pending`) is void: `decide` clears
it in the tournament's transaction (resumed or cancelled) and says so in the decision; a
resumed tournament's players of it hear `deal_result` `restart` when they log in again
(`tournaments.actor.deal_restart`), and its id is not used again. A cancelled tournament's
players hear `tournament_cancelled`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import msgspec
import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.kinds import AccountKind
from pokerroom.ledger.schema import accounts as accounts_table
from tournaments import store
from tournaments.actor.durable_writes import WAITING
from tournaments.actor.satellite import satellite_table
from tournaments.config import TournamentConfig
from tournaments.director import registration as director_registration
from tournaments.director.registration import Funding, PlayerEntries, RegistrationState
from tournaments.director.structure import BreakMode, Structure, level_at
from tournaments.results import Result
from tournaments.store import stake_store
from tournaments.store.deal_pending import PendingDeal, take_deal_pending

if TYPE_CHECKING:
    from tournaments.actor.tournament import TournamentActor

log = structlog.get_logger("tournaments.recovery")

RESUMED, CANCELLED, KEPT = "resumed", "cancelled", "kept"


@dataclass(frozen=True, slots=True)
class Stored:
    """One tournament as stored: what `rebuild` needs."""

    record: store.TournamentRecord
    config: TournamentConfig
    entries: tuple[store.EntryRecord, ...]
    payments: tuple[store.Payment, ...]
    seats: tuple[store.SeatRecord, ...]
    pool_balance: int  # the prize pool's ledger balance
    #: T-17 offers and stakes, T-13 the deal made (tournaments/store/stake_store.py).
    staking: stake_store.StakingRows = field(default_factory=stake_store.StakingRows)
    #: T-13, T-18: the deal in the making at the crash, void (cleared by `decide`).
    deal_void: PendingDeal | None = None


@dataclass(frozen=True, slots=True)
class Choice:
    """What start-up decided for one tournament, and why."""

    tournament_id: str
    action: str  # resumed | cancelled | kept
    why: str
    stored: Stored | None = None  # to rebuild (resumed or kept)


@dataclass(frozen=True, slots=True)
class Recovery:
    """Every choice made at start-up."""

    choices: tuple[Choice, ...] = ()
    errors: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def cancelled(self) -> tuple[str, ...]:
        """Tournaments left for the refund job."""
        return tuple(c.tournament_id for c in self.choices if c.action == CANCELLED)


def config_of(record: store.TournamentRecord) -> TournamentConfig:
    """The config a tournament was stored with (`store.config_json` read back)."""
    return msgspec.convert(record.config, TournamentConfig)


def _minutes(ms: float) -> str:
    seconds = ms / 1000
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _pool_balance(conn: Connection, tournament_id: str, currency: str) -> int:
    query = sa.select(accounts_table.c.balance).where(
        accounts_table.c.kind == AccountKind.PRIZE_POOL.value,
        accounts_table.c.owner == tournament_id,
        accounts_table.c.currency == currency,
    )
    return int(conn.execute(query).scalar() or 0)


def _stored(
    conn: Connection,
    record: store.TournamentRecord,
    config: TournamentConfig,
    deal_void: PendingDeal | None = None,
) -> Stored:
    tid = record.id
    return Stored(
        record,
        config,
        store.load_entries(conn, tid),
        store.load_payments(conn, tid),
        store.load_seats(conn, tid),
        _pool_balance(conn, tid, record.currency),
        stake_store.load_staking(conn, tid),
        deal_void,
    )


def _void_deal(conn: Connection, tid: str) -> tuple[PendingDeal | None, str]:
    """T-13, T-18: the deal in the making at the crash, cleared (void), and what the decision
    says of it."""
    deal = take_deal_pending(conn, tid)
    if deal is None:
        return None, ""
    return deal, f"; deal {deal.deal_id} in the making was void"


def _set_decision(conn: Connection, tournament_id: str, why: str) -> None:
    conn.execute(
        sa.update(store.tournaments)
        .where(store.tournaments.c.id == tournament_id)
        .values(decision=why[:500])
    )


def _decide_running(conn: Connection, record: store.TournamentRecord, now_ms: int) -> Choice:
    config = config_of(record)
    tid = record.id
    since = record.saved_at_ms or record.started_at_ms or now_ms
    store.mark_interrupted(conn, tid, since)  # as of its last stored state; hands in play void
    outage = now_ms - since
    window = config.outage.resume_within_minutes
    deal, void = _void_deal(conn, tid)
    if outage <= window * 60_000:
        why = (
            f"resumed: back {_minutes(outage)} after its last stored hand, within "
            f"outage.resume_within_minutes = {window:g}; hands in progress were void{void}"
        )
        store.mark_resumed(conn, tid, why)
        record = store.load_tournament(conn, tid) or record  # with its resume counted
        return Choice(tid, RESUMED, why, _stored(conn, record, config, deal))
    why = (
        f"cancelled for outage: back {_minutes(outage)} after its last stored hand, past "
        f"outage.resume_within_minutes = {window:g}; refunds by T-18 from each table's last "
        f"completed hand{void}"
    )
    store.mark_cancelled(conn, tid, store.CancelReason.OUTAGE, now_ms, why)
    return Choice(tid, CANCELLED, why)


def _decide_registering(conn: Connection, record: store.TournamentRecord, now_ms: int) -> Choice:
    config = config_of(record)
    tid = record.id
    window = config.outage.resume_within_minutes
    if config.sit_and_go:
        why = "kept registering after a restart: a sit-and-go starts when full"
    else:
        late = now_ms - round(config.registration.starts_at * 1000)
        if late > window * 60_000:
            why = (
                f"cancelled for outage: its start passed {_minutes(late)} ago while the room "
                f"was down, past outage.resume_within_minutes = {window:g}; buy-ins and fees "
                "back (T-18.1)"
            )
            store.mark_cancelled(conn, tid, store.CancelReason.OUTAGE, now_ms, why)
            return Choice(tid, CANCELLED, why)
        why = (
            "kept registering after a restart: its start is ahead"
            if late <= 0
            else f"kept registering after a restart: it starts now, {_minutes(late)} late"
        )
    _set_decision(conn, tid, why)
    return Choice(tid, KEPT, why, _stored(conn, record, config))


def _decide_one(conn: Connection, tid: str, status: str, now_ms: int) -> Choice:
    """One stored tournament's choice, in the caller's transaction."""
    record = store.load_tournament(conn, tid)
    assert record is not None
    if status == store.REGISTERING:
        return _decide_registering(conn, record, now_ms)
    if status == store.INTERRUPTED:  # stopped by an earlier start-up, undecided
        conn.execute(
            sa.update(store.tournaments)
            .where(store.tournaments.c.id == tid)
            .values(status=store.RUNNING)
        )
    return _decide_running(conn, record, now_ms)


def decide(engine: Engine, now_ms: int) -> Recovery:
    """Blocking: interrupt, then resume, keep or cancel every stored tournament (one
    transaction per tournament; one that cannot be read is left as it is, and reported)."""
    ids: dict[str, list[str]] = in_transaction(
        engine,
        lambda conn: {
            status: list(store.tournaments_with_status(conn, status))
            for status in (store.RUNNING, store.INTERRUPTED, store.REGISTERING)
        },
    )
    choices: list[Choice] = []
    errors: list[tuple[str, str]] = []
    for status, tids in ids.items():
        for tid in tids:
            try:
                choices.append(
                    in_transaction(
                        engine, partial(_decide_one, tid=tid, status=status, now_ms=now_ms)
                    )
                )
            except (store.StoreError, msgspec.ValidationError, ValueError, KeyError) as exc:
                errors.append((tid, f"{type(exc).__name__}: {exc}"))
    return Recovery(tuple(choices), tuple(errors))


def live_ids(engine: Engine) -> list[str]:
    """Blocking: the stored tournaments still to run (registering, running, interrupted), by id:
    a cluster node's tournament resources (pokerroom/cluster/tournaments.py)."""

    def work(conn: Connection) -> list[str]:
        found: set[str] = set()
        for status in (store.RUNNING, store.INTERRUPTED, store.REGISTERING):
            found.update(store.tournaments_with_status(conn, status))
        return sorted(found)

    return in_transaction(engine, work)


def decide_one(engine: Engine, tid: str, now_ms: int) -> Choice | None:
    """Blocking: `decide` for one tournament (a cluster node that took its lease; its engine is
    fenced by that lease): resumed, kept or cancelled as at start-up (T-18); None when it is not
    registering, running or interrupted any more (finished, cancelled, unknown)."""

    def work(conn: Connection) -> Choice | None:
        record = store.load_tournament(conn, tid)
        if record is None or record.status not in (
            store.RUNNING,
            store.INTERRUPTED,
            store.REGISTERING,
        ):
            return None
        return _decide_one(conn, tid, record.status, now_ms)

    return in_transaction(engine, work)


# --------------------------------------------------------------------------- the clock


def level_start(structure: Structure, index: int) -> float:
    """Seconds of play before level `index` (breaks not counted)."""
    return float(sum(level.seconds for level in structure.levels[:index]))


def paused_for(
    structure: Structure,
    started_at: float,
    resume_at: float,
    level_index: int,
    ms_left: int | None,
) -> float:
    """The `paused_total` that puts the level clock at level `level_index` with `ms_left` left
    in it at `resume_at` (the clock stood still through the outage; T-11, T-18)."""
    index = min(max(level_index, 0), len(structure.levels) - 1)
    level = structure.levels[index]
    into = 0.0 if ms_left is None else level.seconds - ms_left / 1000
    play = level_start(structure, index) + into
    breaks = structure.breaks
    if breaks.mode is BreakMode.CLOCK:
        now = level_at(structure, started_at, resume_at, 0)
        played = level_start(structure, now.index) + now.seconds_into_level
        return max(0.0, played - play)
    elapsed = play
    if breaks.mode is BreakMode.AFTER_LEVELS:
        last = len(structure.levels) - 1
        taken = sum(1 for j in range(index) if j < last and (j + 1) % breaks.every_levels == 0)
        elapsed += taken * breaks.seconds
    return max(0.0, resume_at - started_at - elapsed)


# --------------------------------------------------------------------------- the actor


def registration_state(stored: Stored) -> RegistrationState:
    """The director's registration state as stored (T-2..T-5)."""
    entries = [e for e in stored.entries if e.status != store.UNREGISTERED]
    gone = {e.player for e in stored.entries if e.status == store.UNREGISTERED}
    payments = [p for p in stored.payments if p.player not in gone]
    by_player: dict[str, list[store.Payment]] = {}
    for payment in payments:
        by_player.setdefault(payment.player, []).append(payment)
    players: dict[str, PlayerEntries] = {}
    for player in sorted({e.player for e in entries}):
        mine = [e for e in entries if e.player == player]
        bought = by_player.get(player, [])
        first = next((p for p in bought if p.kind == "entry"), None)
        players[player] = PlayerEntries(
            funding=first.funding if first is not None else Funding.CASH,
            ticket_id=first.ticket_id if first is not None else "",
            entries=max(e.entry_no for e in mine),
            rebuys=sum(1 for p in bought if p.kind == "rebuy"),
            addons=sum(1 for p in bought if p.kind == "addon"),
            alive=any(e.status == store.ALIVE for e in mine),
        )
    return RegistrationState(
        players=players,
        entries=len(entries),
        collected=sum(p.buy_in for p in payments),
        guarantee_dropped=stored.record.guarantee_dropped,
        serial=len(stored.payments),
    )


def rebuild(actor: TournamentActor, stored: Stored, now: float) -> None:
    """Give a new actor the stored tournament (see the module docstring); it plays on."""
    record = stored.record
    actor.cashier.tournament_id = f"{actor.tid}@{round(now * 1000)}"  # new keys from now on
    actor.state = registration_state(stored)
    live = [e for e in stored.entries if e.status == store.ALIVE]
    actor.alive = {e.player: e.entry_no for e in live}
    if actor.bounties is not None:  # T-14: the bounties on every head, as stored
        actor.bounties.restore(record, stored.entries, stored.payments)
    actor.deals.restore(stored.staking.deals)  # T-13: a deal made stands, and counts as prizes
    actor.deals.voided(stored.deal_void)  # T-13, T-18: the deal in the making is void
    if record.started_at_ms is None:
        actor.status = "registering"
        actor.chips_issued = actor.settings.starting_stack * len(actor.alive)
        actor.stakes.restore(stored.staking, started=False)  # T-17: offers and stakes as stored
        actor.schedule_start()
        return
    busted = sorted(
        (e for e in stored.entries if e.status == store.BUSTED and e.place is not None),
        key=lambda e: (-(e.place or 0), e.player),
    )
    tied: dict[int, int] = {}
    for entry in busted:
        tied[entry.place or 0] = tied.get(entry.place or 0, 0) + 1
    batches = {place: n for n, place in enumerate(sorted(tied, reverse=True), start=1)}
    results = [
        Result(
            entry=e.player,
            place=e.place or 0,
            prize=e.prize,
            busted_by=(),
            hand_id="",
            tied=tied[e.place or 0],
            batch=batches[e.place or 0],
            entry_no=e.entry_no,
        )
        for e in busted
    ]
    actor.restore_results(results, len(batches))
    runner = actor.payouts
    if record.prizes is not None:
        actor.prizes = record.prizes
        collected = actor.state.collected
        runner.overlay = record.overlay_posted
        runner.pool_total = collected + record.overlay_posted + record.prize_added
        runner.paid_total = sum(e.prize for e in stored.entries)
        runner.rounding_total = max(0, runner.pool_total - runner.paid_total - stored.pool_balance)
        if runner.seats is not None:
            actor.satellite_seats = satellite_table(
                runner.seats.target, actor.state.entries, collected + record.overlay_posted
            )[1]
    tables: dict[int, list[tuple[int, str, int]]] = {}
    states: dict[int, tuple[int, str]] = {}  # table -> (hands dealt, button and blinds)
    waiting: list[tuple[str, int]] = []
    kept: list[store.SeatRecord] = []
    for seat in stored.seats:
        if seat.player not in actor.alive or seat.stack <= 0:
            continue
        if seat.table_id == WAITING:
            waiting.append((seat.player, seat.stack))
            continue
        number = int(seat.table_id)
        tables.setdefault(number, []).append((seat.seat, seat.player, seat.stack))
        kept.append(seat)
        hands, state = states.get(number, (0, ""))
        if (seat.hand_number, bool(seat.table_state)) > (hands, bool(state)):
            states[number] = (seat.hand_number, seat.table_state or state)
    actor.chips_issued = sum(stack for rows in tables.values() for _, _, stack in rows) + sum(
        stack for _, stack in waiting
    )
    actor.status = "running"
    structure = actor.config.structure
    started_at = (record.started_at_ms or 0) / 1000
    delay = actor.config.outage.reconnect_seconds
    back_at = now if record.paused else now + delay  # paused: the clock stands still from now
    paused = paused_for(structure, started_at, back_at, record.level_index, record.level_ms_left)
    clock = director_registration.Clock(now, True, record.level_index)
    closed = director_registration.close_late_registration(
        actor.settings, actor.state, clock, len(actor.alive), actor.paid_places()
    )
    if closed is not None:
        actor.state = closed.state
    floor = actor.floor
    floor.restore(tables, waiting, started_at, paused, delay, states, record.resumes)
    for seat in kept:  # T-18: time banks and sit-out flags as of the table's last hand
        if seat.bank_ms is not None:
            floor.banks.restore(seat.player, seat.bank_ms, seat.bank_level)
        floor.presence.restore(seat.player, seat.sitting_out, int(seat.table_id), now)
    if record.paused:  # a staff pause stands: no table deals until the staff resume
        floor.pause()
    actor.stakes.restore(stored.staking, started=True)  # T-17: the book; an unpaid start paid
    actor.resumed()
