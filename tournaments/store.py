"""Tournament state in the database: what T-18 refunds and a restart are computed from.

Tables (declared here, listed in `pokerroom.schema.all_metadata()`, created by migration 0005):

- `tournaments`: one row per tournament: template, the config it started with, status, cancel
  reason and the resume/cancel decision, times, level clock, guarantee (T-5, T-6), the fixed
  prize table and the overlay actually posted to the pool.
- `tournament_entries`: one row per entry (a re-entry is a new entry number): status (`alive`
  while it holds or will hold chips, `busted`, `unregistered`), place, prize paid, current bounty.
- `tournament_payments`: one row per purchase (entry, re-entry, rebuy, add-on, T-4): how it was
  paid (cash, T$, ticket: T-3, T-16), its buy-in, fee and bounty parts (T-2, T-14), chips, key.
- `tournament_seats`: every table's seats and stacks as of its last completed hand (T-18).
- `tournament_refunds`: the T-18 refund plan, one row per component paid by one ledger transfer.
- `tournament_tickets` (migration 0007): satellite tickets (T-16, T-3): owner, target or buy-in
  level, value, expiry, state; the value itself is in the ledger's `ticket:<id>` account.
- `tournament_prize_changes` (0007): every T-15 change of a prize table, by whom and why.
  Migration 0007 also adds each entry's bounties won (`bounty_won`) and the tournament's bounty
  state (`bounty_burst`, `bounty_serial`, T-14) and the money T-15 added (`prize_added`).

Every function takes a SQLAlchemy `Connection`: the caller owns the transaction, so a table's
seats are written in the same transaction as the hand that produced them (docs/ARCHITECTURE.md
rule 14) and a refund row is marked paid in the transaction of its transfer. Blocking: run in
the ledger's thread pool. Reads return frozen dataclasses. Times are epoch milliseconds given
by the caller (no clock here).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.ledger.schema import NAMING
from tournaments.director.payouts import PrizeTable
from tournaments.director.refunds import (
    FeeRefund,
    PlayerAtStop,
    RefundPhase,
    TournamentAtStop,
)
from tournaments.director.registration import Funding
from tournaments.director.tickets import Ticket, TicketState

metadata = sa.MetaData(naming_convention=NAMING)

# Statuses: registering -> running -> finished; running -> interrupted -> running (resumed) or
# -> cancelled -> refunded. A tournament cancelled before it started goes registering -> cancelled.
REGISTERING = "registering"
RUNNING = "running"
FINISHED = "finished"
INTERRUPTED = "interrupted"
CANCELLED = "cancelled"
REFUNDED = "refunded"
STATUSES = (REGISTERING, RUNNING, FINISHED, INTERRUPTED, CANCELLED, REFUNDED)

# Entry statuses.
ALIVE = "alive"  # registered, or playing with chips
BUSTED = "busted"
UNREGISTERED = "unregistered"  # T-3: money already given back; counts for nothing


class CancelReason(enum.StrEnum):
    """Why a tournament was cancelled (T-1, T-18)."""

    OUTAGE = "outage"  # not back within outage.resume_within_minutes
    TOO_FEW_PLAYERS = "too_few_players"  # T-1: fewer than two entries at the start
    STAFF = "staff"  # T-1: the operator cancelled it


tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("template", sa.String(80), nullable=False),
    sa.Column("config", sa.JSON, nullable=False),  # the config it started with
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("cancel_reason", sa.String(20), nullable=True),
    sa.Column("decision", sa.String(500), nullable=False, server_default=""),
    sa.Column("fee_refund", sa.String(16), nullable=False, server_default="live_entry"),
    sa.Column("guarantee", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("guarantee_dropped", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("overlay_posted", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("prizes", sa.JSON, nullable=True),  # the fixed table: {"pool", "amounts", ...}
    sa.Column("level_index", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("level_ms_left", sa.BigInteger, nullable=True),
    sa.Column("created_at_ms", sa.BigInteger, nullable=False),
    sa.Column("started_at_ms", sa.BigInteger, nullable=True),
    sa.Column("stopped_at_ms", sa.BigInteger, nullable=True),  # interrupted, finished, cancelled
    sa.Column("refunded_at_ms", sa.BigInteger, nullable=True),
    # T-14: the bubble has burst (deferred bounties paid), and bounty settlements so far (keys)
    sa.Column("bounty_burst", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("bounty_serial", sa.Integer, nullable=False, server_default=sa.text("0")),
    # T-15: what the house added to the pool by prize changes (T-18 treats it as overlay)
    sa.Column("prize_added", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    # T-18 (migration 0008): when the running tournament's state was last written; after a
    # crash, the outage is measured from it (outage.resume_within_minutes)
    sa.Column("saved_at_ms", sa.BigInteger, nullable=True),
    # T-18 (migration 0010): a staff pause stands through a restart; how many times the
    # tournament resumed (hand ids after a resume carry it: never two hands with one id)
    sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("resumes", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Index("ix_tournaments_status", "status"),
)

tournament_entries = sa.Table(
    "tournament_entries",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("entry_no", sa.Integer, primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("place", sa.Integer, nullable=True),
    sa.Column("prize", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("bounty", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("bounty_won", sa.BigInteger, nullable=False, server_default=sa.text("0")),
)

tournament_payments = sa.Table(
    "tournament_payments",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # the player's purchases, 1, 2, ...
    sa.Column("entry_no", sa.Integer, nullable=False),  # the entry the purchase is for
    sa.Column("kind", sa.String(12), nullable=False),  # entry, reentry, rebuy, addon
    sa.Column("funding", sa.String(12), nullable=False),  # cash, tdollars, ticket
    sa.Column("ticket_id", sa.String(80), nullable=False, server_default=""),
    sa.Column("buy_in", sa.BigInteger, nullable=False),  # to the prize pool
    sa.Column("fee", sa.BigInteger, nullable=False),  # to the house
    sa.Column("bounty", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("chips", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    sa.Column("ledger_key", sa.String(200), nullable=True),  # the transfer that paid it
)

tournament_seats = sa.Table(
    "tournament_seats",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("table_id", sa.String(40), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player", sa.String(40), nullable=False),
    sa.Column("entry_no", sa.Integer, nullable=False),
    sa.Column("stack", sa.BigInteger, nullable=False),
    sa.Column("hand_number", sa.Integer, nullable=False),  # the table's last completed hand
    # T-18 (migration 0010), as of that hand: the table's button and blinds
    # ("button,small blind,big blind,heads up"; "" before the first hand), the player's time
    # bank (ms, and the level it was last topped up at; null: untouched) and sit-out flag
    # ("asked", "timeout" or "")
    sa.Column("table_state", sa.String(40), nullable=False, server_default=""),
    sa.Column("bank_ms", sa.BigInteger, nullable=True),
    sa.Column("bank_level", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("sitting_out", sa.String(8), nullable=False, server_default=""),
    sa.UniqueConstraint("tournament_id", "player", name="uq_tournament_seats_player"),
)

tournament_refunds = sa.Table(
    "tournament_refunds",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player", sa.String(40), primary_key=True),  # HOUSE_ROW for the house's parts
    sa.Column("component", sa.String(20), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("source", sa.String(200), nullable=False),  # kind:owner:currency
    sa.Column("destinations", sa.JSON, nullable=False),  # [[kind:owner:currency, amount], ...]
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
    sa.Column("planned_at_ms", sa.BigInteger, nullable=False),
    sa.Column("paid_at_ms", sa.BigInteger, nullable=True),
    sa.Column("transfer_id", sa.BigInteger, nullable=True),
    sa.Column("error", sa.String(500), nullable=True),  # the last refusal, for the staff
)

tournament_tickets = sa.Table(
    "tournament_tickets",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("owner", sa.String(40), nullable=False),
    sa.Column("currency", sa.String(8), nullable=False),
    sa.Column("buy_in", sa.BigInteger, nullable=False),
    sa.Column("fee", sa.BigInteger, nullable=False),
    sa.Column("target", sa.String(40), nullable=False, server_default=""),
    sa.Column("any_of_level", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("source", sa.String(40), nullable=False, server_default=""),
    sa.Column("state", sa.String(12), nullable=False),
    sa.Column("used_in", sa.String(40), nullable=False, server_default=""),
    sa.Column("issued_at_ms", sa.BigInteger, nullable=False),
    sa.Column("expires_at_ms", sa.BigInteger, nullable=False),
    sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_tournament_tickets_owner", "owner"),
    sa.Index("ix_tournament_tickets_state_expires", "state", "expires_at_ms"),
    sa.Index("ix_tournament_tickets_target", "target"),
)

tournament_prize_changes = sa.Table(
    "tournament_prize_changes",
    metadata,
    sa.Column("tournament_id", sa.String(40), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("changed_by", sa.String(40), nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Column("old", sa.JSON, nullable=False),  # the prize table before
    sa.Column("new", sa.JSON, nullable=False),  # and after
    sa.Column("added", sa.BigInteger, nullable=False),  # from the house overlay account
    sa.Column("cash_places", sa.JSON, nullable=False),  # seat places paid in cash (T-15)
    sa.Column("ledger_key", sa.String(200), nullable=False, unique=True),
)

#: The `player` of the refund rows that move the rest of the pool to the house (T-7, T-18).
HOUSE_ROW = "house"


class StoreError(Exception):
    """The stored state is missing or cannot be what a tournament was in (never guessed)."""


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """One `tournaments` row."""

    id: str
    template: str
    currency: str
    created_at_ms: int
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    status: str = REGISTERING
    cancel_reason: str | None = None
    decision: str = ""
    fee_refund: FeeRefund = FeeRefund.LIVE_ENTRY
    guarantee: int = 0
    guarantee_dropped: bool = False
    overlay_posted: int = 0
    prizes: PrizeTable | None = None
    level_index: int = 0
    level_ms_left: int | None = None
    started_at_ms: int | None = None
    stopped_at_ms: int | None = None
    refunded_at_ms: int | None = None
    bounty_burst: bool = False  # T-14: the bubble burst (deferred bounties were paid)
    bounty_serial: int = 0  # T-14: bounty settlements so far (part of their ledger keys)
    prize_added: int = 0  # T-15: money the house added to the pool by prize changes
    saved_at_ms: int | None = None  # T-18: the running state's last write (the outage from it)
    paused: bool = False  # T-18: a staff pause, restored after a restart
    resumes: int = 0  # T-18: times resumed after a crash (part of later hand ids)


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """One entry (T-4: a re-entry is a new entry number of the same player)."""

    player: str
    entry_no: int = 1
    status: str = ALIVE
    place: int | None = None
    prize: int = 0  # prizes paid to this entry (they stand, T-18)
    bounty: int = 0  # the entry's current bounty total (T-14)
    bounty_won: int = 0  # bounty money paid to the player while this entry played (T-14)


@dataclass(frozen=True, slots=True)
class Payment:
    """Money one purchase paid in (T-2, T-4): buy-in to the pool, fee to the house, bounty."""

    player: str
    seq: int
    entry_no: int
    kind: str  # entry, reentry, rebuy, addon
    funding: Funding
    buy_in: int
    fee: int
    bounty: int = 0
    chips: int = 0
    ticket_id: str = ""
    ledger_key: str | None = None


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat as of its table's last completed hand."""

    table_id: str
    seat: int
    player: str
    entry_no: int
    stack: int
    hand_number: int = 0
    table_state: str = ""  # the table's button and blinds after that hand (see the column)
    bank_ms: int | None = None  # the time bank left (None: never used or topped up)
    bank_level: int = 0
    sitting_out: str = ""  # asked | timeout | ""


