"""The tournament's one door to the ledger: each money decision is one balanced transfer (P-2).

The director returns `MoneyMove`s; a decision (an entry, a refund, a prize) may hold several
(the buy-in to the pool and the fee to the house, T-2). The cashier posts all the moves of one
decision as ONE transfer, all or nothing, under one idempotency key chosen by the actor
(`tourney:<id>:<action>:<player>:<n>`). Chips are not money and never come here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.ledger import AccountKind, AccountRef, LedgerService, transfers
from pokerroom.ledger import accounts as ledger_accounts
from pokerroom.ledger.db import in_transaction
from pokerroom.ledger.posting import StaleIds
from pokerroom.ledger.transfers import Transfer, transfer_on
from tournaments.actor.fence import TournamentFence
from tournaments.director.money import Account, MoneyMove

T = TypeVar("T")


class Cashier:
    """Posts the director's money moves for one tournament through the LedgerService."""

    def __init__(self, ledger: LedgerService, tournament_id: str, currency: str) -> None:
        self.ledger = ledger
        self.tournament_id = tournament_id
        self.currency = currency
        self.reference = f"tournament:{tournament_id}"
        self.in_flight = 0  # transfers posted and not yet answered
        #: Cluster mode: the tournament's lease; every transfer's transaction checks it first.
        self.fence: TournamentFence | None = None

    def _write(self, work: Callable[..., T], /, **kwargs: Any) -> Deferred[T]:
        """`ledger.write(work, ...)`, on the fence's engine when there is one (cluster mode)."""
        fence = self.fence
        if fence is None:
            return self.ledger.write(work, **kwargs)

        def fenced(engine: Engine, **kwargs: Any) -> T:
            return work(fence.engine(engine), **kwargs)

        def refused(failure: Failure) -> Failure:
            fence.refused(failure.value)
            return failure

        return self.ledger.write(fenced, **kwargs).addErrback(refused)

    def key(self, action: str, player: str, n: int | str) -> str:
        """The idempotency key of one money decision."""
        return f"tourney:{self.tournament_id}:{action}:{player}:{n}"

    def account(self, account: Account) -> AccountRef:
        """The ledger account of a director account (a ticket has no ledger kind yet)."""
        return AccountRef(AccountKind(account.kind), account.owner, self.currency)

    def postings(self, moves: Iterable[MoneyMove]) -> dict[AccountRef, int]:
        """Net postings of several moves: one balanced entry."""
        net: dict[AccountRef, int] = {}
        for move in moves:
            source = self.account(move.source)
            destination = self.account(move.destination)
            net[source] = net.get(source, 0) - move.amount
            net[destination] = net.get(destination, 0) + move.amount
        return {ref: amount for ref, amount in net.items() if amount}

    def post(self, moves: Iterable[MoneyMove], key: str, kind: str) -> Deferred[Transfer | None]:
        """Post `moves` as one transfer under `key`; fires None when nothing moves."""
        postings = self.postings(moves)
        if not postings:
            d: Deferred[Transfer | None] = Deferred()
            d.callback(None)
            return d
        self.in_flight += 1
        pairs = list(postings.items())  # pairs: the ledger's Mapping form is keyed by AccountLike
        posted: Deferred[Transfer]
        if self.fence is None:
            posted = self.ledger.transfer(
                key=key, kind=kind, currency=self.currency, postings=pairs, reference=self.reference
            )
        else:  # cluster mode: on the lease's fenced engine
            posted = self._write(
                transfers.transfer,
                key=key,
                kind=kind,
                currency=self.currency,
                postings=pairs,
                reference=self.reference,
                memo="",
            )

        def answered(result: Transfer | Failure) -> Transfer | Failure | None:
            self.in_flight -= 1
            return result

        return posted.addBoth(answered)

    def post_with(
        self,
        moves: Iterable[MoneyMove],
        key: str,
        kind: str,
        also: Callable[[Connection], T],
    ) -> Deferred[tuple[Transfer | None, T]]:
        """Post `moves` as one transfer under `key` and run `also(conn)` (a store write: a
        ticket's state, a bounty total, an audit row) in the SAME database transaction
        (docs/ARCHITECTURE.md rule 14): both land, or neither. `also` raising refuses both.

        Run through the ledger's money lane and retried through an outage, so `also` must be
        idempotent (a guarded state step, or absolute values), as the transfer is by its key.
        """
        postings = list(self.postings(moves).items())
        self.in_flight += 1
        done = self._write(
            post_and,
            key=key,
            kind=kind,
            currency=self.currency,
            postings=postings,
            reference=self.reference,
            also=also,
        )

        def answered(
            result: tuple[Transfer | None, T] | Failure,
        ) -> tuple[Transfer | None, T] | Failure:
            self.in_flight -= 1
            return result

        return done.addBoth(answered)


def post_and(
    engine: Engine,
    *,
    key: str,
    kind: str,
    currency: str,
    postings: Sequence[tuple[AccountRef, int]],
    reference: str,
    also: Callable[[Connection], T],
) -> tuple[Transfer | None, T]:
    """One transaction: the transfer (none when nothing moves) and `also(conn)` (blocking)."""

    def work(conn: Connection) -> tuple[Transfer | None, T]:
        made = None
        if postings:
            made = transfer_on(
                conn,
                key=key,
                kind=kind,
                currency=currency,
                postings=postings,
                reference=reference,
            )
        return made, also(conn)

    for attempt in range(3):
        try:
            return in_transaction(engine, work)
        except StaleIds:  # a cached account id went stale (a database rebuilt): read them again
            ledger_accounts.forget_cached_ids(engine)
        except sa.exc.IntegrityError:  # a twin transaction won the key: run again, a replay
            if attempt == 2:
                raise
    return in_transaction(engine, work)
