"""What a tournament actor writes to the database for each of its decisions (T-18, ARCH 14).

`Durable` turns the actor's decisions into units of the tournament's `Recorder`: blocking
writes through `tournaments.store` on the unit's connection, with the decision's ledger
transfer in the SAME transaction (`transfer_on`), committed before anyone hears the result.

- opened: the `tournaments` row with the config (registering);
- a registration, re-entry, rebuy or add-on: its transfer, the entry and its purchase (how it
  was paid, the parts, its ledger key); once running, its chips: a late entry or re-entry waits
  on the `waiting` pseudo-table until seated, a rebuy or add-on goes onto the stored stack;
- an unregistration: the refund transfer, and the entry `unregistered`;
- the start: `running`, and every table's seats as drawn (hand 0);
- a hand: its table's seats and stacks after it and its history record (docs/HISTORIES.md),
  with everything it caused: knockouts (busted, place), prizes with their transfers, the
  late-registration close at the money (guarantee dropped), the pool fixed (overlay transfer,
  prize table), moves between tables, the end;
- each commit: the level clock (level, ms left) and when the state was saved (`saved_at_ms`);
- a cancellation: `cancelled` with its reason; the refund job pays it.

A player is stored where the last completed hand of their table left them; a player moved or
seated between hands is stored at the new seat with the same stack (T-10). Everything is
written with absolute values or guarded steps, so a write retried through an outage is the
same write.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.engine import Connection
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure

from pokerroom.ledger.transfers import Transfer, transfer_on
from tournaments import store
from tournaments.actor.durable_writes import (
    PURCHASE_KINDS,
    WAITING,
    PlayerState,
    add_payment,
    funding_of,
    new_entry,
    purchase_parts,
    put_seat,
    record_seats,
    revived,
    save_clock,
    set_places,
    set_stack,
    unregistered,
    update_stacks,
)
from tournaments.actor.hand_history import hand_history_row
from tournaments.actor.recorder import Op, Recorder
from tournaments.director.money import MoneyMove
from tournaments.director.payouts import PrizeTable
from tournaments.director.registration import Decision
from tournaments.store.hand_histories import record_hand_history
from tournaments.tables.presence import ASKED, TIMEOUT

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.cashier import Cashier
    from tournaments.config import TournamentConfig
    from tournaments.tables.floor import Floor
    from tournaments.tables.table import TournamentTable

#: A quiet tournament (a break, hands waiting on players) still stamps its clock this often.
HEARTBEAT_SECONDS = 30.0


class KeptHand:
    """The scope of one hand's end (a class, not a generator: entered at every hand)."""

    __slots__ = ("durable", "table")

    def __init__(self, durable: Durable, table: TournamentTable) -> None:
        self.durable = durable
        self.table = table

    def __enter__(self) -> None:
        self.durable.recorder.begin()
        self.durable.table_kept(self.table)
        self.durable.history_kept(self.table)

    def __exit__(self, *exc: object) -> None:
        self.durable.recorder.end()


class DurableHost(Protocol):
    """What the tournament's writes read of it (each decision's stored rows)."""

    tid: str  # The tournament's id.
    cashier: Cashier  # The tournament's ledger keys and transfers.
    config: TournamentConfig  # The tournament's config.
    clock: IReactorTime  # The injected clock.
    status: str  # registering, running, finished or cancelled.
    floor: Floor  # The tournament's tables.
    alive: dict[str, int]  # Entry -> entry number, for players with chips.
    log: Any  # The tournament's logger.