@dataclass(frozen=True, slots=True)
class PaidIn:
    """What one player paid into a tournament, by how it was paid (cash, T$, ticket)."""

    player: str
    buy_in: Mapping[Funding, int]
    fee: Mapping[Funding, int]
    bounty: Mapping[Funding, int]

    @property
    def total(self) -> int:
        """Everything the player paid in."""
        return sum(self.buy_in.values()) + sum(self.fee.values()) + sum(self.bounty.values())


@dataclass(frozen=True, slots=True)
class RefundRow:
    """One planned refund component: `amount` from `source` to `destinations`, one transfer."""

    player: str
    component: str
    amount: int
    source: str
    destinations: tuple[tuple[str, int], ...]
    ledger_key: str
    paid_at_ms: int | None = None
    transfer_id: int | None = None
    error: str | None = None

    @property
    def paid(self) -> bool:
        """The transfer was made (it is marked in the same transaction)."""
        return self.paid_at_ms is not None


# --------------------------------------------------------------------------- tournaments


def config_json(value: Any) -> Any:
    """A config (nested frozen dataclasses, enums, tuples) as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: config_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): config_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [config_json(v) for v in value]
    return value


def _prizes_json(table: PrizeTable | None) -> dict[str, Any] | None:
    if table is None:
        return None
    return {"pool": table.pool, "amounts": list(table.amounts), "rounding": table.rounding}


def _prizes(data: Any) -> PrizeTable | None:
    if data is None:
        return None
    return PrizeTable(int(data["pool"]), tuple(int(a) for a in data["amounts"]), data["rounding"])


def _tournament_values(record: TournamentRecord) -> dict[str, Any]:
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    values["config"] = config_json(record.config)
    values["fee_refund"] = record.fee_refund.value
    values["prizes"] = _prizes_json(record.prizes)
    return values


def save_tournament(conn: Connection, record: TournamentRecord) -> None:
    """Insert or replace the tournament's row."""
    values = _tournament_values(record)
    updated = conn.execute(
        sa.update(tournaments).where(tournaments.c.id == record.id).values(values)
    )
    if updated.rowcount == 0:
        conn.execute(sa.insert(tournaments).values(values))


