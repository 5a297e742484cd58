"""docs/ARCHITECTURE.md rule 1: the engine, the tournament director and the casino core do no I/O,
read no clock, use no global random generator and reach into no shell package (their imports are
parsed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PURE_CORES = ["pokerroom/engine", "tournaments/director", "pokerroom/casino/core"]
FORBIDDEN = (
    "pokerroom.ledger", "pokerroom.cash", "pokerroom.protocol", "pokerroom.server",
    "pokerroom.chat", "pokerroom.cli", "twisted", "sqlalchemy", "structlog", "time", "random",
    "datetime", "os", "socket", "asyncio", "threading", "subprocess",
    "pokerroom.casino.settings", "pokerroom.resources",
)  # fmt: skip


def imported_modules(source: str, package: str) -> list[str]:
    """Every module a file of `package` imports, by full dotted path (relative ones resolved).

    `from a import b` yields both `a` and `a.b`, since `b` may be a module.
    """
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(node, package)
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
    return names


def absolute_module(node: ast.ImportFrom, package: str) -> str:
    """The full dotted module a `from ... import` of a file of `package` names (relative ones
    resolved against the package)."""
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        parent = ".".join(parts[: len(parts) - node.level + 1])
        base = f"{parent}.{base}" if base else parent
    return base


def forbidden_imports(source: str, package: str) -> list[str]:
    """The imports of a source file that FORBIDDEN rules out, matched by full module path."""
    return [
        name
        for name in imported_modules(source, package)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    ]


@pytest.mark.parametrize("core", PURE_CORES)
def test_pure_core_imports_no_io_clock_or_global_random(core: str) -> None:
    """No core (nor any subfolder of it) imports a FORBIDDEN module."""
    files = sorted((REPO / core).rglob("*.py"))
    assert files
    for path in files:
        package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
        assert forbidden_imports(path.read_text(), package) == [], path


@pytest.mark.parametrize(
    "source",
    [
        "import random",
        "import twisted.internet.reactor",
        "from twisted.internet import task",
        "from pokerroom import ledger",
        "from pokerroom.cash.actor import TableActor",
        "from ..ledger import transfers",
        "from ..server import lobby",
        "import time as clock",
        "from sqlalchemy.engine import Engine",
    ],
)
def test_checker_catches_each_way_of_importing_a_forbidden_module(source: str) -> None:
    """The checker matches full paths, `from x import y` and relative imports alike."""
    assert forbidden_imports(source, "pokerroom.engine")


@pytest.mark.parametrize(
    "source",
    [
        "import randomness_helpers",
        "from pokerroom.engine.cards import FULL_DECK",
        "from pokerroom.errors import CodedError",
        "from .pots import Pot",
        "import timeit_free_module",
    ],
)
def test_checker_allows_pure_imports_that_share_a_prefix(source: str) -> None:
    """A module whose name merely starts with a forbidden word is not refused."""
    assert forbidden_imports(source, "pokerroom.engine") == []
