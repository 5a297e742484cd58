"""`pokerroom cluster status|drain|forget` and the checks of `serve --cluster` (docs/OPERATIONS.md,
"Running a cluster"; docs/design/cluster.md)."""

from __future__ import annotations

import json
from typing import Any

import click

from pokerroom.cli.database import db_option, opened
from pokerroom.cluster.config import ClusterSettings

#: `cluster drain NAME` of a node with no row: sysexits EX_NOUSER (docs/OPERATIONS.md).
NO_SUCH_NODE = 67
#: The database is not PostgreSQL (cluster mode needs it): EX_CONFIG, as a wrong URL.
NOT_POSTGRESQL = 78
#: `cluster forget NAME` of a node that may be alive (heartbeat within the TTL, or an unexpired
#: lease): sysexits EX_TEMPFAIL, try again once it is dead (docs/OPERATIONS.md).
NODE_ALIVE = 75


def check_node_options(db_url: str | None, nats_url: str | None, node: str | None) -> str:
    """Why `serve --cluster/--node` cannot run ("" when it can): both or neither, a NATS URL,
    a node name, and a PostgreSQL database."""
    from pokerroom.cluster.config import shown
    from pokerroom.ledger.db import resolve_url

    if nats_url is None and node is None:
        return ""
    if nats_url is None or not node:
        return "--cluster NATS_URL and --node NAME go together"
    if not nats_url.startswith(("nats://", "tls://")):
        return f"--cluster {shown(nats_url)!r}: expected a NATS URL, nats://HOST:PORT"
    if len(node) > 64 or any(c in node for c in ". *>\t"):
        return f"--node {node!r}: at most 64 characters, no dots, spaces, * or >"
    resolved = resolve_url(db_url)
    if not resolved.startswith(("postgresql", "postgres:")):
        scheme = resolved.split("://", 1)[0]
        kind = "SQLite" if scheme.startswith("sqlite") else f"{scheme}://"
        return f"--cluster needs a PostgreSQL database (--db postgresql://...): not {kind}"
    return ""


def install_cluster_reactor() -> None:
    """Install Twisted's asyncio reactor (nats-py is asyncio-only), on a new event loop; only
    in cluster mode, before anything imports `twisted.internet.reactor`."""
    import asyncio

    from twisted.internet import asyncioreactor

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    asyncioreactor.install(loop)  # type: ignore[no-untyped-call]


@click.group("cluster")
def cluster() -> None:
    """Cluster nodes and leases: status, drain or forget a node (docs/OPERATIONS.md).

    Read and written on the database directly; a cluster runs on PostgreSQL.
    """


def _require_postgresql(db_url: str | None) -> None:
    from pokerroom.ledger.db import resolve_url

    if not resolve_url(db_url).startswith(("postgresql", "postgres:")):
        click.echo("Error: a cluster runs on PostgreSQL: give --db postgresql://...", err=True)
        raise SystemExit(NOT_POSTGRESQL)


def _ttl_option(func: Any) -> Any:
    return click.option(
        "--ttl",
        type=click.FloatRange(0, min_open=True),
        default=ClusterSettings().ttl_seconds,
        show_default=True,
        help="The cluster's [cluster] ttl_seconds: a heartbeat older than this is a dead node's.",
    )(func)


@cluster.command("status")
@db_option
@_ttl_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(db_url: str | None, ttl: float, as_json: bool) -> None:
    """Nodes (heartbeat age, stale, draining, address) and leases (owner, epoch, expiry)."""
    import pokerroom.cluster.leases as leases
    from pokerroom.cli.output import show_table

    _require_postgresql(db_url)
    with opened(db_url) as engine:
        found = leases.status(engine)
    for n in found["nodes"]:  # a stopped node deleted its row: one listed this old is dead
        n["stale"] = n["heartbeat_age_seconds"] > ttl
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    show_table(
        "Nodes",
        ["node", "address", "heartbeat", "draining", "owns"],
        [
            [
                n["name"],
                n["address"],
                f"{n['heartbeat_age_seconds']:.1f} s ago" + (" (stale)" if n["stale"] else ""),
                "yes" if n["draining"] else "no",
                sum(
                    1
                    for lease in found["leases"]
                    if lease["owner"] == n["name"] and lease["expires_in_seconds"] > 0
                ),
            ]
            for n in found["nodes"]
        ],
    )
    show_table(
        "Leases",
        ["resource", "owner", "epoch", "expires in"],
        [
            [
                lease["resource"],
                lease["owner"],
                lease["epoch"],
                f"{lease['expires_in_seconds']:.1f} s"
                if lease["expires_in_seconds"] > 0
                else "expired",
            ]
            for lease in found["leases"]
        ],
    )


@cluster.command("drain")
@click.argument("name")
@db_option
@click.option("--undo", is_flag=True, help="Let the node take tables again.")
def drain(name: str, db_url: str | None, undo: bool) -> None:
    """Hand node NAME's tables over to the other nodes, each at the end of its current hand."""
    import pokerroom.cluster.leases as leases

    _require_postgresql(db_url)
    with opened(db_url) as engine:
        found = leases.set_draining(engine, name, not undo)
    if not found:
        click.echo(
            f"Error: no node {name!r} in cluster_nodes (see pokerroom cluster status)", err=True
        )
        raise SystemExit(NO_SUCH_NODE)
    if undo:
        click.echo(f"node {name} takes tables again")
    else:
        click.echo(f"node {name} is draining: its tables move at the end of their hands")


@cluster.command("forget")
@click.argument("name")
@db_option
@_ttl_option
def forget(name: str, db_url: str | None, ttl: float) -> None:
    """Remove dead node NAME from cluster_nodes (refused while it may be alive)."""
    import pokerroom.cluster.leases as leases

    _require_postgresql(db_url)
    with opened(db_url) as engine:
        outcome, age = leases.forget(engine, name, ttl)
    if outcome == leases.NO_NODE:
        click.echo(
            f"Error: no node {name!r} in cluster_nodes (see pokerroom cluster status)", err=True
        )
        raise SystemExit(NO_SUCH_NODE)
    if outcome == leases.ALIVE:
        click.echo(
            f"Error: node {name} may be alive (heartbeat {age:.1f} s ago, within the TTL"
            f" {ttl:g} s): stop it, or wait",
            err=True,
        )
        raise SystemExit(NODE_ALIVE)
    if outcome == leases.HOLDS_LEASES:
        click.echo(
            f"Error: node {name} still holds unexpired leases (heartbeat {age:.1f} s ago):"
            " wait for them to expire",
            err=True,
        )
        raise SystemExit(NODE_ALIVE)
    click.echo(f"node {name} forgotten (its last heartbeat {age:.1f} s ago)")