def _tournament(row: sa.Row[Any]) -> TournamentRecord:
    return TournamentRecord(
        id=row.id,
        template=row.template,
        currency=row.currency,
        created_at_ms=row.created_at_ms,
        config=row.config,
        status=row.status,
        cancel_reason=row.cancel_reason,
        decision=row.decision,
        fee_refund=FeeRefund(row.fee_refund),
        guarantee=row.guarantee,
        guarantee_dropped=bool(row.guarantee_dropped),
        overlay_posted=row.overlay_posted,
        prizes=_prizes(row.prizes),
        level_index=row.level_index,
        level_ms_left=row.level_ms_left,
        started_at_ms=row.started_at_ms,
        stopped_at_ms=row.stopped_at_ms,
        refunded_at_ms=row.refunded_at_ms,
        bounty_burst=bool(row.bounty_burst),
        bounty_serial=row.bounty_serial,
        prize_added=row.prize_added,
        saved_at_ms=row.saved_at_ms,
        paused=bool(row.paused),
        resumes=row.resumes,
    )


def load_tournament(conn: Connection, tournament_id: str) -> TournamentRecord | None:
    """The tournament's row, or None."""
    row = conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id)).first()
    return None if row is None else _tournament(row)


def tournaments_with_status(conn: Connection, status: str) -> tuple[str, ...]:
    """Ids of the tournaments in `status`, oldest stop first."""
    query = (
        sa.select(tournaments.c.id)
        .where(tournaments.c.status == status)
        .order_by(tournaments.c.stopped_at_ms, tournaments.c.id)
    )
    return tuple(conn.execute(query).scalars())


