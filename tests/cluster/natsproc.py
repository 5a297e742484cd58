"""A real `nats-server` for the cluster tests: started on a free loopback port, stopped and
started again on the same port (a NATS restart during play), killed at the end.

Without `nats-server` a test skips, or fails when CI requires it (POKERROOM_REQUIRE_NATS=1,
set by .ci/run, as POKERROOM_REQUIRE_PG does for PostgreSQL).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def nats_binary() -> str | None:
    """The `nats-server` program, if this machine has one."""
    found = shutil.which("nats-server")
    if found is None and os.access("/usr/sbin/nats-server", os.X_OK):
        found = "/usr/sbin/nats-server"
    return found


def require_nats() -> str:
    """The program, or skip (fail under POKERROOM_REQUIRE_NATS=1) when it is missing."""
    binary = nats_binary()
    if binary is None:
        if os.environ.get("POKERROOM_REQUIRE_NATS") == "1":
            pytest.fail("nats-server is required (POKERROOM_REQUIRE_NATS=1) but not installed")
        pytest.skip("nats-server is not installed")
    return binary


def free_port() -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


class NatsServer:
    """One `nats-server` process on a fixed port, which a test may stop and start again."""

    def __init__(self, binary: str, port: int | None = None, extra: tuple[str, ...] = ()) -> None:
        self.binary = binary
        self.port = free_port() if port is None else port
        self.extra = extra  # more of nats-server's options (`--user`, `--pass`: credentials)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Where clients connect."""
        return f"nats://127.0.0.1:{self.port}"

    def start(self, deadline_seconds: float = 10.0) -> None:
        """Start it and wait (polling, with a deadline) until it accepts connections."""
        self.proc = subprocess.Popen(
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port), *self.extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + deadline_seconds
        while not _listening(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nats-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL) and wait until it is gone."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextmanager
def running_nats() -> Iterator[NatsServer]:
    """A started `nats-server` (a module's fixture wraps it), stopped at the end."""
    server = NatsServer(require_nats())
    server.start()
    try:
        yield server
    finally:
        server.stop()
