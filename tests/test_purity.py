"""ARCHITECTURE rule 1: the engine and the tournament director do no I/O, read no clock and
use no global random generator (their imports are parsed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PURE_CORES = ["pokerroom/engine", "tournaments/director"]
FORBIDDEN = {
    "twisted", "sqlalchemy", "structlog", "time", "random", "datetime", "os", "socket", "asyncio",
}  # fmt: skip


def imported_modules(path: Path) -> list[str]:
    """Every module a Python file imports, by its full dotted name."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("core", PURE_CORES)
def test_pure_core_imports_no_io_clock_or_global_random(core: str) -> None:
    """Neither core imports I/O, clock or global-random modules (FORBIDDEN)."""
    files = sorted((REPO / core).glob("*.py"))
    assert files
    for path in files:
        for name in imported_modules(path):
            assert name.split(".")[0] not in FORBIDDEN, f"{core}/{path.name} imports {name}"
