"""Money requests of a tournament: register, unregister, re-enter, rebuy, add-on (T-2..T-5).

A part the actor owns (`EntryRequests`), given its tournament as a `RequestsHost`.

Requests run one at a time, in order (a queue: a long run of refusals is a loop, not a
recursion). Each takes the director's decision on the current state, reserves it, posts its
moves as ONE ledger transfer with the entry and purchase it pays for (`Durable`: one
transaction, T-18), and undoes the reservation if the ledger refuses (`insufficient_funds`:
the ledger's funds check is the last word, T-4). A paid entry is seated
at once when the tournament runs (T-5); rebuy and add-on chips go on the stack (T-4).

A keyed purchase (P-2: the client's key) is answered once: a retry the actor remembers gets its
first decision; one it does not remember (after a restart) that is refused now, or whose key
the ledger already holds (`purchase_keys.guard` refuses the unit: nothing is written), gets
what the key paid for: the first answer while that purchase still stands, `request_undone`
once its money went back (the player unregistered), `idempotency_conflict` if the key paid
for something else. A replayed key never buys anything.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.engine import Connection
from twisted.internet.defer import Deferred, fail, inlineCallbacks, maybeDeferred
from twisted.python.failure import Failure

from pokerroom.ledger import InsufficientFunds
from tournaments.actor.request_keys import FINAL, RequestKeys
from tournaments.director import entries as director_entries
from tournaments.director import errors
from tournaments.director import registration as director_registration
from tournaments.director import tickets as ticket_rules
from tournaments.director.errors import DirectorError
from tournaments.director.registration import Decision, Funding, PlayerEntries
from tournaments.store.purchase_keys import KeyReplayed

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.actor.bounty_book import BountyBook
    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.actor.stakes import Stakes
    from tournaments.actor.tickets import TicketOffice
    from tournaments.config import TournamentConfig
    from tournaments.director.registration import (
        Clock,
        RegistrationSettings,
        RegistrationState,
    )
    from tournaments.results import Result
    from tournaments.tables.floor import Floor

HUGE = 10**15  # the director's own funds check is left to the ledger's (T-4)


class RequestsHost(Protocol):
    """What the money requests read and change of their tournament."""

    config: TournamentConfig  # the tournament's config
    settings: RegistrationSettings  # its registration settings
    state: RegistrationState  # the registrations as the director sees them (reserved here)
    status: str  # registering, running, finished or cancelled
    cashier: Cashier  # the ledger keys and transfers
    durable: Durable  # the stored writes (T-18)
    floor: Floor  # the tables (a paid entry is seated at once, T-5)
    tickets: TicketOffice  # the room's tickets (T-3, T-16)
    bounties: BountyBook | None  # T-14: the bounties in play
    stakes: Stakes  # T-17: a seller's stakes go back when they unregister
    tid: str  # the tournament's id
    clock: IReactorTime  # the injected clock
    alive: dict[str, int]  # entry -> entry number, for players with chips
    chips_issued: int  # every chip given out
    results: list[Result]  # the finished entries (a rebuy sits a busted player again)

    def director_clock(self) -> Clock:
        """Where the tournament stands for the director."""
        ...

    def start(self) -> None:
        """Start the tournament now (a full sit-and-go)."""
        ...


class EntryRequests:
    """The money requests of one tournament (see the module docstring), one at a time.

    `barred(player)` is the staff's refusal of a player's entry, rebuy or re-entry (a
    disqualified player), or None; `after()` runs once each request is answered (the pool is
    fixed when every period has closed, T-6).
    """

    def __init__(
        self,
        host: RequestsHost,
        barred: Callable[[str], DirectorError | None],
        after: Callable[[], None],
    ) -> None:
        self.host = host
        self.barred = barred
        self.after = after
        self._queue: deque[tuple[Callable[..., Any], tuple[Any, ...], Deferred[Any]]] = deque()
        #: P-2: the keys of the purchases, and the answer to a key forgotten.
        self.keys = RequestKeys(host.tid, host.cashier, host.durable)
        self._busy = False
        self._draining = False

    @inlineCallbacks
    def _money(
        self,
        decide: Callable[[], Decision],
        undo: Callable[[Decision], None],
        kind: str,
        key: str | None = None,
        also: Callable[[Connection], Any] | None = None,
    ) -> Generator[Deferred[Any], Any, Decision]:
        """Decide on the current state, reserve it, post one transfer, undo if refused.

        `key` is the ledger key of a keyed request (P-2): the transfer is posted under it (a
        ledger retry of it moves nothing twice), and a request with a key that already went
        through here is answered with the first decision by its caller (`RequestKeys.replay`).
        `also` is a store step that must land in the transfer's own transaction (a ticket used
        or given back, T-3/T-16); its refusal refuses the transfer too.
        """
        decision = decide()
        alive_before = decision.player in self.host.alive
        self.host.state = decision.state
        first: list[Any] = []
        if key is None:
            key = self.host.cashier.key(decision.action, decision.player, decision.state.serial)
        else:
            first = self.keys.remember(key, decision)
        stored = self.host.durable.purchase(decision, key, alive_before)
        try:
            yield self.host.durable.money(
                decision.moves, key, kind, stored, () if also is None else [also], first=first
            )
        except InsufficientFunds:
            self.keys.forget(key, decision)
            undo(decision)
            raise DirectorError(errors.INSUFFICIENT_FUNDS, "not enough money") from None
        except Exception:
            self.keys.forget(key, decision)
            undo(decision)
            raise
        return decision

    @inlineCallbacks
    def _keyed_purchase(
        self,
        action: str,
        player: str,
        key: str | None,
        attempt: Callable[[], Deferred[Decision]],
    ) -> Generator[Deferred[Any], Any, Decision]:
        """Run a purchase; a keyed one the actor does not remember that is refused now, or
        whose key the ledger already holds, is answered by what its key paid for (P-2)."""
        try:
            decision: Decision = yield attempt()
        except (DirectorError, KeyReplayed) as exc:
            if key is None or self.keys.knows(key) or exc.code in FINAL:
                raise
            found = yield self.keys.find(key)
            decision = self.keys.paid_before(action, player, key, found, exc, self.host.state)
        return decision

    def run(self, work: Callable[..., Any], *args: Any) -> Deferred[Decision]:
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

    def _done(self, result: Decision | Failure, answer: Deferred[Decision]) -> None:
        """A request finished: answer it, then run the next."""
        self._busy = False
        if isinstance(result, Failure):
            answer.errback(result)
        else:
            answer.callback(result)
        self._drain()
        self.after()  # the overlay transfer with the prize table, once final (T-6)

    def undone(self, key: str) -> bool:
        """Whether the purchase `key` paid for was given back since (the player unregistered)."""
        return self.keys.undone(key)

    def idle(self) -> bool:
        """No money request is queued or running."""
        return not self._busy and not self._queue

    def register(
        self,
        player: str,
        funding: Funding = Funding.CASH,
        ticket_id: str = "",
        key: str | None = None,
    ) -> Deferred[Decision]:
        """T-2, T-3, T-5: register (late registration seats the player at once).

        With a ticket (T-3, T-16: `ticket_id`) the entry is paid from the ticket's ledger
        account, and the ticket is used in the same transaction: it must be the player's own,
        usable, not expired and valid here (`unknown_ticket`, `ticket_not_usable`,
        `ticket_expired`, `wrong_ticket`).
        """
        refused = self.barred(player)
        if refused is not None:
            return fail(refused)
        if ticket_id:
            funding = Funding.TICKET
        attempt = partial(self._register, player, funding, ticket_id, key)
        return self.run(self._keyed_purchase, "register", player, key, attempt)

    @inlineCallbacks
    def _register(
        self, player: str, funding: Funding, ticket_id: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        settings = self.host.settings

        def decide() -> Decision:
            return director_registration.register(
                settings,
                self.host.state,
                self.host.director_clock(),
                player,
                funding,
                HUGE,
                ticket_id,
            )

        def undo(decision: Decision) -> None:
            players = dict(self.host.state.players)
            players.pop(player, None)
            self.host.state = replace(
                self.host.state,
                players=players,
                entries=self.host.state.entries - 1,
                collected=self.host.state.collected - decision.collected,
            )

        if key is not None and self.keys.knows(key):
            return self.keys.replay(key, "register")
        also = None
        if funding is Funding.TICKET:  # T-16: the player's own usable ticket for this entry
            decide()  # the director's refusals first (registered, closed ...): nothing read
            found = yield self._read_ticket(ticket_id)
            now_ms = round(self.host.clock.seconds() * 1000)
            ticket = ticket_rules.verify_use(
                found, player, self.host.tid, settings.buy_in, settings.fee, now_ms
            )
            also = self.host.tickets.use_step(ticket, self.host.tid)
        try:
            decision: Decision = yield self._money(decide, undo, "buy_in", key, also)
        except DirectorError as exc:  # the ticket's money went to a racing entry first
            if also is not None and exc.code == errors.INSUFFICIENT_FUNDS:
                raise DirectorError(errors.TICKET_NOT_USABLE, "the ticket was used") from None
            raise
        self._entered(player, decision)
        self._enter(player, 1, decision.chips)
        full = settings.max_entries is not None and self.host.state.entries >= settings.max_entries
        if self.host.config.sit_and_go and self.host.status == "registering" and full:
            self.host.start()
        return decision

    def unregister(self, player: str) -> Deferred[Decision]:
        """T-3: buy-in and fee back, until shortly before the start (a sit-and-go: until it
        starts, i.e. while it is not full)."""
        return self.run(self._unregister, player)

    @inlineCallbacks
    def _unregister(self, player: str) -> Generator[Deferred[Any], Any, Decision]:
        before = self.host.state
        # T-17: a seller's buyers get back what they paid, in the seller's own refund transfer
        staked, stake_ops, staked_book = self.host.stakes.leaving(player)

        def decide() -> Decision:
            decision = director_registration.unregister(
                self.host.settings, self.host.state, self.host.director_clock(), player,
                starts_when_full=self.host.config.sit_and_go,
            )  # fmt: skip
            return replace(decision, moves=decision.moves + staked) if staked else decision

        def undo(decision: Decision) -> None:
            self.host.state = replace(before, serial=self.host.state.serial)

        record = self.host.state.players.get(player)
        also = None
        if record is not None and record.funding is Funding.TICKET:  # T-3: the ticket back
            decide()  # the director's refusals first (closed, not refundable ...)
            found = yield self._read_ticket(record.ticket_id)
            if found is not None and found.state is ticket_rules.TicketState.USED:
                also = self.host.tickets.give_back_step(found)
        writes = ([] if also is None else [also]) + (stake_ops if self.host.durable.stores else [])
        if len(writes) > 1:
            also = partial(_run_all, writes=writes)
        elif writes:
            also = writes[0]
        decision: Decision = yield self._money(decide, undo, "refund", None, also)
        self.keys.given_back(player)
        self.host.stakes.left(staked_book)
        self._entry_undone(player, decision)
        self.host.alive.pop(player, None)
        self.host.chips_issued -= self.host.settings.starting_stack
        return decision

    def reenter(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: a new entry for a busted player, during late registration."""
        refused = self.barred(player)
        if refused is not None:
            return fail(refused)
        attempt = partial(self._reenter, player, key)
        return self.run(self._keyed_purchase, "reentry", player, key, attempt)

    @inlineCallbacks
    def _reenter(
        self, player: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        record = self.host.state.players.get(player)

        def decide() -> Decision:
            return director_entries.reenter(
                self.host.settings, self.host.state, self.host.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, entries=-1, collected=-decision.collected)

        if key is not None and self.keys.knows(key):
            return self.keys.replay(key, "reentry")
        decision: Decision = yield self._money(decide, undo, "buy_in", key)
        self._entered(player, decision)
        self._enter(player, decision.state.players[player].entries, decision.chips)
        self.host.floor.banks.forget(player)
        return decision

    def rebuy(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: the rebuy's chips (a busted player in the period is back in)."""
        refused = self.barred(player)
        if refused is not None:
            return fail(refused)
        attempt = partial(self._rebuy, player, key)
        return self.run(self._keyed_purchase, "rebuy", player, key, attempt)

    @inlineCallbacks
    def _rebuy(
        self, player: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        record = self.host.state.players.get(player)
        stack = self._stack(player)

        def decide() -> Decision:
            return director_entries.rebuy(
                self.host.settings, self.host.state, self.host.director_clock(), player, stack, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-decision.collected)

        if key is not None and self.keys.knows(key):
            return self.keys.replay(key, "rebuy")
        decision: Decision = yield self._money(decide, undo, "buy_in", key)
        self._chips(player, decision.chips)
        return decision

    def addon(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: the add-on's chips."""
        attempt = partial(self._addon, player, key)
        return self.run(self._keyed_purchase, "addon", player, key, attempt)

    @inlineCallbacks
    def _addon(
        self, player: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        record = self.host.state.players.get(player)

        def decide() -> Decision:
            return director_entries.addon(
                self.host.settings, self.host.state, self.host.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-decision.collected)

        if key is not None and self.keys.knows(key):
            return self.keys.replay(key, "addon")
        decision: Decision = yield self._money(decide, undo, "buy_in", key)
        self._chips(player, decision.chips)
        return decision

    def _restore(
        self,
        player: str,
        record: PlayerEntries | None,
        entries: int = 0,
        collected: int = 0,
    ) -> None:
        """Undo a reserved entry, rebuy or add-on whose money was refused."""
        players = dict(self.host.state.players)
        if record is None:  # not registered before (the director refuses that first)
            players.pop(player, None)
        else:
            players[player] = record
        self.host.state = replace(
            self.host.state,
            players=players,
            entries=self.host.state.entries + entries,
            collected=self.host.state.collected + collected,
        )

    def _read_ticket(self, ticket_id: str) -> Deferred[ticket_rules.Ticket | None]:
        """A ticket as stored, counted as money in flight (who waits on the cashier waits)."""
        self.host.cashier.in_flight += 1

        def done(result: Any) -> Any:
            self.host.cashier.in_flight -= 1
            return result

        return self.host.tickets.get(ticket_id).addBoth(done)

    def _entered(self, player: str, decision: Decision) -> None:
        """An entry or re-entry was paid with its starting bounty (T-14): on the player's head
        (not seated before: no knockout can involve them while the money is in flight)."""
        if self.host.bounties is not None:
            self.host.bounties.entered(player, decision)

    def _entry_undone(self, player: str, decision: Decision) -> None:
        """The player unregistered (T-3): their bounty went back with the refund (T-14)."""
        if self.host.bounties is not None:
            self.host.bounties.left(player)

    def _stack(self, player: str) -> int:
        """Chips `player` has at a table now (0 when busted)."""
        table = self.host.floor.table_of(player)
        return 0 if table is None else table.stacks[player]

    def _enter(self, player: str, number: int, chips: int) -> None:
        """A paid entry: alive, and seated at once if the tournament runs (T-5)."""
        self.host.alive[player] = number
        self.host.chips_issued += chips
        if self.host.status == "running":
            self.host.floor.seat_newcomer(player, chips)

    def _chips(self, player: str, chips: int) -> None:
        """Rebuy or add-on chips: onto the stack, or a busted player sits again (T-4)."""
        self.host.chips_issued += chips
        table = self.host.floor.table_of(player) if player in self.host.alive else None
        if table is not None:
            table.add_chips(player, chips)
            self.host.durable.chips_added(player)
            return
        self.host.alive[player] = self.host.state.players[player].entries
        self.host.results = [r for r in self.host.results if r.entry != player]
        self.host.floor.seat_newcomer(player, chips)


def _run_all(conn: Connection, writes: list[Callable[[Connection], Any]]) -> list[Any]:
    """Several store steps as one (a ticket given back and a seller's stakes refunded)."""
    return [write(conn) for write in writes]
