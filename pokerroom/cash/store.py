"""Cash-table persistence: hands, seats at hand boundaries, rake shares, C-8/C-10/C-4 memory.

The tables are declared in `pokerroom.cash.schema`.
Every function here is blocking and runs in the ledger's thread pools through the
`LedgerService` (docs/ARCHITECTURE.md rule 7); each returns plain values. The writes that the
service retries through an outage (`start_hand`, `settle_hand`, `seat_player`, `add_chips`,
`recover_table`) are idempotent: run again after a commit whose answer was lost, they find
their rows and ledger keys in place and change nothing more (rule 16).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from pokerroom.cash.schema import (
    SETTLED,
    STARTED,
    VOID,
    cash_hands,
    cash_seats,
)
from pokerroom.ledger import transfers
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.db import DriverCursor, in_transaction, read
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import AccountKind, AccountRef, TransferKind, house, wallet
from pokerroom.ledger.schema import accounts, journal, postings

#: A finished hand's history to keep: (table_id, its players, its PHH fields).
HistoryIn = tuple[str, Sequence[str], Mapping[str, Any]]


def escrow(table_id: str, player_id: str, currency: str) -> AccountRef:
    """A seat's chips: `seat_escrow:<table_id>/<player>:<CUR>` (docs/design/room.md)."""
    return AccountRef(AccountKind.SEAT_ESCROW, f"{table_id}/{player_id}", currency)


# Statements of the per-hand path, written once per driver and run on the driver's cursor:
# building and keying a Core statement, and SQLAlchemy's per-execution work, cost the single
# writer thread (and the GIL it shares with the reactor) more than executing them.
_SEAT_COLUMNS = (
    "table_id, seat, player_id, session, stack, sat_at_ms, hands_played, timebank_ms,"
    " sitting_out, missed_sb, missed_bb"
)


class _Sql:
    """The per-hand statements with `m`, the driver's positional placeholder."""

    def __init__(self, m: str) -> None:
        self.mark = m
        self.insert_hand = (
            "INSERT INTO cash_hands (id, table_id, number, status, started_at_ms, start_stacks)"
            f" VALUES ({m}, {m}, {m}, {m}, {m}, {m}) ON CONFLICT (id) DO NOTHING"
        )
        self.insert_seat = (
            f"INSERT INTO cash_seats ({_SEAT_COLUMNS}) VALUES ({', '.join([m] * 11)})"
        )
        self.settle_hand = (
            f"UPDATE cash_hands SET status = {m}, result = {m}, ended_at_ms = {m} WHERE id = {m}"
        )
        self.settle_hand_kept_end = (
            f"UPDATE cash_hands SET status = {m}, result = {m} WHERE id = {m}"
        )
        self.insert_rake = (
            f"INSERT INTO cash_hand_rake (hand_id, player_id, amount) VALUES ({m}, {m}, {m})"
            " ON CONFLICT (hand_id, player_id) DO NOTHING"
        )
        self.insert_history = (
            "INSERT INTO cash_hand_histories (hand_id, table_id, ended_at_ms, history)"
            f" VALUES ({m}, {m}, {m}, {m})"
        )
        self.insert_hand_player = (
            "INSERT INTO cash_hand_players (player_id, hand_id, table_id, ended_at_ms)"
            f" VALUES ({m}, {m}, {m}, {m})"
        )
        self._deletes: dict[int, str] = {}

    def delete_seats(self, count: int) -> str:
        """DELETE of `count` seats of one table (the table id first, then the seats)."""
        text = self._deletes.get(count)
        if text is None:
            seats = ", ".join([self.mark] * count)
            text = f"DELETE FROM cash_seats WHERE table_id = {self.mark} AND seat IN ({seats})"
            self._deletes[count] = text
        return text


_SQL = {"sqlite": _Sql("?"), "postgresql": _Sql("%s")}


def _sql(conn: Connection) -> _Sql:
    """The statements in the placeholder style of the connection's driver."""
    return _SQL[conn.dialect.name]


