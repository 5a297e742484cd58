"""`pokerroom-client` without Qt: one line naming the extra and exit 69, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pokerroom.client import launch

HIDE_QT = (
    "import sys; sys.modules['PySide6'] = None; "
    "from pokerroom.client.launch import main; sys.exit(main(['--help']))"
)


def test_without_pyside6_one_line_names_the_extra_and_exits_69() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HIDE_QT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == launch.EXIT_NO_QT == 69
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "pokerroom-client: cannot start the desktop client: "
        "pip install 'pokerroom[client]' (docs/CLIENT.md)"
    ]
    assert done.stdout == ""


def test_a_missing_system_library_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PySide6 installed but libEGL missing: the loader's own words, not the pip hint."""
    import builtins

    real_import = builtins.__import__

    def failing(name: str, *args: object, **kwargs: object) -> object:
        if name == "pokerroom.client.app":
            raise ImportError("libEGL.so.1: cannot open shared object file")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", failing)
    assert launch.main([]) == 69
    err = capsys.readouterr().err
    assert "libEGL.so.1" in err and "pip install" not in err and err.count("\n") == 1


def test_with_qt_the_client_s_help_runs() -> None:
    """The launcher hands over to the real client when Qt loads (argparse's --help exits 0)."""
    pytest.importorskip("PySide6")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pokerroom.client.launch import main; sys.exit(main(['--help']))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "pokerroom-client" in done.stdout