def _transition(
    conn: Connection,
    tournament_id: str,
    allowed: Iterable[str],
    values: Mapping[str, Any],
) -> bool:
    """Set `values` if the tournament's status is one of `allowed`; False if it was not."""
    query = (
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id, tournaments.c.status.in_(list(allowed)))
        .values(dict(values))
    )
    if conn.execute(query).rowcount == 1:
        return True
    if load_tournament(conn, tournament_id) is None:
        raise StoreError(f"no tournament {tournament_id!r}")
    return False


def mark_started(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """T-1: registering -> running."""
    values = {"status": RUNNING, "started_at_ms": at_ms}
    return _transition(conn, tournament_id, [REGISTERING], values)


def save_level(conn: Connection, tournament_id: str, level_index: int, ms_left: int) -> None:
    """The level clock: the level being played and the time left in it."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(level_index=level_index, level_ms_left=ms_left)
    )


def save_prizes(
    conn: Connection, tournament_id: str, prizes: PrizeTable, overlay_posted: int
) -> None:
    """T-6: the prize table fixed once every period closed, and the overlay posted to the pool."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(prizes=_prizes_json(prizes), overlay_posted=overlay_posted)
    )


def drop_guarantee(conn: Connection, tournament_id: str) -> None:
    """T-5: late registration closed at the money; the guarantee no longer applies."""
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(guarantee_dropped=True)
    )


