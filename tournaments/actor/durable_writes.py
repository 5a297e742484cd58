"""The blocking writes of a tournament's decisions (T-18): each a step of a recorder unit on
the unit's connection, written with absolute values or guarded steps, so a write retried
through an outage is the same write (`tournaments.actor.durable` groups them per decision)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tournaments import store
from tournaments.director.money import (
    HOUSE_FEES,
    TDOLLARS,
    TICKET,
    MoneyMove,
    bounty_pool,
    prize_pool,
)
from tournaments.director.registration import Funding

if TYPE_CHECKING:
    pass

#: The table id of players who paid an entry while the tournament runs and wait for a seat:
#: their chips are stored there until their table's next hand (or a restart seats them).
WAITING = "waiting"
PURCHASE_KINDS = {"register": "entry", "reentry": "reentry", "rebuy": "rebuy", "addon": "addon"}


def new_entry(
    conn: Connection, tournament_id: str, entry: store.EntryRecord, payment: store.Payment
) -> None:
    """A registration or re-entry: the entry and its purchase (idempotent).

    A player registering again after unregistering (T-3) starts afresh: the old rows, whose
    money went back, are removed.
    """
    entries, payments = store.tournament_entries, store.tournament_payments
    gone = sa.select(entries.c.player).where(
        entries.c.tournament_id == tournament_id,
        entries.c.player == entry.player,
        entries.c.status == store.UNREGISTERED,
    )
    if conn.execute(gone).first() is not None:
        for table in (payments, entries):
            conn.execute(
                sa.delete(table).where(
                    table.c.tournament_id == tournament_id, table.c.player == entry.player
                )
            )
    conn.execute(
        sa.delete(entries).where(
            entries.c.tournament_id == tournament_id,
            entries.c.player == entry.player,
            entries.c.entry_no == entry.entry_no,
        )
    )
    store.add_entries(conn, tournament_id, [entry])
    add_payment(conn, tournament_id, payment)


def add_payment(conn: Connection, tournament_id: str, payment: store.Payment) -> None:
    """A purchase (idempotent: the same purchase replaces itself)."""
    payments = store.tournament_payments
    conn.execute(
        sa.delete(payments).where(
            payments.c.tournament_id == tournament_id,
            payments.c.player == payment.player,
            payments.c.seq == payment.seq,
        )
    )
    store.add_payments(conn, tournament_id, [payment])


def unregistered(conn: Connection, tournament_id: str, player: str) -> None:
    """T-3: the player's entries count for nothing now (their money went back)."""
    entries = store.tournament_entries
    conn.execute(
        sa.update(entries)
        .where(entries.c.tournament_id == tournament_id, entries.c.player == player)
        .values(status=store.UNREGISTERED)
    )


def revived(conn: Connection, tournament_id: str, player: str, entry_no: int) -> None:
    """T-4: a busted player's rebuy brings the entry back in: alive, no place."""
    entries = store.tournament_entries
    conn.execute(
        sa.update(entries)
        .where(
            entries.c.tournament_id == tournament_id,
            entries.c.player == player,
            entries.c.entry_no == entry_no,
        )
        .values(status=store.ALIVE, place=None)
    )


def put_seat(conn: Connection, tournament_id: str, seat: store.SeatRecord) -> None:
    """A player sits down between hands (moved, T-10; or seated late): their one row."""
    seats = store.tournament_seats
    conn.execute(
        sa.delete(seats).where(
            seats.c.tournament_id == tournament_id,
            sa.or_(
                seats.c.player == seat.player,
                sa.and_(seats.c.table_id == seat.table_id, seats.c.seat == seat.seat),
            ),
        )
    )
    conn.execute(
        sa.insert(seats).values(
            tournament_id=tournament_id,
            table_id=seat.table_id,
            seat=seat.seat,
            player=seat.player,
            entry_no=seat.entry_no,
            stack=seat.stack,
            hand_number=seat.hand_number,
            table_state=seat.table_state,
            bank_ms=seat.bank_ms,
            bank_level=seat.bank_level,
            sitting_out=seat.sitting_out,
        )
    )


def set_stack(conn: Connection, tournament_id: str, player: str, stack: int) -> None:
    """The stored stack with chips bought since the table's last completed hand (T-4)."""
    seats = store.tournament_seats
    conn.execute(
        sa.update(seats)
        .where(seats.c.tournament_id == tournament_id, seats.c.player == player)
        .values(stack=stack)
    )


#: `record_seats`' statements, in each driver's parameter style (built once: a hand is written
#: every few milliseconds at a large tournament, and building SQLAlchemy statements for each
#: cost four times the writing itself).
def _seats_sql(p: Callable[[str], str]) -> tuple[str, str, str, str, str]:
    """The statements with `p(name)` as each parameter's placeholder."""
    return (
        f"DELETE FROM tournament_seats WHERE tournament_id = {p('tid')} AND table_id = {p('t')}",
        f"DELETE FROM tournament_seats WHERE tournament_id = {p('tid')} AND player = {p('who')}",
        "INSERT INTO tournament_seats (tournament_id, table_id, seat, player, entry_no, stack, "
        "hand_number, table_state, bank_ms, bank_level, sitting_out) VALUES "
        f"({p('tid')}, {p('t')}, {p('seat')}, {p('who')}, {p('no')}, {p('stack')}, {p('hand')}, "
        f"{p('state')}, {p('bank')}, {p('level')}, {p('out')})",
        f"UPDATE tournament_seats SET stack = {p('stack')}, bank_ms = {p('bank')}, "
        f"bank_level = {p('level')}, sitting_out = {p('out')} "
        f"WHERE tournament_id = {p('tid')} AND player = {p('who')}",
        f"UPDATE tournament_seats SET hand_number = {p('hand')}, table_state = {p('state')} "
        f"WHERE tournament_id = {p('tid')} AND table_id = {p('t')}",
    )


