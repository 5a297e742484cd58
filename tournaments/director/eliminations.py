"""Knockouts, finishing places, the bubble and hand-for-hand play (T-8, T-9, T-14).

The actor reports the players a hand busted, with their stacks at the start of the hand
and their order from the button. In hand-for-hand play it collects the knockouts of one
round from every table and reports them together: they are simultaneous (T-9).
Who won the pot that busted a player is kept on every `Finish`, for bounties (T-14).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tournaments.director.payouts import split_equally


@dataclass(frozen=True, slots=True)
class Knockout:
    """A player busted in a hand: what T-9 ranks by, and who busted them (T-14)."""

    entry: str
    table_id: int
    stack_at_start: int  # chips at the start of the hand (T-9)
    seats_from_button: int  # 1 = first player to the left of the button, clockwise (T-9)
    busted_by: tuple[str, ...] = ()  # the winners of the knockout pot
    hand_id: str = ""


@dataclass(frozen=True, slots=True)
class Finish:
    """A finishing place; `tied` players share places place..place+tied-1 and their prizes."""

    entry: str
    place: int
    tied: int
    busted_by: tuple[str, ...]
    table_id: int
    hand_id: str


@dataclass(frozen=True, slots=True)
class PotResult:
    """One pot of a finished hand: who put chips in and who won it (main pot first)."""

    contributors: frozenset[str]
    winners: tuple[str, ...]


def order_from_button(button: int, seats_dealt: Collection[int], max_seats: int) -> dict[int, int]:
    """Each dealt seat's order from the button: 1 for the first player left of it (T-9)."""
    order = sorted(seats_dealt, key=lambda seat: (seat - button - 1) % max_seats)
    return {seat: index for index, seat in enumerate(order, start=1)}


def rank_knockouts(knockouts: Sequence[Knockout]) -> list[list[Knockout]]:
    """T-9: simultaneous knockouts from the lowest finish up, exact ties grouped.

    More chips at the start of the hand finishes higher; among equal stacks the one
    seated first to the left of the button finishes lowest, and so on clockwise. Across
    tables (hand-for-hand) each player's order is counted from their own table's button;
    players equal on both share the places they cover (the rules are silent: the choice
    of the large rooms and the TDA).
    """
    ordered = sorted(knockouts, key=lambda k: (k.stack_at_start, k.seats_from_button))
    groups: list[list[Knockout]] = []
    for knockout in ordered:
        if groups and _tie_key(groups[-1][0]) == _tie_key(knockout):
            groups[-1].append(knockout)
        else:
            groups.append([knockout])
    return groups


def _tie_key(knockout: Knockout) -> tuple[int, int]:
    """What two knockouts must share to tie."""
    return knockout.stack_at_start, knockout.seats_from_button


def place_knockouts(players_left: int, knockouts: Sequence[Knockout]) -> list[Finish]:
    """Places of simultaneous knockouts when `players_left` were in before the hand (T-9)."""
    if len(knockouts) > players_left:
        raise ValueError("more knockouts than players left")
    finishes = []
    worst = players_left
    for group in rank_knockouts(knockouts):
        best = worst - len(group) + 1
        for k in sorted(group, key=lambda k: (k.table_id, k.entry)):
            finishes.append(Finish(k.entry, best, len(group), k.busted_by, k.table_id, k.hand_id))
        worst = best - 1
    return finishes


def knockout_pot_winners(entry: str, pots: Sequence[PotResult]) -> tuple[str, ...]:
    """T-14: who busted `entry`: the winners of the highest pot `entry` put chips into."""
    for pot in reversed(pots):
        if entry in pot.contributors:
            return tuple(winner for winner in pot.winners if winner != entry)
    return ()


def split_bounty(bounty: int, winners: Sequence[str]) -> tuple[dict[str, int], int]:
    """T-14/T-7: a bounty split equally among the knockout pot's winners, rounded down."""
    each, rest = split_equally(bounty, len(winners))
    return {winner: each for winner in winners}, rest


def in_the_money(players_left: int, paid_places: int) -> bool:
    """T-5: the money is reached when the next player out wins a prize."""
    return players_left <= paid_places


def on_the_bubble(players_left: int, paid_places: int) -> bool:
    """The next player out finishes just out of the money."""
    return players_left == paid_places + 1


def bubble_burst(players_before: int, players_after: int, paid_places: int) -> bool:
    """This hand (or hand-for-hand round) took the tournament into the money (T-5, T-14)."""
    return players_before > paid_places >= players_after


def hand_for_hand(players_left: int, paid_places: int, tables: int, margin: int = 1) -> bool:
    """Play hand-for-hand on several tables from `margin` players before the money."""
    return tables > 1 and paid_places < players_left <= paid_places + margin


def next_hand_may_start(finished_tables: Collection[int], playing_tables: Collection[int]) -> bool:
    """Hand-for-hand: a table waits until every table has finished the round's hand."""
    return set(playing_tables) <= set(finished_tables)


def tournament_over(players_left: int, satellite_seats: int | None = None) -> bool:
    """T-8: one player holds every chip, or a satellite is down to its number of seats."""
    if satellite_seats is not None and players_left <= satellite_seats:
        return True
    return players_left <= 1
