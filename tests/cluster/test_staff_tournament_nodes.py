"""Staff tournament commands on real cluster nodes (docs/design/cluster.md, "Staff commands";
docs/ADMIN.md): two `pokerroom serve --cluster --node` processes with the schedule and each its
staff endpoint, one PostgreSQL and a nats-server of the test's own. The schedule's holder
creates an MTT (registering); a director logged in on the endpoint of the node that does not
run it delays it (a tournament_create there writes the row only: one node, the lease's, runs
it): the command is carried to the holder of `tournament:<id>` and run by its
actor for that director (the audit row names them); the owner's refusal of a pause (`not_allowed`:
not running) comes back unchanged, and `tournament_show` is the owner's view (in memory).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pokerroom.admin.schema import audit
from pokerroom.cli import main
from pokerroom.ledger import make_engine
from tests.admin.test_admin_end_to_end import PASSWORD, Wire
from tests.cluster.natsproc import running_nats
from tests.cluster.nodes import wait_for
from tests.cluster.test_tournament_failover import CONFIG, SCHEDULE, lease
from tests.postgres import fresh_pg_schema
from tests.serving import migrate, start_serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]


def test_a_director_on_the_other_node_delays_the_mtt_its_owner_runs(tmp_path: Path) -> None:
    """Module docstring."""
    with running_nats() as nats, fresh_pg_schema("cluster_staff_tnodes") as url:
        migrate(url)
        done = CliRunner().invoke(
            main,
            ["staff", "add", "dora", "--role", "director", "--db", url, "--password-file", "-"],
            input=f"{PASSWORD}\n",
        )
        assert done.exit_code == 0, done.output
        (tmp_path / "room.toml").write_text(
            CONFIG + '[admin]\nendpoint = "tcp:0:interface=127.0.0.1"\n'
        )
        start = round(time.time()) + 600
        (tmp_path / "schedule.toml").write_text(SCHEDULE.format(at_minute=(start % 86_400) / 60))
        tid = f"cf-{start}"
        engine = make_engine(url)
        procs: list[subprocess.Popen[str]] = []
        admin: dict[str, str] = {}
        try:
            for name in ("a", "b"):
                args = ["serve", "--db", url, "--port", "0", "--cluster", nats.url]
                args += ["--config", str(tmp_path / "room.toml"), "--node", name]
                args += ["--schedule", str(tmp_path / "schedule.toml")]
                _, proc = start_serve(args, tmp_path / f"{name}.log")
                procs.append(proc)
                assert proc.stdout is not None
                line = proc.stdout.readline()
                assert "admin listening on" in line, line
                admin[name] = line.rsplit(" ", 1)[1].strip()
            wait_for(lambda: lease(engine, f"tournament:{tid}") is not None, 30, "MTT taken")
            found = lease(engine, f"tournament:{tid}")
            assert found is not None
            other = "b" if found[0] == "a" else "a"
            wire = Wire(admin[other])
            wire.ok("staff_login", name="dora", password=PASSWORD)
            delayed = wire.ok("tournament_delay", tournament_id=tid, minutes=5, reason="smoke")
            assert isinstance(delayed["audit_id"], int)
            assert delayed["starts_at_ms"] == (start + 300) * 1000
            refused = wire.call("tournament_pause", tournament_id=tid, reason="x")
            assert refused["type"] == "error" and refused["code"] == "not_allowed"  # the owner's
            shown = wire.ok("tournament_show", tournament_id=tid)
            assert shown["status"] == "registering" and shown["in_memory"] is True
            with engine.connect() as conn:
                rows = conn.execute(
                    sa.select(audit.c.staff, audit.c.action, audit.c.target).order_by(audit.c.id)
                ).all()
            assert [tuple(r) for r in rows][-1:] == [("dora", "tournament_delay", tid)]

            # tournament_create on a cluster writes the row only: the node that takes its lease
            # opens it, so one actor at most runs it (never one outside the lease as well)
            soon = round(time.time()) + 12
            made = wire.ok(
                "tournament_create", template="slow", starts_at_ms=soon * 1000, buy_in=100,
                fee=10, name="staffmade", reason="extra",
            )  # fmt: skip
            new_tid = made["tournament_id"]
            assert new_tid == f"staffmade-{soon}" and isinstance(made["audit_id"], int)
            wait_for(lambda: lease(engine, f"tournament:{new_tid}") is not None, 30, "taken")
            owner = lease(engine, f"tournament:{new_tid}")
            again = wire.call(
                "tournament_create", template="slow", starts_at_ms=soon * 1000, buy_in=100,
                fee=10, name="staffmade", reason="twice",
            )  # fmt: skip
            assert again["code"] == "tournament_exists", again  # its row is there (any node's)
            wait_for(lambda: time.time() > soon + 4, 30, "past its start")
            ended = [  # no entrant: its one actor cancels it at the start (T-1)
                name
                for name in ("a", "b")
                for line in (tmp_path / f"{name}.log").read_text().splitlines()
                if new_tid in line and '"tournament_cancelled"' in line
            ]
            assert owner is not None and ended == [owner[0]], ended
            # T-18's staff resume would build an actor outside the lease: refused on a cluster
            resumed = wire.call(
                "tournament_outage", tournament_id=new_tid, choice="resume", reason="x"
            )
            assert resumed["code"] == "not_allowed", resumed
            assert "cannot be resumed on a cluster" in resumed["message"], resumed
        finally:
            for proc in procs:
                stop(proc)
            engine.dispose()
