"""What tournament staff do to a tournament (docs/ADMIN.md): a part the actor owns (`StaffHost`).

Each decision is persisted through the actor's recorder like the actor's own (T-18,
docs/ARCHITECTURE.md rule 14): its rows and the staff's audit row are ONE group of one unit,
so they commit together, in order with the decisions before them. The audit row comes from the
caller (`audit(before, after)` gives its blocking write; the tournaments package does not know
the admin's tables). What changes a table waits for the table's hand boundary (T-10,
`Floor.when_between_hands`). Each method fires with its answer once committed; a decision
refused before anything changed raises `DirectorError` (P-1).

- `open_by_staff`: a new tournament's row; its start is scheduled (T-1).
- `delay` (T-1, before the start): the start moves later; T-3's unregistration deadline is
  counted from the start, so it moves too. Stored in the tournament's config.
- `pause_play` / `resume_play`: no new hand at any table while paused; the level clock stands
  still (T-11). `add_time`: the current level lasts longer. The level clock is stored.
- `staff_cancel` (T-1, T-18): registering or running, the tournament stops (a hand in play is
  void: the stored state is each table's last completed hand) and is marked `cancelled`; the
  refund job pays (`run_refunds`), and refunded players hear `tournament_cancelled`.
- `move_player` (T-10): to another table, at the seat nearest the position to the blinds the
  player had; told with `tournament_seat` (reason `staff`) and the new table's snapshot.
- `correct_chips`: a stack set to a number of chips; `chips_issued` moves by the difference,
  so chips in play still equal chips issued between hands; each correction is kept.
- `disqualify`: the player's chips leave play and the player is placed as knocked out in the
  hand at whose end it takes effect, below every player knocked out in it (no chips at all
  ranks last by T-9); a prize of that place is paid as for any knockout. No later entry,
  re-entry or rebuy. Not offered in a bounty tournament (T-14 gives a bounty to a winner).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet.defer import Deferred

from tournaments import store
from tournaments.actor import durable_writes
from tournaments.actor.recorder import Op
from tournaments.actor.staff_writes import cancel_op, insert_tournament, remove_seat, set_config
from tournaments.director import errors
from tournaments.director.balancing import MoveReason, SeatMove, same_position_seat
from tournaments.director.eliminations import Knockout
from tournaments.director.errors import DirectorError
from tournaments.director.seating import allowed_seats, hands_until_big_blind

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.bounty_book import BountyBook
    from tournaments.actor.durable import Durable
    from tournaments.config import TournamentConfig
    from tournaments.director.registration import RegistrationSettings
    from tournaments.results import Result
    from tournaments.tables.floor import Floor, Players
    from tournaments.tables.table import TournamentTable

#: The audit row of a staff decision: `audit(before, after)` is its blocking write.
Audit = Callable[[Any, Any], Op]

NOT_SEATED = "not_seated"  # the table code: the player sits at no table of this tournament
UNKNOWN_TABLE = "unknown_table"
TABLE_FULL = "table_full"


@dataclass(frozen=True, slots=True)
class ChipCorrection:
    """A stack set by staff: the chips in play moved by `after - before`."""

    entry: str
    before: int
    after: int
    at: float
    by: str


def void_hand(table: TournamentTable) -> None:
    """A cancelled tournament's hand in play is void: never timed, finished or told again
    (its table keeps the stacks of its last completed hand, which T-18 refunds from)."""
    driver = table.driver
    driver.abandon()
    driver.hand = None
    driver.over = False


class StaffHost(Protocol):
    """What the staff's decisions read and change of their tournament."""

    config: TournamentConfig  # the tournament's config (a delay replaces it: `run_with`)
    settings: RegistrationSettings  # its registration settings
    status: str  # registering, running, finished or cancelled (a cancellation sets it)
    tid: str  # the tournament's id
    clock: IReactorTime  # the injected clock
    floor: Floor  # the tables
    durable: Durable  # the stored writes (T-18)
    players: Players  # who is told what
    alive: dict[str, int]  # entry -> entry number, for players with chips
    results: list[Result]  # the finished entries
    bounties: BountyBook | None  # T-14: no disqualification in a bounty tournament
    chips_issued: int  # every chip given out (a correction or disqualification moves it)
    log: Any  # the tournament's logger

    def players_left(self) -> int:
        """Entries still holding chips."""
        ...

    def stop_watching(self) -> None:
        """No more level wake-ups."""
        ...

    def watch_level(self) -> None:
        """Wake at the next level edge."""
        ...

    def schedule_start(self) -> None:
        """Start at the scheduled time."""
        ...

    def cancel_start(self) -> None:
        """The scheduled start is called off."""
        ...

    def run_with(self, config: TournamentConfig) -> None:
        """Run with `config` from now on: the start moves with it."""
        ...

    def changed(self, why: str) -> None:
        """Tell the desk the status changed."""
        ...

    def refund(self) -> Deferred[Any]:
        """Run the refund job for this cancelled tournament."""
        ...

    def refunding(self, ran: Deferred[Any]) -> Deferred[Any]:
        """The refund run of the cancellation (what `pending` waits for)."""
        ...


