"""The state at stop (T-18's input): an interrupted or cancelled tournament, checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from tournaments.director.refunds import (
    PlayerAtStop,
    RefundPhase,
    TournamentAtStop,
)
from tournaments.store.entries import Payment, load_entries, load_payments
from tournaments.store.lifecycle import TournamentRecord, load_tournament
from tournaments.store.schema import ALIVE, BUSTED, UNREGISTERED, StoreError
from tournaments.store.seats import load_seats

# --------------------------------------------------------------------------- the state at stop


@dataclass(frozen=True, slots=True)
class StoppedTournament:
    """What the refund job needs: the row, T-18's input, the purchases, each live entry."""

    record: TournamentRecord
    state: TournamentAtStop
    payments: tuple[Payment, ...]
    live_entry: Mapping[str, int]  # player -> the entry number still holding chips


def state_at_stop(conn: Connection, tournament_id: str) -> TournamentAtStop:
    """T-18's input: the tournament as of the last completed hand on every table."""
    return load_stopped(conn, tournament_id).state


def load_stopped(conn: Connection, tournament_id: str) -> StoppedTournament:
    """The interrupted or cancelled tournament, checked; StoreError if it cannot be right."""
    record = load_tournament(conn, tournament_id)
    if record is None:
        raise StoreError(f"no tournament {tournament_id!r}")
    every_entry = load_entries(conn, tournament_id)
    entries = [e for e in every_entry if e.status != UNREGISTERED]
    gone = {e.player for e in every_entry if e.status == UNREGISTERED}
    payments = tuple(p for p in load_payments(conn, tournament_id) if p.player not in gone)
    started = record.started_at_ms is not None
    live: dict[str, int] = {}
    for entry in entries:
        if entry.status == ALIVE:
            if entry.player in live:
                raise StoreError(f"{entry.player}: two entries alive at once")
            live[entry.player] = entry.entry_no
        elif entry.status != BUSTED:
            raise StoreError(f"{entry.player} #{entry.entry_no}: unknown status {entry.status!r}")
    stacks: dict[str, int] = {}
    for seat in load_seats(conn, tournament_id):
        if live.get(seat.player, seat.entry_no) != seat.entry_no:
            raise StoreError(f"{seat.player}: seated with entry #{seat.entry_no}, not the live one")
        stacks[seat.player] = seat.stack
    by_player: dict[str, list[Payment]] = {}
    for payment in payments:
        by_player.setdefault(payment.player, []).append(payment)
    prizes_paid: dict[str, int] = {}
    bounties: dict[str, int] = {}
    for entry in entries:
        prizes_paid[entry.player] = prizes_paid.get(entry.player, 0) + entry.prize
        if entry.status == ALIVE:
            bounties[entry.player] = entry.bounty
    if started:
        for player, stack in stacks.items():
            if player not in live and stack:
                raise StoreError(f"{player}: a seat with {stack} chips but no entry alive")
        for player in live:
            if not stacks.get(player):
                raise StoreError(f"{player}: alive but no stored stack (seats as of a hand)")
    at_stop = []
    for player in sorted(set(prizes_paid) | set(by_player)):
        mine = by_player.get(player, [])
        alive = player in live
        at_stop.append(
            PlayerAtStop(
                player,
                buy_in=sum(p.buy_in for p in mine),
                fee=sum(p.fee for p in mine),
                live_fee=sum(p.fee for p in mine if alive and p.entry_no == live[player]),
                chips=stacks.get(player, 0) if started else 0,
                bounty=bounties.get(player, 0) if started else sum(p.bounty for p in mine),
                busted=started and not alive,
                prizes_paid=prizes_paid.get(player, 0),
            )
        )
    phase = RefundPhase.NOT_STARTED
    if started:
        prizes = record.prizes
        in_money = prizes is not None and len(live) <= prizes.paid_places
        phase = RefundPhase.IN_THE_MONEY if in_money else RefundPhase.BEFORE_MONEY
    state = TournamentAtStop(
        phase,
        tuple(at_stop),
        guarantee=record.guarantee,
        guarantee_dropped=record.guarantee_dropped,
        prizes=record.prizes if phase is RefundPhase.IN_THE_MONEY else None,
        added=record.prize_added,
    )
    return StoppedTournament(record, state, payments, live)
