"""Fixtures of the history tests: the server tests' ledger, reactor and clock."""

from tests.server.conftest import clock, engine, ledger, reactor  # noqa: F401