def settlement_key(hand_id: str) -> str:
    """The idempotency key of a hand's one settlement transfer."""
    return f"hand:{hand_id}"


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A persisted seat; `stack` is the escrow balance, the truth after a crash (C-12)."""

    seat: int
    player_id: str
    session: str
    stack: int
    sat_at_ms: int
    hands_played: int
    timebank_ms: int
    sitting_out: bool
    missed_sb: bool
    missed_bb: bool


@dataclass(frozen=True, slots=True)
class Recovery:
    """What a (re)starting table finds: voided and settled hands, its seats, next hand number.

    `last_transfer_id` is the newest ledger transfer when the seats' stacks were read from their
    escrows: a top-up whose transfer is not newer is in its seat's stack already (P-2).
    """

    voided: tuple[str, ...]
    settled: tuple[str, ...]
    seats: tuple[SeatRow, ...]
    next_number: int
    returned: tuple[tuple[str, int], ...] = ()  # escrows without a seat, paid back
    last_transfer_id: int = 0


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    """A buy-in or top-up as the ledger holds it: its transfer, and whether an earlier call
    with the same key had made it (`replayed`: nothing moved now, P-2)."""

    transfer_id: int
    replayed: bool


def _seat_values(table_id: str, row: SeatRow) -> dict[str, Any]:
    return {"table_id": table_id, **{k: getattr(row, k) for k in SeatRow.__slots__}}


def recover_table(engine: Engine, table_id: str, currency: str) -> Recovery:
    """C-12: void hands left `started` unless their settlement exists; reload the seats."""

    def work(
        conn: Connection,
    ) -> tuple[list[str], list[str], Sequence[sa.Row[*tuple[Any, ...]]], int, int]:
        # Read first: every transfer up to it is in the escrow balances read below (P-2).
        last_transfer = conn.execute(sa.select(sa.func.max(journal.c.id))).scalar() or 0
        open_hands = conn.execute(
            sa.select(cash_hands.c.id, cash_hands.c.result).where(
                cash_hands.c.table_id == table_id, cash_hands.c.status == STARTED
            )
        ).all()
        voided: list[str] = []
        settled: list[str] = []
        for hand_id, result in open_hands:
            stored = transfers.get_transfer(conn, key=settlement_key(hand_id))
            if stored is not None:
                memo = stored.transfer.memo
                shares = {"rake_by_player": json.loads(memo)} if memo else {}
                _mark_settled(conn, hand_id, result or shares, None)
                settled.append(hand_id)
            else:
                conn.execute(
                    sa.update(cash_hands).where(cash_hands.c.id == hand_id).values(status=VOID)
                )
                voided.append(hand_id)
        rows = conn.execute(
            sa.select(cash_seats).where(cash_seats.c.table_id == table_id).order_by("seat")
        ).all()
        number = conn.execute(
            sa.select(sa.func.max(cash_hands.c.number)).where(cash_hands.c.table_id == table_id)
        ).scalar()
        return voided, settled, rows, (number or 0) + 1, last_transfer

    voided, settled, rows, next_number, last_transfer = in_transaction(engine, work)
    seats = []
    seen: set[str] = set()
    for r in rows:
        if r.player_id in seen:  # one seat per player: a second row is a stale leftover
            in_transaction(engine, partial(delete_seat, table_id=table_id, seat=r.seat))
            continue
        seen.add(r.player_id)
        try:
            balance = get_account(engine, escrow(table_id, r.player_id, currency)).balance
        except UnknownAccount:
            balance = 0
        if balance <= 0:  # the crash fell between cash-out and the seat's removal
            in_transaction(engine, partial(delete_seat, table_id=table_id, seat=r.seat))
            continue
        values = {k: getattr(r, k) for k in SeatRow.__slots__ if k != "stack"}
        seats.append(SeatRow(stack=balance, **values))
    returned = _return_orphans(engine, table_id, currency, {s.player_id for s in seats})
    return Recovery(
        tuple(voided), tuple(settled), tuple(seats), next_number, returned, last_transfer
    )


def _return_orphans(
    engine: Engine, table_id: str, currency: str, seated: set[str]
) -> tuple[tuple[str, int], ...]:
    """Escrow money of this table with no seat goes back to its wallet (P-2, C-12)."""
    prefix = f"{table_id}/"
    query = (
        sa.select(accounts.c.owner, accounts.c.balance, sa.func.max(postings.c.id).label("last"))
        .join(postings, postings.c.account_id == accounts.c.id)
        .where(
            accounts.c.kind == AccountKind.SEAT_ESCROW.value,
            accounts.c.currency == currency,
            accounts.c.balance > 0,
        )
        .group_by(accounts.c.id, accounts.c.owner, accounts.c.balance)
    )
    rows = read(engine, lambda conn: conn.execute(query).all())
    returned = []
    for owner, balance, last in rows:
        player = owner[len(prefix) :] if owner.startswith(prefix) else None
        if not player or "/" in player or player in seated:
            continue
        transfers.move(
            engine,
            key=f"recover:{table_id}:{player}:{last}",
            kind=TransferKind.CASH_OUT,
            currency=currency,
            source=escrow(table_id, player, currency),
            destination=wallet(player, currency),
            amount=balance,
            reference=f"table:{table_id}",
        )
        returned.append((player, balance))
    return tuple(returned)


def delete_seat(conn: Connection, table_id: str, seat: int) -> None:
    """Forget a seat row (its player stood up)."""
    conn.execute(
        sa.delete(cash_seats).where(cash_seats.c.table_id == table_id, cash_seats.c.seat == seat)
    )


def seat_player(engine: Engine, table_id: str, row: SeatRow, currency: str, key: str) -> ChipsAdded:
    """Write the seat, then move the buy-in wallet -> seat escrow; undo the seat on failure.

    Idempotent: the seat row is rewritten and the buy-in is one keyed move (its transfer).
    """

    def write_seat(conn: Connection) -> None:
        delete_seat(conn, table_id, row.seat)
        conn.execute(sa.insert(cash_seats), _seat_values(table_id, row))

    in_transaction(engine, write_seat)
    try:
        return add_chips(engine, table_id, row.player_id, currency, row.stack, key)
    except Exception:
        # In an outage the undo fails too; a seat row without escrow money is dropped when
        # the table next starts (C-12), and a retry rewrites the row anyway.
        with suppress(sa.exc.DBAPIError):
            in_transaction(engine, partial(delete_seat, table_id=table_id, seat=row.seat))
        raise


def add_chips(
    engine: Engine, table_id: str, player_id: str, currency: str, amount: int, key: str
) -> ChipsAdded:
    """A buy-in or top-up: one keyed move wallet -> seat escrow (C-9, P-2); `replayed` if the
    key had already moved it (nothing moved now)."""
    moved = transfers.move(
        engine,
        key=key,
        kind=TransferKind.BUY_IN,
        currency=currency,
        source=wallet(player_id, currency),
        destination=escrow(table_id, player_id, currency),
        amount=amount,
        reference=f"table:{table_id}",
    )
    return ChipsAdded(moved.id, moved.replayed)


def start_hand(
    engine: Engine,
    hand_id: str,
    table_id: str,
    number: int,
    now_ms: int,
    start_stacks: Mapping[str, int],
    seats: list[SeatRow],
) -> None:
    """C-12: the `started` hands row and the seats at this boundary, before the first card.

    Idempotent: run again after its commit, it finds the row and rewrites the seats only.
    """
    in_transaction(
        engine,
        partial(
            start_hand_on,
            hand_id=hand_id,
            table_id=table_id,
            number=number,
            now_ms=now_ms,
            start_stacks=start_stacks,
            seats=seats,
        ),
    )


def start_hand_on(
    conn: Connection,
    hand_id: str,
    table_id: str,
    number: int,
    now_ms: int,
    start_stacks: Mapping[str, int],
    seats: Sequence[SeatRow],
) -> None:
    """`start_hand` in the caller's transaction: a hands row already stored is kept as it is
    (`ON CONFLICT DO NOTHING`) and the seats are rewritten."""
    sql = _sql(conn)
    cursor = DriverCursor(conn)
    cursor.execute(
        sql.insert_hand,
        (hand_id, table_id, number, STARTED, now_ms, json.dumps(dict(start_stacks))),
    )
    _save_seats(cursor, sql, table_id, seats)


def _save_seats(cursor: DriverCursor, sql: _Sql, table_id: str, seats: Sequence[SeatRow]) -> None:
    """Rewrite these seats' rows; rows of seats being taken or left meanwhile stay as they are."""
    if not seats:
        return
    numbers = [row.seat for row in seats]
    # one statement for the seats of the hand, not one per seat
    cursor.execute(sql.delete_seats(len(numbers)), (table_id, *numbers))
    cursor.executemany(sql.insert_seat, [(table_id, *_seat_tuple(r)) for r in seats])