class Durable:
    """One actor's writes: its decisions as units of its recorder (see the module docstring)."""

    def __init__(self, actor: DurableHost, stores: bool = True) -> None:
        self.actor = actor
        self.tid = actor.tid
        self.recorder = Recorder(actor.cashier.ledger, actor.cashier, stores, self._heartbeat)
        self.recorder.failed = self._failed
        self.failures: list[str] = []
        self._beat_call: Any = None
        self._beat_commits = -1
        #: Per table, its rows as `table_kept` last wrote them (seat -> player, stack): a hand
        #: that changes no seat writes only the stacks it changed. Forgotten for a table when
        #: another write touches its rows (a move, a rebuy) or a write fails.
        self._kept: dict[int, dict[int, tuple[str, PlayerState]]] = {}

    @property
    def stores(self) -> bool:
        """Whether the tournament's state is written (money always is)."""
        return self.recorder.stores

    def now_ms(self) -> int:
        """The actor's clock in epoch milliseconds."""
        return round(self.actor.clock.seconds() * 1000)

    def _failed(self, failure: Failure) -> None:
        """A write of a decision nobody waits on failed: kept for the staff and logged."""
        self._kept.clear()  # what the tables' rows are is not known here any more
        self.failures.append(str(failure.value))
        self.actor.log.error("tournament_write_failed", error=str(failure.value))

    def write(self, *ops: Op) -> None:
        """Store writes nobody waits on (skipped when the state is not stored)."""
        if self.stores and ops:
            self.recorder.write_quietly(*ops)

    def money(
        self,
        moves: Iterable[MoneyMove],
        key: str,
        kind: str,
        ops: Sequence[Op] = (),
        always: Sequence[Op] = (),
        first: Sequence[Op] = (),
    ) -> Deferred[Transfer | None]:
        """One decision's transfer and its store writes, in one transaction; fires with the
        transfer (None when nothing moves) once committed, fails as the ledger refused it.

        `always` are writes that belong to the money itself and run even when the tournament's
        state is not stored (a ticket's guarded step, T-16: its row says where its value is).
        `first` are checks run before the transfer, whose refusal refuses it all (a client's key
        that already paid for something, `purchase_keys.guard`, P-2)."""
        cashier = self.actor.cashier
        postings = list(cashier.postings(moves).items())
        writes: list[Op] = list(first)
        if postings:
            writes.append(
                partial(
                    _transfer,
                    key=key,
                    kind=kind,
                    currency=cashier.currency,
                    postings=postings,
                    reference=cashier.reference,
                )
            )
        if self.stores:
            writes.extend(ops)
        writes.extend(always)
        if not writes:
            return succeed(None)
        done = self.recorder.write(*writes)
        at = len(first)
        return done.addCallback(lambda values: values[at] if postings else None)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One decision made by several parts: one unit."""
        with self.recorder.batch():
            yield

    # ------------------------------------------------------------------ registration (T-1..T-5)

    def opened(self) -> None:
        """The tournament's row, with the config it runs with (T-1)."""
        actor = self.actor
        config = actor.config
        record = store.TournamentRecord(
            id=self.tid,
            template=config.structure.name,
            currency=config.currency,
            created_at_ms=self.now_ms(),
            config=store.config_json(config),
            guarantee=config.registration.guarantee,
        )
        self.write(partial(store.save_tournament, record=record))

    def purchase(self, decision: Decision, key: str, alive_before: bool) -> list[Op]:
        """The store writes of one money decision (registration, re-entry, rebuy, add-on,
        unregistration), for the unit of its transfer."""
        actor, tid, player = self.actor, self.tid, decision.player
        if decision.action == "unregister":
            return [partial(unregistered, tournament_id=tid, player=player)]
        kind = PURCHASE_KINDS.get(decision.action)
        record = decision.state.players.get(player)
        if kind is None or record is None:
            return []
        buy_in, fee, bounty = purchase_parts(tid, decision.moves)
        funding, ticket = funding_of(decision.moves, record.funding, record.ticket_id)
        seq = record.entries + record.rebuys + record.addons
        entry_no = record.entries
        payment = store.Payment(
            player, seq, entry_no, kind, funding, buy_in, fee, bounty, decision.chips, ticket, key
        )
        running = actor.status == "running"
        if kind in ("entry", "reentry"):
            ops: list[Op] = [
                partial(
                    new_entry,
                    tournament_id=tid,
                    entry=store.EntryRecord(player, entry_no, bounty=bounty),  # T-14
                    payment=payment,
                )
            ]
            if running:
                ops.append(
                    self._waiting_op(player, entry_no, decision.chips, decision.state.serial)
                )
            return ops
        ops = [partial(add_payment, tournament_id=tid, payment=payment)]
        table = actor.floor.table_of(player) if alive_before else None
        if table is not None:
            stack = table.kept_stack(player) + decision.chips
            self._kept.pop(table.table_id, None)
            ops.append(partial(set_stack, tournament_id=tid, player=player, stack=stack))
        elif running:  # a busted player's rebuy: back in, waiting for a seat (T-4)
            ops.append(partial(revived, tournament_id=tid, player=player, entry_no=entry_no))
            ops.append(self._waiting_op(player, entry_no, decision.chips, decision.state.serial))
        return ops

    def _waiting_op(self, player: str, entry_no: int, chips: int, serial: int) -> Op:
        seat = store.SeatRecord(WAITING, serial, player, entry_no, chips)
        return partial(put_seat, tournament_id=self.tid, seat=seat)

    def chips_added(self, player: str) -> None:
        """Rebuy or add-on chips now on the player's stack: the stored stack says so (T-4)."""
        table = self.actor.floor.table_of(player)
        if table is not None:
            stack = table.kept_stack(player)
            self._kept.pop(table.table_id, None)
            self.write(partial(set_stack, tournament_id=self.tid, player=player, stack=stack))

    # ------------------------------------------------------------------ play

    def started(self) -> None:
        """T-1: the tournament runs (the tables' seats follow from `seated`)."""
        self.write(partial(store.mark_started, tournament_id=self.tid, at_ms=self.now_ms()))
        self._schedule_beat()

    def resumed(self) -> None:
        """The tournament runs again after a restart: the clock's heartbeat resumes."""
        self._schedule_beat()

    def seated(self, tables: Sequence[TournamentTable]) -> None:
        """Every table's seats as drawn (hand 0), before the first hand is dealt."""
        for table in tables:
            self.table_kept(table)

    def table_kept(self, table: TournamentTable) -> None:
        """A table's seats and stacks as of its last completed hand (T-18)."""
        if not self.stores:
            return
        stacks = table.stacks
        state = self.player_state
        now = {
            seat: (entry, state(entry, stacks[entry]))
            for seat, entry in table.seats.items()
            if stacks[entry]
        }
        before = self._kept.get(table.table_id)
        self._kept[table.table_id] = now
        op: Op
        if (
            before is not None
            and before.keys() == now.keys()
            and all(before[seat][0] == entry for seat, (entry, _) in now.items())
        ):  # the same players in the same seats: only the stacks that changed
            changed = [row for seat, row in now.items() if before[seat][1] != row[1]]
            op = partial(
                update_stacks,
                tournament_id=self.tid,
                table_id=str(table.table_id),
                hand_number=table.hands_played,
                stacks=changed,
                table_state=table.table_state(),
            )
        else:
            alive = self.actor.alive
            op = partial(
                record_seats,
                tournament_id=self.tid,
                table_id=str(table.table_id),
                hand_number=table.hands_played,
                seats=[(seat, e, alive.get(e, 1), row) for seat, (e, row) in now.items()],
                table_state=table.table_state(),
            )
        self.recorder.write_quietly(op)

    def history_kept(self, table: TournamentTable) -> None:
        """The hand that just ended at `table`: its record for the hand histories, in the
        hand's unit (docs/HISTORIES.md)."""
        row = hand_history_row(table, self.actor.config, self.now_ms()) if self.stores else None
        if row is not None:
            self.recorder.write_quietly(partial(record_hand_history, row=row))

    def keep_hand(self, table: TournamentTable) -> KeptHand:
        """A hand ended at `table`: its seats, then all it causes, in one unit (ARCH 14)."""
        return KeptHand(self, table)

    def player_state(self, entry: str, stack: int) -> PlayerState:
        """What is stored of a seated player with the table's hand (T-18): stack, time bank,
        sit-out flag."""
        floor = self.actor.floor
        bank = floor.banks.kept(entry)
        presence = floor.presence
        out = ASKED if entry in presence.asked else TIMEOUT if entry in presence.timed_out else ""
        return (stack, None if bank is None else bank[0], 0 if bank is None else bank[1], out)

    def sat(self, table: TournamentTable, seat: int, entry: str, stack: int) -> None:
        """A player sat down between hands (a move, T-10, or a late seat): their new row."""
        _, bank, level, out = self.player_state(entry, stack)
        record = store.SeatRecord(
            str(table.table_id), seat, entry, self.actor.alive.get(entry, 1), stack,
            table.hands_played, table.table_state(), bank, level, out,
        )  # fmt: skip
        self._kept.pop(table.table_id, None)  # its rows changed here: write them whole next
        self.write(partial(put_seat, tournament_id=self.tid, seat=record))

    def busted(self, entry: str, entry_no: int, place: int) -> None:
        """T-9: the entry is out, at `place`."""
        self.write(
            partial(
                store.update_entry,
                tournament_id=self.tid,
                player=entry,
                entry_no=entry_no,
                status=store.BUSTED,
                place=place,
            )
        )

    def placed(self, entry: str, entry_no: int, place: int) -> None:
        """The winner's (or a satellite seat winner's) place (T-8)."""
        self.write(
            partial(
                store.update_entry,
                tournament_id=self.tid,
                player=entry,
                entry_no=entry_no,
                place=place,
            )
        )

    def places(self, places: Sequence[tuple[str, int, int]]) -> None:
        """Places renumbered once the field is final (T-5, T-6)."""
        self.write(partial(set_places, tournament_id=self.tid, places=list(places)))

    def prize(self, entry: str, entry_no: int, amount: int) -> None:
        """The prize paid to an entry (in the unit of its transfer: it stands, T-18)."""
        self.write(
            partial(
                store.update_entry,
                tournament_id=self.tid,
                player=entry,
                entry_no=entry_no,
                prize=amount,
            )
        )

    def pool_fixed(self, prizes: PrizeTable, overlay: int) -> None:
        """T-6: the prize table and the overlay posted with it."""
        self.write(
            partial(
                store.save_prizes, tournament_id=self.tid, prizes=prizes, overlay_posted=overlay
            )
        )

    def guarantee_dropped(self) -> None:
        """T-5: late registration closed at the money; the guarantee no longer applies."""
        self.write(partial(store.drop_guarantee, tournament_id=self.tid))

    def finished(self) -> None:
        """T-8: the tournament is over."""
        self._stop_beat()
        self.write(partial(store.mark_finished, tournament_id=self.tid, at_ms=self.now_ms()))

    def cancelled(self, reason: store.CancelReason, why: str) -> Deferred[list[Any]]:
        """T-1: cancelled; the refund job pays it (fires once committed)."""
        self._stop_beat()
        op = partial(
            store.mark_cancelled,
            tournament_id=self.tid,
            reason=reason,
            at_ms=self.now_ms(),
            decision=why,
        )
        if not self.stores:
            return succeed([])
        return self.recorder.write(op)

    # ------------------------------------------------------------------ the clock

    def _heartbeat(self) -> Op | None:
        """The level clock as it stands now, written with each commit while running."""
        actor = self.actor
        if actor.status != "running" or not actor.floor.running:
            return None
        level = actor.floor.level()
        now = actor.clock.seconds()
        ms_left = None if level.ends_at is None else max(0, round((level.ends_at - now) * 1000))
        return partial(
            save_clock,
            tournament_id=self.tid,
            level_index=level.index,
            ms_left=ms_left,
            at_ms=round(now * 1000),
            paused=actor.floor.paused,
        )

    def _schedule_beat(self) -> None:
        if self.stores and self._beat_call is None:
            self._beat_call = self.actor.clock.callLater(HEARTBEAT_SECONDS, self._beat)

    def _beat(self) -> None:
        """Stamp the clock if nothing was committed since the last beat."""
        self._beat_call = None
        if self.actor.status != "running":
            return
        if self.recorder.commits == self._beat_commits and not self.recorder.behind:
            beat = self._heartbeat()
            if beat is not None:
                self.recorder.write().addErrback(self._failed)  # the heartbeat rides along
        self._beat_commits = self.recorder.commits
        self._schedule_beat()

    def stop(self) -> None:
        """Write nothing more (a cluster node lost the lease: the state stays as stored)."""
        self._stop_beat()
        self.recorder.stop()

    def _stop_beat(self) -> None:
        if self._beat_call is not None and self._beat_call.active():
            self._beat_call.cancel()
        self._beat_call = None


def _transfer(
    conn: Connection,
    *,
    key: str,
    kind: str,
    currency: str,
    postings: list[Any],
    reference: str,
) -> Transfer:
    """A decision's ledger transfer inside its unit's transaction (P-2: keyed)."""
    return transfer_on(
        conn, key=key, kind=kind, currency=currency, postings=postings, reference=reference
    )
