"""`serve --cluster/--node` refusals and `pokerroom cluster status|drain` (docs/OPERATIONS.md,
"Running a cluster"): one line per error, exit codes that say which."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.engine import Engine

from pokerroom.cli import main
from pokerroom.cluster import leases


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--cluster", "nats://127.0.0.1:4222", "--node", "a"],
            "PostgreSQL database (--db postgresql://...): not SQLite",
        ),
        (
            ["--cluster", "nats://x:1", "--node", "a", "--db", "foo://bar"],
            "PostgreSQL database (--db postgresql://...): not foo://",
        ),
        (["--cluster", "nats://127.0.0.1:4222"], "go together"),
        (["--node", "a", "--db", "postgresql://x@127.0.0.1/db"], "go together"),
        (["--cluster", "http://x", "--node", "a"], "expected a NATS URL"),
        (["--cluster", "nats://x:1", "--node", "a.b"], "no dots"),
    ],
)
def test_serve_refuses_a_cluster_it_cannot_run(tmp_path: Path, args: list[str], says: str) -> None:
    """Exit 2 with one line, before anything starts (a SQLite database: a cluster needs PG)."""
    db = ["--db", f"sqlite:///{tmp_path / 'room.sqlite'}"] if "--db" not in args else []
    result = CliRunner().invoke(main, ["serve", *db, *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pokerroom: ") and says in lines[0]
    assert not (tmp_path / "room.sqlite").exists()


def test_cluster_commands_need_postgresql(tmp_path: Path) -> None:
    """`cluster status` and `drain` on SQLite: one line, exit 78 (EX_CONFIG)."""
    for args in (["status"], ["drain", "a"], ["forget", "a"]):
        result = CliRunner().invoke(main, ["cluster", *args, "--db", str(tmp_path / "x.sqlite")])
        assert result.exit_code == 78 and "PostgreSQL" in result.output


@pytest.mark.postgresql
def test_status_and_drain(pg: Engine, pg_url: str) -> None:
    """status --json shows the node and its leases; drain marks it draining (0), --undo takes
    it back, an unknown node is exit 67 (EX_NOUSER) with one line."""
    leases.register(pg, "n1", "127.0.0.1:9001")
    assert leases.take(pg, "table:s1", "n1", 10) is not None
    runner = CliRunner()
    result = runner.invoke(main, ["cluster", "status", "--db", pg_url, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    (n1,) = [n for n in found["nodes"] if n["name"] == "n1"]
    assert n1["address"] == "127.0.0.1:9001" and n1["draining"] is False
    assert n1["heartbeat_age_seconds"] < 5
    (lease,) = [x for x in found["leases"] if x["resource"] == "table:s1"]
    assert lease["owner"] == "n1" and 0 < lease["expires_in_seconds"] <= 10
    table = runner.invoke(main, ["cluster", "status", "--db", pg_url])
    assert table.exit_code == 0 and "table:s1" in table.output and "n1" in table.output
    assert runner.invoke(main, ["cluster", "drain", "n1", "--db", pg_url]).exit_code == 0
    assert leases.heartbeat(pg, "n1") is True
    assert runner.invoke(main, ["cluster", "drain", "n1", "--undo", "--db", pg_url]).exit_code == 0
    assert leases.heartbeat(pg, "n1") is False
    unknown = runner.invoke(main, ["cluster", "drain", "nobody", "--db", pg_url])
    assert unknown.exit_code == 67
    assert unknown.output.strip().splitlines() == [
        "Error: no node 'nobody' in cluster_nodes (see pokerroom cluster status)"
    ]


@pytest.mark.postgresql
def test_forget_removes_a_dead_node_only(pg: Engine, pg_url: str) -> None:
    """`cluster forget NAME`: refused (75, one line) while the heartbeat is within --ttl or the
    node holds an unexpired lease; then its row is gone (0) and status no longer lists it; an
    unknown node is 67. status marks a node whose heartbeat is older than --ttl stale."""
    leases.register(pg, "n1", "127.0.0.1:9001")
    leases.register(pg, "n2", "127.0.0.1:9002")
    assert leases.take(pg, "table:s1", "n1", 60) is not None
    runner = CliRunner()

    def forget(name: str) -> Any:
        return runner.invoke(main, ["cluster", "forget", name, "--db", pg_url, "--ttl", "10"])

    alive = forget("n1")
    assert alive.exit_code == 75 and len(alive.output.strip().splitlines()) == 1
    assert "may be alive" in alive.output
    with pg.begin() as conn:  # n1 died 30 s ago; its lease still runs
        conn.execute(sa.text("UPDATE cluster_nodes SET heartbeat_at = clock_timestamp()"
                             " - interval '30 seconds' WHERE name = 'n1'"))  # fmt: skip
    shown = runner.invoke(main, ["cluster", "status", "--db", pg_url, "--json"])
    stale = {n["name"]: n["stale"] for n in json.loads(shown.output)["nodes"]}
    assert stale == {"n1": True, "n2": False}
    assert "(stale)" in runner.invoke(main, ["cluster", "status", "--db", pg_url]).output
    holds = forget("n1")
    assert holds.exit_code == 75 and "unexpired leases" in holds.output
    with pg.begin() as conn:
        conn.execute(sa.text("UPDATE cluster_leases SET expires_at = clock_timestamp()"))
    done = forget("n1")
    assert done.exit_code == 0 and "n1 forgotten" in done.output, done.output
    assert [n.name for n in leases.nodes(pg)] == ["n2"]
    assert forget("n1").exit_code == 67
    assert forget("n2").exit_code == 75  # the live one stays