# --------------------------------------------------------------------------- the part


class StaffActions:
    """The staff's decisions on one tournament (see the module docstring), and what staff
    decided that stays: disqualified players, chip corrections, and the answers of work still
    waiting for a hand boundary."""

    def __init__(self, host: StaffHost) -> None:
        self.host = host
        self.disqualified: set[str] = set()
        self.corrections: list[ChipCorrection] = []
        self.waiting: list[Deferred[Any]] = []

    # ------------------------------------------------------------------ helpers

    def _write(self, ops: Sequence[Op], audit: Op) -> Deferred[list[Any]]:
        """The decision's rows and its audit row: one group of the recorder (one transaction)."""
        mine = list(ops) if self.host.durable.stores else []
        return self.host.durable.recorder.write(*mine, audit)

    def _clock_op(self) -> Op:
        """The level clock as it stands now (level, ms left in it), for the decision's unit."""
        level = self.host.floor.level()
        now = self.host.clock.seconds()
        left = None if level.ends_at is None else max(0, round((level.ends_at - now) * 1000))
        return partial(
            durable_writes.save_clock,
            tournament_id=self.host.tid,
            level_index=level.index,
            ms_left=left,
            at_ms=round(now * 1000),
        )

    def _running(self) -> None:
        if self.host.status != "running":
            raise DirectorError(errors.NOT_ALLOWED, f"the tournament is {self.host.status}")

    def _seated(self, entry: str) -> TournamentTable:
        table = self.host.floor.table_of(entry)
        if table is None:
            raise DirectorError(NOT_SEATED, f"{entry} sits at no table of {self.host.tid}")
        return table

    def _answer_later(self) -> Deferred[Any]:
        """The answer of work waiting for a hand boundary (failed if the tournament stops)."""
        answer: Deferred[Any] = Deferred()
        waiting = self.waiting
        waiting.append(answer)

        def done(result: Any) -> Any:
            if answer in waiting:
                waiting.remove(answer)
            return result

        return answer.addBoth(done)

    def _between_hands(
        self,
        table: TournamentTable,
        work: Callable[[TournamentTable], list[Knockout]],
        answer: Deferred[Any],
    ) -> None:
        """Run `work` at `table`'s hand boundary; everything it causes is one unit. Work that
        breaks fails its answer and leaves the table's hand end alone."""

        def guarded(at: TournamentTable) -> list[Knockout]:
            try:
                return work(at)
            except Exception as exc:
                self.host.log.exception("staff_work_failed")
                if not answer.called:
                    answer.errback(exc)
                return []

        with self.host.durable.batch():
            self.host.floor.when_between_hands(table, guarded)

    # ------------------------------------------------------------------ entries (T-4)

    def barred(self, player: str) -> DirectorError | None:
        """A disqualified player's entry, re-entry or rebuy is refused (`not_allowed`)."""
        if player in self.disqualified:
            return DirectorError(errors.NOT_ALLOWED, f"{player} was disqualified")
        return None

    # ------------------------------------------------------------------ start (T-1)

    def open_by_staff(self, audit: Audit, *, here: bool = True) -> Deferred[list[Any]]:
        """A tournament staff created: its row with the audit row; the start is scheduled
        (`here`), or left to the node that takes its lease (a cluster: never two actors)."""
        config = self.host.config
        record = store.TournamentRecord(
            id=self.host.tid,
            template=config.structure.name,
            currency=config.currency,
            created_at_ms=round(self.host.clock.seconds() * 1000),
            config=store.config_json(config),
            guarantee=config.registration.guarantee,
        )
        after = {
            "starts_at_ms": round(self.host.settings.starts_at * 1000),
            "template": record.template,
        }
        written = self._write([partial(insert_tournament, record=record)], audit(None, after))
        if here:
            self.host.schedule_start()
        return written

    def delay(self, seconds: float, audit: Audit) -> Deferred[dict[str, Any]]:
        """T-1: start `seconds` later than scheduled (before the start only)."""
        if self.host.status != "registering":
            raise DirectorError(errors.NOT_ALLOWED, f"the tournament is {self.host.status}")
        if self.host.config.sit_and_go:
            raise DirectorError(errors.NOT_ALLOWED, "a sit-and-go starts when full")
        old_config = self.host.config
        before = round(self.host.settings.starts_at * 1000)
        starts_at = max(self.host.settings.starts_at, self.host.clock.seconds()) + seconds
        new = replace(old_config, registration=replace(self.host.settings, starts_at=starts_at))
        self.host.run_with(new)
        after = round(starts_at * 1000)
        op = partial(set_config, tournament_id=self.host.tid, config=store.config_json(new))
        written = self._write([op], audit({"starts_at_ms": before}, {"starts_at_ms": after}))

        def undone(failure: Any) -> Any:
            if self.host.config is new and self.host.status == "registering":
                self.host.run_with(old_config)
            return failure

        written.addErrback(undone)
        self.host.changed("delayed")
        return written.addCallback(lambda _: {"starts_at_ms": after, "was_ms": before})

    # ------------------------------------------------------------------ the clock

    def _not_on_break(self) -> None:
        if self.host.floor.level().on_break:
            raise DirectorError(errors.NOT_ALLOWED, "the tournament is on a break (T-11)")

    def _clock_view(self) -> dict[str, Any]:
        level = self.host.floor.level()
        now = self.host.clock.seconds()
        left = None if level.ends_at is None else max(0, round((level.ends_at - now) * 1000))
        return {"level": level.index + 1, "level_ms_left": left, "paused": self.host.floor.paused}

    def pause_play(self, audit: Audit) -> Deferred[dict[str, Any]]:
        """No new hand at any table, the level clock stands still (the hands in play finish)."""
        self._running()
        if self.host.floor.paused:
            raise DirectorError("no_change", "the tournament is paused already")
        self._not_on_break()
        before = self._clock_view()
        self.host.floor.pause()
        self.host.stop_watching()
        after = self._clock_view()
        written = self._write([self._clock_op()], audit(before, after))

        def undone(failure: Any) -> Any:
            self._resume_floor()
            return failure

        written.addErrback(undone)
        self.host.changed("paused")
        in_hand = sorted(t.wire_id for t in self.host.floor.tables.values() if t.hand_running)
        return written.addCallback(lambda _: {**after, "tables_in_hand": in_hand})

    def resume_play(self, audit: Audit) -> Deferred[dict[str, Any]]:
        """Deal again; the level clock runs on from where it stood."""
        self._running()
        if not self.host.floor.paused:
            raise DirectorError("no_change", "the tournament is not paused")
        before = self._clock_view()
        self._resume_floor()
        after = self._clock_view()
        written = self._write([self._clock_op()], audit(before, after))
        self.host.changed("resumed")
        return written.addCallback(lambda _: after)

    def _resume_floor(self) -> None:
        self.host.floor.resume()
        self.host.stop_watching()
        self.host.watch_level()

    def add_level_time(self, seconds: float, audit: Audit) -> Deferred[dict[str, Any]]:
        """The current level lasts `seconds` longer (the clock stands still that long)."""
        self._running()
        self._not_on_break()
        before = self._clock_view()
        self.host.floor.add_time(seconds)
        self.host.stop_watching()
        self.host.watch_level()
        after = self._clock_view()
        written = self._write([self._clock_op()], audit(before, after))
        self.host.changed("time_added")
        return written.addCallback(lambda _: after)

    # ------------------------------------------------------------------ cancel (T-1, T-18)

    def staff_cancel(
        self, reason: store.CancelReason, why: str, audit: Audit
    ) -> Deferred[dict[str, Any]]:
        """Stop and mark cancelled (a hand in play is void); the refund job pays T-18."""
        status = self.host.status
        if status == "registering":
            self.host.cancel_start()
        elif status == "running":
            self.host.floor.stop()
            self.host.stop_watching()
            for table in self.host.floor.tables.values():
                if table.hand_running:
                    void_hand(table)
            self.host.floor.drop_boundary_work()
            for answer in list(self.waiting):
                answer.errback(DirectorError(errors.NOT_ALLOWED, "the tournament was cancelled"))
        else:
            raise DirectorError(errors.NOT_ALLOWED, f"the tournament is {status}")
        self.host.status = "cancelled"
        self.host.log.info("tournament_cancelled", reason=reason.value, by="staff", why=why)
        at_ms = round(self.host.clock.seconds() * 1000)
        op = partial(cancel_op, tournament_id=self.host.tid, reason=reason, at_ms=at_ms, why=why)
        after = {"status": "cancelled", "cancel_reason": reason.value}
        written = self._write([op], audit({"status": status}, after))
        self.host.changed("cancelled")
        told: Deferred[dict[str, Any]] = Deferred()

        def stored(_: object) -> Deferred[Any]:
            told.callback({"status": "cancelled", "was": status, "cancel_reason": reason.value})
            return self.host.refund()  # the refund job pays (or its next run, `[jobs]` off)

        def refused(failure: Any) -> None:
            self.host.log.error("staff_cancel_not_stored", error=str(failure.value))
            told.errback(failure)

        self.host.refunding(written.addCallbacks(stored, refused))
        return told

    # ------------------------------------------------------------------ tables (T-10)

    def move_player(self, entry: str, to_table: int, audit: Audit) -> Deferred[dict[str, Any]]:
        """T-10: move `entry` to table `to_table` between hands (the seat nearest their
        position to the blinds); answered once stored."""
        self._running()
        table = self._seated(entry)
        if to_table not in self.host.floor.tables:
            raise DirectorError(UNKNOWN_TABLE, f"{self.host.tid} has no table {to_table}")
        if table.table_id == to_table:
            raise DirectorError("no_change", f"{entry} sits at table {to_table} already")
        if not allowed_seats(self.host.floor.tables[to_table].seats_view()):
            raise DirectorError(TABLE_FULL, f"table {to_table} has no seat to move to (T-10)")
        answer = self._answer_later()

        def work(at: TournamentTable) -> list[Knockout]:
            source = self.host.floor.table_of(entry)
            dest = self.host.floor.tables.get(to_table)
            if source is None or dest is None or not allowed_seats(dest.seats_view()):
                answer.errback(DirectorError(TABLE_FULL, "the move is no longer possible"))
                return []
            view = source.seats_view()
            from_seat = next(s for s, who in source.seats.items() if who == entry)
            seat = same_position_seat(dest.seats_view(), hands_until_big_blind(view, from_seat))
            chips = source.unseat(entry)
            move = SeatMove(
                entry, source.table_id, from_seat, dest.table_id, seat, MoveReason.STAFF
            )
            self.host.players.moved(move)  # `tournament_seat` first, then the new table's snapshot
            dest.seat(entry, seat, chips)
            record = store.SeatRecord(
                str(dest.table_id), seat, entry, self.host.alive.get(entry, 1), chips,
                dest.hands_played,
            )  # fmt: skip
            op = partial(durable_writes.put_seat, tournament_id=self.host.tid, seat=record)
            before = {"table": source.wire_id, "seat": from_seat - 1, "stack": chips}
            after = {"table": dest.wire_id, "seat": seat - 1, "stack": chips}
            self._write([op], audit(before, after)).chainDeferred(answer)
            self.host.floor.player_moved(dest)  # balancing looks again; `dest` deals soon
            return []

        self._between_hands(table, work, answer)
        return answer.addCallback(
            lambda _: (
                {"table": self.host.floor.tables[to_table].wire_id, "player": entry}
                if to_table in self.host.floor.tables
                else {"table": None, "player": entry}
            )
        )

    def correct_chips(self, entry: str, chips: int, by: str, audit: Audit) -> Deferred[Any]:
        """Set `entry`'s stack to `chips` between hands; the chips issued move with it."""
        self._running()
        if chips < 1:
            raise DirectorError(errors.NOT_ALLOWED, "a stack is at least 1 chip: disqualify")
        table = self._seated(entry)
        answer = self._answer_later()

        def work(at: TournamentTable) -> list[Knockout]:
            here = self.host.floor.table_of(entry)
            if here is None:
                answer.errback(DirectorError(NOT_SEATED, f"{entry} is no longer seated"))
                return []
            before = here.stacks[entry]
            if before == chips:
                answer.errback(DirectorError("no_change", f"{entry} has {chips} chips already"))
                return []
            here.stacks[entry] = chips
            self.host.chips_issued += chips - before
            now = self.host.clock.seconds()
            self.corrections.append(ChipCorrection(entry, before, chips, now, by))
            op = partial(
                durable_writes.set_stack, tournament_id=self.host.tid, player=entry, stack=chips
            )
            change = {"before": before, "after": chips, "table": here.wire_id}
            written = self._write([op], audit({"stack": before}, {"stack": chips}))
            written.addCallback(lambda _: change).chainDeferred(answer)
            for who in sorted(here.audience):  # every one at the table sees the new stack
                here.frames.send(who, here.snapshot_message(who))
            return []

        self._between_hands(table, work, answer)
        return answer

    def disqualify(self, entry: str, audit: Audit) -> Deferred[dict[str, Any]]:
        """Remove `entry` and their chips from play; placed at the hand boundary (see the
        module docstring). Answered with the place once stored."""
        self._running()
        if self.host.bounties is not None:
            raise DirectorError(errors.NOT_ALLOWED, "no disqualification in a bounty tournament")
        table = self._seated(entry)
        if table.in_hand(entry):  # acted for at once until the hand ends (check or fold)
            table.set_sitting_out(entry, True)
        answer = self._answer_later()

        def work(at: TournamentTable) -> list[Knockout]:
            here = self.host.floor.table_of(entry)
            if here is None or self.host.players_left() <= 1:
                answer.errback(DirectorError(NOT_SEATED, f"{entry} is out already"))
                return []
            chips = here.unseat(entry)
            here.presence.forget(entry, self.host.clock.seconds())
            self.host.chips_issued -= chips
            self.disqualified.add(entry)
            op = partial(remove_seat, tournament_id=self.host.tid, player=entry)
            before = {"table": here.wire_id, "stack": chips}
            after = {"status": "disqualified", "chips_removed": chips}
            written = self._write([op], audit(before, after))

            def placed(_: object) -> dict[str, Any]:
                result = next((r for r in reversed(self.host.results) if r.entry == entry), None)
                return {
                    "chips_removed": chips,
                    "place": None if result is None else result.place,
                    "prize": 0 if result is None else result.prize,
                }

            self.host.durable.recorder.idle().addCallback(lambda _: written).addCallback(
                placed
            ).chainDeferred(answer)
            return [Knockout(entry, here.table_id, 0, 0, (), here.hand_id)]

        self._between_hands(table, work, answer)
        return answer
