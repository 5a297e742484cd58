"""Leases in PostgreSQL: take, renew, release and fence, by the database's clock.

docs/design/cluster.md, "Ownership". A lease row (`cluster_leases`) says which node owns a table
(`table:<id>`) or a tournament (`tournament:<id>`), under which `epoch`, until when. Every time
here is the database's `clock_timestamp()` (never `now()`, the transaction's start, and never a
node's clock). Each function is blocking: it runs in one of the ledger's thread pools (ARCH 7)
and returns plain values.

- `take` bumps the epoch (a row that is free, expired or the node's own); nothing returned:
  another node holds it.
- `renew` is ONE statement for all of a node's leases, `WHERE owner AND epoch`; a lease missing
  from its answer is lost.
- `release` ends a lease now and keeps its epoch (a drain: the next owner bumps it).
- `check` is the fence: `SELECT ... FOR SHARE` checking owner, epoch and expiry, inside the
  transaction of the write it guards; the row lock makes a concurrent take wait for that
  write's commit. It raises `LeaseLost` (`lease_lost`). `fenced(engine, ...)` is an engine
  whose every write transaction begins with that check (`install_fence` once per engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from pokerroom.ledger.db import READ_ONLY, in_transaction, read
from pokerroom.ledger.errors import LedgerError

#: The execution option that carries a fence (resource, owner, epoch) on a fenced engine.
FENCE = "cluster_fence"
TABLE, TOURNAMENT = "table", "tournament"


class LeaseLost(LedgerError):
    """A write for a resource this node no longer owns (or whose lease ran out) was refused."""

    code = "lease_lost"


def resource_of(kind: str, ident: str) -> str:
    """The lease name of a table or tournament: `table:<id>`, `tournament:<id>`."""
    return f"{kind}:{ident}"


@dataclass(frozen=True, slots=True)
class LeaseRow:
    """One lease as `cluster status` shows it."""

    resource: str
    owner: str
    epoch: int
    expires_in: float  # seconds to expiry by the database clock (negative: expired)


@dataclass(frozen=True, slots=True)
class NodeRow:
    """One node as `cluster status` shows it."""

    name: str
    address: str
    heartbeat_age: float  # seconds since its last heartbeat, by the database clock
    draining: bool


_TAKE = sa.text(
    "INSERT INTO cluster_leases (resource, owner, epoch, expires_at)"
    " VALUES (:resource, :owner, 1, clock_timestamp() + make_interval(secs => :ttl))"
    " ON CONFLICT (resource) DO UPDATE SET owner = EXCLUDED.owner,"
    " epoch = cluster_leases.epoch + 1,"
    " expires_at = clock_timestamp() + make_interval(secs => :ttl)"
    " WHERE cluster_leases.expires_at <= clock_timestamp()"
    " OR cluster_leases.owner = EXCLUDED.owner"
    " RETURNING epoch"
)
_RENEW = sa.text(
    "UPDATE cluster_leases SET expires_at = clock_timestamp() + make_interval(secs => :ttl)"
    " WHERE owner = :owner AND (resource, epoch) IN"
    " (SELECT * FROM unnest(CAST(:resources AS text[]), CAST(:epochs AS bigint[])))"
    " RETURNING resource"
)
_RELEASE = sa.text(
    "UPDATE cluster_leases SET expires_at = clock_timestamp()"
    " WHERE resource = :resource AND owner = :owner AND epoch = :epoch"
    " AND expires_at > clock_timestamp() RETURNING epoch"
)
_CHECK = sa.text(
    "SELECT 1 FROM cluster_leases WHERE resource = :resource AND owner = :owner"
    " AND epoch = :epoch AND expires_at > clock_timestamp() FOR SHARE"
)


def take(engine: Engine, resource: str, owner: str, ttl: float) -> int | None:
    """Take `resource` for `owner` if it is free, expired or already `owner`'s: its new epoch
    (one more than before); None when another node holds it."""
    params = {"resource": resource, "owner": owner, "ttl": float(ttl)}
    row = in_transaction(engine, lambda conn: conn.execute(_TAKE, params).first())
    return None if row is None else int(row[0])


def renew(engine: Engine, owner: str, held: Mapping[str, int], ttl: float) -> set[str]:
    """Extend every lease of `held` (resource -> epoch) still `owner`'s at that epoch, in ONE
    statement; the resources renewed (the others are lost)."""
    if not held:
        return set()
    names = sorted(held)
    params = {
        "owner": owner,
        "ttl": float(ttl),
        "resources": names,
        "epochs": [held[name] for name in names],
    }
    rows = in_transaction(engine, lambda conn: conn.execute(_RENEW, params).all())
    return {str(row[0]) for row in rows}


def release(engine: Engine, resource: str, owner: str, epoch: int) -> bool:
    """End `owner`'s lease of `resource` now, its epoch kept (the next owner bumps it);
    whether it was still held."""
    params = {"resource": resource, "owner": owner, "epoch": epoch}
    row = in_transaction(engine, lambda conn: conn.execute(_RELEASE, params).first())
    return row is not None


def check(conn: Connection, resource: str, owner: str, epoch: int) -> None:
    """The fence, in the caller's transaction: `owner` holds `resource` at `epoch`, unexpired
    by the database clock; the row stays share-locked until that transaction ends. Else
    LeaseLost."""
    params = {"resource": resource, "owner": owner, "epoch": epoch}
    if conn.execute(_CHECK, params).first() is None:
        raise LeaseLost(f"{resource} is no longer {owner}'s at epoch {epoch}")


def _on_begin(conn: Connection) -> None:
    """A fenced engine's write transaction starts with the fence check."""
    options = conn.get_execution_options()
    fence = options.get(FENCE)
    if fence is not None and not options.get(READ_ONLY):
        check(conn, *fence)


