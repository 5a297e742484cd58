"""Staff table commands on real cluster nodes (docs/design/cluster.md, "Staff commands"): two
`pokerroom serve --cluster --node` processes, each with its staff endpoint, one PostgreSQL and
a nats-server of the test's own. A floor member logged in on node b's endpoint pauses, shows
and resumes a cash table node a runs and closes a casino table a runs: each command is carried
to a and run there for that staff member (the audit row names them); a's refusal (`no_change`)
comes back unchanged. b's `table_list` and `casino_table_list` list every node's tables.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.admin.schema import audit
from pokerroom.cli import main
from pokerroom.cluster import leases
from pokerroom.ledger import make_engine
from tests.admin.test_admin_end_to_end import PASSWORD, Wire
from tests.cluster.natsproc import running_nats
from tests.cluster.nodes import config, wait_for
from tests.postgres import fresh_pg_schema
from tests.serving import migrate, start_serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


def owners(engine: sa.Engine, kind: str) -> dict[str, str]:
    """id -> owning node of the unexpired leases of one kind (`table`, `casino`)."""
    found = leases.owners(engine).items()
    return {r.partition(":")[2]: o for r, o in found if r.startswith(f"{kind}:")}


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[tuple[sa.Engine, dict[str, str]]]:
    """Nodes a and b (the two cash tables split one each); each node's staff address."""
    with running_nats() as nats, fresh_pg_schema("cluster_staff_nodes") as url:
        migrate(url)
        done = CliRunner().invoke(
            main,
            ["staff", "add", "flo", "--role", "floor", "--db", url, "--password-file", "-"],
            input=f"{PASSWORD}\n",
        )
        assert done.exit_code == 0, done.output
        (tmp_path / "room.toml").write_text(
            config(2) + '[admin]\nendpoint = "tcp:0:interface=127.0.0.1"\n'
        )
        engine = make_engine(url)
        procs: list[subprocess.Popen[str]] = []
        admin: dict[str, str] = {}
        try:
            for name in ("a", "b"):
                args = ["serve", "--db", url, "--port", "0", "--cluster", nats.url]
                args += ["--config", str(tmp_path / "room.toml"), "--node", name]
                _, proc = start_serve(args, tmp_path / f"{name}.log")
                procs.append(proc)
                assert proc.stdout is not None
                line = proc.stdout.readline()
                assert "admin listening on" in line, line
                admin[name] = line.rsplit(" ", 1)[1].strip()
            wait_for(lambda: sorted(owners(engine, "table").values()) == ["a", "b"], 30, "1/1")
            yield engine, admin
        finally:
            for proc in procs:
                stop(proc)
            engine.dispose()


def test_a_floor_member_on_b_acts_on_tables_a_runs(
    nodes: tuple[sa.Engine, dict[str, str]],
) -> None:
    """Module docstring."""
    engine, admin = nodes
    table = next(t for t, o in owners(engine, "table").items() if o == "a")
    casino = next(t for t, o in owners(engine, "casino").items() if o == "a")
    wire = Wire(admin["b"])
    wire.ok("staff_login", name="flo", password=PASSWORD)
    paused = wire.ok("table_pause", table_id=table, reason="smoke on a")
    assert paused["state"] == "paused" and isinstance(paused["audit_id"], int)
    shown = wire.ok("table_show", table_id=table)  # a's own view: its staff state
    assert shown["table_id"] == table and shown["state"] == "paused"
    refused = wire.call("table_pause", table_id=table, reason="again")
    assert refused["type"] == "error" and refused["code"] == "no_change"  # a's, unchanged
    assert wire.ok("table_resume", table_id=table)["state"] == "open"
    assert wire.call("table_open", table_id=table)["code"] == "no_change"  # a runs it
    assert wire.call("table_open", table_id="zz")["code"] == "cluster_restart_needed"
    closed = wire.ok("casino_table_close", table_id=casino, reason="count the float")
    assert isinstance(closed["audit_id"], int)
    listed = wire.ok("table_list")["tables"]  # b's table and a's, as a tells it
    assert sorted(line["table_id"] for line in listed) == sorted(owners(engine, "table"))
    assert all("variant" in line and "seats" not in line for line in listed)
    casinos = {line["table_id"]: line for line in wire.ok("casino_table_list")["tables"]}
    assert set(casinos) == set(owners(engine, "casino")) and len(casinos) == 6
    assert casinos[casino]["closed_reason"] == "count the float"
    with engine.connect() as conn:
        rows = conn.execute(sa.select(audit.c.staff, audit.c.action).order_by(audit.c.id)).all()
    assert [tuple(r) for r in rows][-3:] == [
        ("flo", "table_pause"),
        ("flo", "table_resume"),
        ("flo", "casino_table_close"),
    ]
