"""The pending-bets job (K-11, L-5, L-6): void casino rounds left unsettled past the limit.

A casino round that was interrupted (its table went down before the settlement, and the table
was not opened again to void it at start) keeps its stakes in its `casino_in_play` account
(L-6). When `pending_bet_days` (config/casino/casino.toml, default 90) have passed since the
interruption — the end of the round's betting window, `casino_rounds.due_ms`, when the round
should have been drawn — this job voids it: every stake back to the wallet that paid it, in one
transfer keyed by the round id (`pokerroom.casino.store.void_round`; a blackjack round recorded
in `partial` mode is cancelled by BJ-19 there instead). A round settled or voided
meanwhile (by its table, staff or an earlier run) moves nothing: the key and the round's status
make every round end once, whoever runs the job how many times.

Then it checks L-7: each round's `in_play` account holds exactly the stakes of its bet rows
while the round is open, and nothing once it ended; a difference is reported as the run's
error (outcome `failed`), for staff to look into.

`serve` runs it every `[jobs] pending_bets_interval_seconds` (default 3600; 0: never) through the
same runner, lock and `job_runs` row as the refund job, and so does `pokerroom jobs run
pending_bets` (a cron line, docs/CASINO.md) and the staff's `job_run`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from functools import partial
from typing import Any

from pokerroom.casino import settings as casino_settings
from pokerroom.casino import store
from pokerroom.jobs.runner import JobContext, JobResult, Work
from pokerroom.ledger.errors import LedgerError

NAME = "pending_bets"
DAY_MS = 86_400_000
REASON = "K-11: pending for more than {days} days"


@dataclass
class PendingBetsJob:
    """Voids every casino round still open `days` after its interruption (module doc)."""

    name: str = NAME
    days: int | None = None  # None: config/casino/casino.toml's pending_bet_days

    def limit_days(self) -> int:
        """The number of days a pending bet waits (K-11)."""
        return self.days if self.days is not None else casino_settings.common().pending_bet_days

    def summary(self, result: JobResult) -> str:
        """The casino rounds this run voided."""
        return f"{len(result.rounds)} round(s) voided"

    def steps(self, ctx: JobContext) -> Generator[Work, Any, None]:
        """Find the rounds past the limit, then void each in its own transaction."""
        days = self.limit_days()
        now_ms = ctx.now_ms()
        round_ids: tuple[str, ...] = yield partial(
            store.pending_rounds, due_before_ms=now_ms - days * DAY_MS
        )
        result = ctx.result
        for round_id in round_ids:
            try:
                voided: store.Voided = yield partial(
                    store.void_round,
                    round_id=round_id,
                    reason=REASON.format(days=days),
                    now_ms=ctx.now_ms(),
                )
            except (LedgerError, KeyError) as exc:
                result.errors.append((round_id, f"{type(exc).__name__}: {exc}"))
                continue
            if voided.replayed:
                continue
            result.rounds.append(round_id)
            if voided.refunds:
                result.transfers += 1
            for _, stake in voided.refunds:
                result.paid(voided.currency, stake)
            ctx.say(f"{round_id}: void, {len(voided.refunds)} player(s) refunded")
        # L-7: every round's in_play holds the stakes of its bets while open, nothing after.
        mismatches: tuple[tuple[str, int, int], ...] = yield store.in_play_mismatches
        for round_id, expected, balance in mismatches:
            result.errors.append((round_id, f"in_play holds {balance}, its bets {expected} (L-7)"))


def preview(engine: Any, now_ms: int, days: int | None = None) -> tuple[str, ...]:
    """The rounds a run now would void (`jobs run pending_bets --dry-run`)."""
    limit = days if days is not None else casino_settings.common().pending_bet_days
    return store.pending_rounds(engine, now_ms - limit * DAY_MS)