def mark_interrupted(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """Start-up after a crash: running -> interrupted (hands in progress are void)."""
    values = {"status": INTERRUPTED, "stopped_at_ms": at_ms}
    return _transition(conn, tournament_id, [RUNNING], values)


def interrupt_running(conn: Connection, at_ms: int) -> tuple[str, ...]:
    """Start-up: every running tournament becomes interrupted; their ids."""
    ids = tournaments_with_status(conn, RUNNING)
    for tournament_id in ids:
        mark_interrupted(conn, tournament_id, at_ms)
    return ids


def mark_resumed(conn: Connection, tournament_id: str, decision: str) -> bool:
    """Back within the resume window: interrupted -> running, with the decision and why (and
    one more resume: the hands dealt from now on take new ids)."""
    values = {
        "status": RUNNING,
        "decision": decision[:500],
        "stopped_at_ms": None,
        "resumes": tournaments.c.resumes + 1,
    }
    return _transition(conn, tournament_id, [INTERRUPTED], values)


def mark_finished(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """T-8: running -> finished."""
    values = {"status": FINISHED, "stopped_at_ms": at_ms}
    return _transition(conn, tournament_id, [RUNNING], values)


def mark_cancelled(
    conn: Connection,
    tournament_id: str,
    reason: CancelReason,
    at_ms: int,
    decision: str = "",
) -> bool:
    """T-1, T-18: cancelled (for outage, too few players or by staff); the refund job pays it."""
    values = {
        "status": CANCELLED,
        "cancel_reason": CancelReason(reason).value,
        "decision": decision[:500],
        "stopped_at_ms": at_ms,
    }
    return _transition(conn, tournament_id, [REGISTERING, RUNNING, INTERRUPTED], values)


def mark_refunded(conn: Connection, tournament_id: str, at_ms: int) -> bool:
    """Every refund component is paid: cancelled -> refunded."""
    values = {"status": REFUNDED, "refunded_at_ms": at_ms}
    return _transition(conn, tournament_id, [CANCELLED], values)


# --------------------------------------------------------------------------- entries, payments


def _entry_values(tournament_id: str, entry: EntryRecord) -> dict[str, Any]:
    return {"tournament_id": tournament_id, **dataclasses.asdict(entry)}


def _payment_values(tournament_id: str, payment: Payment) -> dict[str, Any]:
    values = dataclasses.asdict(payment)
    values["funding"] = Funding(payment.funding).value
    return {"tournament_id": tournament_id, **values}


def add_entries(
    conn: Connection,
    tournament_id: str,
    entries: Sequence[EntryRecord],
    payments: Sequence[Payment] = (),
) -> None:
    """New entries and the purchases that paid for them (T-3, T-4), in one statement each."""
    if entries:
        conn.execute(
            sa.insert(tournament_entries), [_entry_values(tournament_id, e) for e in entries]
        )
    add_payments(conn, tournament_id, payments)


def add_payments(conn: Connection, tournament_id: str, payments: Sequence[Payment]) -> None:
    """Purchases paid in (a rebuy or add-on adds to the entry it was bought for, T-4)."""
    if payments:
        conn.execute(
            sa.insert(tournament_payments), [_payment_values(tournament_id, p) for p in payments]
        )


def update_entry(
    conn: Connection,
    tournament_id: str,
    player: str,
    entry_no: int,
    *,
    status: str | None = None,
    place: int | None = None,
    prize: int | None = None,
    bounty: int | None = None,
) -> None:
    """Change an entry: busted with its place, a prize paid, its bounty total (T-9, T-14)."""
    given = {"status": status, "place": place, "prize": prize, "bounty": bounty}
    values = {k: v for k, v in given.items() if v is not None}
    if not values:
        return
    updated = conn.execute(
        sa.update(tournament_entries)
        .where(
            tournament_entries.c.tournament_id == tournament_id,
            tournament_entries.c.player == player,
            tournament_entries.c.entry_no == entry_no,
        )
        .values(values)
    )
    if updated.rowcount != 1:
        raise StoreError(f"no entry {player!r} #{entry_no} in tournament {tournament_id!r}")


def load_entries(conn: Connection, tournament_id: str) -> tuple[EntryRecord, ...]:
    """Every entry of the tournament, by player and entry number."""
    query = (
        sa.select(tournament_entries)
        .where(tournament_entries.c.tournament_id == tournament_id)
        .order_by(tournament_entries.c.player, tournament_entries.c.entry_no)
    )
    return tuple(
        EntryRecord(r.player, r.entry_no, r.status, r.place, r.prize, r.bounty, r.bounty_won)
        for r in conn.execute(query)
    )


def load_payments(conn: Connection, tournament_id: str) -> tuple[Payment, ...]:
    """Every purchase paid into the tournament, by player and sequence."""
    query = (
        sa.select(tournament_payments)
        .where(tournament_payments.c.tournament_id == tournament_id)
        .order_by(tournament_payments.c.player, tournament_payments.c.seq)
    )
    return tuple(
        Payment(
            r.player,
            r.seq,
            r.entry_no,
            r.kind,
            Funding(r.funding),
            r.buy_in,
            r.fee,
            r.bounty,
            r.chips,
            r.ticket_id,
            r.ledger_key,
        )
        for r in conn.execute(query)
    )


def counted_payments(conn: Connection, tournament_id: str) -> tuple[Payment, ...]:
    """The payments that count as money paid in: not those of players who unregistered (T-3)."""
    gone = {e.player for e in load_entries(conn, tournament_id) if e.status == UNREGISTERED}
    return tuple(p for p in load_payments(conn, tournament_id) if p.player not in gone)


def paid_in(conn: Connection, tournament_id: str) -> dict[str, PaidIn]:
    """Per player, what they paid in by funding (re-entries, rebuys and add-ons count, T-4)."""
    sums: dict[str, tuple[dict[Funding, int], dict[Funding, int], dict[Funding, int]]] = {}
    for p in counted_payments(conn, tournament_id):
        buy_in, fee, bounty = sums.setdefault(p.player, ({}, {}, {}))
        buy_in[p.funding] = buy_in.get(p.funding, 0) + p.buy_in
        fee[p.funding] = fee.get(p.funding, 0) + p.fee
        bounty[p.funding] = bounty.get(p.funding, 0) + p.bounty
    return {player: PaidIn(player, *parts) for player, parts in sums.items()}


def unpaid_keys(conn: Connection, tournament_id: str) -> tuple[str, ...]:
    """Payment ledger keys with no transfer in the journal: money the state says was paid."""
    from pokerroom.ledger.schema import journal

    query = (
        sa.select(tournament_payments.c.ledger_key)
        .select_from(
            tournament_payments.outerjoin(
                journal, journal.c.idempotency_key == tournament_payments.c.ledger_key
            )
        )
        .where(
            tournament_payments.c.tournament_id == tournament_id,
            tournament_payments.c.ledger_key.is_not(None),
            journal.c.id.is_(None),
        )
    )
    return tuple(conn.execute(query).scalars())


# --------------------------------------------------------------------------- seats


def record_hand(
    conn: Connection,
    tournament_id: str,
    table_id: str,
    hand_number: int,
    seats: Sequence[SeatRecord],
) -> None:
    """A completed hand of one table: its rows are replaced by `seats` (players with chips).

    A player listed here is where this hand says: any row of theirs at another table (moved by
    balancing, T-10) is removed. Call in the transaction that records the hand (ARCH 14).
    """
    players = [s.player for s in seats]
    conn.execute(
        sa.delete(tournament_seats).where(
            tournament_seats.c.tournament_id == tournament_id,
            sa.or_(
                tournament_seats.c.table_id == table_id,
                tournament_seats.c.player.in_(players),
            ),
        )
    )
    if seats:
        conn.execute(
            sa.insert(tournament_seats),
            [
                {
                    "tournament_id": tournament_id,
                    "table_id": table_id,
                    "seat": s.seat,
                    "player": s.player,
                    "entry_no": s.entry_no,
                    "stack": s.stack,
                    "hand_number": hand_number,
                }
                for s in seats
            ],
        )


def load_seats(conn: Connection, tournament_id: str) -> tuple[SeatRecord, ...]:
    """Every seat with its stack as of its table's last completed hand."""
    query = (
        sa.select(tournament_seats)
        .where(tournament_seats.c.tournament_id == tournament_id)
        .order_by(tournament_seats.c.table_id, tournament_seats.c.seat)
    )
    fields = ("table_id", "seat", "player", "entry_no", "stack", "hand_number", "table_state")
    rest = ("bank_ms", "bank_level", "sitting_out")
    return tuple(
        SeatRecord(*(getattr(r, name) for name in fields + rest)) for r in conn.execute(query)
    )


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


# --------------------------------------------------------------------------- refund rows


def load_refunds(conn: Connection, tournament_id: str) -> tuple[RefundRow, ...]:
    """The tournament's refund plan, players first then the house, by component."""
    query = (
        sa.select(tournament_refunds)
        .where(tournament_refunds.c.tournament_id == tournament_id)
        .order_by(tournament_refunds.c.player, tournament_refunds.c.component)
    )
    return tuple(
        RefundRow(
            r.player,
            r.component,
            r.amount,
            r.source,
            tuple((str(a), int(n)) for a, n in r.destinations),
            r.ledger_key,
            r.paid_at_ms,
            r.transfer_id,
            r.error,
        )
        for r in conn.execute(query)
    )


def add_refunds(
    conn: Connection, tournament_id: str, rows: Sequence[RefundRow], at_ms: int
) -> None:
    """Write the refund plan (once; its rows are then only marked paid)."""
    if not rows:
        return
    conn.execute(
        sa.insert(tournament_refunds),
        [
            {
                "tournament_id": tournament_id,
                "player": r.player,
                "component": r.component,
                "amount": r.amount,
                "source": r.source,
                "destinations": [list(d) for d in r.destinations],
                "ledger_key": r.ledger_key,
                "planned_at_ms": at_ms,
            }
            for r in rows
        ],
    )


def mark_refund_paid(
    conn: Connection, tournament_id: str, player: str, component: str, transfer_id: int, at_ms: int
) -> None:
    """The component's transfer was made (call in the transaction that made it)."""
    conn.execute(
        sa.update(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.player == player,
            tournament_refunds.c.component == component,
        )
        .values(paid_at_ms=at_ms, transfer_id=transfer_id, error=None)
    )


_MARK_PAID = (
    sa.update(tournament_refunds)
    .where(
        tournament_refunds.c.tournament_id == sa.bindparam("tid"),
        tournament_refunds.c.player == sa.bindparam("who"),
        tournament_refunds.c.component == sa.bindparam("part"),
    )
    .values(paid_at_ms=sa.bindparam("at"), transfer_id=sa.bindparam("transfer"), error=None)
)


def mark_refunds_paid(
    conn: Connection, tournament_id: str, paid: Sequence[tuple[str, str, int]], at_ms: int
) -> None:
    """Several components paid, as (player, component, transfer id): one statement."""
    if paid:
        conn.execute(
            _MARK_PAID,
            [
                {"tid": tournament_id, "who": p, "part": c, "at": at_ms, "transfer": t}
                for p, c, t in paid
            ],
        )


def mark_refund_refused(
    conn: Connection, tournament_id: str, player: str, component: str, error: str
) -> None:
    """The ledger refused the component's transfer: kept for the staff, tried again next run."""
    conn.execute(
        sa.update(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.player == player,
            tournament_refunds.c.component == component,
        )
        .values(error=error[:500])
    )


def unpaid_refunds(conn: Connection, tournament_id: str) -> int:
    """How many refund components are still to pay."""
    query = (
        sa.select(sa.func.count())
        .select_from(tournament_refunds)
        .where(
            tournament_refunds.c.tournament_id == tournament_id,
            tournament_refunds.c.paid_at_ms.is_(None),
        )
    )
    return int(conn.execute(query).scalar_one())


# --------------------------------------------------------------------------- bounties (T-14)


def save_bounties(
    conn: Connection,
    tournament_id: str,
    *,
    serial: int,
    burst: bool,
    totals: Mapping[tuple[str, int], int],
    won: Mapping[tuple[str, int], int],
) -> None:
    """A bounty settlement: entries' current totals and bounties won (absolute values, so a
    retried settlement writes the same), the bubble and the settlement count (T-14, T-18).

    Call in the transaction of the settlement's ledger transfer. `totals` and `won` are keyed
    by (player, entry number); entries not named keep their values.
    """
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(bounty_serial=serial, bounty_burst=burst)
    )
    rows = [
        {"tid": tournament_id, "who": p, "no": n, "total": amount, "won": won.get((p, n))}
        for (p, n), amount in totals.items()
    ]
    rows += [
        {"tid": tournament_id, "who": p, "no": n, "total": None, "won": amount}
        for (p, n), amount in won.items()
        if (p, n) not in totals
    ]
    for row in rows:
        values: dict[str, int] = {}
        if row["total"] is not None:
            values["bounty"] = int(row["total"])
        if row["won"] is not None:
            values["bounty_won"] = int(row["won"])
        conn.execute(
            sa.update(tournament_entries)
            .where(
                tournament_entries.c.tournament_id == row["tid"],
                tournament_entries.c.player == row["who"],
                tournament_entries.c.entry_no == row["no"],
            )
            .values(values)
        )


# --------------------------------------------------------------------------- tickets (T-16)


def _ticket(row: sa.Row[Any]) -> Ticket:
    return Ticket(
        ticket_id=row.id,
        owner=row.owner,
        buy_in=row.buy_in,
        fee=row.fee,
        target=row.target,
        issued_at_ms=row.issued_at_ms,
        expires_at_ms=row.expires_at_ms,
        state=TicketState(row.state),
        source=row.source,
        any_of_level=bool(row.any_of_level),
        used_in=row.used_in,
    )


def add_ticket(conn: Connection, ticket: Ticket, currency: str, at_ms: int) -> bool:
    """A new ticket (with the transfer that fills its account); False if it exists already."""
    if load_ticket(conn, ticket.ticket_id) is not None:
        return False
    conn.execute(
        sa.insert(tournament_tickets).values(
            id=ticket.ticket_id,
            owner=ticket.owner,
            currency=currency,
            buy_in=ticket.buy_in,
            fee=ticket.fee,
            target=ticket.target,
            any_of_level=ticket.any_of_level,
            source=ticket.source,
            state=ticket.state.value,
            used_in=ticket.used_in,
            issued_at_ms=ticket.issued_at_ms,
            expires_at_ms=ticket.expires_at_ms,
            updated_at_ms=at_ms,
        )
    )
    return True


def load_ticket(conn: Connection, ticket_id: str) -> Ticket | None:
    """One ticket, or None."""
    row = conn.execute(
        sa.select(tournament_tickets).where(tournament_tickets.c.id == ticket_id)
    ).first()
    return None if row is None else _ticket(row)


def ticket_currency(conn: Connection, ticket_id: str) -> str | None:
    """The currency of a ticket's account, or None for no such ticket."""
    query = sa.select(tournament_tickets.c.currency).where(tournament_tickets.c.id == ticket_id)
    value = conn.execute(query).scalar()
    return None if value is None else str(value)


def player_tickets(conn: Connection, owner: str) -> tuple[Ticket, ...]:
    """A player's tickets, newest first."""
    query = (
        sa.select(tournament_tickets)
        .where(tournament_tickets.c.owner == owner)
        .order_by(tournament_tickets.c.issued_at_ms.desc(), tournament_tickets.c.id)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def tickets_for_target(conn: Connection, target: str) -> tuple[Ticket, ...]:
    """Tickets naming `target`, or paying an entry there, by id."""
    query = (
        sa.select(tournament_tickets)
        .where(
            sa.or_(tournament_tickets.c.target == target, tournament_tickets.c.used_in == target)
        )
        .order_by(tournament_tickets.c.id)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def expired_tickets(conn: Connection, now_ms: int, limit: int = 500) -> tuple[Ticket, ...]:
    """Usable tickets whose expiry has passed (issued or returned), oldest expiry first."""
    query = (
        sa.select(tournament_tickets)
        .where(
            tournament_tickets.c.state.in_([TicketState.ISSUED.value, TicketState.RETURNED.value]),
            tournament_tickets.c.expires_at_ms <= now_ms,
        )
        .order_by(tournament_tickets.c.expires_at_ms, tournament_tickets.c.id)
        .limit(limit)
    )
    return tuple(_ticket(r) for r in conn.execute(query))


def tickets_of_cancelled_targets(
    conn: Connection, limit: int = 500
) -> tuple[tuple[Ticket, Mapping[str, Any]], ...]:
    """Usable tickets still naming a target that was cancelled (or refunded), each with the
    target's config (its rule for tickets, T-16), by id."""
    query = (
        sa.select(tournament_tickets, tournaments.c.config.label("target_config"))
        .join(tournaments, tournaments.c.id == tournament_tickets.c.target)
        .where(
            tournament_tickets.c.state.in_([TicketState.ISSUED.value, TicketState.RETURNED.value]),
            tournament_tickets.c.any_of_level.is_(False),
            tournaments.c.status.in_([CANCELLED, REFUNDED]),
        )
        .order_by(tournament_tickets.c.id)
        .limit(limit)
    )
    return tuple((_ticket(r), dict(r.target_config or {})) for r in conn.execute(query))


def save_ticket(
    conn: Connection, ticket: Ticket, expected: Iterable[TicketState], at_ms: int
) -> bool:
    """Move a ticket to `ticket`'s state if it is now in one of `expected` (a guarded step);
    False if it was not (someone else moved it first). Owner and value never change."""
    query = (
        sa.update(tournament_tickets)
        .where(
            tournament_tickets.c.id == ticket.ticket_id,
            tournament_tickets.c.owner == ticket.owner,
            tournament_tickets.c.state.in_([TicketState(s).value for s in expected]),
        )
        .values(
            state=ticket.state.value,
            used_in=ticket.used_in,
            any_of_level=ticket.any_of_level,
            updated_at_ms=at_ms,
        )
    )
    return bool(conn.execute(query).rowcount == 1)


# --------------------------------------------------------------------------- prize changes (T-15)


@dataclass(frozen=True, slots=True)
class PrizeChangeRecord:
    """One T-15 change of a tournament's prize table, as audited."""

    seq: int
    changed_by: str
    reason: str
    at_ms: int
    old: PrizeTable
    new: PrizeTable
    added: int
    cash_places: tuple[int, ...]
    ledger_key: str


def add_prize_change(conn: Connection, tournament_id: str, change: PrizeChangeRecord) -> None:
    """Record a change, the new prize table and the money added (T-18 treats it as overlay).

    Call in the transaction of the change's ledger transfer (the house's money into the pool).
    """
    conn.execute(
        sa.insert(tournament_prize_changes).values(
            tournament_id=tournament_id,
            seq=change.seq,
            changed_by=change.changed_by,
            reason=change.reason[:500],
            at_ms=change.at_ms,
            old=_prizes_json(change.old),
            new=_prizes_json(change.new),
            added=change.added,
            cash_places=list(change.cash_places),
            ledger_key=change.ledger_key,
        )
    )
    conn.execute(
        sa.update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(
            prizes=_prizes_json(change.new),
            prize_added=tournaments.c.prize_added + change.added,
            overlay_posted=tournaments.c.overlay_posted + change.added,
        )
    )


def load_prize_changes(conn: Connection, tournament_id: str) -> tuple[PrizeChangeRecord, ...]:
    """Every change of the tournament's prizes, in order."""
    query = (
        sa.select(tournament_prize_changes)
        .where(tournament_prize_changes.c.tournament_id == tournament_id)
        .order_by(tournament_prize_changes.c.seq)
    )
    found = []
    for r in conn.execute(query):
        old, new = _prizes(r.old), _prizes(r.new)
        assert old is not None and new is not None
        found.append(
            PrizeChangeRecord(
                r.seq,
                r.changed_by,
                r.reason,
                r.at_ms,
                old,
                new,
                r.added,
                tuple(int(p) for p in r.cash_places),
                r.ledger_key,
            )
        )
    return tuple(found)
