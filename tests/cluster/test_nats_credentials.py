"""A cluster's NATS with credentials (docs/OPERATIONS.md, "Running a cluster": every client of
the room's NATS is trusted as a node, so NATS must require them). A node connects with the
user and password in its URL (`--cluster`, or `POKERROOM_CLUSTER` to keep them out of the
process list); without them, or with wrong ones, it is refused and `serve` stops with one line,
exit 1; no log line or error shows the password or a token."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from pokerroom.cluster.bus import Bus
from pokerroom.cluster.config import shown
from tests.cluster.loop import run
from tests.cluster.natsproc import NatsServer, require_nats
from tests.postgres import fresh_pg_schema
from tests.serving import CLI, ROOM_HEAD, migrate, stop

SECRET = "s3cret-Pa55"


@pytest.fixture(scope="module")
def guarded() -> Iterator[NatsServer]:
    """A nats-server that requires the user `room` with the password SECRET."""
    server = NatsServer(require_nats(), extra=("--user", "room", "--pass", SECRET))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def with_login(server: NatsServer, password: str = SECRET) -> str:
    """The server's URL with the user `room` and `password`."""
    return server.url.replace("nats://", f"nats://room:{password}@")


@pytest.mark.parametrize(
    ("url", "seen"),
    [
        ("nats://room:pw@10.0.0.5:4222", "nats://***@10.0.0.5:4222"),
        ("tls://T0KEN@nats.example:4222", "tls://***@nats.example:4222"),
        ("nats://10.0.0.5:4222", "nats://10.0.0.5:4222"),
        ("nats://h:4222/path@x", "nats://h:4222/path@x"),  # an @ past the host is no login
        ("nats://room:p@ss@h:4222", "nats://***@h:4222"),  # an @ in the password
        ("room:pw@10.0.0.5:4222", "***@10.0.0.5:4222"),  # no scheme: refused, shown so
    ],
)
def test_a_url_is_shown_without_its_credentials(url: str, seen: str) -> None:
    assert shown(url) == seen


def test_a_node_with_the_password_connects_and_logs_none_of_it(
    loop: asyncio.AbstractEventLoop, guarded: NatsServer
) -> None:
    bus = Bus(with_login(guarded), name="a", loop=loop, connect_seconds=2.0)
    run(loop, bus.connect(), seconds=15.0)
    assert bus.connected
    assert run(loop, bus.flush()) is None
    assert bus.shown_servers == [f"nats://***@127.0.0.1:{guarded.port}"]  # what it logs
    run(loop, bus.close())  # (a real node's log and summary: the serve tests below)


@pytest.mark.parametrize("login", ["none", "wrong"])
def test_a_node_without_the_password_is_refused_and_the_error_shows_none(
    loop: asyncio.AbstractEventLoop, guarded: NatsServer, login: str
) -> None:
    url = guarded.url if login == "none" else with_login(guarded, "wrong-" + SECRET)
    bus = Bus(url, name="x", loop=loop, connect_seconds=0.5, connect_attempts=1)
    with capture_logs() as logs, pytest.raises(ConnectionError) as refused:
        run(loop, bus.connect(), seconds=15.0)
    assert str(refused.value) == (
        f"cannot reach NATS at {shown(url)} (2 tries): nats: 'Authorization Violation'"
    )
    assert "wrong-" not in str(refused.value) and SECRET not in str(refused.value)
    assert SECRET not in repr(logs)
    assert not bus.connected


@pytest.mark.slow
@pytest.mark.postgresql
def test_serve_takes_the_url_from_the_environment_and_refused_says_one_line(
    tmp_path: Path, guarded: NatsServer
) -> None:
    """`POKERROOM_CLUSTER` with a wrong password: `serve` stops, exit 1, one line that names
    the server without the password; nothing on stdout or stderr shows it."""
    with fresh_pg_schema("cluster_creds") as url:
        migrate(url)
        (tmp_path / "room.toml").write_text(ROOM_HEAD)
        env = {**os.environ, "POKERROOM_CLUSTER": with_login(guarded, "wrong-" + SECRET)}
        args = ["serve", "--db", url, "--port", "0", "--config", str(tmp_path / "room.toml")]
        done = subprocess.run(
            [*CLI, *args, "--node", "x"], capture_output=True, text=True, timeout=90, env=env
        )
    assert done.returncode == 1, done.stderr
    assert "wrong-" not in done.stdout + done.stderr and SECRET not in done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if "cannot reach NATS" in line]
    assert len(lines) == 1 and lines[0].startswith("pokerroom: could not start: "), done.stderr
    assert f"nats://***@127.0.0.1:{guarded.port} (4 tries)" in lines[0], lines
    assert lines[0].endswith("nats: 'Authorization Violation'"), lines  # why, not "no servers"
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.postgresql
def test_serve_with_the_password_runs_and_its_summary_shows_none(
    tmp_path: Path, guarded: NatsServer
) -> None:
    """The right password in `POKERROOM_CLUSTER`: the node starts, its summary names the
    server as `nats://***@HOST:PORT`, and neither its output nor its log shows the password."""
    with fresh_pg_schema("cluster_creds_ok") as url:
        migrate(url)
        (tmp_path / "room.toml").write_text(ROOM_HEAD)
        env = {**os.environ, "POKERROOM_CLUSTER": with_login(guarded)}
        args = ["serve", "--db", url, "--port", "0", "--config", str(tmp_path / "room.toml")]
        log = tmp_path / "node.log"
        with log.open("w") as err:
            proc = subprocess.Popen(
                [*CLI, *args, "--node", "n1"],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env=env,
            )
        try:
            assert proc.stdout is not None
            summary = []
            for line in proc.stdout:
                summary.append(line)
                if "listening on" in line:
                    break
        finally:
            stop(proc)
    shown_lines = "".join(summary)
    assert f"cluster:  node n1 on nats://***@127.0.0.1:{guarded.port}" in shown_lines, shown_lines
    assert SECRET not in shown_lines + log.read_text()
