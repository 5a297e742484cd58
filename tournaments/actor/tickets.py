"""The ticket office: satellite tickets in the ledger and the store (T-16, T-3).

The decisions are the director's (`tournaments.director.tickets`); here each one becomes ONE
ledger transfer and the ticket's state step in the SAME database transaction (`Cashier.
post_with`, docs/ARCHITECTURE.md rule 14): a ticket's row never says `issued` without its value
in the ticket's account, nor `used` while the value is still there. Each state step is guarded
(`store.save_ticket` moves a ticket only from the states the step expects), so two requests
racing for one ticket cannot both use it: the loser's transaction, transfer included, rolls
back with `ticket_not_usable` (`TicketTaken`).

What goes where (the money of a ticket never reaches a wallet: it cannot be cashed):
- issue (a satellite's seat): satellite prize pool -> `ticket:<id>`;
- use (an entry): `ticket:<id>` -> prize pool, house fees, bounty pool, in the entry's own
  transfer (the actor's registration); unregistering sends it back and returns the ticket;
- duplicate seat (T-16): `ticket:<id>` -> the owner's T$ (buy-in) and house fees (fee);
- a cancelled target: the ticket comes back usable at its buy-in level, or (the target's rule
  `OnCancel.CONVERT`) `ticket:<id>` -> the owner's T$, buy-in plus fee;
- expiry: `ticket:<id>` -> `house_expired`.

`sweep(now)` expires what is due and applies the rule of stored tournaments that were cancelled
(by the T-18 refund job too), so tickets follow their target whichever path cancelled it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import structlog
from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred, DeferredList, succeed
from twisted.internet.interfaces import IReactorTime

from pokerroom.ledger import LedgerService
from pokerroom.ledger.db import read
from pokerroom.ledger.errors import LedgerError
from tournaments import store
from tournaments.actor.cashier import Cashier
from tournaments.director import errors
from tournaments.director import tickets as rules
from tournaments.director.money import Account, MoneyMove
from tournaments.director.tickets import OnCancel, Ticket, TicketState

DEFAULT_VALID_DAYS = 30
log = structlog.get_logger("tournaments.tickets")


class TicketTaken(LedgerError):
    """A ticket's guarded step found it moved by someone else first: the step's transaction,
    transfer included, is refused (a refusal of that unit alone, like insufficient funds)."""

    code = errors.TICKET_NOT_USABLE


def key_of(ticket_id: str, step: str) -> str:
    """The ledger key of a ticket's own step (P-2): each final step happens once."""
    return f"ticket:{ticket_id}:{step}"


def guarded(ticket: Ticket, expected: Iterable[TicketState], at_ms: int) -> Any:
    """A store step for `Cashier.post_with`: move the ticket or refuse the whole transaction."""
    allowed = tuple(expected)

    def step(conn: Connection) -> Ticket:
        if not store.save_ticket(conn, ticket, allowed, at_ms):
            now = store.load_ticket(conn, ticket.ticket_id)
            if now is not None and now.state is ticket.state and now.used_in == ticket.used_in:
                return ticket  # a retry of this very step (the transfer replays by its key)
            state = "missing" if now is None else now.state.value
            raise TicketTaken(f"the ticket is {state}")
        return ticket

    return step