def install_fence(engine: Engine) -> None:
    """Make engines made by `fenced(engine, ...)` check their fence; once per engine."""
    if not event.contains(engine, "begin", _on_begin):
        event.listen(engine, "begin", _on_begin)


def fenced(engine: Engine, resource: str, owner: str, epoch: int) -> Engine:
    """The same engine (pool, dialect) whose every write transaction first checks that `owner`
    holds `resource` at `epoch` (`check`); `install_fence(engine)` must have run."""
    return engine.execution_options(**{FENCE: (resource, owner, epoch)})


def limit_idle_transactions(engine: Engine, seconds: float) -> None:
    """PostgreSQL ends any transaction of this engine's connections left idle `seconds`: a
    node paused in the middle of one (SIGSTOP, a long GC) must not hold row locks, a shared
    house account's say, that stall every other node's settlements. Set on each new
    connection; the connections already pooled are replaced."""
    ms = max(1, round(seconds * 1000))

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"SET SESSION idle_in_transaction_session_timeout = {ms}")
        cursor.close()
        dbapi_connection.commit()  # a session setting, kept when the pool rolls back

    event.listen(engine, "connect", on_connect)
    engine.dispose()


# ---------------------------------------------------------------------- nodes

_REGISTER = sa.text(
    "INSERT INTO cluster_nodes (name, address, started_at, heartbeat_at, draining)"
    " VALUES (:name, :address, clock_timestamp(), clock_timestamp(), false)"
    " ON CONFLICT (name) DO UPDATE SET address = EXCLUDED.address,"
    " started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at, draining = false"
)
_HEARTBEAT = sa.text(
    "UPDATE cluster_nodes SET heartbeat_at = clock_timestamp() WHERE name = :name"
    " RETURNING draining"
)
_NODES = sa.text(
    "SELECT name, address, EXTRACT(EPOCH FROM clock_timestamp() - heartbeat_at), draining"
    " FROM cluster_nodes ORDER BY name"
)
_LEASES = sa.text(
    "SELECT resource, owner, epoch, EXTRACT(EPOCH FROM expires_at - clock_timestamp())"
    " FROM cluster_leases ORDER BY resource"
)


def register(engine: Engine, name: str, address: str) -> None:
    """Write (or rewrite) the node's row: its address, started and heartbeat now, not draining."""
    in_transaction(engine, lambda conn: conn.execute(_REGISTER, {"name": name, "address": address}))


