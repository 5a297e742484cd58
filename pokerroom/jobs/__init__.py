"""Scheduled jobs: one runner at a time, a `job_runs` row per run; the T-18 refund job and the
K-11 pending-bets job.

`pokerroom jobs run refunds` (by hand, cron or a systemd timer) and `pokerroom serve` (every
`[jobs] refunds_interval_seconds`) run the same steps; docs/OPERATIONS.md says how.
"""

from __future__ import annotations

from pokerroom.jobs.pending_bets import PendingBetsJob
from pokerroom.jobs.refunds import RefundsJob
from pokerroom.jobs.runner import (
    Job,
    JobContext,
    JobResult,
    JobSettings,
    RunReport,
    job_run,
    run_blocking,
)

JOBS = ("refunds", "pending_bets")

__all__ = [
    "JOBS",
    "Job",
    "JobContext",
    "JobResult",
    "JobSettings",
    "PendingBetsJob",
    "RefundsJob",
    "RunReport",
    "job_run",
    "run_blocking",
]
