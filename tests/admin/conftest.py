"""The server tests' fixtures: a SQLite ledger at head, its service, the thread pump, a clock."""

from tests.server.conftest import clock, engine, ledger, reactor

__all__ = ["clock", "engine", "ledger", "reactor"]
