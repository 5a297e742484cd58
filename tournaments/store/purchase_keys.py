"""What a client's key paid for in a tournament, read from the ledger and the store (P-2).

A keyed purchase (`tournament_register`, `tournament_reenter`, `tournament_rebuy`,
`tournament_addon`) posts its transfer under the client's ledger key; the ledger keeps that
transfer for good and answers a second post of the key with the stored transfer, moving nothing
(`replayed`). The actor remembers its keys only while it lives (and the lobby for a day), so a
retry after a restart reaches the ledger again: without a check, the purchase's rows would be
written again although nothing was paid (an entry, a rebuy's chips, a ticket used for free).

- `guard` runs in the purchase's own transaction, BEFORE its transfer: a key the journal
  already holds refuses the whole unit with `KeyReplayed` (nothing is written), unless the
  stored purchase of that key is this very purchase, still in play (its first commit landed and
  its answer was lost: written again as it is, like any retried unit).
- `find` reads what the key paid for: the journal's transfer and the purchase row that names the
  key, with whether its entry still counts (not unregistered, T-3). The actor answers from it:
  the first answer when that purchase still stands, `request_undone` when it was given back.

Blocking: run on the ledger's threads (`Recorder` units, `LedgerService.read`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pokerroom.ledger.errors import LedgerError
from pokerroom.ledger.schema import journal
from tournaments import store


class KeyReplayed(LedgerError):
    """The purchase's key already paid for another purchase: this one wrote nothing."""

    code = "key_replayed"


@dataclass(frozen=True, slots=True)
class KeyUse:
    """What a key moved: its transfer's reference, and the purchase row naming the key (if any).

    `purchase` is (player, seq, entry_no, kind, chips); `counts` is False when that purchase's
    entry was unregistered (its money went back, T-3) or the row is gone (a new registration
    of the player replaced the rows of the one they left)."""

    reference: str
    purchase: tuple[str, int, int, str, int] | None
    counts: bool


def find(conn: Connection, tournament_id: str, key: str) -> KeyUse | None:
    """What `key` paid for in the tournament, or None if the journal has no transfer of it."""
    reference = conn.execute(
        sa.select(journal.c.reference).where(journal.c.idempotency_key == key)
    ).scalar()
    if reference is None:
        return None
    payments, entries = store.tournament_payments, store.tournament_entries
    row = conn.execute(
        sa.select(
            payments.c.player,
            payments.c.seq,
            payments.c.entry_no,
            payments.c.kind,
            payments.c.chips,
            entries.c.status,
        )
        .select_from(
            payments.outerjoin(
                entries,
                sa.and_(
                    entries.c.tournament_id == payments.c.tournament_id,
                    entries.c.player == payments.c.player,
                    entries.c.entry_no == payments.c.entry_no,
                ),
            )
        )
        .where(payments.c.tournament_id == tournament_id, payments.c.ledger_key == key)
        .order_by(payments.c.seq)
    ).first()
    if row is None:
        return KeyUse(reference, None, False)
    purchase = (row.player, row.seq, row.entry_no, row.kind, row.chips)
    counts = row.status is not None and row.status != store.UNREGISTERED
    return KeyUse(reference, purchase, counts)


def guard(
    conn: Connection, *, tournament_id: str, key: str, player: str, seq: int, kind: str
) -> None:
    """Refuse the unit (`KeyReplayed`) if `key` already paid for anything but this purchase
    (the player's `seq`-th, of `kind`) still counting; see the module docstring."""
    used = find(conn, tournament_id, key)
    if used is None:
        return
    mine = used.purchase is not None and used.purchase[:2] == (player, seq)
    if mine and used.counts and used.purchase is not None and used.purchase[3] == kind:
        return
    raise KeyReplayed(f"key {key!r} already paid for an earlier request")
