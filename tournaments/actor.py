"""TournamentActor: one tournament from registration to the last payout, on an injected clock.

The actor owns the tournament's state and applies the director's decisions: registration and
unregistration (T-1..T-3), late registration (T-5), re-entry, rebuy and add-on (T-4), the start
at the scheduled time or when a sit-and-go is full, knockouts and places (T-9), the prize pool
fixed once every period has closed with its overlay (T-6), and payouts rounded down (T-7).
Money goes through the ledger only, one transfer per decision (`Cashier`); tables and hands
are the `Floor`'s. Requests that move money run one at a time, in order: the
director's decision is taken on the current state and reserved, the transfer is posted, and
a refused transfer undoes the reservation. The ledger's funds check is the last word (T-4).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import structlog
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from pokerroom.engine.cards import RandomSource
from pokerroom.ledger import InsufficientFunds, LedgerService
from tournaments.cashier import Cashier
from tournaments.config import TournamentConfig
from tournaments.director import entries as director_entries
from tournaments.director import errors
from tournaments.director import registration as director_registration
from tournaments.director.eliminations import Finish, Knockout, place_knockouts, tournament_over
from tournaments.director.errors import DirectorError
from tournaments.director.payouts import PrizeTable, paid_places
from tournaments.director.registration import Clock, Decision, Funding, RegistrationState
from tournaments.floor import Floor, Players
from tournaments.payout_runner import PayoutRunner
from tournaments.satellite import SeatPayer

HUGE = 10**15  # the director's own funds check is left to the ledger's (T-4)


@dataclass(frozen=True, slots=True)
class Result:
    """One finished entry: place, prize, and who won the pot that busted them (T-9, T-14)."""

    entry: str
    place: int
    prize: int
    busted_by: tuple[str, ...]
    hand_id: str
    tied: int = 1
    batch: int = 0  # knockouts placed together (one hand, or one hand-for-hand round)


class TournamentActor:
    """Drives the director with the clock, the tables and the ledger for one tournament."""

    def __init__(
        self,
        config: TournamentConfig,
        clock: IReactorTime,
        ledger: LedgerService,
        rng: RandomSource,
        players: Players | None = None,
        on_end: Callable[[TournamentActor], None] | None = None,
        targets: Callable[[str], TournamentActor | None] | None = None,
    ) -> None:
        self.config = config
        self.settings = config.registration
        self.clock = clock
        self.tid = config.tournament_id
        self.cashier = Cashier(ledger, self.tid, config.currency)
        self.state = RegistrationState()
        self.status = "registering"  # registering -> running -> finished | cancelled
        self.players = players or Players()
        self.on_end = on_end
        self.floor = Floor(
            config, clock, rng, self.players, self._knockouts, self._paid, self.players_left
        )
        self.results: list[Result] = []
        self.alive: dict[str, int] = {}  # entry -> entry number, for players with chips
        self.chips_issued = 0
        self.prizes: PrizeTable | None = None
        self.payouts = PayoutRunner(self)
        self.satellite_seats: int | None = None  # T-8: a satellite ends at this many players
        if config.satellite is not None:  # T-8, T-16: seats in a target tournament
            find = targets or (lambda tournament_id: None)
            self.payouts.seats = SeatPayer(self.payouts, config.satellite, find)
        self._queue: deque[tuple[Callable[..., Any], tuple[Any, ...], Deferred[Any]]] = deque()
        self._busy = False
        self._draining = False
        self._placing = False  # knockouts being placed: the pool is not fixed in between
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

    def _paid(self) -> int:
        """Places paid by the current field (T-6)."""
        if self.prizes is not None:
            return self.prizes.paid_places
        return paid_places(self.state.entries, self.config.payouts)

    def chips_in_play(self) -> int:
        """Every chip at every table: equals `chips_issued` between hands."""
        return self.floor.chips_in_play()

    def open(self) -> None:
        """Schedule the start (T-1); a sit-and-go starts when full instead."""
        if not self.config.sit_and_go:
            delay = max(0.0, self.settings.starts_at - self.clock.seconds())
            self._start_call = self.clock.callLater(delay, self.start)

    # ------------------------------------------------------------------ money requests

    @inlineCallbacks
    def _money(self, decide: Callable[[], Decision], undo: Callable[[Decision], None], kind: str):
        """Decide on the current state, reserve it, post one transfer, undo if refused."""
        decision = decide()
        self.state = decision.state
        key = self.cashier.key(decision.action, decision.player, decision.state.serial)
        try:
            yield self.cashier.post(decision.moves, key, kind)
        except InsufficientFunds:
            undo(decision)
            raise DirectorError(errors.INSUFFICIENT_FUNDS, "not enough money") from None
        except Exception:
            undo(decision)
            raise
        return decision

    def _run(self, work: Callable[..., Any], *args: Any) -> Deferred[Decision]:
        """Queue a money request; they run one at a time, in order."""
        answer: Deferred[Decision] = Deferred()
        self._queue.append((work, args, answer))
        self._drain()
        return answer

    def _drain(self) -> None:
        """Run queued requests; a loop, not recursion, when they finish at once (refusals)."""
        if self._draining:
            return
        self._draining = True
        try:
            while self._queue and not self._busy:
                work, args, answer = self._queue.popleft()
                self._busy = True
                maybeDeferred(work, *args).addBoth(self._done, answer)
        finally:
            self._draining = False

    def _done(self, result: Any, answer: Deferred[Decision]) -> None:
        """A request finished: answer it, then run the next."""
        self._busy = False
        if isinstance(result, Failure):
            answer.errback(result)
        else:
            answer.callback(result)
        self._drain()
        if self.status == "running" and self.prizes is None and self.idle() and not self._placing:
            self.payouts.fix_pool_if_final(self.director_clock(), before=len(self.alive))

    def idle(self) -> bool:
        """No money request is queued or running."""
        return not self._busy and not self._queue

    def register(self, player: str, funding: Funding = Funding.CASH) -> Deferred[Decision]:
        """T-2, T-3, T-5: register (late registration seats the player at once)."""
        return self._run(self._register, player, funding)

    @inlineCallbacks
    def _register(self, player: str, funding: Funding):
        settings = self.settings

        def decide() -> Decision:
            return director_registration.register(
                settings, self.state, self.director_clock(), player, funding, HUGE
            )

        def undo(decision: Decision) -> None:
            players = dict(self.state.players)
            players.pop(player, None)
            self.state = replace(
                self.state,
                players=players,
                entries=self.state.entries - 1,
                collected=self.state.collected - settings.buy_in,
            )

        decision = yield self._money(decide, undo, "buy_in")
        self._enter(player, 1, decision.chips)
        full = settings.max_entries is not None and self.state.entries >= settings.max_entries
        if self.config.sit_and_go and self.status == "registering" and full:
            self.start()
        return decision

    def unregister(self, player: str) -> Deferred[Decision]:
        """T-3: buy-in and fee back, until shortly before the start."""
        return self._run(self._unregister, player)

    @inlineCallbacks
    def _unregister(self, player: str):
        before = self.state

        def decide() -> Decision:
            return director_registration.unregister(
                self.settings, self.state, self.director_clock(), player
            )

        def undo(decision: Decision) -> None:
            self.state = replace(before, serial=self.state.serial)

        decision = yield self._money(decide, undo, "refund")
        self.alive.pop(player, None)
        self.chips_issued -= self.settings.starting_stack
        return decision

    def reenter(self, player: str) -> Deferred[Decision]:
        """T-4: a new entry for a busted player, during late registration."""
        return self._run(self._reenter, player)

    @inlineCallbacks
    def _reenter(self, player: str):
        record = self.state.players.get(player)

        def decide() -> Decision:
            return director_entries.reenter(
                self.settings, self.state, self.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, entries=-1, collected=-self.settings.reentry.buy_in)

        decision = yield self._money(decide, undo, "buy_in")
        self._enter(player, decision.state.players[player].entries, decision.chips)
        self.floor.banks.forget(player)
        return decision

    def rebuy(self, player: str) -> Deferred[Decision]:
        """T-4: the rebuy's chips (a busted player in the period is back in)."""
        return self._run(self._rebuy, player)

    @inlineCallbacks
    def _rebuy(self, player: str):
        record = self.state.players.get(player)
        stack = self._stack(player)

        def decide() -> Decision:
            return director_entries.rebuy(
                self.settings, self.state, self.director_clock(), player, stack, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-self.settings.rebuy.buy_in)

        decision = yield self._money(decide, undo, "buy_in")
        self._chips(player, decision.chips)
        return decision

    def addon(self, player: str) -> Deferred[Decision]:
        """T-4: the add-on's chips."""
        return self._run(self._addon, player)

    @inlineCallbacks
    def _addon(self, player: str):
        record = self.state.players.get(player)

        def decide() -> Decision:
            return director_entries.addon(
                self.settings, self.state, self.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-self.settings.addon.buy_in)

        decision = yield self._money(decide, undo, "buy_in")
        self._chips(player, decision.chips)
        return decision

    def _restore(self, player: str, record: Any, entries: int = 0, collected: int = 0) -> None:
        """Undo a reserved entry, rebuy or add-on whose money was refused."""
        players = dict(self.state.players)
        players[player] = record
        self.state = replace(
            self.state,
            players=players,
            entries=self.state.entries + entries,
            collected=self.state.collected + collected,
        )

    def _stack(self, player: str) -> int:
        """Chips `player` has at a table now (0 when busted)."""
        table = self.floor.table_of(player)
        return 0 if table is None else table.stacks[player]

    def _enter(self, player: str, number: int, chips: int) -> None:
        """A paid entry: alive, and seated at once if the tournament runs (T-5)."""
        self.alive[player] = number
        self.chips_issued += chips
        if self.status == "running":
            self.floor.seat_newcomer(player, chips)

    def _chips(self, player: str, chips: int) -> None:
        """Rebuy or add-on chips: onto the stack, or a busted player sits again (T-4)."""
        self.chips_issued += chips
        table = self.floor.table_of(player) if player in self.alive else None
        if table is not None:
            table.add_chips(player, chips)
            return
        self.alive[player] = self.state.players[player].entries
        self.results = [r for r in self.results if r.entry != player]
        self.floor.seat_newcomer(player, chips)

    # ------------------------------------------------------------------ play requests

    def act(self, entry: str, action: str, amount: int | None = None) -> None:
        """A player's action at their table (engine errors say why it is refused, P-1)."""
        table = self.floor.table_of(entry)
        if table is None:
            raise DirectorError(errors.NO_SEAT, "not seated in this tournament")
        table.act(entry, action, amount)

    def set_presence(self, entry: str, *, connected: bool, sitting_out: bool) -> None:
        """T-12: disconnected or sitting out, the player is still dealt in and blinded."""
        table = self.floor.table_of(entry)
        if table is not None:
            table.set_presence(entry, connected=connected, sitting_out=sitting_out)

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
        self.floor.start({player: start for player in self.alive})

    def cancel(self) -> Deferred[None]:
        """T-1/T-18.1: a tournament that never started gives every entry buy-in and fee back."""
        if self.status != "registering":
            raise DirectorError(errors.NOT_ALLOWED, "only a tournament not started is cancelled")
        self.status = "cancelled"
        if self._start_call is not None and self._start_call.active():
            self._start_call.cancel()
        return self.payouts.cancel_refunds()

    # ------------------------------------------------------------------ knockouts and the end

    def _knockouts(self, knockouts: list[Knockout]) -> None:
        """T-9: place the hand's (or round's) knockouts; then the money, the pool, the end."""
        before = len(self.alive)
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
            self.state = closed.state  # T-5: at the money the guarantee is dropped
            self.log.info("late_registration_closed", why=closed.action)
        if self.idle():  # money in flight could still change what was collected (T-6)
            self.payouts.fix_pool_if_final(clock, before=before)
        self._placing = True
        try:
            for finish in finishes:
                self._finish(finish)
        finally:
            self._placing = False
        if tournament_over(len(self.alive), self.satellite_seats):
            self._end()

    def _finish(self, finish: Finish) -> None:
        """Record a finish; a place in the money is paid once the pool is fixed (T-7)."""
        prize = 0
        if self.prizes is not None and finish.place <= self.prizes.paid_places:
            prize = self.payouts.pay_place(finish.entry, finish.place, finish.tied)
        result = Result(
            finish.entry, finish.place, prize, finish.busted_by, finish.hand_id, finish.tied,
            self._batch,
        )  # fmt: skip
        self.results.append(result)
        self.players.finished(result)

    def _end(self) -> None:
        """T-8: one player holds every chip, or a satellite is down to its seats: paid out."""
        self.floor.stop()
        clock = self.director_clock()
        self.payouts.fix_pool_if_final(clock, before=len(self.alive), force=True)
        left = len(self.alive)  # one winner, or a satellite's seat winners sharing places
        for winner in list(self.alive):
            self._finish(Finish(winner, 1, left, (), 0, ""))
        self.alive.clear()
        self.status = "finished"
        self.log.info("tournament_finished", hands=self.floor.hands, entries=self.state.entries)
        self.payouts.close()
        if self.on_end is not None:
            self.on_end(self)

    def pending(self) -> Deferred[Any]:
        """Fires when every transfer posted so far has settled."""
        return self.payouts.settled()