def _seat_tuple(row: SeatRow) -> tuple[Any, ...]:
    return (
        row.seat,
        row.player_id,
        row.session,
        row.stack,
        row.sat_at_ms,
        row.hands_played,
        row.timebank_ms,
        row.sitting_out,
        row.missed_sb,
        row.missed_bb,
    )


def _mark_settled(
    conn: Connection,
    hand_id: str,
    result: Mapping[str, Any],
    now_ms: int | None,
    history: HistoryIn | None = None,
) -> None:
    """Status `settled` with the result, the rake shares (kept if already stored) and the
    history, on the driver's cursor with statements built once (the per-hand path)."""
    sql = _sql(conn)
    cursor = DriverCursor(conn)
    if now_ms is None:
        cursor.execute(sql.settle_hand_kept_end, (SETTLED, json.dumps(dict(result)), hand_id))
    else:
        cursor.execute(sql.settle_hand, (SETTLED, json.dumps(dict(result)), now_ms, hand_id))
    shares = [(hand_id, p, a) for p, a in dict(result.get("rake_by_player", {})).items() if a]
    if shares:
        cursor.executemany(sql.insert_rake, shares)
    if history is not None and now_ms is not None:
        table_id, players, fields = history
        cursor.execute(sql.insert_history, (hand_id, table_id, now_ms, json.dumps(fields)))
        cursor.executemany(
            sql.insert_hand_player,
            [(p, hand_id, table_id, now_ms) for p in dict.fromkeys(players)],
        )


