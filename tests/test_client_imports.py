"""The server never imports the desktop client: no module outside pokerroom/client imports
pokerroom.client, PySide6 or qasync (their imports are parsed), so `pip install .` without the
`client` extra runs the room."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_purity import imported_modules

REPO = Path(__file__).resolve().parents[1]
CLIENT_ONLY = ("pokerroom.client", "PySide6", "shiboken6", "qasync")


def client_imports(source: str, package: str) -> list[str]:
    """The imports of a source file that only the client may make."""
    return [
        name
        for name in imported_modules(source, package)
        if any(name == bad or name.startswith(bad + ".") for bad in CLIENT_ONLY)
    ]


def server_files() -> list[Path]:
    """Every Python file of the server's packages, the client's folder left out."""
    files = [*(REPO / "pokerroom").rglob("*.py"), *(REPO / "tournaments").rglob("*.py")]
    return sorted(p for p in files if (REPO / "pokerroom" / "client") not in p.parents)


def test_no_server_module_imports_the_client_or_qt() -> None:
    files = server_files()
    assert len(files) > 50 and not any(
        "client" in p.parts[-2:-1] for p in files if p.parent.name == "client"
    )
    for path in files:
        package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
        assert client_imports(path.read_text(), package) == [], path


def test_the_client_is_found_and_does_import_qt() -> None:
    """The check looks where the client is: its own modules do import PySide6."""
    client = sorted((REPO / "pokerroom" / "client").rglob("*.py"))
    assert any(client_imports(p.read_text(), "pokerroom.client") for p in client)


@pytest.mark.parametrize(
    ("source", "package"),
    [
        ("import PySide6", "pokerroom.server"),
        ("from PySide6.QtCore import QObject", "pokerroom.cli"),
        ("from pokerroom.client.app import main", "pokerroom.cli"),
        ("from pokerroom import client", "pokerroom.cli"),
        ("from ..client import net", "pokerroom.server"),
        ("import qasync", "tournaments"),
    ],
)
def test_the_checker_catches_each_way_of_importing_the_client(source: str, package: str) -> None:
    assert client_imports(source, package)


@pytest.mark.parametrize("module", ["framing", "table_model", "lobby_model", "tournament_model"])
def test_the_client_s_protocol_state_is_plain_python(module: str) -> None:
    """The models are fed by frames and tested without Qt: they import no Qt (nor asyncio)."""
    source = (REPO / "pokerroom" / "client" / f"{module}.py").read_text()
    names = imported_modules(source, "pokerroom.client")
    assert not [n for n in names if n.split(".")[0] in ("PySide6", "shiboken6", "asyncio")]
    assert not [
        n for n in names if n.startswith(("pokerroom.client.net", "pokerroom.client.widgets"))
    ]
