"""Child process for the crash and two-runner tests: the refund job, paced by its parent.

After each batch it prints `paid <n>` and waits for a line on stdin before the next batch (end
of input: it goes on without waiting). The parent can so stop it between batches, kill it with
SIGKILL mid-run, or hold it (and its lock) while another runner tries.
"""

from __future__ import annotations

import sys
import time

from pokerroom.jobs import JobContext, JobSettings, RefundsJob, job_run, run_blocking
from pokerroom.jobs.lock import runner_name
from pokerroom.ledger.db import make_engine


def main(url: str, batch: int) -> None:
    """Run the refund job once, printing `paid n` after each batch and `report <outcome>`."""
    engine = make_engine(url)
    batches = 0

    def progress(line: str) -> None:
        nonlocal batches
        if ": paid " in line:
            batches += 1
            print(f"paid {batches}", flush=True)
            sys.stdin.readline()

    ctx = JobContext(time.time, JobSettings(batch=batch), progress=progress)
    report = run_blocking(engine, job_run(RefundsJob(), runner_name(), ctx))
    print(f"report {report.outcome} {report.transfers}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
