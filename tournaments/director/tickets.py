"""Satellite tickets (T-16, T-3): a right to one entry, backed by money held in the ledger.

A satellite's seat is paid as a **ticket**: its value (the target's buy-in plus fee) moves from
the satellite's prize pool to the ticket's own ledger account (kind `ticket`, owner the ticket
id), and the ticket names its owner, its target (one named tournament, or, by setting, any
tournament of the same buy-in level: the same buy-in plus fee) and when it expires. The money
only ever leaves that account:

- for an entry: registering with the ticket pays the entry's buy-in, fee (and bounty part,
  T-14) from the ticket's account in the entry's own transfer, and the ticket is `used`;
- back into it: unregistering (T-3) or a cancelled target (T-1, T-18.1) refunds the entry to
  the ticket's account, and the ticket is `returned`, usable again;
- as T$ (`converted`): a duplicate seat (T-16: the winner is already registered in the
  target, or has used every allowed entry there) becomes T$ of the target's buy-in **less its
  fee** (the fee part goes to the house fees, as it would have on registering); a target that
  is cancelled converts its tickets to T$ of buy-in plus fee when its rules say so
  (`OnCancel.CONVERT`); otherwise (the default, `OnCancel.RETURN`) the ticket comes back usable
  in any tournament of its buy-in level until it expires;
- to the house (`expired`): a ticket not used by its expiry is forfeit.

Never to a wallet: a ticket cannot be cashed, and it is never transferred (the owner is fixed;
there is no call that changes it). States: issued -> used -> returned -> used ...;
issued/returned -> expired | converted (final).

Pure: decisions are functions of the ticket and `now_ms`; money as `MoneyMove`s for the actor.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from enum import StrEnum

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import (
    HOUSE_FEES,
    TICKET,
    Account,
    MoneyMove,
    house,
    moves,
    tdollars,
)

HOUSE_EXPIRED = "house_expired"  # the ledger's account kind for forfeited tickets (T-16)
DAY_MS = 86_400_000


class TicketState(StrEnum):
    """Where a ticket stands."""

    ISSUED = "issued"  # won (or given), not used yet
    USED = "used"  # paid an entry; the entry's tournament holds its money
    RETURNED = "returned"  # back with its owner after an unregistration or a cancellation
    EXPIRED = "expired"  # not used in time: forfeit to the house
    CONVERTED = "converted"  # turned into T$ (a duplicate seat, or a cancelled target's rule)


USABLE = frozenset({TicketState.ISSUED, TicketState.RETURNED})
FINAL = frozenset({TicketState.EXPIRED, TicketState.CONVERTED})


class OnCancel(StrEnum):
    """What a cancelled target does with its tickets (the target's rule, T-16)."""

    RETURN = "return"  # back to the owner, usable in any tournament of its buy-in level
    CONVERT = "convert"  # T$ of the buy-in plus fee


@dataclass(frozen=True, slots=True)
class Ticket:
    """A right to one entry; its value sits in the ledger account `ticket_account(ticket_id)`."""

    ticket_id: str
    owner: str
    buy_in: int  # the target's buy-in (T-2)
    fee: int  # the target's fee
    target: str  # the named target tournament ("" for a ticket of a buy-in level only)
    issued_at_ms: int
    expires_at_ms: int
    state: TicketState = TicketState.ISSUED
    source: str = ""  # the satellite that awarded it
    any_of_level: bool = False  # valid in any tournament of the same buy-in plus fee
    used_in: str = ""  # the tournament whose entry it pays, while used

    @property
    def value(self) -> int:
        """What the ticket's account holds while the ticket is usable: buy-in plus fee."""
        return self.buy_in + self.fee

    @property
    def usable(self) -> bool:
        """Issued or returned: it may pay an entry (if not expired)."""
        return self.state in USABLE

    def valid_for(self, tournament_id: str, buy_in: int, fee: int) -> bool:
        """The ticket may pay an entry of this tournament (its target, or its buy-in level)."""
        if self.value != buy_in + fee:
            return False
        return self.any_of_level or (bool(self.target) and self.target == tournament_id)


@dataclass(frozen=True, slots=True)
class TicketStep:
    """A decision: the ticket after it, and the money to move (one transfer)."""

    ticket: Ticket
    moves: tuple[MoneyMove, ...] = ()


def make_ticket_id(source: str, owner: str, label: str | int) -> str:
    """A short id that is the same for the same award (P-2: a retried award is the same ticket)."""
    digest = hashlib.blake2b(f"{source}\x00{owner}\x00{label}".encode(), digest_size=10)
    return f"tk-{digest.hexdigest()}"


def ticket_account(ticket_id: str) -> Account:
    """The ledger account that holds a ticket's value (owner = the ticket id)."""
    return Account(TICKET, ticket_id)


def issue(ticket: Ticket, source: Account, key: str) -> TicketStep:
    """T-16: a seat won: its value from `source` (the satellite's pool) to the ticket's account."""
    if ticket.state is not TicketState.ISSUED or ticket.buy_in < 0 or ticket.fee < 0:
        raise ValueError("a new ticket is issued with a buy-in and fee")
    if ticket.value <= 0 or ticket.expires_at_ms <= ticket.issued_at_ms:
        raise ValueError("a ticket has a value and expires after it is issued")
    if not ticket.target and not ticket.any_of_level:
        raise ValueError("a ticket names its target or is valid at its buy-in level")
    move = MoneyMove("prize", source, ticket_account(ticket.ticket_id), ticket.value, key)
    return TicketStep(ticket, moves(move))


def verify_use(
    ticket: Ticket | None,
    player: str,
    tournament_id: str,
    buy_in: int,
    fee: int,
    now_ms: int,
) -> Ticket:
    """Raise why `player` cannot pay an entry of this tournament with `ticket`; else the ticket.

    Codes: `unknown_ticket` (no such ticket, or another player's: a ticket's existence is not
    told to others), `ticket_not_usable` (used, expired or converted), `ticket_expired`
    (its expiry passed), `wrong_ticket` (another tournament or buy-in level).
    """
    if ticket is None or ticket.owner != player:
        raise DirectorError(errors.UNKNOWN_TICKET, "you hold no such ticket")
    if ticket.state is TicketState.EXPIRED or (ticket.usable and now_ms >= ticket.expires_at_ms):
        raise DirectorError(errors.TICKET_EXPIRED, "the ticket has expired")
    if not ticket.usable:
        raise DirectorError(errors.TICKET_NOT_USABLE, f"the ticket is {ticket.state.value}")
    if not ticket.valid_for(tournament_id, buy_in, fee):
        raise DirectorError(errors.WRONG_TICKET, "the ticket is not for this tournament")
    return ticket


def use(ticket: Ticket, tournament_id: str) -> Ticket:
    """The ticket pays an entry of `tournament_id` (its money goes in the entry's transfer)."""
    if not ticket.usable:
        raise ValueError(f"a {ticket.state.value} ticket pays nothing")
    return replace(ticket, state=TicketState.USED, used_in=tournament_id)


def give_back(ticket: Ticket, *, any_of_level: bool = False) -> Ticket:
    """T-3 (unregistered) or T-1 (the target cancelled): the entry's money is back on the
    ticket's account, and the ticket with its owner; `any_of_level` widens it to its level."""
    if ticket.state is not TicketState.USED:
        raise ValueError("only a used ticket comes back")
    return replace(
        ticket,
        state=TicketState.RETURNED,
        used_in="",
        any_of_level=ticket.any_of_level or any_of_level,
    )


def duplicate_seat(ticket: Ticket, key: str) -> TicketStep:
    """T-16: the owner is already registered in the target (or out of entries there): T$ of
    the target's buy-in less its fee; the fee part goes to the house fees."""
    if not ticket.usable:
        raise ValueError(f"a {ticket.state.value} ticket converts to nothing")
    account = ticket_account(ticket.ticket_id)
    paid = moves(
        MoneyMove("prize", account, tdollars(ticket.owner), ticket.buy_in, f"{key}:tdollars"),
        MoneyMove("fee", account, house(HOUSE_FEES), ticket.fee, f"{key}:fee"),
    )
    return TicketStep(replace(ticket, state=TicketState.CONVERTED), paid)


def target_cancelled(ticket: Ticket, rule: OnCancel, key: str) -> TicketStep:
    """T-16 with the target's rule: a usable ticket of a cancelled target comes back usable at
    its buy-in level (`RETURN`), or becomes T$ of buy-in plus fee (`CONVERT`)."""
    if not ticket.usable:
        raise ValueError(f"a {ticket.state.value} ticket has nothing to give back")
    if rule is OnCancel.RETURN:
        return TicketStep(replace(ticket, any_of_level=True))
    account = ticket_account(ticket.ticket_id)
    move = MoneyMove("refund", account, tdollars(ticket.owner), ticket.value, key)
    return TicketStep(replace(ticket, state=TicketState.CONVERTED), moves(move))


def expire(ticket: Ticket, now_ms: int, key: str) -> TicketStep:
    """A usable ticket past its expiry is forfeit: its value goes to the house."""
    if not ticket.usable or now_ms < ticket.expires_at_ms:
        raise ValueError("only a usable ticket past its expiry expires")
    account = ticket_account(ticket.ticket_id)
    move = MoneyMove("transfer", account, house(HOUSE_EXPIRED), ticket.value, key)
    return TicketStep(replace(ticket, state=TicketState.EXPIRED), moves(move))
