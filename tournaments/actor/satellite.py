"""Satellites: seats in a target tournament as prizes (T-8, T-16, T-3).

The prize table of a satellite is N equal seats worth the target's buy-in + fee and the rest
of the pool to the next place (the director's `satellite_prizes`). The tournament ends when
only N players are left (T-8). A seat is paid as a **ticket** (`tournaments/actor/tickets.py`): the
seat's value moves from the pool to the ticket's own ledger account in one transfer, with the
ticket's row (owner, target, expiry) in the same transaction; then the winner is registered in
the target with that ticket (the entry's buy-in and fee come from the ticket, T-2). So a seat
never becomes money the winner holds: unregistering from the target gives the ticket back, not
T$ (T-3), and a ticket cannot be cashed. A winner already registered in the target, or out of
entries there, gets T$ of the target's buy-in less its fee instead (T-16); **our choice** where
the rules are silent: the seat's fee part then goes to the house fees, as it would have on
registering. The same holds when the winner registers in the target in the meantime: the
automatic registration is refused as a duplicate and the ticket becomes that T$.

T-15: when the operator pays the seats in cash instead (`PrizeChange.seats_in_cash`), each seat
is paid to the wallet like any prize, and no ticket is issued.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tournaments.director import errors
from tournaments.director import tickets as ticket_rules
from tournaments.director.errors import DirectorError
from tournaments.director.money import HOUSE_FEES, MoneyMove, house, prize_pool, tdollars, wallet
from tournaments.director.payouts import PrizeKind, PrizeTable, satellite_prizes, seat_award
from tournaments.director.registration import Funding
from tournaments.director.tickets import Ticket
from tournaments.satellite_target import SatelliteTarget

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

    from tournaments.actor.cashier import Cashier
    from tournaments.actor.durable import Durable
    from tournaments.actor.stakes import Stakes
    from tournaments.actor.tickets import TicketOffice
    from tournaments.director.money import MoneyMove as Move
    from tournaments.director.registration import RegistrationState


def satellite_table(target: SatelliteTarget, entries: int, pool: int) -> tuple[PrizeTable, int]:
    """The seats as a prize table (equal amounts, then the remainder) and the seat count."""
    prizes = satellite_prizes(entries, pool, target.seat_value, PrizeKind.CASH)
    amounts = (prizes.seat_value,) * prizes.seats
    if prizes.remainder:
        amounts += (prizes.remainder,)
    return PrizeTable(pool + prizes.overlay, amounts), prizes.seats


class SeatRunner(Protocol):
    """What the seat payer asks of the satellite's payout runner."""

    tid: str  # The tournament's id.

    def note(self, key: str, failure: Any) -> None:
        """A refused movement, kept for the staff."""
        ...

    def post_then(self, moves: tuple[Move, ...], key: str, kind: str, then: Any) -> None:
        """One transfer and, once it landed, `then(transfer)`."""
        ...


class SeatHome(Protocol):
    """What the seat payer uses of the satellite itself."""

    cashier: Cashier  # The tournament's ledger keys and transfers.
    stakes: Stakes  # The tournament's staking (T-17).
    durable: Durable  # The tournament's stored writes (T-18).


class TargetTournament(Protocol):
    """What the seat payer asks of the target tournament: who is in, and a registration."""

    state: RegistrationState  # The registrations as the director sees them.

    def register(self, player: str, funding: Funding, ticket_id: str) -> Deferred[Any]:
        """Register `player`, paid with the ticket (T-2, T-3)."""
        ...


class SeatPayer:
    """Pays a satellite's seats: a ticket to the winner, then the registration in the target."""

    def __init__(
        self,
        runner: SeatRunner,
        home: SeatHome,
        target: SatelliteTarget,
        find: Callable[[str], TargetTournament | None],
        tickets: TicketOffice,
    ) -> None:
        self.runner = runner
        self.home = home
        self.target = target
        self.find = find  # the target's actor, if it is open
        self.tickets = tickets
        self.awards: dict[str, PrizeKind] = {}
        self.issued: dict[str, Ticket] = {}  # entry -> the ticket it won (once it landed)
        self.seats_in_cash = False  # T-15: the operator pays the seats in cash instead

    def pay_seat(self, entry: str, amount: int = 0) -> int:
        """T-16: a ticket (and the registration with it), or T$ of the buy-in less the fee;
        T-15: cash of `amount` (the seat's prize) when the seats are paid in cash. Returns the
        value paid."""
        target, runner = self.target, self.runner
        key = self.home.cashier.key("seat", entry, target.tournament_id)
        pool = prize_pool(runner.tid)
        if self.seats_in_cash:  # money: shared with the seller's buyers like any prize (T-17)
            self.awards[entry] = PrizeKind.CASH
            cash = MoneyMove("prize", pool, wallet(entry), amount, "")
            shared, ops = self.home.stakes.share((cash,), key, "prize")
            paid = self.home.durable.money(shared, key, "prize", ops)
            paid.addErrback(lambda failure: runner.note(key, failure))
            return amount
        self.home.stakes.seat(entry)  # T-17: a seat, not money: the buyers get their price back
        actor = self.find(target.tournament_id)
        record = None if actor is None else actor.state.players.get(entry)
        registered = record is not None and record.alive
        used = 0 if record is None else record.entries
        award = seat_award(target.buy_in, target.fee, registered, used, target.max_entries)
        self.awards[entry] = award.kind
        if award.kind is PrizeKind.TDOLLARS:
            fee_part = target.seat_value - award.amount
            moves: tuple[MoneyMove, ...] = (
                MoneyMove("prize", pool, tdollars(entry), award.amount, ""),
                MoneyMove("fee", pool, house(HOUSE_FEES), fee_part, ""),
            )
            runner.post_then(moves, key, "prize", lambda _: None)
            return target.seat_value
        ticket = self.tickets.new_ticket(
            entry,
            source=runner.tid,
            label=target.tournament_id,
            target=target.tournament_id,
            buy_in=target.buy_in,
            fee=target.fee,
            any_of_level=target.any_of_level,
            valid_days=target.ticket_valid_days,
        )
        step = ticket_rules.issue(ticket, pool, key)
        issued = self.home.durable.money(
            step.moves, key, "prize", always=[self.tickets.issue_op(ticket)]
        )
        issued.addCallback(lambda _: self._register(entry)(ticket))
        issued.addErrback(lambda failure: runner.note(key, failure))
        return target.seat_value

    def _register(self, entry: str) -> Callable[[Ticket], Any]:
        """After the ticket landed: the registration in the target, paid with it (T-2, T-3)."""

        def register(ticket: Ticket) -> Any:
            self.issued[entry] = ticket
            actor = self.find(self.target.tournament_id)
            if actor is None:
                return None  # the target is not open: the winner registers with it later
            d = actor.register(entry, Funding.TICKET, ticket.ticket_id)
            d.addErrback(self._not_registered, entry, ticket)
            return d

        return register

    def _not_registered(self, failure: Any, entry: str, ticket: Ticket) -> Any:
        """A duplicate seat by now (T-16) becomes T$; any other refusal keeps the ticket."""
        duplicate = (errors.ALREADY_REGISTERED, errors.LIMIT_REACHED)
        if isinstance(failure.value, DirectorError) and failure.value.code in duplicate:
            self.awards[entry] = PrizeKind.TDOLLARS
            moves, key, step = self.tickets.duplicate_parts(ticket)
            d = self.home.durable.money(moves, key, "prize", always=[step])
            return d.addErrback(lambda f: self.runner.note(f"seat:{entry}", f))
        self.runner.note(f"seat:{entry}", failure)
        return None
