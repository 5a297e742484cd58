"""`pokerroom bots` and `pokerroom demo` always end, over real TCP: bots started the moment a
fresh `pokerroom serve` opens its port, ten times in a row, each run exits 0 within its limit;
the demo exits 0 and leaves no temporary folder (after Ctrl-C neither)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.serving import CLI, ROOM_HEAD, migrated_sqlite

pytestmark = pytest.mark.slow

#: Its own config: deposits on (the shipped file has them off), cheap hashes, NL tables that
#: deal at once (hands are fast: 300 of them take seconds), no staff endpoint, no tournaments.
CONFIG = (
    ROOM_HEAD
    + """[tables.nl-a]
variant = "NT"
between_hands_seconds = 0.0
[tables.nl-b]
variant = "NT"
max_seats = 9
between_hands_seconds = 0.0
[tables.nl-c]
variant = "NT"
small_blind = 5
big_blind = 10
min_buy_in = 200
max_buy_in = 1000
between_hands_seconds = 0.0
"""
)
RUNS = 10
TIME_LIMIT = 60  # the bots' --timeout; they stand up then and the run ends with exit 0
WITHIN = TIME_LIMIT + 30  # the run's limit: the time limit, the 20 s grace, start-up


def free_port() -> int:
    """A port nobody listens on (the server gets it next)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, server: subprocess.Popen[bytes], limit: float = 30.0) -> None:
    """Return the moment the port takes a connection (long before the room is ready)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server ended"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)  # polling for a condition with a deadline, not a fixed delay
    raise TimeoutError(f"port {port} never opened")


def test_bots_started_as_the_port_opens_end_with_exit_0_ten_times(tmp_path: Path) -> None:
    """12 bots, 300 hands each, against a fresh room the moment its port opens: late bots find
    busted tables, move or leave; every run ends by itself, exit 0, within its limit."""
    (tmp_path / "room.toml").write_text(CONFIG)
    for run in range(RUNS):
        url = migrated_sqlite(tmp_path, f"room{run}.sqlite")
        port = free_port()
        serve = ["serve", "--db", url, "--port", str(port), "--schedule", ""]
        log = (tmp_path / f"server{run}.log").open("w")
        server = subprocess.Popen(
            [*CLI, *serve, "--config", str(tmp_path / "room.toml")],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        log.close()
        try:
            wait_for_port(port, server)
            started = time.monotonic()
            args = ["bots", "--port", str(port), "--count", "12", "--hands", "300"]
            args += ["--timeout", str(TIME_LIMIT), "--idle-seconds", "2", "--seed", str(run)]
            done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=WITHIN)
            took = time.monotonic() - started
        finally:
            server.terminate()
            server.wait(timeout=30)
        out = done.stdout + done.stderr
        assert done.returncode == 0, f"run {run}: {out}"
        assert took < WITHIN, f"run {run} took {took:.1f} s"
        assert "0 protocol errors, 0 leaks" in done.stdout, out
        assert "unfinished" not in out, out


def demo_env(tmp_path: Path) -> dict[str, str]:
    """The demo's temporary folders go into tmp_path/tmp, to be counted."""
    (tmp_path / "tmp").mkdir()
    return {**os.environ, "TMPDIR": str(tmp_path / "tmp")}


def test_the_demo_ends_with_exit_0_and_removes_its_temporary_folder(tmp_path: Path) -> None:
    """One demo run: exit 0 well within a minute, every hand printed, no folder left."""
    env = demo_env(tmp_path)
    started = time.monotonic()
    done = subprocess.run(
        [*CLI, "demo", "--hands", "4"], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - started < 60
    assert "0 protocol errors, 0 leaks" in done.stdout
    assert "demo database: " + str(tmp_path / "tmp") in done.stdout
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_demo_removes_its_temporary_folder_after_ctrl_c(tmp_path: Path) -> None:
    """SIGINT while the bots play: the demo stops and its folder is gone."""
    env = demo_env(tmp_path)
    demo = subprocess.Popen(
        [*CLI, "demo", "--hands", "100000", "--timeout", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert demo.stdout is not None
    try:
        for line in demo.stdout:
            if line.startswith("server on"):
                break
        assert next((tmp_path / "tmp").iterdir()).name.startswith("pokerroom-demo-")
        demo.send_signal(signal.SIGINT)
        demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 1  # interrupted: not a clean run
    assert list((tmp_path / "tmp").iterdir()) == []
