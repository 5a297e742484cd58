"""TournamentActor: one tournament from registration to the last payout, on an injected clock.

The actor owns the tournament's state and applies the director's decisions: registration and
unregistration (T-1..T-3), late registration (T-5), re-entry, rebuy and add-on (T-4), the start
at the scheduled time or when a sit-and-go is full, knockouts and places (T-9), the prize pool
fixed once every period has closed with its overlay (T-6), and payouts rounded down (T-7).
Money goes through the ledger only, one transfer per decision (`Cashier`); tables and hands
are the `Floor`'s. Requests that move money run one at a time, in order: the
director's decision is taken on the current state and reserved, the transfer is posted, and
a refused transfer undoes the reservation. The ledger's funds check is the last word (T-4).

Every decision is stored before anyone hears it (`Durable`, T-18, docs/ARCHITECTURE.md rule
14): a purchase with its transfer, each hand's seats and stacks with the knockouts, places,
prizes and moves it causes, the pool, the end; a cancellation is left to the refund job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import structlog
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.ledger import LedgerService
from tournaments.actor.bounty_book import BountyBook
from tournaments.actor.cashier import Cashier
from tournaments.actor.deal_maker import DealMaker
from tournaments.actor.durable import Durable
from tournaments.actor.fence import TournamentFence
from tournaments.actor.payout_runner import PayoutRunner
from tournaments.actor.prize_change import PrizeChanges
from tournaments.actor.requests import EntryRequests
from tournaments.actor.satellite import SeatPayer
from tournaments.actor.staff_actions import StaffActions
from tournaments.actor.stakes import Stakes
from tournaments.actor.tickets import TicketOffice
from tournaments.config import TournamentConfig
from tournaments.director import entries as director_entries
from tournaments.director import errors
from tournaments.director import registration as director_registration
from tournaments.director.eliminations import Finish, Knockout, place_knockouts, tournament_over
from tournaments.director.errors import DirectorError
from tournaments.director.payouts import PrizeTable, paid_places
from tournaments.director.registration import Clock, Decision, Funding, RegistrationState
from tournaments.director.rng import Rng
from tournaments.director.sitouts import SitOutPair
from tournaments.results import Result
from tournaments.store import CancelReason
from tournaments.tables.floor import Floor, Players
from tournaments.tables.presence import ASKED


class TournamentActor:
    """Drives the director with the clock, the tables and the ledger for one tournament."""

    def __init__(
        self,
        config: TournamentConfig,
        clock: IReactorTime,
        ledger: LedgerService,
        rng: Rng,
        players: Players | None = None,
        on_end: Callable[[TournamentActor], None] | None = None,
        targets: Callable[[str], TournamentActor | None] | None = None,
        on_change: Callable[[TournamentActor, str], None] | None = None,
        refunds: Callable[[], Deferred[Any]] | None = None,
        persist: bool = True,
        tickets: TicketOffice | None = None,
    ) -> None:
        self.config = config
        self.settings = config.registration
        self.clock = clock
        self.tid = config.tournament_id
        self.cashier = Cashier(ledger, self.tid, config.currency)
        #: The decisions' writes (T-18); `persist=False` writes only the money (a benchmark).
        self.durable = Durable(self, persist)
        #: Runs the refund job now (the room's `JobService.run_now("refunds")`); a cancelled
        #: tournament is refunded by it (T-1, T-18.1), never by the actor.
        self.run_refunds = refunds
        self._refunded: Deferred[Any] | None = None
        self.state = RegistrationState()
        self.status = "registering"  # registering -> running -> finished | cancelled
        self.players = players or Players()
        self.on_end = on_end
        #: Told what changed for the lobby and the players (start, level, break, knockout,
        #: money, entries): the desk pushes `tournament_status` / `tournament_lobby_update`.
        self.on_change = on_change
        self._status_call: Any = None
        self._shown_level: tuple[int, bool] | None = None
        self.floor = Floor(
            config, clock, rng, self.players, self._knockouts, self._paid, self.players_left
        )
        self.floor.keep = self.durable.keep_hand
        self.floor.seated = self.durable.seated
        self.floor.sat = self.durable.sat
        self.players.hold_with(self.durable.recorder.hold)
        self.results: list[Result] = []
        self.alive: dict[str, int] = {}  # entry -> entry number, for players with chips
        self.chips_issued = 0
        self.prizes: PrizeTable | None = None
        self.payouts = PayoutRunner(self)
        #: T-16, T-3: the room's tickets (a satellite's seats, entries paid with them).
        self.tickets = tickets or TicketOffice(ledger, clock, config.currency)
        #: T-14: the bounties in play, in a bounty tournament.
        self.bounties = BountyBook(self, config.bounty) if config.bounty is not None else None
        if self.bounties is not None:
            self.floor.bounty_of = self.bounties.total  # each seat's bounty at the table
        self.satellite_seats: int | None = None  # T-8: a satellite ends at this many players
        if config.satellite is not None:  # T-8, T-16: seats in a target tournament
            find = targets or (lambda tournament_id: None)
            self.payouts.seats = SeatPayer(self.payouts, self, config.satellite, find, self.tickets)
        #: The staff's decisions (docs/ADMIN.md) and what they keep (disqualified, corrections).
        self.staff = StaffActions(self)
        #: T-2..T-5: the money requests, one at a time; a disqualified player is refused.
        self.requests = EntryRequests(self, self.staff.barred, self.fix_pool_now)
        #: T-15: the operator's changes of the prize table.
        self.prize_changes = PrizeChanges(self)
        #: T-17: offers and stakes of players' action, and the buyers' parts of what sellers win.
        self.stakes = Stakes(self)
        #: T-13: a deal at the final table (the floor calls it when its tables are held).
        self.deals = DealMaker(self)
        self.placing = False  # knockouts being placed: the pool is not fixed in between
        self._batch = 0
        self._start_call: Any = None
        self.log = structlog.get_logger("tournaments.actor").bind(tournament_id=self.tid)

    # ------------------------------------------------------------------ time and status

    def director_clock(self) -> Clock:
        """Where the tournament stands for the director (T-4, T-5)."""
        started = self.status != "registering"
        index = self.floor.level().index if self.status == "running" else 0
        return Clock(self.clock.seconds(), started, index)

    def players_left(self) -> int:
        """Entries still holding chips."""
        return len(self.alive)

    def paid_places(self) -> int:
        """Places paid by the current field (T-6)."""
        return self._paid()

    def _paid(self) -> int:
        """Places paid by the current field (T-6)."""
        if self.prizes is not None:
            return self.prizes.paid_places
        return paid_places(self.state.entries, self.config.payouts)

    def chips_in_play(self) -> int:
        """Every chip at every table: equals `chips_issued` between hands."""
        return self.floor.chips_in_play()

    def open(self) -> None:
        """Store the tournament and schedule the start (T-1); a sit-and-go starts when full."""
        self.durable.opened()
        self.schedule_start()

    def schedule_start(self) -> None:
        """Start at the scheduled time (at once if it passed); a sit-and-go starts when full."""
        if not self.config.sit_and_go:
            delay = max(0.0, self.settings.starts_at - self.clock.seconds())
            self._start_call = self.clock.callLater(delay, self.start)

    def resumed(self) -> None:
        """T-18: rebuilt from the stored state after a restart (`tournaments.ops.recovery`), the
        tournament plays on: the level clock and the stored state's heartbeat run again."""
        self.log.info(
            "tournament_resumed", players_left=len(self.alive), tables=len(self.floor.tables)
        )
        self.durable.resumed()
        self.changed("resumed")
        self.watch_level()

    def restore_results(self, results: list[Result], batches: int) -> None:
        """T-18: the stored finishes, rebuilt by `tournaments.ops.recovery`; the next knockouts
        are a batch after every stored one (`batches` of them, T-5)."""
        self.results = results
        self._batch = batches

    # ------------------------------------------------------------------ play requests

    def register(
        self,
        player: str,
        funding: Funding = Funding.CASH,
        ticket_id: str = "",
        key: str | None = None,
    ) -> Deferred[Decision]:
        """T-2, T-3, T-5: register (`EntryRequests.register`)."""
        return self.requests.register(player, funding, ticket_id, key)

    def unregister(self, player: str) -> Deferred[Decision]:
        """T-3: buy-in and fee back (`EntryRequests.unregister`)."""
        return self.requests.unregister(player)

    def reenter(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: a new entry for a busted player (`EntryRequests.reenter`)."""
        return self.requests.reenter(player, key)

    def rebuy(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: the rebuy's chips (`EntryRequests.rebuy`)."""
        return self.requests.rebuy(player, key)

    def addon(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: the add-on's chips (`EntryRequests.addon`)."""
        return self.requests.addon(player, key)

    def run(self, work: Callable[..., Any], *args: Any) -> Deferred[Any]:
        """Queue a money request behind the others (they run one at a time, in order)."""
        return self.requests.run(work, *args)

    def idle(self) -> bool:
        """No money request is queued or running."""
        return self.requests.idle()

    def undone(self, key: str) -> bool:
        """Whether the purchase `key` paid for was given back since (P-2)."""
        return self.requests.undone(key)

    def fix_pool_now(self) -> None:
        """T-6: fix the prize table now if every period has closed (after each money request,
        and before staff change it, T-15)."""
        if self.status == "running" and self.prizes is None and self.idle() and not self.placing:
            with self.durable.batch():  # the overlay transfer with the prize table
                self.payouts.fix_pool_if_final(self.director_clock(), before=len(self.alive))

    def sitout_report(self, min_times: int, min_overlap_seconds: float) -> list[SitOutPair]:
        """T-12: pairs of players sitting out together at least `min_times` times."""
        return self.floor.sitouts.report(self.clock.seconds(), min_times, min_overlap_seconds)

    def act(self, entry: str, action: str, amount: int | None = None) -> None:
        """A player's action at their table (engine errors say why it is refused, P-1)."""
        table = self.floor.table_of(entry)
        if table is None:
            raise DirectorError(errors.NO_SEAT, "not seated in this tournament")
        table.act(entry, action, amount)

    def set_presence(self, entry: str, *, connected: bool, sitting_out: bool) -> None:
        """T-12: disconnected or sitting out, the player is still dealt in and blinded. Asked
        before they have a seat (before the start, or a late entry), it holds from their first
        hand: the tournament's `Presence` is kept whether or not a table exists yet."""
        table = self.floor.table_of(entry)
        if table is not None:
            table.set_presence(entry, connected=connected, sitting_out=sitting_out)
            return
        presence, now = self.floor.presence, self.clock.seconds()
        presence.connection(entry, connected)
        if sitting_out:
            presence.sit_out(entry, 0, now, ASKED)  # table 0: not seated yet
        else:
            presence.sit_in(entry, now)

    # ------------------------------------------------------------------ start and cancel

    def start(self) -> None:
        """T-1: start now (the scheduled time, a full sit-and-go, or the operator's delay)."""
        if self.status != "registering":
            return
        if self.state.entries < 2:
            self.cancel()
            return
        self.status = "running"
        self.log.info("tournament_started", entries=self.state.entries)
        start = self.settings.starting_stack
        with self.durable.batch():  # running, with every table's seats, before any hand
            self.durable.started()
            self.stakes.started()  # T-17: offers close; each seller is paid their escrow
            self.floor.start({player: start for player in self.alive})
        self.changed("start")
        self.watch_level()

    def cancel(self, reason: CancelReason = CancelReason.TOO_FEW_PLAYERS) -> Deferred[Any]:
        """T-1/T-18.1: a tournament that never started gives every entry buy-in and fee back.

        The cancellation is stored, then the refund job pays it (its keys, its rows, exactly
        once: the actor pays no refund itself); fires once the job's run is over.
        """
        if self.status != "registering":
            raise DirectorError(errors.NOT_ALLOWED, "only a tournament not started is cancelled")
        self.status = "cancelled"
        self.cancel_start()
        why = f"cancelled before the start ({reason.value}, {self.state.entries} entries)"
        self.log.info("tournament_cancelled", reason=reason.value, entries=self.state.entries)
        stored = self.durable.cancelled(reason, why)
        self.changed("cancelled")
        return _fork(self.refunding(stored.addCallback(lambda _: self.refund())))

    def refunding(self, ran: Deferred[Any]) -> Deferred[Any]:
        """The refund run of the cancellation (what `pending` waits for); a run that could not
        be made now is logged: the job's next run pays (it is stored)."""
        ran.addErrback(self._refund_failed)
        self._refunded = ran
        return ran

    def cancel_start(self) -> None:
        """The scheduled start is called off (a cancellation, a new start time, a stop)."""
        if self._start_call is not None and self._start_call.active():
            self._start_call.cancel()

    def run_with(self, config: TournamentConfig) -> None:
        """Run with `config` from now on (a staff delay, T-1): the start moves with it."""
        self.config = config
        self.settings = config.registration
        self.cancel_start()
        self.schedule_start()

    def _refund_failed(self, failure: Any) -> None:
        """The refund run could not be made now: the job's next run pays (it is stored)."""
        self.log.error("refund_run_failed", error=str(failure.value))

    def refund(self) -> Deferred[Any]:
        """The refund job pays the stored cancellation; then the tournament has ended."""
        if self.run_refunds is not None:
            running = self.run_refunds()
        else:  # no room around (tests, tools): run the job here, through the same ledger
            from pokerroom.jobs.service import JobService

            running = JobService(self.clock, self.cashier.ledger).run_now("refunds")

        def ended(result: object) -> object:
            if self.on_end is not None:
                self.on_end(self)
            return result

        return running.addBoth(ended)

    # ------------------------------------------------------------------ knockouts and the end

    def _knockouts(self, knockouts: list[Knockout]) -> None:
        """T-9: place the hand's (or round's) knockouts; then the money, the pool, the end."""
        before = len(self.alive)
        was_in_money = before <= self._paid()
        finishes: list[Finish] = place_knockouts(before, knockouts)
        for finish in finishes:
            self.alive.pop(finish.entry, None)
            self.state = director_entries.bust(self.state, finish.entry)
        self._batch += 1
        clock = self.director_clock()
        closed = director_registration.close_late_registration(
            self.settings, self.state, clock, len(self.alive), self._paid()
        )
        if closed is not None:
            if closed.state.guarantee_dropped and not self.state.guarantee_dropped:
                self.durable.guarantee_dropped()
            self.state = closed.state  # T-5: at the money the guarantee is dropped
            self.log.info("late_registration_closed", why=closed.action)
        if self.idle():  # money in flight could still change what was collected (T-6)
            self.payouts.fix_pool_if_final(clock, before=before)
        if self.bounties is not None:  # T-14: the knockouts' bounties in T-9 order; the bubble
            self.bounties.knockouts(knockouts, self._paid())
        self.placing = True
        try:
            for finish in finishes:
                self._finish(finish)
        finally:
            self.placing = False
        if tournament_over(len(self.alive), self.satellite_seats):
            self.end()
            return
        in_money = len(self.alive) <= self._paid()
        self.changed("money" if in_money and not was_in_money else "knockout")
        self.deals.after_knockouts()  # T-13: requests of players gone dropped; pause or resume

    def _finish(self, finish: Finish) -> None:
        """Record a finish; a place in the money is paid once the pool is fixed (T-7)."""
        record = self.state.players.get(finish.entry)
        entry_no = record.entries if record is not None else 1
        if finish.entry in self.alive:  # the winner(s): placed, still holding the chips
            self.durable.placed(finish.entry, entry_no, finish.place)
        else:
            self.durable.busted(finish.entry, entry_no, finish.place)
        prize = 0
        if self.prizes is not None and finish.place <= self.prizes.paid_places:
            prize = self.payouts.pay_place(finish.entry, finish.place, finish.tied)
        self.stakes.result(finish.entry)  # T-17: a held escrow is the seller's at their result
        result = Result(
            finish.entry, finish.place, prize, finish.busted_by, finish.hand_id, finish.tied,
            self._batch, entry_no,
        )  # fmt: skip
        self.results.append(result)
        self.players.finished(result)

    def end(self, order: Sequence[str] | None = None) -> None:
        """T-8: one player holds every chip, or a satellite is down to its seats: paid out.
        T-13: a deal ended it: the players left finish in `order` (by chips at the deal)."""
        self.floor.stop()
        self.stop_watching()
        clock = self.director_clock()
        self.payouts.fix_pool_if_final(clock, before=len(self.alive), force=True)
        left = len(self.alive)  # one winner, or a satellite's seat winners sharing places
        if self.bounties is not None:  # T-8, T-14: each player left collects their own bounty
            self.bounties.end()
        if order is None:
            finishes = [Finish(winner, 1, left, (), 0, "") for winner in self.alive]
        else:  # T-13: places by chips at the deal, each paid what the deal gave it
            finishes = [Finish(p, place, 1, (), 0, "") for place, p in enumerate(order, 1)]
        for finish in finishes:
            self._finish(finish)
        self.alive.clear()
        self.status = "finished"
        self.log.info("tournament_finished", hands=self.floor.hands, entries=self.state.entries)
        self.payouts.close()
        self.durable.finished()

        def told(_: object) -> None:  # results are told once stored (rule 14)
            self.changed("finished")
            if self.on_end is not None:
                self.on_end(self)

        self.durable.recorder.idle().addCallback(told)

    # ------------------------------------------------------------------ what players are told

    def changed(self, why: str) -> None:
        """Tell the desk (lobby and registered players) that the status changed."""
        if self.on_change is not None:
            self.on_change(self, why)

    def watch_level(self) -> None:
        """T-11: wake at the next level change or break edge and tell the players."""
        self._status_call = None
        if self.status != "running":
            return
        level = self.floor.level()
        shown = (level.index, level.on_break)
        if self._shown_level is not None and shown != self._shown_level:
            self.changed("break" if level.on_break or self._shown_level[1] else "level")
        self._shown_level = shown
        now = self.clock.seconds()
        edges = [t for t in (level.ends_at, level.break_ends_at, level.next_break_at) if t]
        later = [t for t in edges if t > now]
        if later:
            self._status_call = self.clock.callLater(min(later) - now, self.watch_level)

    def stop_watching(self) -> None:
        """No more level wake-ups (the end, or the server stopping)."""
        if self._status_call is not None and self._status_call.active():
            self._status_call.cancel()
        self._status_call = None

    def fence_with(self, fence: TournamentFence) -> None:
        """Cluster mode: every transfer and every stored decision from now on is fenced by the
        node's lease (tournaments/actor/fence.py)."""
        self.cashier.fence = fence
        self.durable.recorder.fence = fence

    def settled_here(self) -> bool:
        """No hand running at any of its tables and no decision waiting to be stored (a
        cluster node may hand it over)."""
        running = any(table.hand_running for table in self.floor.tables.values())
        return not running and not self.durable.recorder.behind

    def halt(self) -> None:
        """Stop here: no scheduled start, no table deals again, no level wake-up (the server
        stopping, or a cluster node giving the tournament up); nothing is written."""
        self.cancel_start()
        self.floor.stop()
        self.stop_watching()

    def give_up(self) -> None:
        """A cluster node lost or handed over the tournament: halt, and drop the writes not yet
        stored (the next owner resumes from the stored state, T-18)."""
        self.durable.stop()
        self.halt()

    def hold_tables(self) -> None:
        """Deal no new hand at any table; the running ones end; the level clock stands still."""
        self.floor.hold()

    def pending(self) -> Deferred[Any]:
        """Fires when every decision so far is stored and its transfers made (and, for a
        cancelled tournament, the refund job's run is over)."""
        stored = self.durable.recorder.idle()
        refunded = self._refunded
        if refunded is None:
            return stored
        return stored.addCallback(lambda _: _fork(refunded))


def _fork(source: Deferred[Any]) -> Deferred[Any]:
    """A new Deferred with `source`'s result; `source` keeps its own."""
    forked: Deferred[Any] = Deferred()

    def fire(result: Any) -> Any:
        if isinstance(result, Failure):
            forked.errback(result)
        else:
            forked.callback(result)
        return result

    source.addBoth(fire)
    return forked
