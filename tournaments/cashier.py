"""The tournament's one door to the ledger: each money decision is one balanced transfer (P-2).

The director returns `MoneyMove`s; a decision (an entry, a refund, a prize) may hold several
(the buy-in to the pool and the fee to the house, T-2). The cashier posts all the moves of one
decision as ONE transfer, all or nothing, under one idempotency key chosen by the actor
(`tourney:<id>:<action>:<player>:<n>`). Chips are not money and never come here.
"""

from __future__ import annotations

from collections.abc import Iterable

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pokerroom.ledger import AccountKind, AccountRef, LedgerService
from pokerroom.ledger.transfers import Transfer
from tournaments.director.money import Account, MoneyMove


class Cashier:
    """Posts the director's money moves for one tournament through the LedgerService."""

    def __init__(self, ledger: LedgerService, tournament_id: str, currency: str) -> None:
        self.ledger = ledger
        self.tournament_id = tournament_id
        self.currency = currency
        self.reference = f"tournament:{tournament_id}"
        self.in_flight = 0  # transfers posted and not yet answered

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
        posted = self.ledger.transfer(
            key=key,
            kind=kind,
            currency=self.currency,
            postings=postings.items(),  # pairs: the ledger's Mapping form is keyed by AccountLike
            reference=self.reference,
        )

        def answered(result: Transfer | Failure) -> Transfer | Failure | None:
            self.in_flight -= 1
            return result

        return posted.addBoth(answered)
