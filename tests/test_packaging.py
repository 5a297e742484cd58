"""The package an operator installs: every module and data file is in it, and a built wheel
installed into a fresh virtualenv runs the room from an empty folder (init, db upgrade, serve on
loopback with deposits off, jobs list, a simulated tournament, check-config)."""

from __future__ import annotations

import fnmatch
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

from tests.serving import listening_line

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_package_list_names_every_package_and_the_two_mapped_folders() -> None:
    """`packages` is listed by hand (config/ and migrations/ ship under pokerroom.*): a new
    sub-package left off the list would be missing from the wheel."""
    found = find_packages(str(ROOT), include=["pokerroom", "pokerroom.*"])
    found += find_packages(str(ROOT), include=["tournaments", "tournaments.*"])
    mapped = SETUPTOOLS["package-dir"]
    assert mapped == {"pokerroom.defaults": "config", "pokerroom.migrations": "migrations"}
    for folder in mapped.values():
        assert (ROOT / folder / "__init__.py").is_file()
    assert sorted(SETUPTOOLS["packages"]) == sorted({*found, *mapped})


def test_package_data_covers_every_shipped_config_and_migration() -> None:
    """Every TOML of config/ (room, structures, schedule) and every migration is package data."""
    for package, folder, suffixes in (
        ("pokerroom.defaults", "config", (".toml",)),
        ("pokerroom.migrations", "migrations", (".mako", ".py")),
    ):
        patterns = SETUPTOOLS["package-data"][package]
        base = ROOT / folder
        for path in base.rglob("*"):
            relative = path.relative_to(base).as_posix()
            if path.suffix not in suffixes or "__pycache__" in relative:
                continue
            if path.suffix == ".py" and "/" not in relative:
                continue  # the package's own modules (env.py, __init__.py) ship as modules
            assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative


# -- the built wheel, installed elsewhere ------------------------------------------------------
def _run(args: list[str | Path], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a command; its output is kept for the assertion messages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POKERROOM_DB")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _outside_address() -> str | None:
    """An address of this machine that is not loopback (None if it has none)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent; the route picks the address
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv (no system packages) with the wheel built from a copy of the checkout
    installed; pip resolves the dependencies from the configured index (PyPI or a local mirror)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"  # a copy: building in the checkout would leave build/ behind
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", "*.sqlite*"
        ),
    )
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", base, source], base)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = base.glob("pokerroom-*.whl")
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", venv], base)
    assert made.returncode == 0, made.stderr
    pip = _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], base, timeout=600)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    return venv


@pytest.mark.slow
def test_the_installed_wheel_runs_a_safe_room_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    pokerroom = installed / "bin" / "pokerroom"
    folder = tmp_path / "room"
    folder.mkdir()
    where = _run(
        [installed / "bin" / "python", "-c", "import pokerroom; print(pokerroom.__file__)"], folder
    )
    assert where.stdout.startswith(str(installed)), where.stdout  # not the checkout's

    init = _run([pokerroom, "init"], folder)
    assert init.returncode == 0, init.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["room.toml", "schedule.toml"]
    again = _run([pokerroom, "init"], folder)
    assert again.returncode == 2 and again.stderr.count("\n") == 1

    url = f"sqlite:///{folder / 'room.sqlite'}"
    upgraded = _run([pokerroom, "db", "upgrade", "--db", url], folder)
    assert upgraded.returncode == 0, upgraded.stderr[-2000:]

    args = [pokerroom, "serve", "--config", "room.toml", "--db", url, "--port", "0"]
    args += ["--admin-endpoint", "tcp:0:interface=127.0.0.1"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with (tmp_path / "serve.log").open("w") as log:
        server = subprocess.Popen(
            [str(a) for a in args], cwd=folder, env=env, stdout=subprocess.PIPE, stderr=log,
            text=True,
        )  # fmt: skip
    watchdog = threading.Timer(120, server.kill)  # a server that never says it listens
    watchdog.start()
    try:
        assert server.stdout is not None
        line = listening_line(server.stdout)
        assert line.startswith("pokerroom listening on "), (tmp_path / "serve.log").read_text()
        host, port = line.split()[-1].rsplit(":", 1)
        assert host == "127.0.0.1"  # the shipped default: loopback only
        outside = _outside_address()
        if outside is not None:
            with pytest.raises(OSError):
                socket.create_connection((outside, int(port)), timeout=5).close()

        from tests.server.test_end_to_end import Wire

        client = Wire(int(port))
        try:
            client.ok("hello", version=1, client="desktop")
            client.ok("register", name="ann", password="password 1")
            refused = client.call("deposit", amount=1_000, key="k")
            assert refused.get("code") == "deposits_disabled", refused
        finally:
            client.sock.close()

        jobs = _run([pokerroom, "jobs", "list", "--db", url], folder)
        assert jobs.returncode == 0, jobs.stdout + jobs.stderr
        simulated = _run([pokerroom, "tournament", "simulate", "--entries", "50"], folder)
        assert simulated.returncode == 0, simulated.stdout[-2000:] + simulated.stderr[-2000:]

        (folder / "broken.toml").write_text(
            (folder / "schedule.toml").read_text().replace("guarantee = 0", "guarante = 0")
        )
        checked = _run(
            [pokerroom, "check-config", "--config", "room.toml", "--schedule", "broken.toml"],
            folder,
        )
        assert checked.returncode == 1
        (problem,) = checked.stdout.splitlines()  # exactly one line
        assert problem.startswith("broken.toml: [[mtt]]") and "guarante: unknown key" in problem

        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        watchdog.cancel()
        if server.poll() is None:
            server.kill()
            server.wait()
