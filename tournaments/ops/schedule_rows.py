"""The recurring schedule's tournaments created as stored rows only (cluster mode).

In cluster mode one node, the holder of the `schedule:tournaments` lease, creates the scheduled
tournaments (pokerroom/cluster/schedule.py), on an engine fenced by that lease: it writes each
tournament's `registering` row with its config, as an actor's `open` would, and runs no actor.
Whichever node then takes `tournament:<id>` opens it from the row (T-18's `decide_one`: kept
registering). `open_due` is idempotent by key: an MTT's id is `<name>-<start>` and is written
only if no row has it; a sit-and-go is written only if no tournament of its schedule entry
(config `name`) is registering. So a retried or repeated call creates nothing twice, and the
fence makes sure a node that lost the schedule lease creates nothing at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.db import in_transaction
from tournaments import store
from tournaments.config import TournamentConfig


@dataclass(frozen=True, slots=True)
class Due:
    """A tournament the schedule wants now: its config, and whether it is a sit-and-go."""

    config: TournamentConfig
    sit_and_go: bool


def _registering_names(conn: Connection) -> set[str]:
    """The schedule entry names (config `name`) of the tournaments registering now."""
    names: set[str] = set()
    for tid in store.tournaments_with_status(conn, store.REGISTERING):
        record = store.load_tournament(conn, tid)
        if record is not None:
            names.add(msgspec.convert(record.config, TournamentConfig).name)
    return names


def open_due(engine: Engine, due: Sequence[Due], now_ms: int) -> list[str]:
    """Blocking, one transaction: write the row of each tournament of `due` not there yet (an
    MTT: no row of its id; a sit-and-go: none of its name registering); the ids written."""

    def work(conn: Connection) -> list[str]:
        registering = _registering_names(conn)
        written: list[str] = []
        for item in due:
            config = item.config
            tid = config.tournament_id
            if item.sit_and_go and config.name in registering:
                continue
            if store.load_tournament(conn, tid) is not None:
                continue
            record = store.TournamentRecord(
                id=tid,
                template=config.structure.name,
                currency=config.currency,
                created_at_ms=now_ms,
                config=store.config_json(config),
                guarantee=config.registration.guarantee,
            )
            store.save_tournament(conn, record)
            registering.add(config.name)
            written.append(tid)
        return written

    return in_transaction(engine, work)
