"""An independent T-18 reference: refunds computed from docs/RULES.md's text and the raw rows.

Written for the tests only, from the rule, not from `tournaments.director.refunds`: it reads the
stored tournament with plain SQL (entries, purchases, each table's seats as of its last completed
hand, the prize table) and says what each player must get back, to the cent:

1. Not started: every registered player gets back buy-in and fee.
2. Started, not in the money: every remaining player gets the fee of the stack still in play;
   of the prize pool (the buy-ins paid in: the guarantee's overlay is never shared), half is
   shared equally and half by chips (the equal half is `pool // 2`).
3. In the money: every remaining player gets that fee; of the prize money not yet paid, each
   first gets the next prize to be awarded, the rest goes by chips; never more than the entries
   paid in less the prizes already paid (if that cannot give each the next prize, it is shared
   equally).

Every amount is rounded down (T-7); busted players get nothing. No bounties, no tickets here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine


@dataclass
class Expected:
    """The reference refunds of one tournament."""

    phase: str
    fee: dict[str, int] = field(default_factory=dict)
    buy_in: dict[str, int] = field(default_factory=dict)
    pool: dict[str, int] = field(default_factory=dict)  # share of the prize pool, all parts

    def total(self, player: str) -> int:
        """Everything `player` gets back."""
        return self.fee.get(player, 0) + self.buy_in.get(player, 0) + self.pool.get(player, 0)

    def players(self) -> set[str]:
        """Who gets anything."""
        return {p for p in set(self.fee) | set(self.buy_in) | set(self.pool) if self.total(p)}


def _rows(engine: Engine, sql: str, tid: str) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(sql), {"tid": tid}))


def reference(engine: Engine, tid: str) -> Expected:
    """T-18 for tournament `tid` as stored (see the module docstring)."""
    (row,) = _rows(engine, "select started_at_ms, prizes from tournaments where id = :tid", tid)
    entries = _rows(
        engine,
        "select player, entry_no, status, prize from tournament_entries where tournament_id = :tid",
        tid,
    )
    gone = {e.player for e in entries if e.status == "unregistered"}
    payments = [
        p
        for p in _rows(
            engine,
            "select player, entry_no, buy_in, fee from tournament_payments "
            "where tournament_id = :tid",
            tid,
        )
        if p.player not in gone
    ]
    if row.started_at_ms is None:  # 1. not started
        out = Expected("not_started")
        for p in payments:
            out.buy_in[p.player] = out.buy_in.get(p.player, 0) + p.buy_in
            out.fee[p.player] = out.fee.get(p.player, 0) + p.fee
        return out
    live = {e.player: e.entry_no for e in entries if e.status == "alive"}
    chips: dict[str, int] = {}
    for seat in _rows(
        engine, "select player, stack from tournament_seats where tournament_id = :tid", tid
    ):
        chips[seat.player] = chips.get(seat.player, 0) + seat.stack
    assert set(chips) == set(live), "every remaining player has a stored stack, and only they"
    collected = sum(p.buy_in for p in payments)
    paid_prizes = sum(e.prize for e in entries)
    fee = {
        player: sum(p.fee for p in payments if p.player == player and p.entry_no == number)
        for player, number in live.items()
    }
    total_chips = sum(chips.values())
    prizes = row.prizes
    if isinstance(prizes, str):  # a JSON column read through plain SQL on SQLite
        import json

        prizes = json.loads(prizes)
    amounts = list(prizes["amounts"]) if prizes else []
    left = len(live)
    in_money = prizes is not None and left <= len([a for a in amounts if a > 0])
    out = Expected("in_the_money" if in_money else "before_money", fee=fee)
    if not in_money:  # 2.
        pool = collected
        equal = (pool // 2) // left
        by_chips = pool - pool // 2
        for player in live:
            out.pool[player] = equal + by_chips * chips[player] // total_chips
        return out
    unpaid = sum(amounts[:left])  # 3. places 1..left are still to be awarded
    share = min(unpaid, collected - paid_prizes)
    next_prize = amounts[left - 1]
    if share < next_prize * left:
        for player in live:
            out.pool[player] = share // left
        return out
    rest = share - next_prize * left
    for player in live:
        out.pool[player] = next_prize + rest * chips[player] // total_chips
    return out


def paid(engine: Engine, tid: str) -> dict[str, int]:
    """What the ledger moved to each player under the tournament's refund keys."""
    rows = _rows(
        engine,
        "select j.idempotency_key as k, p.amount as amount, a.owner as owner, a.kind as kind "
        "from journal j join postings p on p.journal_id = j.id "
        "join accounts a on a.id = p.account_id "
        "where j.idempotency_key like 't:' || :tid || ':refund:%' and p.amount > 0",
        tid,
    )
    out: dict[str, int] = {}
    for r in rows:
        if r.kind in ("wallet", "tdollars", "ticket"):
            out[r.owner] = out.get(r.owner, 0) + r.amount
    return out
