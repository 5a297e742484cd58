"""`pokerroom cluster status|drain` and the checks of `serve --cluster` (docs/OPERATIONS.md,
"Running a cluster"; docs/design/cluster.md)."""

from __future__ import annotations

import json

import click

from pokerroom.cli.database import db_option, opened

#: `cluster drain NAME` of a node with no row: sysexits EX_NOUSER (docs/OPERATIONS.md).
NO_SUCH_NODE = 67
#: The database is not PostgreSQL (cluster mode needs it): EX_CONFIG, as a wrong URL.
NOT_POSTGRESQL = 78


def check_node_options(db_url: str | None, nats_url: str | None, node: str | None) -> str:
    """Why `serve --cluster/--node` cannot run ("" when it can): both or neither, a NATS URL,
    a node name, and a PostgreSQL database."""
    from pokerroom.ledger.db import resolve_url

    if nats_url is None and node is None:
        return ""
    if nats_url is None or not node:
        return "--cluster NATS_URL and --node NAME go together"
    if not nats_url.startswith(("nats://", "tls://")):
        return f"--cluster {nats_url!r}: expected a NATS URL, nats://HOST:PORT"
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
    """Cluster nodes and leases: status, drain a node (docs/OPERATIONS.md).

    Read and written on the database directly; a cluster runs on PostgreSQL.
    """


def _require_postgresql(db_url: str | None) -> None:
    from pokerroom.ledger.db import resolve_url

    if not resolve_url(db_url).startswith(("postgresql", "postgres:")):
        click.echo("Error: a cluster runs on PostgreSQL: give --db postgresql://...", err=True)
        raise SystemExit(NOT_POSTGRESQL)


@cluster.command("status")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(db_url: str | None, as_json: bool) -> None:
    """Nodes (heartbeat age, draining, address) and leases (owner, epoch, seconds to expiry)."""
    import pokerroom.cluster.leases as leases
    from pokerroom.cli.output import show_table

    _require_postgresql(db_url)
    with opened(db_url) as engine:
        found = leases.status(engine)
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
                f"{n['heartbeat_age_seconds']:.1f} s ago",
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