_SEATS_SQL = {
    "named": _seats_sql(lambda name: f":{name}"),
    "pyformat": _seats_sql(lambda name: f"%({name})s"),
}


#: One player's row as a hand leaves it: (stack, time bank ms or None, the bank's level,
#: sit-out flag) — what `record_seats` and `update_stacks` write (T-18).
PlayerState = tuple[int, int | None, int, str]


def record_seats(
    conn: Connection,
    tournament_id: str,
    table_id: str,
    hand_number: int,
    seats: Sequence[tuple[int, str, int, PlayerState]],
    table_state: str = "",
) -> None:
    """A completed hand of one table: its rows become `seats` (seat, player, entry, state),
    with the table's button and blinds (`table_state`).

    What `store.record_hand` does (a listed player's row at another table goes too, T-10),
    with statements prepared once and the rows written in one `executemany` (the hot path).
    """
    by_table, by_player, insert, _, _ = _SEATS_SQL[_style(conn)]
    conn.exec_driver_sql(by_table, {"tid": tournament_id, "t": table_id})
    if not seats:
        return
    conn.exec_driver_sql(by_player, [{"tid": tournament_id, "who": who} for _, who, _, _ in seats])
    conn.exec_driver_sql(
        insert,
        [
            {
                "tid": tournament_id,
                "t": table_id,
                "seat": seat,
                "who": who,
                "no": number,
                "stack": stack,
                "hand": hand_number,
                "state": table_state,
                "bank": bank,
                "level": level,
                "out": out,
            }
            for seat, who, number, (stack, bank, level, out) in seats
        ],
    )


def _style(conn: Connection) -> str:
    return "pyformat" if conn.dialect.paramstyle in ("pyformat", "format") else "named"


def update_stacks(
    conn: Connection,
    tournament_id: str,
    table_id: str,
    hand_number: int,
    stacks: Sequence[tuple[str, PlayerState]],
    table_state: str = "",
) -> None:
    """A completed hand that seated nobody new and lost nobody: the table's rows take the
    hand's number and button, and only the players it changed (player, state) are written
    (the hot path: a tight table moves two or three stacks a hand; rewriting every row and
    its index entries costs WAL pages on every commit)."""
    sql = _SEATS_SQL[_style(conn)]
    conn.exec_driver_sql(
        sql[4], {"tid": tournament_id, "t": table_id, "hand": hand_number, "state": table_state}
    )
    if stacks:
        conn.exec_driver_sql(
            sql[3],
            [
                {"tid": tournament_id, "who": who, "stack": st, "bank": b, "level": lv, "out": o}
                for who, (st, b, lv, o) in stacks
            ],
        )


def save_clock(
    conn: Connection,
    tournament_id: str,
    level_index: int,
    ms_left: int | None,
    at_ms: int,
    paused: bool | None = None,
) -> None:
    """The level clock as it stands, and when the stored state was last written (and, given,
    whether a staff pause is on: it stands through a restart, T-18)."""
    values: dict[str, Any] = {
        "level_index": level_index,
        "level_ms_left": ms_left,
        "saved_at_ms": at_ms,
    }
    if paused is not None:
        values["paused"] = paused
    conn.execute(
        sa.update(store.tournaments).where(store.tournaments.c.id == tournament_id).values(values)
    )


def set_places(
    conn: Connection, tournament_id: str, places: Sequence[tuple[str, int, int]]
) -> None:
    """Places made final once the field stopped growing (T-5, T-6): (player, entry, place)."""
    entries = store.tournament_entries
    if not places:
        return
    conn.execute(
        sa.update(entries)
        .where(
            entries.c.tournament_id == sa.bindparam("tid"),
            entries.c.player == sa.bindparam("who"),
            entries.c.entry_no == sa.bindparam("no"),
        )
        .values(place=sa.bindparam("place")),
        [{"tid": tournament_id, "who": p, "no": n, "place": pl} for p, n, pl in places],
    )


# --------------------------------------------------------------------------- the actor's side


def purchase_parts(tournament_id: str, moves: Iterable[MoneyMove]) -> tuple[int, int, int]:
    """(buy-in to the pool, fee to the house, bounty to the bounty pool) of a purchase (T-2)."""
    pool, bounties = prize_pool(tournament_id), bounty_pool(tournament_id)
    buy_in = fee = bounty = 0
    for move in moves:
        if move.destination == pool:
            buy_in += move.amount
        elif move.destination == bounties:
            bounty += move.amount
        elif move.destination.kind == HOUSE_FEES:
            fee += move.amount
    return buy_in, fee, bounty


def funding_of(moves: Sequence[MoneyMove], fallback: Funding, ticket: str) -> tuple[Funding, str]:
    """How a purchase was paid: by the account its money came from (T-3, T-16)."""
    if not moves:
        return fallback, ticket
    source = moves[0].source
    if source.kind == TDOLLARS:
        return Funding.TDOLLARS, ""
    if source.kind == TICKET:
        return Funding.TICKET, source.owner
    return Funding.CASH, ""
