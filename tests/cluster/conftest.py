"""Cluster fixtures: a migrated PostgreSQL schema, and a `nats-server` of the test's own on a
free port (docs/design/cluster.md)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine
from tests.postgres import fresh_pg_schema
from tests.serving import migrate

NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL schema migrated to head (one per test module)."""
    with fresh_pg_schema("cluster") as url:
        yield migrate(url)


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    """An engine on the module's migrated schema."""
    engine = make_engine(pg_url)
    yield engine
    engine.dispose()


def free_port() -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def nats_url() -> Iterator[str]:
    """A `nats-server` of this test's own on a free loopback port; its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [NATS_SERVER, "-a", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("nats-server did not start")
            time.sleep(0.05)
    yield f"nats://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)