def heartbeat(engine: Engine, name: str) -> bool:
    """The node's heartbeat, now by the database clock; whether it is to drain."""
    row = in_transaction(engine, lambda conn: conn.execute(_HEARTBEAT, {"name": name}).first())
    return bool(row[0]) if row is not None else False


def deregister(engine: Engine, name: str) -> bool:
    """Delete the node's row (a clean stop, or a start that failed after it was written): the
    other nodes stop counting it at their next round; whether there was one."""
    query = sa.text("DELETE FROM cluster_nodes WHERE name = :name RETURNING name")
    row = in_transaction(engine, lambda conn: conn.execute(query, {"name": name}).first())
    return row is not None


#: What `forget` found: the row removed, no such node, the node alive, or holding leases.
FORGOTTEN, NO_NODE, ALIVE, HOLDS_LEASES = "forgotten", "no_node", "alive", "holds_leases"
_FORGET = sa.text(
    "SELECT EXTRACT(EPOCH FROM clock_timestamp() - heartbeat_at),"
    " (SELECT count(*) FROM cluster_leases WHERE owner = :name"
    " AND expires_at > clock_timestamp())"
    " FROM cluster_nodes WHERE name = :name FOR UPDATE"
)


def forget(engine: Engine, name: str, ttl: float) -> tuple[str, float]:
    """Delete a dead node's row (`cluster forget`): refused while its heartbeat is within `ttl`
    seconds or it holds an unexpired lease. The outcome and the heartbeat's age (seconds)."""

    def work(conn: Connection) -> tuple[str, float]:
        row = conn.execute(_FORGET, {"name": name}).first()
        if row is None:
            return NO_NODE, 0.0
        age, held = float(row[0]), int(row[1])
        if age <= ttl:
            return ALIVE, age
        if held:
            return HOLDS_LEASES, age
        conn.execute(sa.text("DELETE FROM cluster_nodes WHERE name = :name"), {"name": name})
        return FORGOTTEN, age

    return in_transaction(engine, work)


def set_draining(engine: Engine, name: str, draining: bool = True) -> bool:
    """Mark a node draining (or not); whether such a node exists."""
    query = sa.text("UPDATE cluster_nodes SET draining = :d WHERE name = :name RETURNING name")
    params = {"name": name, "d": draining}
    return in_transaction(engine, lambda conn: conn.execute(query, params).first()) is not None


def nodes(bind: Engine | Connection) -> list[NodeRow]:
    """Every node row, by name, with its heartbeat's age."""

    def work(conn: Connection) -> list[NodeRow]:
        rows = conn.execute(_NODES).all()
        return [NodeRow(str(r[0]), str(r[1]), float(r[2]), bool(r[3])) for r in rows]

    return read(bind, work)


def live_nodes(bind: Engine | Connection, ttl: float) -> list[NodeRow]:
    """The nodes whose heartbeat is within `ttl` seconds (draining ones included)."""
    return [node for node in nodes(bind) if node.heartbeat_age <= ttl]


def leases(bind: Engine | Connection) -> list[LeaseRow]:
    """Every lease, by resource, with its seconds to expiry."""

    def work(conn: Connection) -> list[LeaseRow]:
        rows = conn.execute(_LEASES).all()
        return [LeaseRow(str(r[0]), str(r[1]), int(r[2]), float(r[3])) for r in rows]

    return read(bind, work)


def owners(bind: Engine | Connection) -> dict[str, str]:
    """Resource -> owning node, of the leases not expired."""
    return {lease.resource: lease.owner for lease in leases(bind) if lease.expires_in > 0}


def status(bind: Engine | Connection) -> dict[str, Any]:
    """Nodes and leases in one snapshot, as `cluster status --json` prints them."""

    def work(conn: Connection) -> dict[str, Any]:
        return {
            "nodes": [
                {
                    "name": n.name,
                    "address": n.address,
                    "heartbeat_age_seconds": round(n.heartbeat_age, 3),
                    "draining": n.draining,
                }
                for n in nodes(conn)
            ],
            "leases": [
                {
                    "resource": lease.resource,
                    "owner": lease.owner,
                    "epoch": lease.epoch,
                    "expires_in_seconds": round(lease.expires_in, 3),
                }
                for lease in leases(conn)
            ],
        }

    return read(bind, work)
