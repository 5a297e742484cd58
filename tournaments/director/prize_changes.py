"""Changing prizes (T-15): the operator raises what is left of a prize table, or pays cash in
place of a seat, never lowering a prize and never leaving the pool out of balance.

`change_prizes` takes the fixed prize table (T-6), how many players are still in, and the new
amounts by place (first place first) for the whole table. It refuses, with a stable code:

- `prize_lowered`: a place would pay less than it does now (a place dropped from the table
  pays 0, which is less);
- `bad_prizes`: a better place paying less than a worse one, a place paying 0, a place that is
  already decided (its player finished: places below the players still in) changed, seats
  that are no longer equal, a seat raised while it stays a seat, cash for seats where none is
  left to award, or a change that changes nothing;
- `unbalanced_prizes`: the new table and the house rounding do not add up to the pool plus
  what the house adds, or the house would take more rounding than before (money of the
  players going to the house).

The money the raise needs (`added`) comes from the house overlay account, like a guarantee's
overlay (T-6), in one transfer under the caller's key (P-2). T-18 treats it like the overlay:
only what the entries paid in is shared if the tournament stops, and the rest goes back.

Cash in place of a seat (T-15, T-16: a satellite's seats are tickets, the non-cash prizes):
with `seats_in_cash` every seat still to award is paid in cash instead, each at least the seat's
value (as every amount is at least what it was), to the wallet at the finish; no ticket is
issued. Seats stay equal prizes (T-8: the seat winners finish together), so it is all of them
or none, and a seat is never raised while it stays a seat (it is worth its target's buy-in and
fee, no more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from tournaments.director import errors
from tournaments.director.errors import DirectorError
from tournaments.director.money import HOUSE_OVERLAY, MoneyMove, house, moves, prize_pool
from tournaments.director.payouts import PrizeTable


@dataclass(frozen=True, slots=True)
class PrizeChange:
    """An accepted change: the tables before and after, the money added, cash places, moves."""

    old: PrizeTable
    new: PrizeTable
    added: int  # from the house overlay account to the prize pool
    seats_in_cash: bool = False  # a satellite's seats are paid in cash instead of tickets
    moves: tuple[MoneyMove, ...] = ()


def _refuse(code: str, message: str) -> DirectorError:
    return DirectorError(code, message)


def change_prizes(
    tournament_id: str,
    table: PrizeTable,
    players_left: int,
    amounts: Sequence[int],
    *,
    key: str,
    rounding: int | None = None,
    seat_places: int = 0,
    seats_in_cash: bool = False,
) -> PrizeChange:
    """T-15: the new prize table, or a `DirectorError` saying why the change is refused.

    `rounding` is what the house rounding account gets from the new table (T-7), at most what
    it got from the old one (default: the same). `seat_places` is the number of places paid
    with a seat (a satellite's tickets); `seats_in_cash` pays them in cash from now on.
    """
    if sum(table.amounts) + table.rounding != table.pool:
        raise ValueError("the current prize table does not pay out its own pool")
    new_amounts = tuple(int(a) for a in amounts)
    kept_rounding = table.rounding if rounding is None else int(rounding)
    if not new_amounts or min(new_amounts) <= 0:
        raise _refuse(errors.BAD_PRIZES, "every paid place pays more than 0")
    if any(better < worse for better, worse in pairwise(new_amounts)):
        raise _refuse(errors.BAD_PRIZES, "a better place never pays less than a worse one")
    if len(new_amounts) < table.paid_places:
        place = len(new_amounts) + 1
        raise _refuse(errors.PRIZE_LOWERED, f"place {place} would no longer be paid")
    for place, amount in enumerate(new_amounts, start=1):
        old = table.prize(place)
        if amount < old:
            raise _refuse(errors.PRIZE_LOWERED, f"place {place} would pay {amount}, not {old}")
        if place > players_left and amount != old:
            raise _refuse(errors.BAD_PRIZES, f"place {place} is decided: its prize stands")
    seats = new_amounts[:seat_places]
    if len(set(seats)) > 1:
        raise _refuse(errors.BAD_PRIZES, "a satellite's seats are equal prizes (T-8)")
    if seats_in_cash and not 0 < seat_places < players_left:
        raise _refuse(errors.BAD_PRIZES, "no seat is left to award")
    if seats and not seats_in_cash and seats[0] != table.prize(1):
        raise _refuse(errors.BAD_PRIZES, "a seat is worth its target's buy-in and fee: pay cash")
    if not 0 <= kept_rounding <= table.rounding:
        raise _refuse(
            errors.UNBALANCED_PRIZES, "the house rounding never takes more than it did (T-7)"
        )
    added = sum(new_amounts) + kept_rounding - table.pool
    if added < 0:
        raise _refuse(errors.UNBALANCED_PRIZES, "the new table leaves money in the pool")
    if new_amounts == table.amounts and kept_rounding == table.rounding and not seats_in_cash:
        raise _refuse(errors.BAD_PRIZES, "the change changes nothing")
    new = PrizeTable(table.pool + added, new_amounts, kept_rounding)
    topup = MoneyMove("overlay", house(HOUSE_OVERLAY), prize_pool(tournament_id), added, key)
    return PrizeChange(table, new, added, seats_in_cash, moves(topup))
