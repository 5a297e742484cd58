"""Every feature's table definitions in one list: what the Alembic head must build."""

from __future__ import annotations

import sqlalchemy as sa


def all_metadata() -> list[sa.MetaData]:
    """The MetaData of ledger (cash on it), server, staff, tournaments, jobs, casino, cluster."""
    import pokerroom.cash.schema  # noqa: F401  (declares the cash tables on the ledger's metadata)
    import tournaments.store.stake_store  # noqa: F401  (staking and deal tables on the tournaments')
    from pokerroom.admin.schema import metadata as admin_metadata
    from pokerroom.casino.schema import metadata as casino_metadata
    from pokerroom.cluster.schema import metadata as cluster_metadata
    from pokerroom.jobs.schema import metadata as jobs_metadata
    from pokerroom.ledger.schema import metadata as ledger_metadata
    from pokerroom.server.schema import metadata as server_metadata
    from tournaments.store import metadata as tournaments_metadata

    return [
        ledger_metadata,
        server_metadata,
        admin_metadata,
        tournaments_metadata,
        jobs_metadata,
        casino_metadata,
        cluster_metadata,
    ]
