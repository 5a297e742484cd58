"""A blackjack round cancelled in `partial` mode (BJ-19, L-5), from its recorded progress.

A blackjack table in `partial` mode records the round's progress on its row while it is played
(`casino_rounds.outcome` of an `open` round: `blackjack_settle.progress` plus the table's K-12
cap `max_win` and K-13 threshold `review_at`). When the round is voided — by the table on a
malfunction or by staff (which hand over the progress in memory), by the table's recovery at
start or by the pending-bets job (which find it on the row) — `void_on` asks `partial_legs` for
BJ-19's transaction instead of the full refund: one balanced transaction under the round's key,
the bankroll paying what the cancelled round wins and keeping what it loses. A stake of the
round's bet rows that the record does not know (a double posted just before a crash, before it
was applied) is returned. The full refund of L-5 stays the answer when there is no partial
record, when the record claims a stake the rows do not hold, or when the bankroll cannot pay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from sqlalchemy.engine import Connection

from pokerroom.casino import money
from pokerroom.casino.core.blackjack_rules import PARTIAL
from pokerroom.casino.core.blackjack_settle import cancel_recorded
from pokerroom.casino.core.results import PUSH, BetLine, Settlement, settlement
from pokerroom.casino.games import Settled
from pokerroom.ledger.accounts import get_account
from pokerroom.ledger.errors import UnknownAccount
from pokerroom.ledger.kinds import AccountRef

log = structlog.get_logger("pokerroom.casino")

UNAPPLIED = "unapplied"  # the spot of a posted stake the record does not know: returned


@dataclass(frozen=True, slots=True)
class Partial:
    """BJ-19's settlement of a cancelled round: its legs, lines and who is held (K-13)."""

    legs: dict[AccountRef, int]
    settlement: Settlement
    held: tuple[str, ...]


def is_partial(record: Mapping[str, Any]) -> bool:
    """Whether a round's record is a blackjack progress in `partial` mode."""
    return record.get("cancel_mode") == PARTIAL and "boxes" in record


def partial_legs(
    conn: Connection,
    round_id: str,
    table_id: str,
    currency: str,
    record: Mapping[str, Any],
    stakes: Sequence[tuple[str, int]],
) -> Partial | None:
    """BJ-19's transaction for the round, or None: the full refund of L-5 (module doc)."""
    max_win, review_at = record.get("max_win"), record.get("review_at")
    lines = list(cancel_recorded(record, max_win).lines)
    posted: dict[str, int] = {}
    for player, stake in stakes:
        posted[player] = posted.get(player, 0) + stake
    known: dict[str, int] = {}
    for line in lines:
        known[line.player] = known.get(line.player, 0) + line.stake
    for player, stake in known.items():
        if stake > posted.get(player, 0):
            log.error("casino_partial_record_mismatch", round=round_id, player=player)
            return None
    for player, stake in posted.items():
        extra = stake - known.get(player, 0)
        if extra:
            lines.append(BetLine(player, UNAPPLIED, extra, PUSH, extra))
    done = settlement(lines, max_win)
    legs = money.settlement(round_id, table_id, currency, Settled(done), review_at)
    pays = legs.get(money.bankroll(currency), 0)
    if pays < 0 and _balance(conn, money.bankroll(currency)) + pays < 0:
        log.error("casino_partial_bankroll_short", round=round_id, needs=-pays)
        return None
    held = tuple(
        t.player for t in done.players if review_at is not None and t.winnings >= review_at
    )
    return Partial(legs, done, held)


def _balance(conn: Connection, ref: AccountRef) -> int:
    try:
        return get_account(conn, ref).balance
    except UnknownAccount:
        return 0
