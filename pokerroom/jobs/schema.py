"""Tables of the job runner: one row per run (`job_runs`) and the SQLite lease (`job_locks`).

Mirrored by migration 0006. Own MetaData beside the ledger's, with the same naming convention.
"""

from __future__ import annotations

import sqlalchemy as sa

from pokerroom.ledger.schema import NAMING

metadata = sa.MetaData(naming_convention=NAMING)

#: One row per run of a job: started `running`, ended ok / failed / stopped, or skipped because
#: another runner held the lock. A row still `running` with no end was killed (or still runs).
job_runs = sa.Table(
    "job_runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("job", sa.String(40), nullable=False),
    sa.Column("runner", sa.String(120), nullable=False),  # host:pid:nonce
    sa.Column("started_at_ms", sa.BigInteger, nullable=False),
    sa.Column("ended_at_ms", sa.BigInteger, nullable=True),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("tournaments", sa.JSON, nullable=False),  # ids finished by this run
    sa.Column("amounts", sa.JSON, nullable=False),  # currency -> minor units paid to players
    sa.Column("transfers", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("error", sa.String(2000), nullable=True),
    sa.Index("ix_job_runs_job_id", "job", "id"),
)

#: SQLite's one-runner-at-a-time lease (PostgreSQL uses an advisory lock and keeps the holder
#: here only to name it): taken atomically under SQLite's write lock, renewed while running.
job_locks = sa.Table(
    "job_locks",
    metadata,
    sa.Column("job", sa.String(40), primary_key=True),
    sa.Column("owner", sa.String(120), nullable=False),
    sa.Column("taken_at_ms", sa.BigInteger, nullable=False),
    sa.Column("expires_at_ms", sa.BigInteger, nullable=False),
)
