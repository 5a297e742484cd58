"""Scheduled jobs: one runner at a time, a `job_runs` row per run, and the T-18 refund job.

`pokerroom jobs run refunds` (by hand, cron or a systemd timer) and `pokerroom serve` (every
`[jobs] refunds_interval_seconds`) run the same steps; docs/OPERATIONS.md says how.
"""

from __future__ import annotations

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

JOBS = ("refunds",)

__all__ = [
    "JOBS",
    "Job",
    "JobContext",
    "JobResult",
    "JobSettings",
    "RefundsJob",
    "RunReport",
    "job_run",
    "run_blocking",
]
