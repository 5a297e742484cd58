"""Cluster fixtures: a migrated PostgreSQL schema, a `nats-server` of the test's own (or the
module's) on a free port, and a fresh asyncio loop (docs/design/cluster.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from pokerroom.ledger import make_engine
from tests.cluster.loop import fresh_loop
from tests.cluster.natsproc import NatsServer, running_nats
from tests.postgres import fresh_pg_schema
from tests.serving import migrate


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


@pytest.fixture
def nats_url() -> Iterator[str]:
    """A `nats-server` of this test's own on a free loopback port; its URL."""
    with running_nats() as server:
        yield server.url


@pytest.fixture(scope="module")
def nats_server() -> Iterator[NatsServer]:
    """One `nats-server` for the module's tests (a test that restarts it starts its own)."""
    with running_nats() as server:
        yield server


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh asyncio loop per test (the bus's tests drive it: tests/cluster/loop.py)."""
    with fresh_loop() as new:
        yield new
