"""Satellites: seats in a target tournament as prizes (T-8, T-16).

The prize table of a satellite is N equal seats worth the target's buy-in + fee and the rest
of the pool to the next place (the director's `satellite_prizes`). The tournament ends when
only N players are left (T-8). A seat is paid in two transfers: the seat's value from the
pool to the winner's T$, then the winner's registration in the target paid with that T$ (its
own buy-in and fee transfer, T-2) — so the seat is a ticket whose value never leaves the
ledger. A winner already registered in the target, or out of entries there, gets T$ of the
target's buy-in less its fee instead (T-16); **our choice** where the rules are silent: the
seat's fee part then goes to the house fees, as it would have on registering.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tournaments.director.money import HOUSE_FEES, MoneyMove, house, prize_pool, tdollars
from tournaments.director.payouts import PrizeKind, PrizeTable, satellite_prizes, seat_award
from tournaments.director.registration import Funding

if TYPE_CHECKING:
    from tournaments.actor import TournamentActor
    from tournaments.payout_runner import PayoutRunner


@dataclass(frozen=True, slots=True)
class SatelliteTarget:
    """The tournament whose seats a satellite awards."""

    tournament_id: str
    buy_in: int
    fee: int
    max_entries: int = 1  # entries a player may use in the target (T-16)

    @property
    def seat_value(self) -> int:
        """What one seat is worth: the target's buy-in and fee."""
        return self.buy_in + self.fee


def satellite_table(target: SatelliteTarget, entries: int, pool: int) -> tuple[PrizeTable, int]:
    """The seats as a prize table (equal amounts, then the remainder) and the seat count."""
    prizes = satellite_prizes(entries, pool, target.seat_value, PrizeKind.CASH)
    amounts = (prizes.seat_value,) * prizes.seats
    if prizes.remainder:
        amounts += (prizes.remainder,)
    return PrizeTable(pool + prizes.overlay, amounts), prizes.seats


class SeatPayer:
    """Pays a satellite's seats: T$ to the winner, then the registration in the target."""

    def __init__(
        self,
        runner: PayoutRunner,
        target: SatelliteTarget,
        find: Callable[[str], TournamentActor | None],
    ) -> None:
        self.runner = runner
        self.target = target
        self.find = find  # the target's actor, if it is open
        self.awards: dict[str, PrizeKind] = {}

    def pay_seat(self, entry: str) -> int:
        """T-16: a seat (registered in the target with T$) or T$ of the buy-in less the fee."""
        target, runner = self.target, self.runner
        actor = self.find(target.tournament_id)
        record = None if actor is None else actor.state.players.get(entry)
        registered = record is not None and record.alive
        used = 0 if record is None else record.entries
        award = seat_award(target.buy_in, target.fee, registered, used, target.max_entries)
        self.awards[entry] = award.kind
        pool = prize_pool(runner.tid)
        key = runner.actor.cashier.key("seat", entry, target.tournament_id)
        moves: tuple[MoneyMove, ...] = (
            MoneyMove("prize", pool, tdollars(entry), award.amount, ""),
        )
        if award.kind is PrizeKind.TDOLLARS:
            fee_part = target.seat_value - award.amount
            moves += (MoneyMove("fee", pool, house(HOUSE_FEES), fee_part, ""),)
        runner.post_then(moves, key, "prize", self._register(entry, award.kind))
        return target.seat_value

    def _register(self, entry: str, kind: PrizeKind) -> Callable[[Any], Any]:
        """After the T$ landed: the registration in the target, paid with it (T-2)."""

        def register(_: object) -> Any:
            actor = self.find(self.target.tournament_id)
            if kind is not PrizeKind.SEAT or actor is None:
                return None  # the winner keeps the T$ (the target is not open)
            d = actor.register(entry, Funding.TDOLLARS)
            d.addErrback(lambda failure: self.runner.note(f"seat:{entry}", failure))
            return d

        return register
