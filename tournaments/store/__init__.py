"""Tournament state in the database: what T-18 refunds and a restart are computed from.

One module per concern, each mapping its rows through `rows.columns`: `schema` (the tables,
statuses), `lifecycle` (a tournament's own row), `entries` (entries and purchases), `seats`
(seats and hands), `stopped` (the state at stop), `refunds`, `prizes` (bounties, prize
changes), `tickets`. Callers use the package: `from tournaments import store; store.X`.

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
- `tournament_hand_histories`, `tournament_hand_players` (0014): each completed hand's record
  and who was dealt in (`hand_histories`, not re-exported: docs/HISTORIES.md).

Every function takes a SQLAlchemy `Connection`: the caller owns the transaction, so a table's
seats are written in the same transaction as the hand that produced them (docs/ARCHITECTURE.md
rule 14) and a refund row is marked paid in the transaction of its transfer. Blocking: run in
the ledger's thread pool. Reads return frozen dataclasses. Times are epoch milliseconds given
by the caller (no clock here).
"""

from __future__ import annotations

from tournaments.store.entries import (
    EntryRecord,
    PaidIn,
    Payment,
    add_entries,
    add_payments,
    counted_payments,
    load_entries,
    load_payments,
    paid_in,
    unpaid_keys,
    update_entry,
)
from tournaments.store.lifecycle import (
    TournamentRecord,
    drop_guarantee,
    interrupt_running,
    load_tournament,
    mark_cancelled,
    mark_finished,
    mark_interrupted,
    mark_refunded,
    mark_resumed,
    mark_started,
    save_level,
    save_prizes,
    save_tournament,
    tournaments_with_status,
)
from tournaments.store.prizes import (
    PrizeChangeRecord,
    add_prize_change,
    load_prize_changes,
    save_bounties,
)
from tournaments.store.refunds import (
    RefundRow,
    add_refunds,
    load_refunds,
    mark_refund_paid,
    mark_refund_refused,
    mark_refunds_paid,
    unpaid_refunds,
)
from tournaments.store.rows import (
    columns,
    config_json,
    prizes_json,
    prizes_of,
)
from tournaments.store.schema import (
    ALIVE,
    BUSTED,
    CANCELLED,
    FINISHED,
    HOUSE_ROW,
    INTERRUPTED,
    REFUNDED,
    REGISTERING,
    RUNNING,
    STATUSES,
    UNREGISTERED,
    CancelReason,
    StoreError,
    metadata,
    tournament_entries,
    tournament_payments,
    tournament_prize_changes,
    tournament_refunds,
    tournament_seats,
    tournament_tickets,
    tournaments,
)
from tournaments.store.seats import (
    SeatRecord,
    load_seats,
    record_hand,
)
from tournaments.store.stopped import (
    StoppedTournament,
    load_stopped,
    state_at_stop,
)
from tournaments.store.tickets import (
    add_ticket,
    expired_tickets,
    load_ticket,
    player_tickets,
    save_ticket,
    ticket_currency,
    tickets_for_target,
    tickets_of_cancelled_targets,
)

__all__ = [
    "ALIVE",
    "BUSTED",
    "CANCELLED",
    "FINISHED",
    "HOUSE_ROW",
    "INTERRUPTED",
    "REFUNDED",
    "REGISTERING",
    "RUNNING",
    "STATUSES",
    "UNREGISTERED",
    "CancelReason",
    "EntryRecord",
    "PaidIn",
    "Payment",
    "PrizeChangeRecord",
    "RefundRow",
    "SeatRecord",
    "StoppedTournament",
    "StoreError",
    "TournamentRecord",
    "add_entries",
    "add_payments",
    "add_prize_change",
    "add_refunds",
    "add_ticket",
    "columns",
    "config_json",
    "counted_payments",
    "drop_guarantee",
    "expired_tickets",
    "interrupt_running",
    "load_entries",
    "load_payments",
    "load_prize_changes",
    "load_refunds",
    "load_seats",
    "load_stopped",
    "load_ticket",
    "load_tournament",
    "mark_cancelled",
    "mark_finished",
    "mark_interrupted",
    "mark_refund_paid",
    "mark_refund_refused",
    "mark_refunded",
    "mark_refunds_paid",
    "mark_resumed",
    "mark_started",
    "metadata",
    "paid_in",
    "player_tickets",
    "prizes_json",
    "prizes_of",
    "record_hand",
    "save_bounties",
    "save_level",
    "save_prizes",
    "save_ticket",
    "save_tournament",
    "state_at_stop",
    "ticket_currency",
    "tickets_for_target",
    "tickets_of_cancelled_targets",
    "tournament_entries",
    "tournament_payments",
    "tournament_prize_changes",
    "tournament_refunds",
    "tournament_seats",
    "tournament_tickets",
    "tournaments",
    "tournaments_with_status",
    "unpaid_keys",
    "unpaid_refunds",
    "update_entry",
]