class TicketOffice:
    """Issues, lists and settles tickets for the room (one per room; actors share it)."""

    def __init__(
        self,
        ledger: LedgerService,
        clock: IReactorTime,
        currency: str = "USD",
        valid_days: int = DEFAULT_VALID_DAYS,
    ) -> None:
        self.ledger = ledger
        self.clock = clock
        self.currency = currency
        self.valid_ms = valid_days * rules.DAY_MS
        self.cashier = Cashier(ledger, "tickets", currency)
        self.cashier.reference = "tickets"

    def now_ms(self) -> int:
        """The clock's time in epoch milliseconds."""
        return round(self.clock.seconds() * 1000)

    # ------------------------------------------------------------------ reading

    def get(self, ticket_id: str) -> Deferred[Ticket | None]:
        """One ticket (or None)."""
        return self.ledger.read(_read, store.load_ticket, ticket_id)

    def of_player(self, player: str) -> Deferred[tuple[Ticket, ...]]:
        """The player's tickets, newest first (`tickets` request)."""
        return self.ledger.read(_read, store.player_tickets, player)

    # ------------------------------------------------------------------ steps

    def issue(self, ticket: Ticket, source: Account, key: str) -> Deferred[Ticket]:
        """T-16: a seat won: the value from `source` into the ticket's account, and the row."""
        step = rules.issue(ticket, source, key)
        d = self.cashier.post_with(step.moves, key, "prize", self.issue_op(ticket))
        return d.addCallback(lambda done: done[1])

    def issue_op(self, ticket: Ticket) -> Any:
        """The store step of issuing `ticket` (for the transfer that fills its account): the
        row, once (a retried award finds it there)."""
        at = self.now_ms()
        currency = self.currency

        def write(conn: Connection) -> Ticket:
            store.add_ticket(conn, ticket, currency, at)
            found = store.load_ticket(conn, ticket.ticket_id)
            assert found is not None
            return found

        return write

    def new_ticket(
        self,
        owner: str,
        *,
        source: str,
        label: str | int,
        target: str,
        buy_in: int,
        fee: int,
        any_of_level: bool = False,
        valid_days: int | None = None,
    ) -> Ticket:
        """A ticket to issue now, valid for `valid_days` (default the office's); its id is the
        same for the same award (source, owner, label)."""
        now = self.now_ms()
        valid = self.valid_ms if valid_days is None else valid_days * rules.DAY_MS
        return Ticket(
            rules.make_ticket_id(source, owner, label),
            owner,
            buy_in,
            fee,
            target,
            now,
            now + valid,
            source=source,
            any_of_level=any_of_level,
        )

    def use_step(self, ticket: Ticket, tournament_id: str) -> Any:
        """The store step of an entry paid with `ticket` (in the entry's own transfer)."""
        return guarded(rules.use(ticket, tournament_id), rules.USABLE, self.now_ms())

    def give_back_step(self, ticket: Ticket, *, any_of_level: bool = False) -> Any:
        """The store step of an entry refunded to `ticket` (T-3 unregistration, T-1 cancel)."""
        back = rules.give_back(ticket, any_of_level=any_of_level)
        return guarded(back, (TicketState.USED,), self.now_ms())

    def _settle(self, step: rules.TicketStep, key: str, kind: str, was: Ticket) -> Deferred[Ticket]:
        expected = (was.state,)
        d = self.cashier.post_with(
            step.moves, key, kind, guarded(step.ticket, expected, self.now_ms())
        )
        return d.addCallback(lambda done: done[1])

    def duplicate(self, ticket: Ticket) -> Deferred[Ticket]:
        """T-16: a seat the owner cannot use (already registered, or out of entries): T$ of the
        target's buy-in less its fee, the fee part to the house fees."""
        key = key_of(ticket.ticket_id, "duplicate")
        return self._settle(rules.duplicate_seat(ticket, key), key, "prize", ticket)

    def duplicate_parts(self, ticket: Ticket) -> tuple[tuple[MoneyMove, ...], str, Any]:
        """The moves, key and store step of `duplicate`, for a caller's own unit (P-2, ARCH 14)."""
        key = key_of(ticket.ticket_id, "duplicate")
        step = rules.duplicate_seat(ticket, key)
        return step.moves, key, guarded(step.ticket, (ticket.state,), self.now_ms())

    def target_cancelled(self, target: str, rule: OnCancel) -> Deferred[list[Ticket]]:
        """Every usable ticket naming a cancelled target: back at its level, or T$ (the rule)."""

        def apply(found: tuple[Ticket, ...]) -> Deferred[list[Ticket]]:
            steps = [
                self._cancelled(ticket, rule)
                for ticket in found
                if ticket.usable and ticket.target == target and not ticket.any_of_level
            ]
            return _gather(steps)

        return self.ledger.read(_read, store.tickets_for_target, target).addCallback(apply)

    def _cancelled(self, ticket: Ticket, rule: OnCancel) -> Deferred[Ticket]:
        key = key_of(ticket.ticket_id, "cancelled")
        return self._settle(rules.target_cancelled(ticket, rule, key), key, "refund", ticket)

    def expire(self, ticket: Ticket, now_ms: int) -> Deferred[Ticket]:
        """A usable ticket past its expiry: forfeit to the house (T-16)."""
        key = key_of(ticket.ticket_id, "expire")
        return self._settle(rules.expire(ticket, now_ms, key), key, "transfer", ticket)

    def sweep(self) -> Deferred[list[Ticket]]:
        """Expire what is due; apply cancelled targets' rules to their tickets (stored state)."""
        now = self.now_ms()

        def due(engine: Engine) -> tuple[tuple[Ticket, ...], list[tuple[Ticket, OnCancel]]]:
            def work(conn: Connection) -> tuple[tuple[Ticket, ...], list[tuple[Ticket, OnCancel]]]:
                expired = store.expired_tickets(conn, now)
                cancelled = [
                    (ticket, OnCancel(config.get("cancelled_tickets", OnCancel.RETURN.value)))
                    for ticket, config in store.tickets_of_cancelled_targets(conn)
                    if ticket.expires_at_ms > now
                ]
                return expired, cancelled

            return read(engine, work)

        def settle(found: tuple[tuple[Ticket, ...], list[tuple[Ticket, OnCancel]]]) -> Any:
            expired, cancelled = found
            steps = [self.expire(t, now) for t in expired]
            steps += [self._cancelled(t, rule) for t, rule in cancelled]
            return _gather(steps)

        return self.ledger.read(due).addCallback(settle)


def _read(engine: Engine, fetch: Any, *args: Any) -> Any:
    """`fetch(conn, *args)` in a read transaction (blocking)."""
    return read(engine, lambda conn: fetch(conn, *args))


def _gather(steps: list[Deferred[Ticket]]) -> Deferred[list[Ticket]]:
    """Wait for every step; refused ones are logged and left out (the next sweep retries)."""
    if not steps:
        return succeed([])

    def collect(results: list[tuple[bool, Any]]) -> list[Ticket]:
        done = []
        for ok, value in results:
            if ok:
                done.append(value)
            else:
                log.warning("ticket_step_refused", error=str(value.value))
        return done

    return DeferredList(steps, consumeErrors=True).addCallback(collect)