_STATUS_OF_HAND = sa.select(cash_hands.c.status).where(cash_hands.c.id == sa.bindparam("hand_key"))


@dataclass(frozen=True, slots=True)
class Settlement:
    """A hand's result as the ledger takes it: one keyed transfer, and the rest of the unit
    (`mark`: status `settled`, rake shares, history) written in the same transaction."""

    key: str
    currency: str
    lines: tuple[tuple[AccountRef, int], ...]  # empty: no chips changed hands, no rake
    reference: str
    memo: str
    mark: Callable[[Connection], None]


def settlement(
    hand_id: str,
    table_id: str,
    currency: str,
    deltas: Mapping[str, int],
    rake: int,
    rake_by_player: Mapping[str, int],
    now_ms: int,
    history: HistoryIn | None = None,
) -> Settlement:
    """The parts of a hand's settlement (see `settle_hand`)."""
    result = {"deltas": dict(deltas), "rake": rake, "rake_by_player": dict(rake_by_player)}
    memo = json.dumps(dict(rake_by_player), separators=(",", ":"), sort_keys=True)
    if len(memo) > transfers.MAX_MEMO:
        memo = ""  # the shares are on the hands row, written in the same transaction
    lines: list[tuple[AccountRef, int]] = [
        (escrow(table_id, p, currency), d) for p, d in deltas.items() if d
    ]
    if rake:
        lines.append((house(AccountKind.HOUSE_RAKE, currency), rake))
    mark = partial(_mark_settled, hand_id=hand_id, result=result, now_ms=now_ms, history=history)
    return Settlement(
        settlement_key(hand_id), currency, tuple(lines), f"hand:{hand_id}", memo, mark
    )


def settle_hand(
    engine: Engine,
    hand_id: str,
    table_id: str,
    currency: str,
    deltas: Mapping[str, int],
    rake: int,
    rake_by_player: Mapping[str, int],
    now_ms: int,
    history: HistoryIn | None = None,
) -> None:
    """The hand's result in ONE transaction: its `hand_settlement` transfer (escrow net changes
    and rake, C-11), its `settled` status with the rake shares, and its history (C-12).

    The caller owns the unit of work and the ledger writes on its connection (`transfer_on`,
    docs/ARCHITECTURE.md rule 14): either all of it is kept or none of it is, so a hand whose
    result a client was told is never voided by a restart. Idempotent (the ledger retries it
    through an outage): a run after a commit whose answer was lost finds the hand settled and
    writes nothing. The rake shares also travel in the transfer's memo (when short enough),
    which `recover_table` still reads for hands settled before this single commit existed.
    The table's path is `HandStore.settle_hand`: the same unit, group-committed by the ledger.
    """
    parts = settlement(hand_id, table_id, currency, deltas, rake, rake_by_player, now_ms, history)

    def work(conn: Connection) -> None:
        if conn.execute(_STATUS_OF_HAND, {"hand_key": hand_id}).scalar() == SETTLED:
            return  # an earlier run committed all of it
        if parts.lines:
            transfers.transfer_on(
                conn,
                key=parts.key,
                kind=TransferKind.HAND_SETTLEMENT,
                currency=currency,
                postings=parts.lines,
                reference=parts.reference,
                memo=parts.memo,
            )
        parts.mark(conn)

    in_transaction(engine, work)
