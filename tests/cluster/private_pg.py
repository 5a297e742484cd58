"""A private PostgreSQL server for one test, which the test may restart (the machine's shared
server is never touched: other tests use it).

`initdb` into a fresh folder owned by the `postgres` user (initdb refuses root: as root every
program runs under `runuser -u postgres --`), `pg_ctl start` on a free loopback port with its
socket in that folder, `createdb test`. Without initdb the test skips, or fails when CI
requires PostgreSQL (POKERROOM_REQUIRE_PG=1).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cluster.natsproc import free_port


def pg_bin() -> Path | None:
    """The folder of `initdb` and `pg_ctl` (the newest installed), if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


class PrivatePostgres:
    """One PostgreSQL cluster in a temporary folder, on `port`."""

    def __init__(self, bindir: Path, folder: Path) -> None:
        self.bindir = bindir
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            entry = pwd.getpwnam("postgres")
            os.chown(folder, entry.pw_uid, entry.pw_gid)

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of its `test` database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/test"

    def _run(self, program: str, *args: str, timeout: float = 120) -> None:
        done = subprocess.run(
            [*self.as_user, str(self.bindir / program), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.folder,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} {' '.join(args)}: {done.stderr.strip()}")

    def init(self) -> None:
        """initdb (trust, no fsync: a test's data), start, create the `test` database."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "test")

    def _options(self) -> str:
        return f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"

    def start(self) -> None:
        """Start it and wait until it accepts connections."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "pg.log"),
            "-o", self._options(), "-w", "-t", "60", "start",
        )  # fmt: skip

    def restart(self) -> None:
        """Stop it fast (open connections cut, transactions rolled back), start it again."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "pg.log"),
            "-o", self._options(), "-m", "fast", "-w", "-t", "60", "restart",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop it (immediate: the test is over)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started private PostgreSQL with an empty `test` database; removed afterwards."""
    bindir = pg_bin()
    if bindir is None:
        if os.environ.get("POKERROOM_REQUIRE_PG") == "1":
            pytest.fail("initdb is required (POKERROOM_REQUIRE_PG=1) but not installed")
        pytest.skip("initdb is not installed: no private PostgreSQL to restart")
    folder = Path(tempfile.mkdtemp(prefix="pokerroom-pg-"))
    server = PrivatePostgres(bindir, folder)
    try:
        server.init()
        yield server
    finally:
        with contextlib.suppress(RuntimeError):  # never started, or already gone
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
