"""Money requests of a tournament actor: register, unregister, re-enter, rebuy, add-on (T-2..T-5).

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
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred
from twisted.python.failure import Failure

from pokerroom.ledger import InsufficientFunds
from pokerroom.ledger.db import read
from tournaments import purchase_keys
from tournaments.director import entries as director_entries
from tournaments.director import errors
from tournaments.director import registration as director_registration
from tournaments.director import tickets as ticket_rules
from tournaments.director.errors import DirectorError
from tournaments.director.registration import Decision, Funding, PlayerEntries
from tournaments.durable import PURCHASE_KINDS
from tournaments.purchase_keys import KeyReplayed, KeyUse

IDEMPOTENCY_CONFLICT = "idempotency_conflict"  # the ledger's code (P-2), not a director one
#: A keyed purchase retried after its money went back (the player unregistered, T-3): P-2,
#: docs/PROTOCOL.md "Keys" (the desk's code for the same case).
REQUEST_UNDONE = "request_undone"

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from tournaments.bounty_book import BountyBook
    from tournaments.cashier import Cashier
    from tournaments.config import TournamentConfig
    from tournaments.director.payouts import PrizeTable
    from tournaments.director.registration import (
        Clock,
        RegistrationSettings,
        RegistrationState,
    )
    from tournaments.durable import Durable
    from tournaments.floor import Floor
    from tournaments.payout_runner import PayoutRunner
    from tournaments.results import Result
    from tournaments.stakes import Stakes
    from tournaments.tickets import TicketOffice

HUGE = 10**15  # the director's own funds check is left to the ledger's (T-4)


class EntryRequests:
    """The money requests of `TournamentActor` (a mixin: it reads the actor's state)."""

    if TYPE_CHECKING:  # what the mixin uses of its TournamentActor (set in its __init__)
        config: TournamentConfig
        settings: RegistrationSettings
        state: RegistrationState
        status: str
        cashier: Cashier
        durable: Durable
        floor: Floor
        payouts: PayoutRunner
        prizes: PrizeTable | None
        tickets: TicketOffice
        bounties: BountyBook | None
        stakes: Stakes
        tid: str
        clock: IReactorTime
        alive: dict[str, int]
        chips_issued: int
        results: list[Result]
        _placing: bool

        def director_clock(self) -> Clock:
            """Where the tournament stands for the director."""
            ...

        def start(self) -> None:
            """Start the tournament now."""
            ...

    def _init_requests(self) -> None:
        self._queue: deque[tuple[Callable[..., Any], tuple[Any, ...], Deferred[Any]]] = deque()
        #: P-2: ledger key of each keyed request that went through -> (what, its decision).
        #: Kept for the tournament's life: a retry the lobby no longer remembers gets the
        #: first answer here, and moves nothing.
        self._keyed: dict[str, tuple[str, Decision]] = {}
        #: Keys of registrations whose money went back since (the player unregistered, T-3):
        #: their retry is `request_undone`, even once the player registered again.
        self._undone: set[str] = set()
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
        through here is answered with the first decision by its caller (`_replay`). `also` is a
        store step that must land in the transfer's own transaction (a ticket used or given
        back, T-3/T-16); its refusal refuses the transfer too.
        """
        decision = decide()
        alive_before = decision.player in self.alive
        self.state = decision.state
        first: list[Any] = []
        if key is None:
            key = self.cashier.key(decision.action, decision.player, decision.state.serial)
        else:
            self._keyed[key] = (decision.action, decision)
            first = self._key_guard(decision, key)
        stored = self.durable.purchase(decision, key, alive_before)
        try:
            yield self.durable.money(
                decision.moves, key, kind, stored, () if also is None else [also], first=first
            )
        except InsufficientFunds:
            self._forget_key(key, decision)
            undo(decision)
            raise DirectorError(errors.INSUFFICIENT_FUNDS, "not enough money") from None
        except Exception:
            self._forget_key(key, decision)
            undo(decision)
            raise
        return decision

    def _key_guard(self, decision: Decision, key: str) -> list[Any]:
        """The unit's first step for a client's key: refuse it if the key paid before (P-2)."""
        kind = PURCHASE_KINDS.get(decision.action)
        record = decision.state.players.get(decision.player)
        if kind is None or record is None or not self.durable.stores:
            return []  # not stored: the actor's memory of its keys lasts as long as it does
        seq = record.entries + record.rebuys + record.addons  # as `Durable.purchase` numbers it
        guard = partial(
            purchase_keys.guard,
            tournament_id=self.tid,
            key=key,
            player=decision.player,
            seq=seq,
            kind=kind,
        )
        return [guard]

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
            if key is None or key in self._keyed or exc.code in _FINAL:
                raise
            found = yield self._find_key(key)
            decision = self._paid_before(action, player, key, found, exc)
        return decision

    def _find_key(self, key: str) -> Deferred[KeyUse | None]:
        """What `key` paid for, as stored (counted as money in flight, like a ticket read)."""
        self.cashier.in_flight += 1

        def done(result: Any) -> Any:
            self.cashier.in_flight -= 1
            return result

        found: Deferred[KeyUse | None] = self.cashier.ledger.read(_find, self.tid, key)
        return found.addBoth(done)

    def _paid_before(
        self,
        action: str,
        player: str,
        key: str,
        found: KeyUse | None,
        refused: DirectorError | KeyReplayed,
    ) -> Decision:
        """The answer to a purchase whose key paid before: the first one while that purchase
        stands, else `request_undone` (its money went back) or `idempotency_conflict`."""
        if found is None:  # the key paid for nothing: the refusal stands
            if isinstance(refused, KeyReplayed):  # paid and gone since the guard saw it
                raise self._undone_error(action) from None
            raise refused
        purchase = found.purchase
        if found.reference != self.cashier.reference or (
            purchase is not None and (purchase[0], purchase[3]) != (player, PURCHASE_KINDS[action])
        ):
            raise DirectorError(
                IDEMPOTENCY_CONFLICT, "this key was used for another request; use a new key"
            ) from None
        if purchase is None or not found.counts:
            raise self._undone_error(action) from None
        _, _, entry_no, _, chips = purchase
        record = self.state.players.get(player) or PlayerEntries(Funding.CASH)
        players = {**self.state.players, player: replace(record, entries=entry_no)}
        first = Decision(action, player, replace(self.state, players=players), chips=chips)
        self._keyed[key] = (action, first)
        return first

    def _replay(self, key: str, action: str) -> Decision:
        """The first decision of a keyed request, if this request is the same kind (P-2): a
        key used for a rebuy and sent with an add-on is a conflict, whatever either would do."""
        first_action, first = self._keyed[key]
        if key in self._undone and action == first_action:
            raise self._undone_error(action)
        if action != first_action:
            raise DirectorError(
                IDEMPOTENCY_CONFLICT, "this key was used for another request; use a new key"
            )
        return first

    def _undone_error(self, action: str) -> DirectorError:
        """`request_undone`: the purchase this key paid for was given back since (P-2)."""
        return DirectorError(
            REQUEST_UNDONE,
            f"this key's {action} in {self.tid} was undone (its money went back); use a new key",
        )

    def undone(self, key: str) -> bool:
        """Whether the purchase `key` paid for was given back since (the player unregistered)."""
        return key in self._undone

    def _forget_key(self, key: str, decision: Decision) -> None:
        """A refused keyed request changed nothing: its key may be used again."""
        if self._keyed.get(key, (None, None))[1] is decision:
            del self._keyed[key]

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
        if self.status == "running" and self.prizes is None and self.idle() and not self._placing:
            with self.durable.batch():  # the overlay transfer with the prize table (T-6)
                self.payouts.fix_pool_if_final(self.director_clock(), before=len(self.alive))

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
        if ticket_id:
            funding = Funding.TICKET
        attempt = partial(self._register, player, funding, ticket_id, key)
        return self.run(self._keyed_purchase, "register", player, key, attempt)

    @inlineCallbacks
    def _register(
        self, player: str, funding: Funding, ticket_id: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        settings = self.settings

        def decide() -> Decision:
            return director_registration.register(
                settings, self.state, self.director_clock(), player, funding, HUGE, ticket_id
            )

        def undo(decision: Decision) -> None:
            players = dict(self.state.players)
            players.pop(player, None)
            self.state = replace(
                self.state,
                players=players,
                entries=self.state.entries - 1,
                collected=self.state.collected - decision.collected,
            )

        if key is not None and key in self._keyed:
            return self._replay(key, "register")
        also = None
        if funding is Funding.TICKET:  # T-16: the player's own usable ticket for this entry
            decide()  # the director's refusals first (registered, closed ...): nothing read
            found = yield self._read_ticket(ticket_id)
            now_ms = round(self.clock.seconds() * 1000)
            ticket = ticket_rules.verify_use(
                found, player, self.tid, settings.buy_in, settings.fee, now_ms
            )
            also = self.tickets.use_step(ticket, self.tid)
        try:
            decision: Decision = yield self._money(decide, undo, "buy_in", key, also)
        except DirectorError as exc:  # the ticket's money went to a racing entry first
            if also is not None and exc.code == errors.INSUFFICIENT_FUNDS:
                raise DirectorError(errors.TICKET_NOT_USABLE, "the ticket was used") from None
            raise
        self._entered(player, decision)
        self._enter(player, 1, decision.chips)
        full = settings.max_entries is not None and self.state.entries >= settings.max_entries
        if self.config.sit_and_go and self.status == "registering" and full:
            self.start()
        return decision

    def unregister(self, player: str) -> Deferred[Decision]:
        """T-3: buy-in and fee back, until shortly before the start (a sit-and-go: until it
        starts, i.e. while it is not full)."""
        return self.run(self._unregister, player)

    @inlineCallbacks
    def _unregister(self, player: str) -> Generator[Deferred[Any], Any, Decision]:
        before = self.state
        # T-17: a seller's buyers get back what they paid, in the seller's own refund transfer
        staked, stake_ops, staked_book = self.stakes.leaving(player)

        def decide() -> Decision:
            decision = director_registration.unregister(
                self.settings, self.state, self.director_clock(), player,
                starts_when_full=self.config.sit_and_go,
            )  # fmt: skip
            return replace(decision, moves=decision.moves + staked) if staked else decision

        def undo(decision: Decision) -> None:
            self.state = replace(before, serial=self.state.serial)

        record = self.state.players.get(player)
        also = None
        if record is not None and record.funding is Funding.TICKET:  # T-3: the ticket back
            decide()  # the director's refusals first (closed, not refundable ...)
            found = yield self._read_ticket(record.ticket_id)
            if found is not None and found.state is ticket_rules.TicketState.USED:
                also = self.tickets.give_back_step(found)
        writes = ([] if also is None else [also]) + (stake_ops if self.durable.stores else [])
        if len(writes) > 1:
            also = partial(_run_all, writes=writes)
        elif writes:
            also = writes[0]
        decision: Decision = yield self._money(decide, undo, "refund", None, also)
        self._undone.update(k for k, (_, d) in self._keyed.items() if d.player == player)
        self.stakes.left(staked_book)
        self._entry_undone(player, decision)
        self.alive.pop(player, None)
        self.chips_issued -= self.settings.starting_stack
        return decision

    def reenter(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: a new entry for a busted player, during late registration."""
        attempt = partial(self._reenter, player, key)
        return self.run(self._keyed_purchase, "reentry", player, key, attempt)

    @inlineCallbacks
    def _reenter(
        self, player: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        record = self.state.players.get(player)

        def decide() -> Decision:
            return director_entries.reenter(
                self.settings, self.state, self.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, entries=-1, collected=-decision.collected)

        if key is not None and key in self._keyed:
            return self._replay(key, "reentry")
        decision: Decision = yield self._money(decide, undo, "buy_in", key)
        self._entered(player, decision)
        self._enter(player, decision.state.players[player].entries, decision.chips)
        self.floor.banks.forget(player)
        return decision

    def rebuy(self, player: str, key: str | None = None) -> Deferred[Decision]:
        """T-4: the rebuy's chips (a busted player in the period is back in)."""
        attempt = partial(self._rebuy, player, key)
        return self.run(self._keyed_purchase, "rebuy", player, key, attempt)

    @inlineCallbacks
    def _rebuy(
        self, player: str, key: str | None = None
    ) -> Generator[Deferred[Any], Any, Decision]:
        record = self.state.players.get(player)
        stack = self._stack(player)

        def decide() -> Decision:
            return director_entries.rebuy(
                self.settings, self.state, self.director_clock(), player, stack, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-decision.collected)

        if key is not None and key in self._keyed:
            return self._replay(key, "rebuy")
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
        record = self.state.players.get(player)

        def decide() -> Decision:
            return director_entries.addon(
                self.settings, self.state, self.director_clock(), player, HUGE
            )

        def undo(decision: Decision) -> None:
            self._restore(player, record, collected=-decision.collected)

        if key is not None and key in self._keyed:
            return self._replay(key, "addon")
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
        players = dict(self.state.players)
        if record is None:  # not registered before (the director refuses that first)
            players.pop(player, None)
        else:
            players[player] = record
        self.state = replace(
            self.state,
            players=players,
            entries=self.state.entries + entries,
            collected=self.state.collected + collected,
        )

    def _read_ticket(self, ticket_id: str) -> Deferred[ticket_rules.Ticket | None]:
        """A ticket as stored, counted as money in flight (who waits on the cashier waits)."""
        self.cashier.in_flight += 1

        def done(result: Any) -> Any:
            self.cashier.in_flight -= 1
            return result

        return self.tickets.get(ticket_id).addBoth(done)

    def _entered(self, player: str, decision: Decision) -> None:
        """An entry or re-entry was paid with its starting bounty (T-14): on the player's head
        (not seated before: no knockout can involve them while the money is in flight)."""
        if self.bounties is not None:
            self.bounties.entered(player, decision)

    def _entry_undone(self, player: str, decision: Decision) -> None:
        """The player unregistered (T-3): their bounty went back with the refund (T-14)."""
        if self.bounties is not None:
            self.bounties.left(player)

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
            self.durable.chips_added(player)
            return
        self.alive[player] = self.state.players[player].entries
        self.results = [r for r in self.results if r.entry != player]
        self.floor.seat_newcomer(player, chips)


#: Refusals a key's history cannot change: the ledger's funds check (the key paid nothing) and
#: a key the actor knows was used for another request.
_FINAL = frozenset({errors.INSUFFICIENT_FUNDS, IDEMPOTENCY_CONFLICT})


def _find(engine: Any, tournament_id: str, key: str) -> KeyUse | None:
    """Blocking: what `key` paid for in the tournament (`purchase_keys.find`), one read."""
    return read(engine, partial(purchase_keys.find, tournament_id=tournament_id, key=key))


def _run_all(conn: Connection, writes: list[Callable[[Connection], Any]]) -> list[Any]:
    """Several store steps as one (a ticket given back and a seller's stakes refunded)."""
    return [write(conn) for write in writes]
